# The gated write-starvation run of real-devices.md: four blocker writes take
# the four driver tags, a fifth (the park) waits on hctx->dispatch and leaves
# latest_pos[WRITE] past the write; then one write and 48 async reads enter
# mq-deadline before its first decision. The kernel dispatched the write after
# exactly fifo_batch x writes_starved reads.
device depth=4 slot=1 spindles=1
proc blocker dir=W sync=0 reqs=200,201,202,203,204
gate
proc writer dir=W sync=0 reqs=100
proc reader dir=R sync=0 stream=48 start=0 stride=1
track writer
