# A flush that bypasses the scheduler (blk_mq_request_bypass_insert) but is
# finished through it (.finish_request), a BE reader, and an IDLE-class
# reader that waits for the BE level to drain.
device depth=1 slot=1 spindles=1
proc flush dir=W sync=1 bypass=1 reqs=0
proc be dir=R sync=1 prio=be reqs=1
proc idle dir=R sync=1 prio=idle reqs=10
track idle
