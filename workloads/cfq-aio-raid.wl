# Seed 000/004's aio-stress on a 4-disk RAID-0 with 1 ms think time, scaled
# down: three aio instances (CFQ sync queues, 4 requests in flight each,
# one per file, strictly seeky, deep) on an array that serves 8 requests at
# once, one tick each (faster than a jiffy per request, the patch's "fast"
# at HZ=250); think=1 between an instance's submissions.
device depth=8 slot=1 spindles=8 rotational=1 service=1 seek=0
proc aio0 dir=R sync=0 cyclic=1 think=1 reqs=0,16,32,48
proc aio1 dir=R sync=0 cyclic=1 think=1 reqs=96,112,128,144
proc aio2 dir=R sync=0 cyclic=1 think=1 reqs=192,208,224,240
