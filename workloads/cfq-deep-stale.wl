# Seed 004's outlier, scaled down: on a 4-disk RAID-0, `early` starts
# alone, queues 4 strictly seeky requests (deep) and produces the device's
# fast samples; `late` starts after the device is judged fast, so with
# deep-fix-v2 it is never marked deep while early keeps its stale flag.
device depth=4 slot=1 spindles=4 rotational=1 service=2 seek=4
proc early dir=R sync=0 cyclic=1 reqs=0,16,32,48
proc late dir=R sync=0 cyclic=1 delay=12 reqs=128,144,160,176
track late:0
fair early late
