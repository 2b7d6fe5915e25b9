# Seed 004's outlier (workloads/cfq-deep-stale.wl) scaled one step past
# deep-stale-4-1-1.wl: late0 gets a second request (so it can hold two at
# once), early keeps its four and late1 its one. The same array and
# offsets; late0 and late1 start 10 ticks after early. Its control graph
# finishes (17.3M states under deep-fix-v2); docs/seed004.md has what the
# path-measure search answers on it.
device depth=8 slot=1 spindles=8 rotational=1 service=1 seek=0
proc early dir=R sync=0 cyclic=1 reqs=0,16,32,48
proc late0 dir=R sync=0 cyclic=1 delay=10 reqs=96,112
proc late1 dir=R sync=0 cyclic=1 delay=10 reqs=192
track early:0
fair early late0
