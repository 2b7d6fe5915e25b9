// model/sched/bfq/bfq_decide: BFQ's decisions, written once over their value
// types (docs/architecture.md, "One source, two semantics").
//
// B is bool or z3::expr, I is int or z3::expr. The functions use only &&,
// ||, !, comparisons, + and - on their inputs, and ite() for selection;
// never an `if` or ?: on a B, so that the same source can be instantiated
// over z3::expr (issue 6) to prove what the explorer finds on concrete
// values. Names follow the kernel's functions; the formulas are those of
// docs/models/bfq-cfq-facts.md A9 (re-read in the 4.13.4, 4.14.5 and 4.19.1
// sources listed there).
//
//   bfq_may_idle_v413         4.13 bfq_bfqq_may_idle (before seed 003)
//   bfq_may_idle_refactor     seed 003 patch 1/2 "block,bfq: refactor
//                             device-idling logic"
//   bfq_may_idle_flash_boost  seed 003 patch 2/2 "block, bfq: boost
//                             throughput with flash-based non-queueing
//                             devices" (= 4.14)
//   bfq_better_to_idle        4.19 (renamed; the 4.14 formula)
//   bfq_must_idle_*           bfq_bfqq_must_idle per version
//   bfq_update_idle_window    4.13's idle_window flag update
//   bfq_update_has_short_ttime  the has_short_ttime update of 1/2 and later
//   bfq_completion_action     what bfq_completed_request does with the
//                             in-service queue (arm / expire / keep)
//   bfq_select_action         what bfq_select_queue does with it
#pragma once

#include "model/concrete_values.hpp"

