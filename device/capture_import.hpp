// device/capture_import: a capture (device/capture.hpp) made into a
// workload file (.wl, model/sched/workload.hpp) that check, simulate and
// device run take.
//
// Requests are followed from their queue event (or their insert, where the
// capture has no queue events) to their completion, matched by sector,
// length and direction. What the workload keeps of them:
//   processes  one `proc` per submitting pid (named after its comm), in the
//              order they first submit; sync=1 for a process that never had
//              two requests in flight (it waits for each completion),
//              req_sync=1 for async writes flagged S, prio from the ioprio
//              where the trace carries it (tracefs since 6.10);
//   requests   in submission order, reads and writes only (flushes alone
//              and discards are dropped and counted);
//   sectors    renumbered small: the order of start sectors is kept,
//              requests that touched stay touching, a request inside
//              another stays inside, and the gaps between the others are
//              scaled and capped so that everything fits sectors 0..255;
//   time       one tick is the median issue-to-complete time in the window:
//              each process's delay (its first submission) and think time
//              (the median gap: completion to submission for a sync
//              process, submission to submission for an async one), both
//              capped at the workload's limits;
//   device     depth: the most requests in flight at once (issued, not
//              completed), capped at 16; spindles = depth where requests
//              completed out of issue order, else 1;
//   track      the request with the longest queue-to-complete time in the
//              window (or --track NAME[:I]); fair: the two processes with
//              the most requests;
//   observed   each request's own queue-to-complete time in ticks, which
//              simulate shows beside the latencies of its run.
// A capture is far larger than an exhaustive search takes: a window (a time
// or request range), a set of processes and a request count cut it down.
// The file's header comments say what was kept and what was dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/capture.hpp"

namespace blkmc::device {

struct ImportOptions {
  // --window: FROM..TO in seconds from the first event ("0.5s..2s",
  // "100ms..", "..3s"), or a request range by submission order ("10..40",
  // from 0, TO excluded). Empty: the whole capture.
  std::string window;
  std::vector<std::string> procs;  // comm or pid of the processes to keep; empty: all
  int max_requests = 16;           // the first N requests of the window
  std::string track;               // NAME[:INDEX]; empty: the longest wait
  bool rotational = false;         // the device line's rotational=1 seek=4
};

struct Imported {
  std::string text;  // the .wl file
  std::size_t events = 0, requests = 0, kept = 0, procs = 0, kept_procs = 0;
  std::uint64_t tick_ns = 0;
};

// Throws UsageError (naming the capture) when nothing is left to import or
// an option is malformed.
Imported import_workload(const Capture& cap, const ImportOptions& opt);

}  // namespace blkmc::device
