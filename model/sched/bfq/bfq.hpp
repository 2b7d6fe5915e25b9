// model/sched/bfq/bfq: the BFQ I/O scheduler (block/bfq-iosched.c, bfq-wf2q.c)
// around seed 003 ("block, bfq: improve and refactor throughput-boosting
// logic", Paolo Valente, 2017).
//
// Mirrored (one queue per process; the kernel's function names):
//   - per-queue: weight from the ioprio level ((8 - level) * 10), class
//     RT/BE/IDLE in strict priority, budget / service / max_budget, the
//     charge per dispatched sector (async: x bfq_async_charge_factor, 10 in
//     4.13/4.14, 3 in 4.19, doubled while a raised queue is busy), the
//     seek history (shift register, SEEKY = popcount > threshold), think
//     time, the idle_window / has_short_ttime flag per version, IO_bound,
//     weight raising (interactive only: coeff 30 for wr_ticks);
//   - bfq_select_queue (budget timeout, BUDGET_EXHAUSTED, plugging, NO_MORE_
//     REQUESTS), bfq_dispatch_rq_from_bfqq (idle class expired after each
//     dispatch while others are busy), bfq_completed_request (hw_tag
//     detection, arm the idle timer / expire), bfq_idle_slice_timer (TOO_IDLE,
//     BUDGET_TIMEOUT), bfq_rq_enqueued (a request ends a wait), preemption by
//     a newly raised queue (PREEMPTED), __bfq_bfqq_recalc_budget per reason,
//     bfq_exit_icq (a sync process exits after its last completion: its
//     in-service queue is expired at once);
//   - the idling decision per variant, from model/sched/bfq/bfq_decide.hpp.
//
// Variants (each a visible `if (variant_ ...)` in bfq.cpp):
//   v4.13           before seed 003: bfq_bfqq_may_idle on idle_window, the
//                   slice_idle test in bfq_bfqq_must_idle, idle_window cleared
//                   for seeky queues on (possibly) queueing devices and
//                   updated only when service > max_budget/8 or !SEEKY.
//   refactor        patch 1/2 "block,bfq: refactor device-idling logic":
//                   slice_idle == 0, async and idle class inside may_idle;
//                   has_short_ttime updated on every enqueue.
//   flash-boost     patch 2/2 "block, bfq: boost throughput with flash-based
//                   non-queueing devices": rot_without_queueing, seq_IO_bound.
//   better-to-idle  4.19 bfq_better_to_idle: the 4.14 formula; the 4.19
//                   SEEKY threshold (19 of 32 instead of 4 of 32) and async
//                   charge factor 3.
//   v6.12           5.13+ as in 6.12 (docs/models/bfq.md, "The v6.12
//                   variant"): queues made at a process's first request and
//                   stably merged (bic per process), shared async queues, the
//                   kernel's budgets and exact B-WF2Q+ timestamps (wide
//                   fields) with next_in_service, bfq_forget_idle and ties to
//                   the earlier insertion, bfq_better_to_idle_612, hole
//                   recovery, 6.12's preemption and budgets; conforms to the
//                   code on bfq-flash-readers, -seeky-ncq and -idle-class.
//                   The abstractions below hold for the other four variants.
//
// Abstractions (documented, all sizes scaled down to ticks and small
// sector numbers):
//   - B-WF2Q+ reduced to what orders 2-3 queues: one virtual time V for all
//     classes, per queue start S and finish F (delta(S, w) = sectors * 120 /
//     weight, rounded up: a raised queue (x30) pays at least 1 per charge, so
//     the weight ratio it gets is coarser than 30); each charge c advances V by delta(c, wsum) (wsum:
//     the weights of the busy and idle-tree queues); activation: S = max(V,
//     F) for a queue parked on the idle tree, else V; F = S + delta(budget);
//     requeue: S += delta(service), F = S + delta(budget); deactivation keeps
//     F on the idle tree if F > V, else forgets it. Choice: the highest class
//     with a busy queue, V = max(V, its smallest S), among the eligible (S <=
//     V) the smallest F, ties to the lower process index. Timestamps are kept
//     relative to min(V, smallest S) and saturate at 255; with no busy queue
//     V returns to 0 and the idle tree is forgotten.
//   - no soft-real-time raising, no burst detection (in_large_burst needs 8
//     queues created within 180 ms, so it is false with 2-3 processes), no
//     queue merging, no cgroups, no class-idle timeout, no non_blocking_wait_rq
//     hole recovery, no peak-rate estimation (max_budget stays the parameter).
//   - time charging of slow queues (bfq_bfqq_charge_time) in ticks: elapsed =
//     ticks since the budget started (minus the idle slice when the timer
//     expired it); 0 ticks: slow = SEEKY, elapsed taken as 1 tick (flash) or
//     2 (rotational); more than 5 ticks (20 ms): slow = service < max/2;
//     otherwise slow = SEEKY; a slow non-raised queue (or one expired by the
//     budget timeout with a third of its budget left) is charged max_budget *
//     elapsed / timeout sectors, at least its service. Needs clock=1.
//   - next_rq of a queue (bfqq->next_rq) is kept as the kernel keeps it: on
//     each insert bfq_choose_req picks between it and the new request from
//     bfqd->last_position (the end of the last request dispatched from a
//     queue); after a dispatch bfq_find_next_rq picks between the dispatched
//     request's neighbours in sector order, from its start. The nearest
//     request ahead wins, a seek back counts twice its distance
//     (bfq_back_penalty), equal costs go to the higher sector; bfq_back_max
//     (16 MiB, 4096 model sectors of 4 KiB) is beyond any workload, so no
//     request wraps. So readers queued behind the head are served from the
//     nearest down (what the kernel does on gated-write). Not modelled: the
//     fifo expiry of bfq_check_fifo (125 ms async, 250 ms sync), which would
//     serve an expired fifo head first once per service slot.
//   - think time: elapsed ticks since the queue's last completion, capped at
//     2*slice_idle; the mean is (mean + sample + 1) / 2, valid after 3
//     samples (the kernel's EWMA also turns valid at the 3rd sample).
//   - the seek history is 8 bits (initially 1); SEEKY = more than 2 of 8 set
//     (4.13/4.14: more than 4 of 32, i.e. 4 seeky requests after the initial
//     bit; here 2), more than 4 of 8 in better-to-idle (19 of 32); a
//     request is seeky if it lies more than seek_dist sectors from the end of
//     the queue's previous request and (rotational or smaller than 64 sectors).
//   - hw_tag detection with the kernel's rules on scaled numbers: a completion
//     is a sample when rq_in_driver + queued >= hw_queue_thr (kernel 4), the
//     sample after hw_samples (kernel 32) decides hw_tag = max_rq_in_driver >
//     hw_queue_thr; 1 is sticky, 0 is re-evaluated; hw_tag=-1 starts unknown.
//   - time (clock=1): one tick stands for about 4 ms: slice_idle 2 ticks
//     (8 ms), BFQ_MIN_TT 1 tick, budget timeout `timeout` ticks (kernel 125 ms,
//     scaled down), raising `wr_ticks` (kernel 3.75-10.5 s), an idle time of
//     wr_min_idle ticks before a queue counts as interactive again (kernel 2 s).
//     With clock=0 nothing expires by time, and an armed idle timer fires when
//     blk-mq next runs the queue (a NULL dispatch that changes the state), so
//     a request arriving first and the timer firing first are both explored.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/sched/bfq/bfq_decide.hpp"
#include "model/sched/bfq/bfq_pos_tree.hpp"
#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

