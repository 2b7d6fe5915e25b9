# A psync random reader on a rotational disk that may queue (depth 4, hw_tag
# unknown or 1) and a sequential reader: 4.13 clears the random reader's
# idle_window once it is seeky and has used an eighth of its budget; patch
# 1/2's has_short_ttime ignores seekiness (facts C2, D3).
device depth=4 slot=1 spindles=1 rotational=1 service=1 seek=2
proc rnd dir=R sync=1 reqs=0,60,20,90,35,70,5
proc seq dir=R sync=1 reqs=200,201
