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

// A queue exists while a process's bic, a request, the scheduler (in
// service, busy) or the idle tree holds it.
bool BfqScheduler::made(const SchedState& s, int q) const {
  if (process_refs(s, q) > 0 || busy(s, q) || q == in_service(s) || qflag(s, q, kIdleTree)) return true;
  for (int r = 0; r < t_.size(); ++r)
    if (rq_bfqq_ && rq_bfqq_->get(s, r) == q) return true;
  return false;
}

int BfqScheduler::process_refs(const SchedState& s, int q) const {
  int n = 0;
  for (int p = 0; p < nq_; ++p) n += queue_of_proc(s, p) == q;
  return n;
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
    if (first < 0 || qb(s, q, kFinish) < qb(s, first, kFinish) ||
        (qb(s, q, kFinish) == qb(s, first, kFinish) && tree_order(s, q) < tree_order(s, first)))
      first = q;
    if (last < 0 || qb(s, q, kFinish) > qb(s, last, kFinish)) last = q;
  }
  if (!active && last >= 0 && qb(s, last, kFinish) <= vtime(s)) set_vtime(s, qb(s, last, kFinish));
  if (first >= 0 && qb(s, first, kFinish) <= vtime(s)) {
    set_qflag(s, first, kIdleTree, false);
    order_->set(s, first, 0);
  }
}

