# Seed 002's fear, "this patch may exacerbate the risk of expire": an old read
# in the middle of the disk while a sequential reader keeps the sweep going
# below and above it.
device depth=1 slot=1 spindles=1
proc old dir=R sync=0 reqs=8
proc seq dir=R sync=0 reqs=0,1,2,9,10,11
track old
