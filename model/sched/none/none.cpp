#include "model/sched/none/none.hpp"

#include <fmt/format.h>

namespace blkmc::sched {

const std::vector<VariantInfo>& NoneScheduler::variants() {
  static const std::vector<VariantInfo> v{
      {"v6.18", "v6.18", "no elevator: requests leave the software queues in arrival order",
       "block/blk-mq.c (blk_mq_insert_request, blk_mq_flush_busy_ctxs)"},
  };
  return v;
}

const char* NoneScheduler::summary() {
  return "no I/O scheduler (`none`): arrival order, over a workload and a blk-mq device";
}

NoneScheduler::NoneScheduler(int variant, const Params&, const RqTable& t) : t_(t) {
  if (variant != 0) throw UsageError("none: bad variant index");
}

void NoneScheduler::insert(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const {
  at_head = at_head || requeue;  // blk_mq_requeue_work: BLK_MQ_INSERT_AT_HEAD
  t_.set_flag(s, rq, kInserted, true);
  t_.set_status(s, rq, at_head ? St::SchedHead : St::Sched);
  t_.set_age(s, rq, 0);
  if (why)
    *why += fmt::format("blk_mq_insert_request: {} at the {} of the software queue", t_.name(rq),
                        at_head ? "head" : "tail");
}

int NoneScheduler::dispatch(SchedState& s, Why* why) const {
  int best = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.status(s, r) == St::SchedHead && (best < 0 || t_.seq(s, r) > t_.seq(s, best))) best = r;
  if (best < 0)
    for (int r = 0; r < t_.size(); ++r)
      if (t_.status(s, r) == St::Sched && (best < 0 || t_.seq(s, r) < t_.seq(s, best))) best = r;
  if (best >= 0) {
    t_.set_status(s, best, St::Idle);
    if (why) *why += fmt::format("oldest in the software queue: {}", t_.name(best));
  }
  return best;
}

bool NoneScheduler::has_work(const SchedState& s) const {
  for (int r = 0; r < t_.size(); ++r)
    if (t_.queued(s, r)) return true;
  return false;
}

}  // namespace blkmc::sched
