# Seed 004's outlier (workloads/cfq-deep-stale.wl) scaled so that its
# mechanism stays and an exhaustive search finishes: `early` keeps its four
# strictly seeky requests (CFQ marks a queue deep once it holds 4), late0
# and late1 keep one request each (so they are never marked deep, as
# deep-fix-v2's newcomers on a device judged fast). The same array (8
# requests served at once, one tick each), the same offsets; late0 and
# late1 start 10 ticks after early. docs/seed004.md has the results.
device depth=8 slot=1 spindles=8 rotational=1 service=1 seek=0
proc early dir=R sync=0 cyclic=1 reqs=0,16,32,48
proc late0 dir=R sync=0 cyclic=1 delay=10 reqs=96
proc late1 dir=R sync=0 cyclic=1 delay=10 reqs=192
track early:0
fair early late0
