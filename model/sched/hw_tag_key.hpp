// model/sched/hw_tag_key: a hw_tag detector's state as the key stores it
// (the abstraction layer, model/sched/sched_abstraction.hpp), shared by BFQ
// (bfq_update_hw_tag) and CFQ (cfq_update_hw_tag). Both keep a running
// maximum of the requests in the driver and a sample count, and at a
// completion that qualifies as a sample, once the count has reached
// `samples` (BFQ's hw_samples, CFQ's hw_tag_samples), decide hw_tag from
// whether the maximum reaches a threshold (`reach`: BFQ's hw_queue_thr + 1,
// CFQ's hw_queue_min). The key merges what no later step tells apart:
//   - the maximum is read only against `reach`, and max(m, n) reaches it
//     exactly when m or n does: every maximum below it is stored as 0 and
//     every other as `reach`;
//   - a hw_tag of 1 stays 1, and both functions return before reading the
//     maximum or the count again: both stored as 0;
//   - a hw_tag of 0 is decided again at every later round. On a device whose
//     driver can never hold `reach` requests (`peak_bound`: what the
//     scheduler counts in the driver at most) every such decision gives 0
//     again, whatever the count: both stored as 0;
//   - each completion is one sample at most, so with count n and k
//     completions still to come a decision needs n + k > samples. Where no
//     decision can come (a finite workload near its end, or one with fewer
//     requests than samples, such as every BFQ v6.12 row: 32 samples),
//     hw_tag keeps its value and neither the count nor the maximum is read
//     again: both stored as 0.
// At hw_tag -1 (and 0 where the driver can reach) the count is kept
// otherwise: it says when hw_tag changes, which the decisions read.
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "model/schema.hpp"
#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

struct HwTagDetector {
  int samples;     // the count a sample must have reached to decide
  int reach;       // the maximum decides 1 from here on
  int peak_bound;  // the most requests the scheduler can count in the driver
};

// Whether every process is finite (no cyclic one): then the requests not
// yet done bound the samples to come.
inline bool finite_workload(const Workload& wl) {
  for (const WlProc& p : wl.procs)
    if (p.cyclic) return false;
  return true;
}

// The completions still to come: every request not done; no bound where a
// process is cyclic (its requests come back).
template <class S>
int completions_left(const RqTable& t, const S& s) {
  if (!finite_workload(t.workload())) return INT_MAX / 2;
  int n = 0;
  for (int r = 0; r < t.size(); ++r) n += t.status(s, r) != St::Done;
  return n;
}

template <class S>
void key_hw_tag_detector(S& s, const RqTable& t, int hw_tag, const ByteVar& samples, const ByteVar& peak,
                         const HwTagDetector& d) {
  // Every key passes here: the requests are counted only where the cheaper
  // tests leave the detector live.
  if (hw_tag == 1 || (hw_tag == 0 && d.peak_bound < d.reach) ||
      samples.get(s) + completions_left(t, s) <= d.samples) {
    samples.set(s, 0);
    peak.set(s, 0);
    return;
  }
  peak.set(s, peak.get(s) >= d.reach ? d.reach : 0);
}

// The abstractions() line for a detector: `peak` names its maximum, read as
// `relation threshold`.
inline std::string hw_tag_key_text(const char* peak, const char* relation, int threshold, const HwTagDetector& d,
                                   bool finite) {
  std::string out = fmt::format("{}: whether {} {}; hw_tag's samples: none once hw_tag = 1", peak, relation, threshold);
  if (d.peak_bound < d.reach) out += fmt::format(" or 0 (the driver holds at most {}, so hw_tag stays 0)", d.peak_bound);
  if (finite) out += fmt::format(", or once fewer requests are left than samples to a decision ({})", d.samples);
  return out;
}

}  // namespace blkmc::sched
