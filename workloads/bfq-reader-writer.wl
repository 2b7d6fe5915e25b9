# Seed 003 (Mel Gorman): one random reader (psync, 1 tick of think time)
# against one sequential async writer on a rotational disk that does not
# queue. How much of the contested service does the reader get?
device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=2
proc reader dir=R sync=1 think=1 reqs=0,60,20,90
proc writer dir=W sync=0 stream=6 start=150 stride=1
fair reader writer
