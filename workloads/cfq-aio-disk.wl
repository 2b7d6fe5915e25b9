# Seed 000/004's aio-stress on a single HDD, scaled down: two instances,
# each an aio O_DIRECT submitter (CFQ sync queue) keeping 4 requests in
# flight, one per file (-i 1: every request goes to the next of its 4
# files, 4 sectors apart: each request is seeky with seek_thr=2), so each
# queue is strictly seeky and, with 4 queued, deep. The two instances'
# files lie far apart: a seek between instances costs the full 15 ticks.
device depth=4 slot=1 spindles=1 rotational=1 service=1 seek=15
proc aio0 dir=R sync=0 cyclic=1 reqs=0,4,8,12
proc aio1 dir=R sync=0 cyclic=1 reqs=128,132,136,140
fair aio0 aio1
