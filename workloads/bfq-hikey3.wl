# Seed 003's HiKey run with three psync random readers (think time 1 tick)
# on non-rotational flash that does not queue (depth 1), cyclic.
device depth=1 slot=1 spindles=1 rotational=0 service=1
proc r1 dir=R sync=1 think=1 cyclic=1 reqs=0,50,20,90,35,70,5,60
proc r2 dir=R sync=1 think=1 cyclic=1 reqs=130,180,150,220,140,200,160,240
proc r3 dir=R sync=1 think=1 cyclic=1 reqs=100,30,80,10,120,45,95,25