class BfqScheduler {
 public:
  enum Variant : int { V4_13, Refactor, FlashBoost, BetterToIdle, V6_12 };
  using W = std::int64_t;  // a budget, a service or a B-WF2Q+ timestamp
  // enum bfqq_expiration, in the kernel's order.
  enum Reason : int { TooIdle, BudgetTimeout, BudgetExhausted, NoMoreRequests, Preempted };

  static const std::vector<VariantInfo>& variants();
  static std::vector<ParamInfo> params();
  static const char* name() { return "bfq"; }
  static const char* dispatch_fn() { return "bfq_dispatch_request"; }
  static constexpr bool kFifoPerClass = false;
  static const char* summary();

  BfqScheduler(int variant, const Params& p, const RqTable& t);
  // Its variables: bfqd's (in_service, the idle timer, the budget timeout,
  // hw_tag and its samples, max_rq_in_driver, V, in_service_ticks; with
  // shadow=V the ghost bit decision_differed) and, per queue (the block
  // "bfqq", one per process), the flags busy, idle_tree, flag (idle_window in
  // 4.13, has_short_ttime after), io_bound (and with shadow=V the shadow's
  // flag), the budgets, B-WF2Q+ timestamps, seek and think-time state, weight
  // raising.
  void declare(Schema& sc, SchemaSlots& slots);

