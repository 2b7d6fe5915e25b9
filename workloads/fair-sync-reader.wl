# A sync reader (psync, one request in flight) against an async writer that
# keeps eight writes queued: the shape of BFQ's "one reader against one
# writer" fairness reports, here under mq-deadline.
device depth=1 slot=1 spindles=1
proc reader dir=R sync=1 reqs=0,1,2,3
proc writer dir=W sync=0 stream=8 start=100 stride=1
fair reader writer
