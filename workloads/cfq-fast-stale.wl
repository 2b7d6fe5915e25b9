# Seed 004's concern 2 (samples never expire), scaled down: on a 4-disk
# RAID-0 an aio submitter (4 strictly seeky requests at once) drains its
# batches faster than one request per tick: fast samples, the device is
# judged fast. Then the workload changes: a psync reader (one request at a
# time, strictly seeky) measures the device slow, sample after sample.
device depth=4 slot=1 spindles=4 rotational=1 service=1 seek=0
proc aio dir=R sync=0 reqs=0,16,32,48,64,80,96,112,0,16,32,48,64,80,96,112,0,16,32,48
proc reader dir=R sync=1 cyclic=1 delay=20 reqs=128,144,160,176
