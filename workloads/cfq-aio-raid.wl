# Seed 000/004's aio-stress on a 4-disk RAID-0 with 1 ms think time, scaled
# down: two aio instances (CFQ sync queues, 4 requests in flight each, one
# per file, strictly seeky, deep), think=1 between submissions; four
# spindles serve at once.
device depth=4 slot=1 spindles=4 rotational=1 service=1 seek=0
proc aio0 dir=R sync=0 cyclic=1 think=1 reqs=0,16,32,48
proc aio1 dir=R sync=0 cyclic=1 think=1 reqs=128,144,160,176
fair aio0 aio1
