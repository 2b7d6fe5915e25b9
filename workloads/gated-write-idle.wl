# The gated write-starvation run with one more request: an IDLE-class read.
# With two priority levels queued, dd_dispatch_prio_aged_requests runs before
# every dispatch; its BE pass decides WRITE (starved = 0, last_dir = WRITE),
# finds the write younger than prio_aging_expire and returns NULL; the normal
# pass then finds nothing at/after latest_pos[WRITE] (the park left it past
# the write) and decides READ again. writes_starved no longer bounds the wait.
# Predicted by the model (max-wait 48) and seen on 6.18.44 (loop device, gate,
# depth 4, one ioprio-idle read): the write was issued 49th, after all 48
# reads, for 16x2 (3 runs), 4x2 and 1x0, and 33rd, 9th, 1st without the read.
device depth=4 slot=1 spindles=1
proc blocker dir=W sync=0 reqs=200,201,202,203,204
gate
proc idle dir=R sync=0 prio=idle reqs=150
proc writer dir=W sync=0 reqs=100
proc reader dir=R sync=0 stream=48 start=0 stride=1
track writer