namespace blkmc::sched {

// The named inputs of the idling decision (facts A9).
template <class B>
struct IdleInputs {
  B sg;     // strict_guarantees
  B si0;    // bfq_slice_idle == 0
  B sync;   // bfq_bfqq_sync(q)
  B idlec;  // q's applied ioprio class is IDLE
  B rot;    // !blk_queue_nonrot
  B noq;    // hw_tag == 0 ("!bfqd->hw_tag"; -1 = unknown counts as queueing)
  B iob;    // IO_bound flag
  B seeky;  // BFQQ_SEEKY(q)
  B flag;   // idle_window (4.13) or has_short_ttime (1/2 and later)
  B wr;     // q->wr_coeff > 1
  B wrb;    // wr_busy_queues > 0
  B sym;    // bfq_symmetric_scenario
  B burst;  // in_large_burst
  // 5.x and later (v6.12): the terms of idling_needed_for_service_guarantees
  B asym;   // bfq_asymmetric_scenario(bfqd, bfqq)
  B tot1;   // bfq_tot_busy_queues(bfqd) == 1
  B wrlt;   // bfqd->wr_busy_queues < bfq_tot_busy_queues(bfqd)
  B drv4;   // bfqd->tot_rq_in_driver >= bfqq->dispatched + 4
};

// 4.13: the boost term knows nothing of slice_idle or the class; the flag
// is idle_window, already cleared for seeky queues on queueing devices.
template <class B>
B bfq_idling_boosts_thr_v413(const IdleInputs<B>& in) {
  return in.noq || (in.rot && in.iob && in.flag);
}

template <class B>
B bfq_idling_needed_for_guarantees(const IdleInputs<B>& in) {
  return (in.wr || !in.sym) && !in.burst;
}

template <class B>
B bfq_may_idle_v413(const IdleInputs<B>& in) {
  return in.sg || (in.sync && ((bfq_idling_boosts_thr_v413(in) && !in.wrb) ||
                               bfq_idling_needed_for_guarantees(in)));
}

// Patch 1/2: slice_idle == 0 and the idle class move into may_idle; the flag
// becomes has_short_ttime (seekiness no longer folded into it).
template <class B>
B bfq_may_idle_refactor(const IdleInputs<B>& in) {
  return in.sg || (!in.si0 && in.sync && !in.idlec &&
                   ((bfq_idling_boosts_thr_v413(in) && !in.wrb) ||
                    bfq_idling_needed_for_guarantees(in)));
}

// Patch 2/2: rot_without_queueing, and seekiness back in the boost term.
template <class B>
B bfq_idling_boosts_thr_v414(const IdleInputs<B>& in) {
  const B rot_without_queueing = in.rot && in.noq;
  const B seq_io_bound = !in.seeky && in.iob && in.flag;
  return rot_without_queueing || ((in.rot || in.noq) && seq_io_bound);
}

template <class B>
B bfq_may_idle_flash_boost(const IdleInputs<B>& in) {
  return in.sg || (!in.si0 && in.sync && !in.idlec &&
                   ((bfq_idling_boosts_thr_v414(in) && !in.wrb) ||
                    bfq_idling_needed_for_guarantees(in)));
}

// 4.19: bfq_better_to_idle, the 4.14 formula under a new name.
template <class B>
B bfq_better_to_idle(const IdleInputs<B>& in) {
  return bfq_may_idle_flash_boost(in);
}

// 6.12 bfq_better_to_idle: throughput boosting only without raised busy
// queues; service guarantees for a raised queue among others (or with four
// requests of others in the driver), for an asymmetric scenario, and for
// the only busy queue. No burst term. (The process-reference test comes
// first in the kernel: every process here holds its queue.)
template <class B>
B bfq_idling_boosts_thr_without_issues(const IdleInputs<B>& in) {
  return bfq_idling_boosts_thr_v414(in) && !in.wrb;
}
template <class B>
B bfq_idling_needed_for_service_guarantees(const IdleInputs<B>& in) {
  return (in.wr && (in.wrlt || in.drv4)) || in.asym || in.tot1;
}
template <class B>
B bfq_better_to_idle_612(const IdleInputs<B>& in) {
  return in.sg || (!in.si0 && in.sync && !in.idlec &&
                   (bfq_idling_boosts_thr_without_issues(in) || bfq_idling_needed_for_service_guarantees(in)));
}

// bfq_bfqq_must_idle: 4.13 tests slice_idle here; 1/2 moved it into may_idle.
template <class B>
B bfq_must_idle_v413(B empty, const IdleInputs<B>& in) {
  return empty && !in.si0 && bfq_may_idle_v413(in);
}
template <class B>
B bfq_must_idle_refactor(B empty, const IdleInputs<B>& in) {
  return empty && bfq_may_idle_refactor(in);
}
template <class B>
B bfq_must_idle_flash_boost(B empty, const IdleInputs<B>& in) {
  return empty && bfq_may_idle_flash_boost(in);
}
template <class B>
B bfq_must_idle_612(B empty, const IdleInputs<B>& in) {
  return empty && bfq_better_to_idle_612(in);
}

// Inputs of the think-time flag updates (facts A9.1, A9.2).
template <class B, class I>
struct FlagInputs {
  B old;           // the flag's current value
  B sync, idlec;   // sync queue; applied class IDLE
  B split_recent;  // within 2 s of a queue split (never in the model)
  B active_ref;    // bic->icq.ioc->active_ref > 0 (the process is alive)
  B si0;           // slice_idle == 0
  B hwt;           // hw_tag != 0 (4.13 truthiness: -1 counts)
  B seeky, wr;
  B valid;         // think-time samples valid
  I ttime_mean, slice_idle;
};

// 4.13 bfq_update_idle_window (run only when service > max_budget/8 or
// !SEEKY; the caller tests that, the seek history was updated first).
template <class B, class I>
B bfq_update_idle_window(const FlagInputs<B, I>& in) {
  const B skip = !in.sync || in.idlec || in.split_recent;
  const B off = !in.active_ref || in.si0 || (in.hwt && in.seeky && !in.wr);
  const B by_ttime = !(in.ttime_mean > in.slice_idle && !in.wr);
  return ite(skip, in.old, ite(off, bval(in.old, false), ite(in.valid, by_ttime, in.old)));
}

// 1/2 and later: bfq_update_has_short_ttime, on every enqueue, before the
// seek update; no seekiness, no raising, and invalid samples mean "short".
template <class B, class I>
B bfq_update_has_short_ttime(const FlagInputs<B, I>& in) {
  const B skip = !in.sync || in.idlec || in.si0 || in.split_recent;
  const B now = !(!in.active_ref || (in.valid && in.ttime_mean > in.slice_idle));
  return ite(skip, in.old, now);
}

// What the kernel does with the in-service queue at a completion of one of
// its requests (bfq_completed_request, after dispatched--), 4.13..4.19.
enum BfqCompletionAction : int { kKeep = 0, kArmTimer = 1, kExpireTimeout = 2, kExpireNoMore = 3 };

template <class B>
auto bfq_completion_action(B dispatched_zero, B must_idle, B may_expire_timeout, B empty,
                           B may_idle) {
  const B& k = empty;
  return ite(dispatched_zero && must_idle, ival(k, kArmTimer),
             ite(may_expire_timeout, ival(k, kExpireTimeout),
                 ite(empty && (dispatched_zero || !may_idle), ival(k, kExpireNoMore),
                     ival(k, kKeep))));
}

// bfq_select_queue with an in-service queue (facts A5): serve it, expire it
// (reason), or plug (return NULL keeping it).
enum BfqSelectAction : int {
  kServe = 0,
  kPlug = 1,
  kSelExpireTimeout = 2,
  kSelExpireExhausted = 3,
  kSelExpireNoMore = 4,
};

template <class B>
auto bfq_select_action(B timeout_may_expire, B wait_request, B must_idle, B has_next,
                       B next_over_budget, B dispatched_nonzero, B may_idle) {
  const B& k = has_next;
  return ite(timeout_may_expire && !wait_request && !must_idle, ival(k, kSelExpireTimeout),
             ite(has_next, ite(next_over_budget, ival(k, kSelExpireExhausted), ival(k, kServe)),
                 ite(wait_request || (dispatched_nonzero && may_idle), ival(k, kPlug),
                     ival(k, kSelExpireNoMore))));
}

}  // namespace blkmc::sched
