# Seed 003's fio "single random reader and a single random writer" for blkmc
# simulate: a psync random reader (think 1 tick) against an async writer,
# cyclic, on a rotational disk that does not queue.
device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=2
proc reader dir=R sync=1 think=1 cyclic=1 reqs=0,60,20,90,35,70,5,50
proc writer dir=W sync=0 cyclic=1 reqs=150,190,160,230,170,210,155,245
fair reader writer
