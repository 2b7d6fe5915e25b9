# Seed 002's fear, "this patch may exacerbate the risk of expire": the sweep
# runs above an older read (high), the read arrives (old), then a burst below
# it (low). When nothing is left at/after latest_pos, v6.18 restarts at the
# fifo head (the old read); deadline_head_request restarts at the lowest
# sector and sweeps up through the burst first. Needs clock=1.
device depth=1 slot=1 spindles=1 service=1
proc high dir=R sync=0 reqs=20,21,22
proc old dir=R sync=0 delay=1 reqs=8
proc low dir=R sync=0 delay=2 reqs=0,1,2,3,4,5
track old
