# Seed 004's outlier (workloads/cfq-deep-stale.wl) scaled to one request a
# process: the same array (8 requests served at once, one tick each), the
# same three processes and offsets, so that an exhaustive fair-ratio search
# finishes. `early` starts alone; late0 and late1 start 10 ticks later.
device depth=8 slot=1 spindles=8 rotational=1 service=1 seek=0
proc early dir=R sync=0 cyclic=1 reqs=0
proc late0 dir=R sync=0 cyclic=1 delay=10 reqs=96
proc late1 dir=R sync=0 cyclic=1 delay=10 reqs=192
track early:0
fair early late0
