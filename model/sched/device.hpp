// model/sched/device: the block device below the scheduler, as blk-mq sees it.
//
// - depth driver tags: a request issued to the driver holds one until it
//   completes (blk_mq_get_driver_tag / blk_mq_put_driver_tag).
// - hctx->dispatch: when blk_mq_do_dispatch_sched() pulls a request out of
//   the scheduler and no driver tag is free, the request is parked on
//   hctx->dispatch; while that list is not empty, blk-mq issues from it and
//   does not call the scheduler again. So exactly one request sits between
//   scheduler and driver (measured on 6.18, real-devices.md). slot=0 models a
//   driver whose dispatch budget stops blk-mq from calling the scheduler
//   without a free tag. Bypass inserts (blk_mq_request_bypass_insert) and
//   the park go to the same list.
// - spindles: the first `spindles` requests in the driver (in issue order)
//   are served at once; with clock=1 each needs service_ticks() ticks
//   (service, plus on a rotational device one tick per sector between the
//   head and the request's start, at most seek) before it may complete;
//   completion order among the ones in service is free. The device may
//   instead requeue a request (blk_mq_requeue_request) while its requeue
//   budget lasts.
// The device spec itself lives in the workload (model/sched/workload.hpp).
#pragma once

#include "model/sched/workload.hpp"
