# Seed 000/004's aio-stress on a single HDD, scaled down: two instances,
# each an aio O_DIRECT submitter (CFQ sync queue) keeping 4 requests in
# flight, one per file (-i 1: every request goes to the next of its 4
# files), so each queue is strictly seeky and, with 4 queued, deep.
device depth=4 slot=1 spindles=1 rotational=1 service=1 seek=4
proc aio0 dir=R sync=0 cyclic=1 reqs=0,16,32,48
proc aio1 dir=R sync=0 cyclic=1 reqs=128,144,160,176
fair aio0 aio1
