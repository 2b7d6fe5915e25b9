// device/replay_io: one gated run of a request plan on the stack's DUT.
//
// One thread per process, all pinned to CPU 0, each with its own
// submission engine (device/io_engine: libaio by default, or io_uring),
// O_DIRECT file descriptor and ioprio (ioprio_set for the thread, and the
// request's own ioprio in the iocb or sqe). Async processes
// submit every request in order without waiting; sync processes wait for
// each completion before the next submission.
//
// Gated run (plan.gated): freeze the ext4 under the DUT's backing file; the
// processes above the gate submit (their writes take the driver tags and
// hang, one more waits on hctx->dispatch); after `settle_ms` the processes
// below the gate are released together; once each has submitted what it can
// without a completion (everything when async, its first request when sync)
// and `settle_ms` passed, the ext4 is thawed. The kernel's events of the
// run come from the tracefs instance.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/loop.hpp"
#include "device/plan.hpp"
#include "device/tracefs.hpp"

namespace blkmc::device {

struct RunOptions {
  std::string scheduler = "mq-deadline";
  std::vector<std::pair<std::string, int>> tunables;  // written to queue/iosched/
  int settle_ms = 30;
  int timeout_ms = 10000;  // per process, for its completions
  std::string engine = "libaio";  // or io_uring
  // The scheduler's limit_depth (app/registry.hpp Offers): the share of
  // nr_requests, in sixteenths, async requests and writes may take, and
  // what to say when it held a gated request back.
  int async_depth_16ths = 16;
  std::string depth_limit;
};

struct RunData {
  std::vector<std::int64_t> submit_us;  // per request id, CLOCK_MONOTONIC; -1: not submitted
  std::vector<int> result;              // per request id: bytes transferred or -errno
  std::string trace_text;               // the tracefs buffer after the run
  double seconds = 0;
};

// Sets the queue up for a run once: depth, nomerges=2, wbt_lat_usec=0,
// rq_affinity=2.
void prepare_queue(Stack& st, const Plan& plan);
void prepare_queue(Stack& st, int depth);  // the same for `depth` driver tags
// The gate could not form: with the device frozen, the kernel did not let
// every gated request into the scheduler (what it held back, and which limit).
struct GateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One run: a fresh scheduler, its tunables, the gated submission, the trace.
// Throws Interrupted on SIGINT/SIGTERM (after thawing and joining), GateError
// when the gated requests do not all get into the scheduler.
RunData run_once(Stack& st, TraceInstance& tr, const Plan& plan, const RunOptions& opt);

}  // namespace blkmc::device
