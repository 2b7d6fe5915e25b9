# Seed 003 patch 2/2's case, small: two psync random readers (one request in
# flight each, 1 tick of think time) on a flash device that does not queue
# (depth 1, non-rotational). Does BFQ idle on a reader while the other waits?
device depth=1 slot=1 spindles=1 rotational=0 service=1
proc r1 dir=R sync=1 think=1 reqs=0,50,20,90
proc r2 dir=R sync=1 think=1 reqs=130,180,150,220
track r2:2
