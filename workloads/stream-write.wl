# One async write that may arrive at any moment of a stream of 48 async
# sequential reads (no gate): how long can the write wait? At most the rest
# of the read batch it arrives in (fifo_batch - 1) plus writes_starved more
# batches: fifo_batch x (writes_starved + 1) - 1 dispatches (47 for 16x2).
device depth=1 slot=1 spindles=1
proc reader dir=R sync=0 stream=48 start=0 stride=1
proc writer dir=W sync=0 reqs=100
track writer
