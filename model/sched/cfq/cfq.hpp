// model/sched/cfq/cfq: the CFQ I/O scheduler (block/cfq-iosched.c, 2.6.33 and
// 3.1), one cfq_group, over the blk-mq device of model/sched.
//
// Mirrors (docs/models/bfq-cfq-facts.md part B; the decisions are templates in
// cfq_decide.hpp): one cfq_queue per process (a process that reads, or a
// sync=1 one, has a sync queue: CFQ treats reads and O_DIRECT writes as
// sync; sync=0 readers stand for aio O_DIRECT submitters that keep several
// requests outstanding); the service trees per class (RT, BE, IDLE) and
// workload type (ASYNC, SYNC_NOIDLE, SYNC), a queue's tree chosen from its
// idle_window when it is (re)inserted; cfq_choose_wl / choose_service_tree
// with the workload slice (target_latency * count / busy, async scaled by
// slice_async/slice_sync, at least 2*slice_idle, at least 2 ticks);
// cfq_select_queue per version (2.6.33 and 3.1 orders, wait_busy, the 3.1
// un-deepening block and group_idle); the time slice set at the first
// completion (cfq_set_prio_slice with low_latency scaling); cfq_may_dispatch
// per version (quantum 4 / 8, the sync/async in-flight rules, promote_sync,
// slice_used_soon); the async / idle-class expiry after dispatch; think time
// (elapsed since the last sync completion, capped at 2*slice_idle, the
// kernel's EWMA with samples 32, 60, 84.. valid at the 3rd); seek detection
// (2.6.33: the EWMA seek mean against seek_mean_thr once valid; 3.1 and
// seeky-rework: a history of seek_window bits, distance > seek_thr on a
// rotational device, size < nonrot_size on a non-rotational one, SEEKY when
// more than seeky_bits are set); the deep flag and idle_window
// (cfq_update_idle_window); cfq_should_idle, cfq_arm_slice_timer, the idle
// slice timer (which clears deep), cfq_should_wait_busy; hw_tag detection
// (cfq_update_hw_tag) and the non-rotational no-idling rule; preemption
// (cfq_should_preempt rules 1-7, 9-12, cfq_preempt_queue); seed 000's fast
// device detection (v2 code; v1 reconstructed, see variants()).
//
// Abstractions (all documented in the variants and params): time in ticks
// and every tunable scaled down; the rb_key of a service tree is the order
// of insertion (slice_offset and slice_resid ignored; a preempting queue goes
// before the first queue of its own tree, without the kernel's HZ lead over the
// other trees); busy_queues_avg is the current busy count; within a queue,
// requests go in fifo order (no cfq_choose_req, no fifo expiry); no queue
// merging or close cooperators; no REQ_NOIDLE / REQ_META requests (so the
// 2.6.33 noidle_tree_requires_idle test always passes at completion); the
// per-tree and per-group think times of 3.1 are never "big"; the async
// depth limit from last_delayed_sync is left out; a process has "no task"
// once its last request has completed (finite processes exit). The idle
// timer counts ticks with clock=1; with clock=0 a pending timer fires at the
// next queue run (a NULL dispatch that changes the state), as in bfq.
#pragma once

#include <bit>

#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

class CfqScheduler {
 public:
  enum Variant : int { V2633, SeekyRework, V31rc5, DeepFixV1, DeepFixV2 };
  enum Wl : int { ASYNC = 0, SYNC_NOIDLE = 1, SYNC = 2 };
  // Queue flags.
  static constexpr std::uint8_t kOnRr = 1, kIdleWindow = 2, kDeep = 4, kMustDispatch = 8,
                                kWaitRequest = 16, kSampling = 32, kHasPos = 64, kCreated = 128;
  // Device flags.
  static constexpr std::uint8_t kSliceNew = 1, kWaitBusy = 2;

  static const std::vector<VariantInfo>& variants();
  static std::vector<ParamInfo> params();
  static const char* name() { return "cfq"; }
  static const char* dispatch_fn() { return "cfq_dispatch_requests"; }
  static constexpr bool kFifoPerClass = false;
  static const char* summary();

