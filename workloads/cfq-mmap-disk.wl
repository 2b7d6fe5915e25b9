# Seed 001's brrmmap/drrmmap, scaled down: three threads doing mmap reads
# of 64K (8 contiguous sectors, one in flight: psync), then a far jump to
# another region of their file: one long seek in eight requests. 2.6.33's
# seek mean calls that seeky (no idling); the seek history of seeky-rework
# and 3.1 (one bit in eight) does not, so CFQ idles on each thread.
# Single SATA disk.
device depth=4 slot=1 spindles=1 rotational=1 service=1 seek=8
proc t0 dir=R sync=1 cyclic=1 reqs=0,1,2,3,4,5,6,7,96,97,98,99,100,101,102,103
proc t1 dir=R sync=1 cyclic=1 reqs=32,33,34,35,36,37,38,39,160,161,162,163,164,165,166,167
proc t2 dir=R sync=1 cyclic=1 reqs=64,65,66,67,68,69,70,71,224,225,226,227,228,229,230,231
