// model/sched/workload: the I/O workloads the scheduler models run.
//
// A workload is a small text file: a device line, processes (actors) with a
// finite or cyclic list of requests, an optional gate and the request whose
// wait the properties track. blkmc ships its workloads compiled in
// (workloads/*.wl, chosen by the `workload=N` or `workload=NAME` parameter)
// and reads a user's own from a file (`workload=my.wl`, `--workload my.wl`).
//
//   # first comment lines: the summary
//   device depth=4 slot=1 spindles=1 rotational=0 service=1 seek=0 requeue=0
//   proc blocker dir=W reqs=200,201,202,203,204
//   gate
//   proc writer dir=W sync=0 prio=be:4 reqs=100
//   proc reader dir=R sync=0 stream=48 start=0 stride=1 size=1
//   track writer:0
//   fair reader writer
//
// proc options: dir=R|W (default R), sync=0|1 (0: async, submits without
// waiting; 1: waits for the completion of its previous request), prio=
// rt|be|idle|none[:LEVEL] (ioprio class and level; none maps to BE as in
// the kernel), think=T (ticks between a completion (sync) or a submission
// (async) and the next submission), delay=T (ticks before the first
// submission; think and delay need clock=1), cyclic=0|1 (restart the list forever),
// head=1 (inserted at head: passthrough blk_execute_rq(at_head), requeues),
// bypass=1 (blk_mq_request_bypass_insert: straight to hctx->dispatch, never
// through the scheduler), req_sync=1 (its writes carry REQ_SYNC although it
// does not wait, as O_DIRECT writes do: BFQ and CFQ give it a sync queue;
// reads are always sync), and either reqs=ENTRY,... with ENTRY =
// [R|W]SECTOR[:SIZE] or stream=N start=S stride=K size=Z.
// gate: the processes above it are submitted and dispatched first while the
// device is frozen (no completions); those below may submit only when none
// of the first group's requests is left in the scheduler; the device thaws
// when every process below the gate has submitted everything (the FIFREEZE
// gate of real-devices.md). track NAME[:INDEX]: the request whose wait the
// max-wait, max-wait-ticks, max-expired-wait and starvation properties
// measure. fair A B: the two processes whose service the fair-ratio
// property compares. observed NAME T,T,-,...: the latency of each of NAME's
// requests in the capture the workload was imported from (ticks, queued to
// completed; - where it did not complete), which `simulate` shows beside
// its own (blkmc workload import writes these lines).
#pragma once

#include <string>
#include <vector>

namespace blkmc::sched {

inline constexpr int kMaxRqs = 64;
inline constexpr int kMaxProcs = 12;
inline constexpr int kMaxSector = 255;

enum Dir : int { READ = 0, WRITE = 1 };
// mq-deadline's enum dd_prio order; IOPRIO_CLASS_NONE maps to BE.
enum Prio : int { RT = 0, BE = 1, IDLE = 2 };

struct DeviceSpec {
  int depth = 4;     // driver tags (hw queue depth)
  bool slot = true;  // blk-mq pulls one request onto hctx->dispatch when no tag is free
  int spindles = 1;  // requests served at once, in dispatch order (1: FIFO completion)
  bool rotational = false;
  int service = 1;  // ticks per request (with clock=1)
  int seek = 0;     // most extra ticks a rotational device spends seeking
  int requeue = 0;  // the driver may requeue this many requests in all
  // Service time in ticks of a request at `sector` after the head was left
  // at `head` (the end of the previously issued request): a rotational
  // device adds one tick per sector of seek distance, up to `seek`.
  int service_ticks(int sector, int head) const {
    const int dist = sector > head ? sector - head : head - sector;
    return service + (rotational ? (dist < seek ? dist : seek) : 0);
  }
};

struct WlProc {
  std::string name;
  int dir = READ;  // default direction of its entries
  bool sync = false, cyclic = false, head = false, bypass = false;
  bool req_sync = false;  // REQ_SYNC on its writes without waiting (O_DIRECT)
  int prio = BE, level = 4, think = 0, delay = 0;
  bool pre_gate = false;     // listed above the gate line
  int first = 0, count = 0;  // its requests: ids first .. first+count-1
};

struct WlRequest {
  int proc = 0, index = 0;
  int dir = READ, sector = 0, size = 1;
};

struct Workload {
  std::string name, summary;
  DeviceSpec dev;
  std::vector<WlProc> procs;
  std::vector<WlRequest> rqs;
  bool gate = false;
  int track = -1;  // request id, -1: none
  int fair[2] = {-1, -1};  // the two processes the fair-ratio property compares
  // Per request, its latency in the capture the workload was imported from
  // (ticks, queued to completed; -1 not seen complete); empty: none. Only
  // reports read it: it is no part of any model's state.
  std::vector<int> observed;
  bool has_fair() const { return fair[0] >= 0; }
  bool any_cyclic() const;
  // Whether process p has a request in direction dir (entries may differ
  // from the process's default `dir`).
  bool proc_has(int p, int dir) const {
    const WlProc& pr = procs[std::size_t(p)];
    for (int r = pr.first; r < pr.first + pr.count; ++r)
      if (rqs[std::size_t(r)].dir == dir) return true;
    return false;
  }
};

// Throws UsageError("workload NAME line N: ...") on bad input.
Workload parse_workload(const std::string& text, const std::string& name);

struct ShippedWorkload {
  const char* name;  // file name without .wl
  const char* text;
};
// workloads/*.wl in the order of CMakeLists.txt (index = workload=N).
const std::vector<ShippedWorkload>& shipped_workloads();
// The parsed shipped workload N (throws UsageError when out of range).
const Workload& shipped_workload(int n);

// Every workload this process can name, numbered as the `workload=N`
// parameter: the shipped ones (0..S-1), then those added at run time from a
// user's file or a trace's text (S, S+1, ...), in the order added. Adding
// happens while the command line and traces are read, before any search
// starts; the registry is locked all the same.
int workload_count();
const Workload& workload_at(int n);        // throws UsageError when unknown
const std::string& workload_text(int n);   // the .wl text
bool workload_added(int n);                // from a file or a trace, not shipped
// Parses `text` (errors name `where`, e.g. "workload my.wl line 3: ...") and
// adds it under `name`; a text already known (shipped or added) keeps its
// number. Returns the number.
int add_workload(const std::string& name, const std::string& text, const std::string& where);
// `-p workload=ARG` when ARG is neither a number nor a shipped name: a .wl
// file (at most 1 MiB), or the name of one added before; its number.
int load_workload(const std::string& arg);
// A shipped name, a number, a file or an added name: its number.
int find_workload(const std::string& arg);

}  // namespace blkmc::sched