// __bfq_deactivate_entity's end (v6.12): a queue whose finish is ahead of V
// goes on the idle tree, after the queues already there with its finish
// (bfq_idle_insert: st->first_idle changes only for a smaller finish), else
// it is forgotten.
void BfqScheduler::bfq_idle_insert(SchedState& s, int q) const {
  const bool idle = qb(s, q, kFinish) > vtime(s);
  set_qflag(s, q, kIdleTree, idle);
  if (idle) to_back(s, *order_, q);
  else order_->set(s, q, 0);
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

// --- queue merging (bfq_setup_cooperator), 6.12 ---
//
// On a rotational device, or one without queueing, a sync request may move
// its process to a queue doing close I/O: the in-service queue if the
// request lies within BFQQ_CLOSE_THR (8192 sectors) of where that queue's
// last dispatch ended, else the queue in the rq_pos_tree whose next request
// is nearest (bfqq_find_close). Not modelled: bfq_too_late_for_merging
// (100 ms after a queue's first I/O: never with clock=0; with clock=1 the
// model keeps no first_IO_time, docs/models/bfq.md) and splitting a shared
// queue that turned seeky (no queue is seeky here: BfqScheduler::seeky_as).

namespace {
// bfq_rq_close_to_sector: within BFQQ_CLOSE_THR (8192 sectors).
bool bfq_rq_close_to_sector(int pos, int sector) { return std::abs(pos - sector) <= 8 * 1024; }
}  // namespace

bool BfqScheduler::nonrot_with_queueing(const SchedState& s) const {
  return !t_.workload().dev.rotational && hw_tag(s) != 0;
}

int BfqScheduler::bfq_setup_cooperator(SchedState& s, int q, int rq, Why* why) const {
  if (new_bfqq_->get(s, q) >= 0) {  // a merge already set up: follow it
    int to = new_bfqq_->get(s, q);
    while (new_bfqq_->get(s, to) >= 0) to = new_bfqq_->get(s, to);
    return to;
  }
  // (A delayed stable merge is due 600 ms after creation: never here.)
  if (nonrot_with_queueing(s) || busy_queues(s) == 1) return -1;
  const int sector = t_.sector(rq), in = in_service(s);
  const auto& procs = t_.workload().procs;
  if (in >= 0 && in != q && bfq_rq_close_to_sector(sector, in_serv_last_pos_->get(s)) && bfq_may_be_close_cooperator(s, q, in)) {
    const int to = bfq_setup_merge(s, q, in);
    if (to >= 0) {
      say(why, "bfq_setup_cooperator: {} lies close to where the in-service bfqq[{}] ended: merge scheduled",
          t_.name(rq), procs[std::size_t(to)].name);
      return to;
    }
  }
  const int c = bfqq_find_close(s, sector);
  if (c < 0 || c == q || !bfq_may_be_close_cooperator(s, q, c)) return -1;
  const int to = bfq_setup_merge(s, q, c);
  if (to >= 0)
    say(why, "bfq_setup_cooperator: {} lies close to bfqq[{}]'s next request (rq_pos_tree): merge scheduled",
        t_.name(rq), procs[std::size_t(c)].name);
  return to;
}

bool BfqScheduler::bfq_may_be_close_cooperator(const SchedState& s, int q, int new_q) const {
  if (klass(q) == IDLE || klass(new_q) == IDLE || klass(q) != klass(new_q)) return false;
  if (seeky(s, q) || seeky(s, new_q)) return false;
  return sync(q) && sync(new_q);  // interleaved I/O is a matter of reads: no async merging
}

// bfq_setup_merge: q's process (and its later requests) will go to new_q,
// or to the end of new_q's own chain of scheduled merges.
int BfqScheduler::bfq_setup_merge(SchedState& s, int q, int new_q) const {
  if (process_refs(s, new_q) == 0) return -1;
  for (int next; (next = new_bfqq_->get(s, new_q)) >= 0; new_q = next)
    if (next == q) return -1;  // no circular chain
  if (process_refs(s, q) == 0 || process_refs(s, new_q) == 0) return -1;
  new_bfqq_->set(s, q, new_q);
  return new_q;
}

// bfqq_find_close: the queue whose next request starts at `sector`, else
// the one where the tree search ended if close, else its neighbour on the
// sector's side if close.
int BfqScheduler::bfqq_find_close(const SchedState& s, int sector) const {
  const PosTree tree = pos_tree(s);
  int parent = -1;
  const int exact = tree.lookup(sector, &parent);
  if (exact >= 0) return exact;
  if (parent < 0) return -1;
  if (bfq_rq_close_to_sector(tree.key(parent), sector)) return parent;
  const int other = tree.key(parent) < sector ? tree.next(parent) : tree.prev(parent);
  return other >= 0 && bfq_rq_close_to_sector(tree.key(other), sector) ? other : -1;
}

// bfq_merge_bfqqs: process p leaves q for q's new_bfqq, which takes q's
// IO_bound and weight raising; returns it.
int BfqScheduler::bfq_merge_bfqqs(SchedState& s, int p, int q, Why* why) const {
  const int to = new_bfqq_->get(s, q);
  if (qflag(s, q, kIOBound)) set_qflag(s, to, kIOBound, true);
  set_qflag(s, q, kIOBound, false);
  if (!raised(s, to) && raised(s, q)) set_qb(s, to, kWrLeft, qb(s, q, kWrLeft));
  set_qb(s, q, kWrLeft, 0);
  bic_->set(s, p, to);
  set_qflag(s, to, kCoop, true);
  if (last_created_->get(s) == q) last_created_->set(s, to);  // bfq_reassign_last_bfqq
  const auto& procs = t_.workload().procs;
  say(why, "bfq_merge_bfqqs: {} now issues to the shared bfqq[{}]", procs[std::size_t(p)].name,
      procs[std::size_t(to)].name);
  bfq_release_process_ref(s, q, why);
  return to;
}

// bfq_release_process_ref: a queue kept busy though empty (for its service
// guarantees) has no process to wait for any more.
void BfqScheduler::bfq_release_process_ref(SchedState& s, int q, Why* why) const {
  if (!busy(s, q) || queued(s, q) > 0 || q == in_service(s)) return;
  if (process_refs(s, q) > 0) return;
  bfq_del_bfqq_busy(s, q);
  say(why, "bfqq[{}] deactivated: no process left", t_.workload().procs[std::size_t(q)].name);
}

// bfq_del_bfqq_busy of a queue out of service: off the active tree, its
// finish kept (on the idle tree if ahead of V).
void BfqScheduler::bfq_del_bfqq_busy(SchedState& s, int q) const {
  set_qflag(s, q, kBusy, false);
  active_->set(s, q, 0);
  order_->set(s, q, 0);
  bfq_idle_insert(s, q);
  if (next_->get(s) == q) bfq_update_next_in_service(s, -1, false);
  normalize(s);
}

// bfq_updated_next_req: a queue waiting on the active tree whose next
// request changed gets the budget max(max_budget, its charge, the service
// it has had) and, if that differs, is requeued with its finish from it
// (its start kept; bfq_requeue_bfqq).
void BfqScheduler::bfq_updated_next_req(SchedState& s, int q, Why* why) const {
  const int next = next_rq(s, q);
  if (next < 0 || q == in_service(s) || !busy(s, q)) return;
  const W budget = std::max({qb(s, q, kMaxBudget), serv_to_charge(s, next), qb(s, q, kService)});
  if (budget == qb(s, q, kBudget)) return;
  set_qb(s, q, kBudget, budget);
  set_qb(s, q, kFinish, qb(s, q, kStart) + delta(budget, weight(s, q)));
  tree_insert(s, q);
  bfq_update_next_in_service(s, q, false);
  normalize(s);
  say(why, "bfq_updated_next_req: bfqq[{}] budget {}, requeued (F={})", t_.workload().procs[std::size_t(q)].name,
      budget, qb(s, q, kFinish));
}

// bfq_pos_tree_add_move: q leaves the tree and goes back in at its next
// request's sector, unless it has none, is IDLE-class, or another queue
// holds that sector (bfq_too_late_for_merging: never, see above).
void BfqScheduler::bfq_pos_tree_add_move(SchedState& s, int q) const { pos_tree_update(s, q, true); }

// bfq_remove_request of a queue's last request: it leaves the tree.
void BfqScheduler::bfq_pos_tree_erase(SchedState& s, int q) const { pos_tree_update(s, q, false); }

PosTree BfqScheduler::pos_tree(const SchedState& s) const {
  std::uint8_t code[kMaxProcs] = {};
  int key[kMaxProcs] = {};
  for (int o = 0; o < nq_; ++o) {
    code[o] = std::uint8_t(pos_node_->get(s, o));
    key[o] = next_rq(s, o) >= 0 ? t_.sector(next_rq(s, o)) : 0;
  }
  return PosTree(code, key, nq_);
}

void BfqScheduler::pos_tree_update(SchedState& s, int q, bool add) const {
  PosTree tree = pos_tree(s);
  tree.erase(q);
  int parent = -1;
  if (add && klass(q) != IDLE && next_rq(s, q) >= 0 && tree.lookup(tree.key(q), &parent) < 0) tree.insert(q);
  std::uint8_t code[kMaxProcs] = {};
  tree.encode(code);
  for (int o = 0; o < nq_; ++o) pos_node_->set(s, o, code[o]);
}

}  // namespace blkmc::sched
