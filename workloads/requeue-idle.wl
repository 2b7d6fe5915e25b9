# The driver requeues one request (blk_mq_requeue_request) of a BE reader; an
# IDLE-class reader waits for the BE level to drain (dd_queued(BE) == 0).
device depth=1 slot=1 spindles=1 requeue=1
proc be dir=R sync=1 prio=be reqs=0,1
proc idle dir=R sync=1 prio=idle reqs=10
track idle