  CfqScheduler(int variant, const Params& p, const RqTable& t);
  // Its variables: cfqd's (the active queue, slice_new and wait_busy, the
  // slice, the idle timer, the serving class and workload type, hw_tag, the
  // fast-device detector, last_position; with ghost_check the ghost counter,
  // with ghost_check=1 a per-queue stale-deep bit) and per queue (the block
  // "cfqq", one per process) its flags, service-tree order and type, seek
  // state (3.1: seek_history; 2.6.33: samples and a 16-bit total), think
  // time and fast-device sample. With shadow=V the ghosts of same-decisions:
  // the first decision that differed and, when V keeps seekiness the other
  // way (2.6.33's EWMA vs the rework's history), V's seek state per queue.
  void declare(Schema& sc, SchemaSlots& slots);
  void init(SchedState& s) const;
  void insert(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const {
    cfq_insert_request(s, rq, at_head, requeue, why);
  }
  int dispatch(SchedState& s, Why* why) const { return cfq_dispatch_requests(s, why); }
  bool has_work(const SchedState& s) const;
  void completed(SchedState& s, int rq, Why* why) const { cfq_completed_request(s, rq, why); }
  void timer(SchedState& s, Why* why) const;
  // stale-deep (ghost_check=1), stale-fast (ghost_check=2),
  // same-decisions (shadow=V).
  static std::vector<PropInfo> extra_props();
  bool violates_extra(int i, const SchedState& s) const;
  bool accounting_ok(const SchedState& s) const;
  // Symmetry (model/sched/sched_symmetry.hpp): cfq_choose_req, the close
  // checks and the seek distances read sectors against last_position; a
  // process's sync queue is the queue of its index (the block "cfqq"), and
  // `active` names one.
  static constexpr bool kReadsSectors = true;
  void resolve(const Schema& sc) { qlayout_ = sc.block_layout(sc.find_place("cfqq")); }
  void rename(SchedState& s, const SchedState& before, const std::vector<int>& proc_perm,
              const std::vector<int>& rq_perm) const;
  int compare_procs(const SchedState& s, int a, int b) const;
  // Abstraction (model/sched/sched_abstraction.hpp): no decision reads the
  // driver's order; cfq_update_hw_tag reads est_depth only against
  // hw_queue_min, and once hw_tag is 1 (it stays 1) reads neither est_depth
  // nor its sample count again.
  static constexpr bool kReadsServiceOrder = false;
  std::vector<std::string> abstractions() const;
  void abstract_key(SchedState& s) const;
  int expire(int) const { return 256; }  // fifo expiry is not modelled
  int age_cap() const { return 1; }
  std::string summary(const SchedState& s) const;
  nlohmann::json json(const SchedState& s) const;

  int variant() const { return variant_; }
  bool v31() const { return variant_ >= V31rc5; }
  bool history_seek() const { return variant_ != V2633; }
  bool fast_rule() const { return variant_ == DeepFixV1 || variant_ == DeepFixV2; }
  // The fast-device detector runs in seed 000's variants, and as a ghost
  // under ghost_check or for a shadow variant that has it.
  bool detector_runs() const {
    return fast_rule() || ghost_ != 0 || (shadow_ >= 0 && fast_rule_of(shadow_));
  }
  // Whose sampling rules the detector follows (v1: one request per sample).
  int detector_variant() const {
    return fast_rule() ? variant_ : (ghost_ == 0 && shadow_ >= 0 ? shadow_ : int(DeepFixV2));
  }
  // A variant's features, by index (the shadow's as well as the model's).
  static bool v31_of(int v) { return v >= V31rc5; }
  static bool history_seek_of(int v) { return v != V2633; }
  static bool fast_rule_of(int v) { return v == DeepFixV1 || v == DeepFixV2; }

  // --- same-decisions (shadow=V) ---
  // The decisions blkmc diff covers, in cfq_decisions() order (shadow_fn
  // numbers them from 1).
  enum Decision : int { kMarkDeep = 1, kKeepsDeep, kFastSample, kShouldIdle, kSeeky };
  static const char* decision_name(int d);
  int shadow() const { return shadow_; }
  int shadow_fn() const { return shadow_fn_; }
  // The first decision that differed from the shadow's (0: none yet).
  int differed(const SchedState& s) const { return shadow_ >= 0 ? differed_.get(s) : 0; }
  // The shadow variant's verdicts on the current state.
  bool shadow_seeky(const SchedState& s, int q) const;
  bool shadow_should_idle(const SchedState& s, int q) const;

  // --- state accessors (device): slots of the schema ---
  int active(const SchedState& s) const { return active_.get(s); }  // -1: none
  // kSliceNew | kWaitBusy
  int dflags(const SchedState& s) const {
    return (slice_new_.test(s) ? kSliceNew : 0) | (wait_busy_.test(s) ? kWaitBusy : 0);
  }
  int slice_left(const SchedState& s) const { return slice_left_.get(s); }
  int slice_elapsed(const SchedState& s) const { return slice_elapsed_.get(s); }
  int slice_dispatch(const SchedState& s) const { return slice_dispatch_.get(s); }
  int idle_timer(const SchedState& s) const { return idle_timer_.get(s); }  // 0: not pending
  int serving_type(const SchedState& s) const { return serving_type_.get(s); }
  int serving_prio(const SchedState& s) const { return serving_prio_.get(s); }
  // workload_expires - now + 1; 0: expired.
  int workload_left(const SchedState& s) const { return workload_left_.get(s); }
  int hw_tag(const SchedState& s) const { return hw_tag_.get(s); }
  int hw_tag_samples(const SchedState& s) const { return hw_tag_samples_v_.get(s); }
  int est_depth(const SchedState& s) const { return est_depth_.get(s); }
  int fast_samples(const SchedState& s) const { return fast_samples_.get(s); }
  int ghost(const SchedState& s) const { return ghost_ != 0 ? ghost_v_.get(s) : 0; }
  int last_position(const SchedState& s) const { return last_position_.get(s); }
  // fair-ratio's long-run share restricted (share_while_deep=1) to the runs
  // on which queue q (the first of the fair pair) keeps its deep flag from
  // some point on: seed 004 asks how little such an instance is served.
  std::string share_within_text(const std::string& proc) const {
    return share_deep_ ? "while " + proc + " keeps its deep flag" : std::string();
  }
  bool share_within(const SchedState& s, int q) const { return qflag(s, q, kDeep); }
  // Ghost (ghost_check=1): queue q's deep flag predates CFQD_FAST.
  bool stale_deep(const SchedState& s, int q) const { return ghost_ == 1 && stale_deep_.test(s, q); }
  // --- per queue (one per process) ---
  int qflags(const SchedState& s, int q) const;
  bool qflag(const SchedState& s, int q, std::uint8_t f) const {
    return qflag_[std::countr_zero(unsigned(f))].test(s, q);
  }
  int order(const SchedState& s, int q) const { return order_.get(s, q); }  // 0: off tree
  int tree_type(const SchedState& s, int q) const { return tree_type_.get(s, q); }
  int last_pos(const SchedState& s, int q) const { return last_pos_.get(s, q); }
  int seek_history(const SchedState& s, int q) const { return seek_.get(s, q); }
  int seek_samples(const SchedState& s, int q) const { return seek_.get(s, q); }
  int seek_total(const SchedState& s, int q) const {
    return history_seek() ? 0 : seek_total_lo_.get(s, q) | (seek_total_hi_.get(s, q) << 8);
  }
  int ttime_since(const SchedState& s, int q) const { return ttime_since_.get(s, q); }
  int ttime_samples(const SchedState& s, int q) const { return ttime_samples_.get(s, q); }
  int ttime_total(const SchedState& s, int q) const {
    return ttime_total_lo_.get(s, q) | (ttime_total_hi_.get(s, q) << 8);
  }
  int sample_elapsed(const SchedState& s, int q) const { return sample_elapsed_.get(s, q); }
  int sample_count(const SchedState& s, int q) const { return sample_count_.get(s, q); }

  // --- derived ---
  bool sync_q(int q) const;
  int qprio(int q) const;  // RT, BE, IDLE
  int queued(const SchedState& s, int q) const;
  int dispatched(const SchedState& s, int q) const;  // on hctx->dispatch or in the driver
  int in_driver(const SchedState& s, int sync = -1) const;
  int rq_queued(const SchedState& s) const;
  int busy_queues(const SchedState& s, int prio = -1, int type = -1) const;
  int tree_count(const SchedState& s, int prio, int type) const;
  bool has_task(const SchedState& s, int q) const;
  int seek_mean(const SchedState& s, int q) const;
  int ttime_mean(const SchedState& s, int q) const;
  bool ttime_valid(const SchedState& s, int q) const { return ttime_samples(s, q) > 80; }
  bool seek_valid(const SchedState& s, int q) const { return seek_samples(s, q) > 80; }
  bool seeky(const SchedState& s, int q) const;
  bool strict_seeky(const SchedState& s, int q) const;
  bool device_fast(const SchedState& s) const;
  bool slice_used(const SchedState& s) const;
  int cfqq_type(const SchedState& s, int q) const;
  bool cfq_should_idle(const SchedState& s, int q) const;

 private:
  // The shadow's own seek state of queue q (history; 2.6.33: samples and
  // the 16-bit total).
  int shadow_seek(const SchedState& s, int q) const { return shadow_seek_.get(s, q); }
  int shadow_seek_total(const SchedState& s, int q) const {
    return shadow_seek_total_lo_.get(s, q) | (shadow_seek_total_hi_.get(s, q) << 8);
  }
  void set_shadow_seek_total(SchedState& s, int q, int v) const {
    shadow_seek_total_lo_.set(s, q, v & 255);
    shadow_seek_total_hi_.set(s, q, v >> 8);
  }
  void set_seek_total(SchedState& s, int q, int v) const {
    seek_total_lo_.set(s, q, v & 255);
    seek_total_hi_.set(s, q, v >> 8);
  }
  void set_ttime_total(SchedState& s, int q, int v) const {
    ttime_total_lo_.set(s, q, v & 255);
    ttime_total_hi_.set(s, q, v >> 8);
  }
  void set_dflag(SchedState& s, std::uint8_t f, bool on) const {
    (f == kSliceNew ? slice_new_ : wait_busy_).set(s, on);
  }
  // same-decisions: records a decision `fn` of this variant (mine) against
  // the shadow's (theirs) on the same inputs; the first difference sticks.
  void shadow_check(SchedState& s, int fn, int q, bool mine, bool theirs, Why* why) const;
  // cfq_should_idle as a decision the model takes (checked against the shadow).
  bool should_idle_taken(SchedState& s, int q, Why* why) const;
  void set_qflag(SchedState& s, int q, std::uint8_t f, bool on) const;
  void set_active(SchedState& s, int q) const { active_.set(s, q); }
  std::string qname(int q) const;
  std::string qtext(const SchedState& s, int q) const;

  // The kernel's functions.
  void cfq_insert_request(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const;
  void cfq_rq_enqueued(SchedState& s, int q, int rq, Why* why) const;
  void cfq_update_io_thinktime(SchedState& s, int q) const;
  void cfq_update_io_seektime(SchedState& s, int q, int rq) const;
  void cfq_update_idle_window(SchedState& s, int q, Why* why) const;
  bool cfq_should_preempt(SchedState& s, int q, int rq, Why* why) const;
  void cfq_preempt_queue(SchedState& s, int q, Why* why) const;
  void cfq_service_tree_add(SchedState& s, int q, bool front) const;
  void cfq_del_cfqq_rr(SchedState& s, int q) const;
  void renumber(SchedState& s) const;
  int cfq_dispatch_requests(SchedState& s, Why* why) const;
  int cfq_select_queue(SchedState& s, Why* why) const;
  void choose_service_tree(SchedState& s, Why* why) const;
  int cfq_get_next_queue(const SchedState& s) const;
  void cfq_set_active_queue(SchedState& s, int q, Why* why) const;
  void cfq_slice_expired(SchedState& s, bool timed_out, Why* why) const;
  bool cfq_may_dispatch(SchedState& s, int q, Why* why) const;
  int cfq_dispatch_request(SchedState& s, int q, Why* why) const;
  void cfq_fast_device_detect_start(SchedState& s, int q) const;
  void cfq_fast_device_detect_end(SchedState& s, int q, Why* why) const;
  void cfq_completed_request(SchedState& s, int rq, Why* why) const;
  void cfq_update_hw_tag(SchedState& s, int q) const;
  void cfq_set_prio_slice(SchedState& s, int q) const;
  bool cfq_should_wait_busy(const SchedState& s, int q) const;
  void cfq_arm_slice_timer(SchedState& s, Why* why) const;
  void cfq_idle_slice_timer(SchedState& s) const;
  int prio_slice(int q) const;

  const RqTable& t_;
  ByteVar active_, slice_left_, slice_elapsed_, slice_dispatch_, idle_timer_, serving_type_,
      serving_prio_, workload_left_, hw_tag_, hw_tag_samples_v_, est_depth_, fast_samples_,
      ghost_v_, last_position_, differed_;
  BitVar slice_new_, wait_busy_, stale_deep_;
  Schema::BlockLayout qlayout_;  // the block "cfqq"
  BitVar qflag_[8];  // kOnRr .. kCreated, by bit
  ByteVar order_, tree_type_, last_pos_, seek_, seek_total_lo_, seek_total_hi_, ttime_since_,
      ttime_samples_, ttime_total_lo_, ttime_total_hi_, sample_elapsed_, sample_count_;
  ByteVar shadow_seek_, shadow_seek_total_lo_, shadow_seek_total_hi_;
  int variant_, nq_;
  int slice_sync_, slice_async_, slice_idle_, group_idle_, quantum_, target_latency_;
  int seek_thr_, seek_mean_thr_, nonrot_size_, seek_window_, seeky_bits_, close_thr_;
  int hw_queue_min_, hw_tag_samples_, fast_valid_, ghost_, ghost_ticks_;
  int shadow_, shadow_fn_, shadow_seek_bytes_;
  bool share_deep_;
  bool clock_;  // without a clock the idle timer fires at the next queue run
};

}  // namespace blkmc::sched
