// device/plan: what `blkmc device run` submits, derived from a workload.
//
// A workload (model/sched/workload.hpp) becomes a request plan: one real
// request per workload request, at byte offset SECTOR x 4 KiB, SIZE x 4 KiB
// long, read or written with O_DIRECT by one thread per process (the
// process's ioprio class and level, async or sync). The kernel's tracepoints
// name a request by its start sector (512-byte units): SECTOR x 8.
//
// The gate (real-devices.md): the processes above the workload's `gate` line
// are submitted first while the filesystem under the device's backing file
// is frozen, so that they take every driver tag and the hctx->dispatch slot;
// then the processes below it are released together. A workload without a
// gate whose processes are all async gets one: a process `blocker` of
// depth + 1 writes at free sectors, listed first, so the model sees the same
// stack as the kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/params.hpp"
#include "model/sched/workload.hpp"

namespace blkmc::device {

inline constexpr std::uint64_t kUnitBytes = 4096;  // one model sector
inline constexpr int kMinDepth = 4;                 // smallest nr_requests of a blk-mq device

struct PlanRq {
  int id = 0, proc = 0, index = 0, dir = 0;
  std::uint64_t offset = 0, sector = 0;  // bytes; 512-byte sectors (tracepoint units)
  std::uint32_t bytes = 0;
};

struct PlanProc {
  std::string name;
  bool sync = false, pre_gate = false;
  int ioprio_class = 2, ioprio_level = 4;  // IOPRIO_CLASS_RT=1, BE=2, IDLE=3
  std::vector<int> rqs;                    // request ids in submission order
};

struct Plan {
  sched::Workload wl;  // the workload the model runs (with the synthetic gate, if any)
  std::vector<PlanProc> procs;
  std::vector<PlanRq> rqs;
  bool gated = false, synthetic_gate = false;
  int depth = kMinDepth;           // driver tags (nr_requests under `none`)
  std::uint64_t file_bytes = 0;    // size of the device's backing file
  std::vector<std::string> notes;  // what differs from the workload as written
};

// Throws UsageError for what a real run cannot reproduce (at-head or bypass
// inserts, requeues, cyclic processes).
Plan make_plan(const std::string& workload_text, const std::string& name);

// The ioprio value of a process (IOPRIO_PRIO_VALUE(class, level)).
int ioprio_value(const PlanProc& p);

// The request whose start sector (512-byte units) and direction are these,
// not yet in `taken`, the first in plan order; -1 when none.
int find_request(const Plan& plan, std::uint64_t sector, int dir, const std::vector<bool>& taken);

// A TRACE (counterexample .json), a workload file (.wl) or a shipped
// workload name, with the scheduler it names (mq-deadline, bfq, none) and its
// model parameters.
struct Source {
  std::string name, text;     // the workload's name and text
  std::string scheduler;      // kernel scheduler name ("" when the source does not say)
  std::string model_variant;  // from a trace
  Params params;              // model parameters from a trace (tunables)
  nlohmann::json code;        // a trace of the kernel's own code: its source record (Trace::source)
};
Source load_source(const std::string& arg);  // throws UsageError

// "mq-deadline" -> "deadline", "bfq" -> "bfq", "none" -> "none"; throws UsageError.
std::string model_of_scheduler(const std::string& sched);
std::string scheduler_of_model(const std::string& model);

}  // namespace blkmc::device
