# Seed 004's outlier, scaled down: an array that serves 8 requests at once
# (RAID-0 behind a controller, one tick per request: faster than a jiffy
# per request, as the patch assumes at HZ=250). `early` starts alone,
# queues 4 strictly seeky requests (deep) and produces the device's fast
# samples; late0 and late1 start 10 ticks later. With deep-fix-v2, when the
# device was judged fast before they queued 4 requests, they are never
# marked deep, while early keeps its stale flag (SYNC tree, idled on alone).
device depth=8 slot=1 spindles=8 rotational=1 service=1 seek=0
proc early dir=R sync=0 cyclic=1 reqs=0,16,32,48
proc late0 dir=R sync=0 cyclic=1 delay=10 reqs=96,112,128,144
proc late1 dir=R sync=0 cyclic=1 delay=10 reqs=192,208,224,240
track early:0
fair early late0
