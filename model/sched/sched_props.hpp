// model/sched/sched_props: the properties every scheduler model checks, generic
// over the scheduler (mq-deadline, none, BFQ, CFQ). They are
// ghost-checked by model/sched/sched_model.hpp:
//   conservation      (Invariant) the scheduler hands out only requests it
//                     holds, and its books (for mq-deadline dd_queued per
//                     priority: inserted - completed) equal the requests
//                     inserted into it and not completed: nothing lost or
//                     counted twice
//   deadlock, progress (every request can still complete)
//   max-wait, max-wait-ticks, max-expired-wait (Maximize) for the workload's
//                     tracked request: dispatches of other requests while it
//                     was queued, ticks it was queued, dispatches while it was
//                     queued past its deadline
//   starvation        (Starvation) the tracked request stays queued forever on
//                     a weakly fair cycle
//   fair-ratio        (Maximize) for the workload's `fair A B` pair: the
//                     service (sectors dispatched) each got at moments when
//                     the other also had a request waiting in the scheduler,
//                     as the ratio larger/smaller in percent (a process that
//                     got nothing counts as 1 sector), once the window holds
//                     fair_window sectors
#pragma once

#include <vector>

#include "model/model.hpp"

namespace blkmc {

enum SchedProp : int {
  kSchedConservation,
  kSchedDeadlock,
  kSchedProgress,
  kSchedMaxWait,
  kSchedMaxWaitTicks,
  kSchedMaxExpiredWait,
  kSchedStarvation,
  kSchedFairRatio,
};

inline std::vector<PropInfo> sched_props() {
  return {
      {"conservation", PropKind::Invariant,
       "every request the scheduler hands out is one it holds, and its books match the requests "
       "inserted and not completed (mq-deadline: dd_queued per priority; BFQ: busy queues)"},
      {"deadlock", PropKind::Deadlock, "some step is enabled until every request has completed"},
      {"progress", PropKind::Progress,
       "from every reachable state all requests can still complete (no request stuck forever)"},
      {"max-wait", PropKind::Maximize,
       "dispatches of other requests while the tracked request was queued in the scheduler"},
      {"max-wait-ticks", PropKind::Maximize, "ticks the tracked request was queued (clock=1)"},
      {"max-expired-wait", PropKind::Maximize,
       "dispatches of other requests while the tracked request was queued past its deadline"},
      {"starvation", PropKind::Starvation,
       "the tracked request stays queued forever on a weakly fair cycle (cyclic workloads)"},
      {"fair-ratio", PropKind::Maximize,
       "100 x the larger / the smaller service (sectors dispatched while the other process "
       "also had a request queued) of the workload's fair pair, once fair_window sectors"},
  };
}

}  // namespace blkmc