  void init(SchedState& s) const;
  void insert(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const {
    bfq_insert_request(s, rq, at_head || requeue, why);
  }
  int dispatch(SchedState& s, Why* why) const { return bfq_dispatch_request(s, why); }
  bool has_work(const SchedState& s) const;
  void completed(SchedState& s, int rq, Why* why) const { bfq_completed_request(s, rq, why); }
  void timer(SchedState& s, Why* why) const;
  bool accounting_ok(const SchedState& s) const;
  // same-decisions (shadow=V), no-orphan-idling.
  static std::vector<PropInfo> extra_props();
  bool violates_extra(int i, const SchedState& s) const;
  // Abstraction (model/sched/sched_abstraction.hpp): no decision reads the
  // driver's order; bfq_update_hw_tag reads max_rq_in_driver only against
  // hw_queue_thr, and once hw_tag is 1 (it stays 1) reads neither it nor
  // its sample count again.
  static constexpr bool kReadsServiceOrder = false;
  std::vector<std::string> abstractions() const;
  void abstract_key(SchedState& s) const;
  // Symmetry (model/sched/sched_symmetry.hpp), v6.12 only: the older
  // variants break ties between equal finishes by process index, so a
  // renaming would change which queue wins. v6.12 breaks them by the
  // active tree's insertion order and the injection choice by the active
  // list's, both state; what names a queue (in_service, next_in_service,
  // last_bfqq_created, each bic, new_bfqq and request's queue, the
  // rq_pos_tree's parents) or a request (next_rq) is renamed. bfq_choose_req,
  // the rq_pos_tree and the close-cooperator checks read sectors.
  static constexpr bool kReadsSectors = true;
  bool renames_procs() const { return variant_ == V6_12; }
  void resolve(const Schema& sc);
  void rename(SchedState& s, const SchedState& before, const std::vector<int>& proc_perm,
              const std::vector<int>& rq_perm) const;
  int compare_procs(const SchedState& s, int a, int b) const;
  int expire(int) const { return 256; }  // no request deadlines in the model
  int age_cap() const { return 1; }
  std::string summary(const SchedState& s) const;
  nlohmann::json json(const SchedState& s) const;

  int variant() const { return variant_; }

  // --- state: bfqd's variables (slots of the schema) ---
  int in_service(const SchedState& s) const { return in_service_.get(s); }  // -1: none
  int idle_timer(const SchedState& s) const { return idle_timer_.get(s); }  // 0: not armed
  bool wait_request(const SchedState& s) const { return idle_timer(s) > 0; }
  int timeout_left(const SchedState& s) const { return timeout_left_.get(s); }
  int hw_tag(const SchedState& s) const { return hw_tag_.get(s); }
  int hw_tag_samples(const SchedState& s) const { return hw_tag_samples_.get(s); }
  int max_rq_in_driver(const SchedState& s) const { return max_rq_in_driver_.get(s); }
  // Ghost (shadow=V only): a decision of this variant differed from what
  // variant V's decision functions give on the same state.
  bool decision_differed(const SchedState& s) const { return shadow_ >= 0 && differed_.test(s); }
  W vtime(const SchedState& s) const { return wide(s, vtime_, vtime_hi_, 0, hi_bytes(kStart)); }  // V of the service tree
  // Ticks since the in-service queue got its budget (last_budget_start),
  // saturating at max(timeout, 6).
  int in_service_ticks(const SchedState& s) const { return in_service_ticks_.get(s); }

  // --- state: per queue (process) variables ---
  enum QByte : int {
    kBudget, kService, kMaxBudget, kStart, kFinish, kSeekHist, kLastPos,
    kSince,      // ticks since the last completion (capped)
    kWrLeft,     // ticks of weight raising left (0: wr_coeff 1)
    kIdleSince,  // ticks since the queue went idle (capped at wr_min_idle)
    kNumQBytes
  };
  // Queue flags (a mask of them for qflags() and the json's "flags").
  static constexpr std::uint8_t kBusy = 1, kIdleTree = 2, kFlag = 4, kIOBound = 8;
  static constexpr std::uint8_t kShadowFlag = 16;  // the shadow variant's flag
  // v6.12: the queue expired empty after no more requests or too idle, and
  // keeps its budget for a request arriving in time (non_blocking_wait_rq).
  static constexpr std::uint8_t kNbWait = 32;
  static constexpr std::uint8_t kEnded = 64;  // v6.12: a request of it completed (ttime.last_end_request)
  static constexpr std::uint8_t kCoop = 128;  // v6.12: shared by merged processes (bfq_bfqq_coop)
  // v6.12 keeps the kernel's numbers: budgets, services and timestamps
  // (kBudget..kFinish, V) take 8 bytes; the other variants 1, saturating.
  W qb(const SchedState& s, int q, QByte f) const {
    return f <= kFinish ? wide(s, qv_[f], qhi_[f], q, hi_bytes(f)) : qv_[f].get(s, q);
  }
  void set_qb(SchedState& s, int q, QByte f, W v) const {
    if (f <= kFinish) set_wide(s, qv_[f], qhi_[f], q, hi_bytes(f), v);
    else qv_[f].set(s, q, int(std::clamp<W>(v, 0, 255)));
  }
  bool qflag(const SchedState& s, int q, std::uint8_t f) const;
  int qflags(const SchedState& s, int q) const;
  bool busy(const SchedState& s, int q) const { return qflag(s, q, kBusy); }
  bool raised(const SchedState& s, int q) const { return qb(s, q, kWrLeft) > 0; }
  int ttime_mean(const SchedState& s, int q) const { return ttime_mean_.get(s, q); }
  int ttime_samples(const SchedState& s, int q) const { return ttime_samples_.get(s, q); }

  // --- derived ---
  bool sync(int q) const;
  int klass(int q) const;        // RT, BE, IDLE
  int orig_weight(int q) const;  // (8 - level) * 10
  int weight(const SchedState& s, int q) const { return orig_weight(q) * (raised(s, q) ? 30 : 1); }
  int queued(const SchedState& s, int q) const;       // in the sort list
  int dispatched(const SchedState& s, int q, int except = -1) const;
  int rq_in_driver(const SchedState& s, int except = -1) const;
  int busy_queues(const SchedState& s) const;
  int wr_busy_queues(const SchedState& s) const;
  int next_rq(const SchedState& s, int q) const { return next_rq_.get(s, q); }  // bfqq->next_rq, -1 none
  int last_position(const SchedState& s) const { return last_position_.get(s); }  // bfqd->last_position
  bool seeky(const SchedState& s, int q) const { return seeky_as(s, q, variant_); }
  bool seeky_as(const SchedState& s, int q, int variant) const;
  bool symmetric(const SchedState& s, int except_rq = -1) const;
  bool alive(const SchedState& s, int q, int except_rq = -1) const;  // process references
  W budget_left(const SchedState& s, int q) const { return qb(s, q, kBudget) - qb(s, q, kService); }
  W serv_to_charge(const SchedState& s, int rq) const;
  // bfq_max_budget / bfq_min_budget: v6.12 the kernel's defaults, which
  // hold until 194 budgets were assigned (bfq_stats_min_budgets).
  W max_budget() const { return variant_ == V6_12 ? 16384 : max_budget_; }
  W min_budget() const { return std::max<W>(1, max_budget() / 32); }
  // v6.12: the queue a request joins (the process's bic->bfqq: its own, the
  // one it was stably merged into, or its class's shared async queue).
  int queue_of_proc(const SchedState& s, int p) const { return bic_ ? bic_->get(s, p) : p; }
  // RQ_BFQQ(rq): v6.12 keeps each inserted request's queue (a process merged
  // into a cooperator leaves its earlier requests in its old queue).
  int qof(const SchedState& s, int rq) const {
    const int q = rq_bfqq_ ? rq_bfqq_->get(s, rq) : -1;
    return q >= 0 ? q : queue_of_proc(s, t_.info(rq).proc);
  }
  IdleInputs<bool> idle_inputs(const SchedState& s, int q, int except_rq, int variant) const;
  // The decision of `variant` (default: this model's) on this state.
  bool may_idle(const SchedState& s, int q, int except_rq = -1, int variant = -1) const;
  bool must_idle(const SchedState& s, int q, int except_rq = -1, int variant = -1) const;
  int shadow() const { return shadow_; }
  bool timeout_may_expire(const SchedState& s, int q) const;

 private:
  void set_in_service(SchedState& s, int q) const { in_service_.set(s, q); }
  void set_timer(SchedState& s, int v) const { idle_timer_.set(s, v); }
  void set_qflag(SchedState& s, int q, std::uint8_t f, bool on) const;
  // (S << 22) / w, here rounded up so that a charge to a heavily weighted
  // (raised) queue still moves its finish.
  // v6.12: bfq_delta, (service << WFQ_SERVICE_SHIFT) / weight, exactly.
  W delta(W sectors, int w) const {
    if (variant_ == V6_12) return (sectors << 22) / std::max(1, w);
    return (sectors * 120 + std::max(1, w) - 1) / std::max(1, w);
  }
  int wsum(const SchedState& s) const;
  // v6.12's high bytes: 1 for a budget or a service (the kernel's 16384
  // sectors at most), 4 for a timestamp or V (relative to the smallest, they
  // stay below 2^36: a finish is at most 16384 << 22 / 10 ahead).
  static constexpr int hi_bytes(int f) { return f >= kStart ? 4 : 1; }
  W wide(const SchedState& s, const ByteVar& lo, const ByteVar* hi, int i, int n) const {
    W v = lo.get(s, i);
    if (variant_ == V6_12)
      for (int b = 0; b < n; ++b) v |= W(hi[b].get(s, i)) << (8 * (b + 1));
    return v;
  }
  void set_wide(SchedState& s, const ByteVar& lo, const ByteVar* hi, int i, int n, W v) const {
    if (variant_ != V6_12) return lo.set(s, i, int(std::clamp<W>(v, 0, 255)));
    v = std::clamp<W>(v, 0, (W(1) << (8 * (n + 1))) - 1);
    lo.set(s, i, int(v & 0xff));
    for (int b = 0; b < n; ++b) hi[b].set(s, i, int((v >> (8 * (b + 1))) & 0xff));
  }
  void set_vtime(SchedState& s, W v) const { set_wide(s, vtime_, vtime_hi_, 0, hi_bytes(kStart), v); }
  // v6.12: the order of the queues in the active tree among equal finishes
  // (bfq_insert puts an equal finish to the right: the earlier one first).
  int tree_order(const SchedState& s, int q) const { return order_ ? order_->get(s, q) : q; }
  void tree_insert(SchedState& s, int q) const;
  void to_back(SchedState& s, const ByteVar& order, int q) const;
  bool asymmetric(const SchedState& s, int q, int except_rq = -1) const;
  int bfq_create_queue(SchedState& s, int p, Why* why) const;
  void normalize(SchedState& s) const;
  void rebase(SchedState& s) const;
  bool made(const SchedState& s, int q) const;  // v6.12: queue q exists (a bic, requests or a tree hold it)
  int process_refs(const SchedState& s, int q) const;  // bfqq_process_refs: the bics holding q
  // v6.12's queue merging (bfq_setup_cooperator and what it calls).
  int bfq_setup_cooperator(SchedState& s, int q, int rq, Why* why) const;
  int bfq_setup_merge(SchedState& s, int q, int new_q) const;
  bool bfq_may_be_close_cooperator(const SchedState& s, int q, int new_q) const;
  int bfqq_find_close(const SchedState& s, int sector) const;
  int bfq_merge_bfqqs(SchedState& s, int p, int q, Why* why) const;
  void bfq_release_process_ref(SchedState& s, int q, Why* why) const;
  void bfq_del_bfqq_busy(SchedState& s, int q) const;
  void bfq_idle_insert(SchedState& s, int q) const;
  void bfq_updated_next_req(SchedState& s, int q, Why* why) const;
  void bfq_pos_tree_add_move(SchedState& s, int q) const;
  void bfq_pos_tree_erase(SchedState& s, int q) const;
  void pos_tree_update(SchedState& s, int q, bool add) const;
  PosTree pos_tree(const SchedState& s) const;  // the stored shape, keyed by the queues' next requests
  bool nonrot_with_queueing(const SchedState& s) const;
  void bfq_forget_idle(SchedState& s) const;
  int bfq_lookup_next_entity(SchedState& s, bool keep_vtime) const;
  void bfq_update_next_in_service(SchedState& s, int new_q, bool expiration) const;

  // The kernel's functions.
  void bfq_insert_request(SchedState& s, int rq, bool at_head, Why* why) const;
  void bfq_update_io_thinktime(SchedState& s, int q) const;
  void bfq_update_io_thinktime_612(SchedState& s, int q) const;
  void bfq_update_has_short_ttime_612(SchedState& s, int q, Why* why) const;
  int bfq_choose_bfqq_for_injection(const SchedState& s, int in) const;
  void bfq_update_io_seektime(SchedState& s, int q, int rq) const;
  void bfq_update_flag(SchedState& s, int q, int variant, Why* why) const;
  void bfq_bfqq_handle_idle_busy_switch(SchedState& s, int q, int rq, Why* why) const;
  void bfq_activate_bfqq(SchedState& s, int q) const;
  void bfq_rq_enqueued(SchedState& s, int q, int rq, Why* why) const;
  int bfq_dispatch_request(SchedState& s, Why* why) const;
  int bfq_select_queue(SchedState& s, Why* why) const;
  int bfq_set_in_service_queue(SchedState& s, Why* why) const;
  void bfq_dispatch_rq_from_bfqq(SchedState& s, int q, int rq, Why* why) const;
  int bfq_choose_req(int r1, int r2, int last) const;
  int bfq_find_next_rq(const SchedState& s, int q, int last) const;
  void bfq_completed_request(SchedState& s, int rq, Why* why) const;
  void bfq_update_hw_tag(SchedState& s, int rq, Why* why) const;
  void bfq_arm_slice_timer(SchedState& s, int q, Why* why) const;
  void bfq_idle_slice_timer_body(SchedState& s, Why* why) const;
  void bfq_bfqq_expire(SchedState& s, int q, Reason reason, Why* why) const;
  void bfq_recalc_budget(SchedState& s, int q, Reason reason) const;
  bool bfq_bfqq_is_slow(const SchedState& s, int q, Reason reason, int* elapsed) const;
  void bfq_bfqq_charge_time(SchedState& s, int q, int elapsed, Why* why) const;
  void __bfq_bfqq_expire(SchedState& s, int q, Reason reason, Why* why) const;
  void bfq_exit_icq(SchedState& s, int q, Why* why) const;
  int select_action(const SchedState& s, int q, bool fresh, int variant) const;
  int completion_action(const SchedState& s, int q, int rq, int variant) const;
  void compare(SchedState& s, const char* where, int q, int mine, int theirs, Why* why) const;

  const RqTable& t_;
  ByteVar in_service_, idle_timer_, timeout_left_, hw_tag_, hw_tag_samples_, max_rq_in_driver_,
      vtime_, in_service_ticks_;
  BitVar differed_;
  ByteVar qv_[kNumQBytes], ttime_mean_, ttime_samples_, next_rq_, last_position_;
  ByteVar qhi_[kFinish + 1][4], vtime_hi_[4];  // v6.12: the high bytes
  std::optional<ByteVar> bic_, order_, last_created_, next_, tt_samples_, tt_total_, inject_limit_, active_;  // v6.12 only
  std::optional<ByteVar> rq_bfqq_, new_bfqq_, pos_node_, in_serv_last_pos_;                                 // v6.12 only
  ByteVar tt_total_hi_[4];
  BitVar qflag_[8];  // kBusy, kIdleTree, kFlag, kIOBound, kShadowFlag (shadow=V only), kNbWait, kEnded, kCoop (v6.12)
  int variant_, nq_;
  bool clock_;
  int low_latency_, slice_idle_, max_budget_, strict_, hw_tag0_, hw_samples_, hw_queue_thr_;
  int timeout_, wr_ticks_, wr_min_idle_, seek_dist_, shadow_;
  std::vector<bool> sync_;  // sync(q), fixed by the workload
  Schema::BlockLayout qlayout_, biclayout_;  // the blocks "bfqq" and (v6.12) "bic"
};

}  // namespace blkmc::sched
