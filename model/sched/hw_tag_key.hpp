// model/sched/hw_tag_key: a hw_tag detector's state as the key stores it
// (the abstraction layer, model/sched/sched_abstraction.hpp), shared by BFQ
// (bfq_update_hw_tag) and CFQ (cfq_update_hw_tag). Both keep a running
// maximum of the requests in the driver and a sample count, and decide
// hw_tag from whether the maximum reaches a threshold (`reach`: BFQ's
// hw_queue_thr + 1, CFQ's hw_queue_min). max(m, n) reaches it exactly when
// m or n does, so every maximum below it is stored as 0 and every other as
// `reach`. A hw_tag of 1 stays 1, and both functions return before reading
// the maximum or the count again, so both are stored as 0.
#pragma once

#include <cstdint>

#include "model/schema.hpp"

namespace blkmc::sched {

template <class S>
void key_hw_tag_detector(S& s, int hw_tag, const ByteVar& samples, const ByteVar& peak, int reach) {
  if (hw_tag == 1) {
    samples.set(s, 0);
    peak.set(s, 0);
    return;
  }
  peak.set(s, peak.get(s) >= reach ? reach : 0);
}

}  // namespace blkmc::sched
