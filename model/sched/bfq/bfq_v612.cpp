// model/sched/bfq/bfq_v612: what the v6.12 variant of the BFQ model adds
// (5.13+ as in 6.12, docs/models/bfq.md "The v6.12 variant"): queue
// creation with stable merging, B-WF2Q+'s next_in_service, lookup, idle
// tree and active-tree order as the kernel keeps them, the asymmetric
// scenario, 6.12's think time and injection. The rest of the variant is
// the `variant_ == V6_12` branches of bfq.cpp.
#include <algorithm>

#include <fmt/format.h>

#include "model/sched/bfq/bfq.hpp"
#include "model/sched/say.hpp"

namespace blkmc::sched {

// bfq_asymmetric_scenario (v6.12): the weights tree (queues with requests
// queued or in flight, not raised when they became busy) holds more than one
// weight and q's is not the smallest, or queues of two classes are busy.
bool BfqScheduler::asymmetric(const SchedState& s, int q, int except_rq) const {
  int lo = -1, hi = -1;
  bool q_in = false;
  for (int o = 0; o < nq_; ++o) {
    if (raised(s, o) || (!busy(s, o) && dispatched(s, o, except_rq) == 0)) continue;
    const int w = orig_weight(o);
    lo = lo < 0 ? w : std::min(lo, w);
    hi = std::max(hi, w);
    q_in = q_in || o == q;
  }
  const bool smallest = q_in && orig_weight(q) == lo;
  const bool varied = !smallest && lo >= 0 && lo != hi;
  int classes = 0;
  for (int c = RT; c <= IDLE; ++c) {
    bool any = false;
    for (int o = 0; o < nq_; ++o) any = any || (busy(s, o) && klass(o) == c);
    classes += any;
  }
  return varied || classes > 1;
}

// bfq_get_queue (v6.12), at a process's first request: an async process
// joins its class and level's shared queue (bfq_async_queue_prio); a sync
// one gets a new queue, which bfq_do_or_sched_stable_merge merges at once
// into bfqd->last_bfqq_created when that has the same class and level and
// the device is non-rotational with queueing (nonrot_with_queueing: hw_tag
// not yet 0); else the new queue becomes the last created. The creation
// times never matter here: a workload lasts less than the 180 ms burst
// interval, and on a rotational device the merge is only scheduled, for
// 600 ms later (bfq_late_stable_merging).
int BfqScheduler::bfq_create_queue(SchedState& s, int p, Why* why) const {
  const auto& procs = t_.workload().procs;
  auto same_prio = [&](int a, int b) { return klass(a) == klass(b) && procs[std::size_t(a)].level == procs[std::size_t(b)].level; };
  if (!sync(p)) {
    for (int o = 0; o < nq_; ++o)
      if (o != p && !sync(o) && same_prio(o, p) && queue_of_proc(s, o) >= 0) {
        bic_->set(s, p, queue_of_proc(s, o));
        say(why, "bfq_get_queue: {} joins the async queue bfqq[{}]", procs[std::size_t(p)].name,
            procs[std::size_t(queue_of_proc(s, o))].name);
        return queue_of_proc(s, o);
      }
    bic_->set(s, p, p);
    return p;
  }
  bic_->set(s, p, p);
  const int last = last_created_->get(s);
  const bool nonrot_with_queueing = !t_.workload().dev.rotational && hw_tag(s) != 0;
  if (last < 0 || !same_prio(last, p)) {
    last_created_->set(s, p);
    return p;
  }
  if (!nonrot_with_queueing) return p;  // a merge scheduled for 600 ms later
  bic_->set(s, p, last);
  say(why, "bfq_do_early_stable_merge: {}'s new queue merged into bfqq[{}]", procs[std::size_t(p)].name,
      procs[std::size_t(last)].name);
  return last;
}

// bfq_active_insert (v6.12): the queue goes after every queue already on
// the active tree, so among equal finishes the earlier insertion wins.
// The order is kept as ranks 1..n of the queues on the tree.
void BfqScheduler::tree_insert(SchedState& s, int q) const {
  if (order_) to_back(s, *order_, q);
}

// Queue q after every queue of an order kept as ranks (0: not in it).
void BfqScheduler::to_back(SchedState& s, const ByteVar& order, int q) const {
  int last = 0;
  for (int o = 0; o < nq_; ++o)
    if (o != q) last = std::max(last, order.get(s, o));
  order.set(s, q, last + 1);
}

// v6.12 keeps the kernel's timestamps whole: a queue off the trees keeps
// its start and finish (a backshifted activation reads its finish), and V
// never returns to 0. Only a common base is taken off V and every made
// queue's timestamps (their differences are all the kernel compares), and
// the active tree's order kept as ranks 1..n.
void BfqScheduler::rebase(SchedState& s) const {
  W base = vtime(s);
  for (int q = 0; q < nq_; ++q)
    if (made(s, q)) base = std::min({base, qb(s, q, kStart), qb(s, q, kFinish)});
  set_vtime(s, vtime(s) - base);
  for (int q = 0; q < nq_; ++q)
    if (made(s, q)) {
      set_qb(s, q, kStart, qb(s, q, kStart) - base);
      set_qb(s, q, kFinish, qb(s, q, kFinish) - base);
    }
  for (const ByteVar* v : {&*order_, &*active_}) {
    int old[kMaxProcs], n = 0;
    for (int q = 0; q < nq_; ++q) old[n++] = v->get(s, q);
    for (int q = 0; q < nq_; ++q) {
      if (old[q] == 0) continue;
      int rank = 1;
      for (int o = 0; o < nq_; ++o) rank += old[o] > 0 && old[o] < old[q];
      v->set(s, q, rank);
    }
  }
}

bool BfqScheduler::made(const SchedState& s, int q) const {
  for (int p = 0; p < nq_; ++p)
    if (queue_of_proc(s, p) == q) return true;
  return false;
}

// bfq_forget_idle (v6.12), after V moves: with no queue on the active tree
// (the in-service one is off it), V goes to the last idle finish if that is
// not ahead; the first idle queue leaves the idle tree once V reaches its
// finish.
void BfqScheduler::bfq_forget_idle(SchedState& s) const {
  if (variant_ != V6_12) return;
  int first = -1, last = -1;
  bool active = false;
  for (int q = 0; q < nq_; ++q) {
    active = active || (busy(s, q) && q != in_service(s));
    if (!qflag(s, q, kIdleTree)) continue;
    if (first < 0 || qb(s, q, kFinish) < qb(s, first, kFinish)) first = q;
    if (last < 0 || qb(s, q, kFinish) > qb(s, last, kFinish)) last = q;
  }
  if (!active && last >= 0 && qb(s, last, kFinish) <= vtime(s)) set_vtime(s, qb(s, last, kFinish));
  if (first >= 0 && qb(s, first, kFinish) <= vtime(s)) set_qflag(s, first, kIdleTree, false);
}

// bfq_set_in_service_queue -> bfq_lookup_next_entity: the highest class
// with a busy queue; V = max(V, smallest start); among the eligible queues
// (start <= V) the smallest finish.
// bfq_lookup_next_entity (v6.12): the highest class with a queue on the
// active tree (busy, not in service); its V would jump to their smallest
// start (and does, with no queue in service or at an expiration); among
// the queues eligible at the jumped V, the smallest finish, ties to the
// earlier insertion.
int BfqScheduler::bfq_lookup_next_entity(SchedState& s, bool keep_vtime) const {
  for (int cls = RT; cls <= IDLE; ++cls) {
    W minstart = -1;
    for (int q = 0; q < nq_; ++q)
      if (busy(s, q) && q != in_service(s) && klass(q) == cls && (minstart < 0 || qb(s, q, kStart) < minstart))
        minstart = qb(s, q, kStart);
    if (minstart < 0) continue;
    const W v = std::max(vtime(s), minstart);
    if (!keep_vtime && v > vtime(s)) {  // bfq_update_vtime
      set_vtime(s, v);
      bfq_forget_idle(s);
    }
    int best = -1;
    for (int q = 0; q < nq_; ++q) {
      if (!busy(s, q) || q == in_service(s) || klass(q) != cls || qb(s, q, kStart) > v) continue;
      if (best < 0 || qb(s, q, kFinish) < qb(s, best, kFinish) ||
          (qb(s, q, kFinish) == qb(s, best, kFinish) && tree_order(s, q) < tree_order(s, best)))
        best = q;
    }
    return best;
  }
  return -1;
}

// bfq_update_next_in_service (v6.12): a queue just (re)inserted becomes
// the next one without a lookup if there is none, or if it is of the same
// class, eligible and finishes earlier; otherwise a lookup decides.
void BfqScheduler::bfq_update_next_in_service(SchedState& s, int new_q, bool expiration) const {
  if (!next_) return;
  int next = next_->get(s);
  bool change = false;
  if (new_q >= 0 && new_q != next) {
    change = next < 0 || (klass(new_q) == klass(next) && qb(s, new_q, kStart) <= vtime(s) &&
                          qb(s, next, kFinish) > qb(s, new_q, kFinish));
    if (change) next = new_q;
  }
  if (!change) next = bfq_lookup_next_entity(s, in_service(s) >= 0 && !expiration);
  next_->set(s, next);
}

// 6.12's __bfq_insert_request samples the think time, updates
// has_short_ttime and the seek history before bfq_add_request.
// bfq_update_io_thinktime: only for a queue that is not busy with nothing
// in flight; the time since its last completion (a queue that never
// completed one counts from before its creation: the cap, 2 idle slices),
// in ns, slice_idle read in ms; samples and total decay by 7/8 in 256ths.
void BfqScheduler::bfq_update_io_thinktime_612(SchedState& s, int q) const {
  if (dispatched(s, q) > 0 || busy(s, q)) return;
  const W cap = 2 * W(slice_idle_) * 1000000;
  const W elapsed = qflag(s, q, kEnded) ? std::min<W>(qb(s, q, kSince) * 1000000, cap) : cap;
  const W n = (7 * tt_samples_->get(s, q) + 256) / 8;
  const W total = (7 * wide(s, *tt_total_, tt_total_hi_, q, 4) + 256 * elapsed) / 8;
  tt_samples_->set(s, q, int(n));
  set_wide(s, *tt_total_, tt_total_hi_, q, 4, total);
}

// bfq_choose_bfqq_for_injection (6.12): while fewer requests than the
// in-service queue's inject_limit are in the driver, the busy queue most
// recently made busy (bfqd->active_list) whose next request fits its
// budget, raised unless the in-service queue always lets others in.
int BfqScheduler::bfq_choose_bfqq_for_injection(const SchedState& s, int in) const {
  const bool always = !raised(s, in) || !qflag(s, in, kFlag);
  if (rq_in_driver(s) >= inject_limit_->get(s, in)) return -1;
  int best = -1;
  for (int q = 0; q < nq_; ++q) {
    const int next = next_rq(s, q);
    if (!busy(s, q) || next < 0 || !(always || raised(s, q)) || serv_to_charge(s, next) > budget_left(s, q)) continue;
    if (best < 0 || active_->get(s, q) > active_->get(s, best)) best = q;
  }
  return best;
}

// bfq_update_has_short_ttime (6.12): long once more than 80 samples (in
// 256ths) average above half an idle slice.
void BfqScheduler::bfq_update_has_short_ttime_612(SchedState& s, int q, Why* why) const {
  if (!sync(q) || klass(q) == IDLE || slice_idle_ == 0) return;
  const W n = tt_samples_->get(s, q);
  const W mean = n > 0 ? (wide(s, *tt_total_, tt_total_hi_, q, 4) + 128) / n : 0;
  const bool now = !(n > 80 && mean > W(slice_idle_) * 1000000 / 2);
  if (now != qflag(s, q, kFlag))
    say(why, "bfq_update_has_short_ttime: bfqq[{}] has_short_ttime {} (think time {} us)",
        t_.workload().procs[std::size_t(q)].name, now ? "set" : "cleared", mean / 1000);
  // bfq_reset_inject_limit on a change to long (to short only 100 ms after
  // the limit last fell: never without a clock): one injected request.
  if (!now && qflag(s, q, kFlag)) inject_limit_->set(s, q, 1);
  set_qflag(s, q, kFlag, now);
}

}  // namespace blkmc::sched
