// model/sched/sched_model: a blkmc model of an I/O scheduler between a
// workload and a blk-mq device (registered as `deadline` and `none`).
//
// Actors (Step::actor):
//   0 .. P-1   the workload's processes: SUBMIT a request (blk_mq_submit_bio
//              -> the scheduler's insert, or bypass to hctx->dispatch); a sync
//              process waits for its previous completion, think time with clock=1.
//   P          blk-mq's queue run: ISSUE the request parked on hctx->dispatch
//              when a driver tag is free, else DISPATCH: one call of the
//              scheduler's dispatch (blk_mq_do_dispatch_sched); the request
//              goes to the driver, or onto hctx->dispatch when no tag is free.
//              A dispatch that returns NULL is a step only when it changes the
//              scheduler's state.
//   P+1        the device: COMPLETE (or REQUEUE) a request in service; any
//              order among those in service, so completion order is explored.
//   P+2        the clock (clock=1): TICK advances jiffies by one, with
//              maximal progress: a tick happens only when no submission, issue,
//              dispatch that returns a request, or completion is possible
//              (the system waits for the device, think times, or expiry).
// With clock=0 there is no time: nothing expires (unless an expiry is 0
// ticks), no service or think times, every interleaving of the steps.
//
// Ghost variables for the properties: an error flag (the scheduler handed
// out a request it did not hold), and for the tracked request (the
// workload's `track` line) the scheduler dispatches of other requests while
// it was queued (max-wait), the ticks it was queued (max-wait-ticks) and the
// dispatches while it was queued and past its deadline (max-expired-wait),
// all saturating at wait_cap and reset when the tracked request is inserted
// again (cyclic processes). With a `fair A B` pair, the sectors of each
// dispatched while the other had a request queued in the scheduler (only a
// choice between the two says something about fairness: a process with
// nothing queued cannot be served), saturating at wait_cap.
//
// The state is declared once (model/schema.hpp): the requests' block "rq"
// (RqTable::declare), the block "proc" (pc, think), the groups "device"
// (head, requeues_left) and "ghost" (err, wait, wait_ticks, expired_wait;
// the block "fair" with `fair`), then the scheduler's own variables
// (Sched::declare). Footprints index that flat variable list; it can exceed
// Footprint::kMaxVars (64 requests x 5 variables), and then every step
// reads and writes every variable (all bits set: no two steps independent).
#pragma once

#include <cstring>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "model/path_measure.hpp"
#include "model/schema.hpp"
#include "model/schema_model.hpp"
#include "model/sched/bfq/bfq.hpp"
#include "model/sched/cfq/cfq.hpp"
#include "model/sched/deadline/deadline.hpp"
#include "model/sched/kernel/kernel_sched.hpp"
#include "model/sched/none/none.hpp"
#include "model/sched/scheduler.hpp"
#include "model/sched/workload.hpp"
#include "model/sched/sched_props.hpp"

namespace blkmc::sched {

template <class M>
class SchedObserver;  // model/sched/sim_observer.hpp

// A scheduler with invariants of its own (BFQ's decision comparison, ...).
template <class Sched>
concept HasExtraProps = requires(const Sched& sc, const typename SchedStateOf<Sched>::type& s) {
  { Sched::extra_props() } -> std::convertible_to<std::vector<PropInfo>>;
  { sc.violates_extra(0, s) } -> std::convertible_to<bool>;
};
// A scheduler whose code can stop (the kernel's own after a BUG).
template <class Sched>
concept HasHalt = requires(const Sched& sc, const typename SchedStateOf<Sched>::type& s) {
  { sc.halted(s) } -> std::convertible_to<bool>;
};
// A scheduler whose state can follow interchangeable processes (symmetry,
// model/sched/sched_symmetry.hpp): it renames what refers to a process, its
// queue or its requests, compares what it keeps per process, and says
// whether any of its decisions reads a sector.
template <class Sched>
concept HasProcSymmetry = requires(const Sched& sc, typename SchedStateOf<Sched>::type& s, const std::vector<int>& v) {
  sc.rename(s, std::as_const(s), v, v);
  { sc.compare_procs(std::as_const(s), 0, 1) } -> std::convertible_to<int>;
  { Sched::kReadsSectors } -> std::convertible_to<bool>;
};
// A scheduler that says no decision of its reads the order of the requests
// in the driver, and may merge values of its own state in the key
// (abstraction, model/sched/sched_abstraction.hpp).
template <class Sched>
concept BlindToServiceOrder = requires { requires !Sched::kReadsServiceOrder; };
template <class Sched>
concept HasSchedAbstraction = requires(const Sched& sc, typename SchedStateOf<Sched>::type& s) {
  sc.abstract_key(s);
  { sc.abstractions() } -> std::convertible_to<std::vector<std::string>>;
};
// A scheduler whose variants grow at run time (loaded kernel sources).
template <class Sched>
concept HasDynamicVariants = requires { { Sched::variants_generation() } -> std::convertible_to<unsigned>; };

template <class Sched>
class SchedModel : public SchemaModel<SchedModel<Sched>> {
 public:
  using State = typename SchedStateOf<Sched>::type;
  using Observer = SchedObserver<SchedModel>;  // blkmc simulate's figures

  enum Prop : int {
    Conservation = kSchedConservation,
    Deadlock = kSchedDeadlock,
    Progress = kSchedProgress,
    MaxWait = kSchedMaxWait,
    MaxWaitTicks = kSchedMaxWaitTicks,
    MaxExpiredWait = kSchedMaxExpiredWait,
    Starvation = kSchedStarvation,
    FairRatio = kSchedFairRatio,
  };
  enum Action : std::uint8_t { SUBMIT, DISPATCH, ISSUE, COMPLETE, REQUEUE, TICK };
  static constexpr std::uint8_t kNull = 255;        // DISPATCH arg: the scheduler returned NULL
  static constexpr std::uint8_t kErrNotQueued = 1;  // ghost: dispatched a request it did not hold

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  SchedModel(int variant, const Params& params);
  // With a workload of one's own (tests; the `workload` parameter is ignored).
  SchedModel(int variant, const Params& params, const Workload& wl);
  SchedModel(const SchedModel&) = delete;
  SchedModel& operator=(const SchedModel&) = delete;

  State initial() const;

  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    expand(s, emit);
  }
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;
  int measure(int prop, const State& s) const;
  bool pending(int prop, const State& s) const;

  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const;
  Footprint footprint(const State& s, const Step& step) const;
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;

  // For property slicing (explorer/reduced_model.hpp): the property ghosts
  // (err, wait, wait_ticks, expired_wait, fair_svc) are written from the
  // rest of the state and read only by their properties, and the device's
  // head only by a seeking device's service time (without one it is read
  // by nothing); every other variable counts as read by a guard, so it is
  // kept whatever is checked.
  Influence influence() const;
  // Path measures (model/path_measure.hpp): max-wait, max-wait-ticks and
  // max-expired-wait are one counter each, cleared when the tracked request
  // is submitted; fair-ratio is the fair pair's two service counters.
  PathMeasure path_measure(int prop) const;
  void path_counters(int prop, const State& s, int* g) const;
  bool path_reset(int prop, const State& before, const State& after) const;
  void share_served(int prop, const State& before, const State& after, int* g) const;
  // The scheduler's restriction of the long-run share, if it makes one
  // (CFQ's share_while_deep): true where it holds in s.
  bool share_within(int prop, const State& s) const;
  int path_value(int prop, const int* g) const;
  int path_bound(int prop, const int* lo, const int* hi) const;
  // Symmetry (explorer/symmetry.hpp) over the block "proc": processes are
  // interchangeable when nothing but their names tells them apart (the
  // same parameters and requests, sectors included unless neither the
  // scheduler nor the device reads one) and no selected property names
  // them (track, fair); their requests, and what the scheduler keeps per
  // process, move with them. model/sched/sched_symmetry.hpp.
  int symmetric_block(const std::vector<int>& props) const;
  std::vector<int> symmetry_classes(const std::vector<int>& props) const;
  void rename(State& s, const std::vector<int>& perm) const;
  int compare_copies(const State& s, int a, int b) const;
  std::string describe_symmetry(const std::vector<std::vector<int>>& classes) const;
  // Abstraction (explorer/reduced_model.hpp): values no step, guard or
  // property tells apart share the key's representative. The order among
  // the requests the device serves at once (completion among them is free)
  // where no decision of the scheduler reads the driver's order, and the
  // scheduler's own (its hw_tag detector). model/sched/sched_abstraction.hpp.
  void abstract_key(State& s) const;
  std::vector<std::string> abstractions() const;

  // --- parameters and parts ---
  const Workload& workload() const { return wl_; }
  const RqTable& rqs() const { return rq_; }
  const Sched& sched() const { return sched_; }
  // The code a trace of the kernel's own scheduler names (make_trace).
  nlohmann::json source_json() const
    requires requires(const Sched& x) { x.source_json(); }
  {
    return sched_.source_json();
  }
  int variant() const { return variant_; }
  bool clock() const { return clock_; }
  int wait_cap() const { return wait_cap_; }
  int nprocs() const { return nproc_; }
  int dispatcher() const { return nproc_; }
  int device() const { return nproc_ + 1; }
  int clock_actor() const { return nproc_ + 2; }
  int tracked() const { return wl_.track; }

  // --- state accessors: slots of the schema, resolved once ---
  int pc(const State& s, int p) const { return pc_.get(s, p); }
  void set_pc(State& s, int p, int v) const { pc_.set(s, p, v); }
  int think(const State& s, int p) const { return think_.get(s, p); }
  void set_think(State& s, int p, int v) const { think_.set(s, p, v); }
  int head_pos(const State& s) const { return head_.get(s); }
  void set_head_pos(State& s, int v) const { head_.set(s, v); }
  int requeues_left(const State& s) const { return requeues_.get(s); }
  void set_requeues_left(State& s, int v) const { requeues_.set(s, v); }
  int ghost_err(const State& s) const { return err_.get(s); }
  void set_ghost_err(State& s, int v) const { err_.set(s, v); }
  int wait(const State& s) const { return wait_.get(s); }
  void set_wait(State& s, int v) const { wait_.set(s, v); }
  int wait_ticks(const State& s) const { return wait_ticks_.get(s); }
  void set_wait_ticks(State& s, int v) const { wait_ticks_.set(s, v); }
  int expired_wait(const State& s) const { return expired_wait_.get(s); }
  void set_expired_wait(State& s, int v) const { expired_wait_.set(s, v); }
  // fair-ratio: the service of the fair pair's process i (only with `fair`).
  int fair_svc(const State& s, int i) const { return wl_.has_fair() ? fair_.get(s, i) : 0; }
  void set_fair_svc(State& s, int i, int v) const { fair_.set(s, i, v); }
  int fair_ratio(const State& s) const;

  // --- derived facts ---
  // 0: before the gate (first group submitting and being dispatched, device
  // frozen); 1: the gated processes submit (device frozen); 2: thawed.
  int gate_phase(const State& s) const;
  int in_driver(const State& s) const;
  int free_tags(const State& s) const { return wl_.dev.depth - in_driver(s); }
  int hctx_head(const State& s) const;  // first request on hctx->dispatch, -1: none
  bool in_service(const State& s, int r) const;
  bool can_submit(const State& s, int p) const;
  bool can_submit(const State& s, int p, int phase) const;
  int next_request_of(const State& s, int p) const {
    return wl_.procs[std::size_t(p)].first + pc(s, p);
  }
  bool proc_done(const State& s, int p) const;
  bool tracked_queued(const State& s) const { return wl_.track >= 0 && rq_.queued(s, wl_.track); }
  bool tracked_expired(const State& s) const;
  bool proc_queued(const State& s, int p) const;  // has a request in the scheduler

 private:
  template <class F>
  void expand(const State& s, F& emit) const;
  // The steps, named after the kernel paths they stand for.
  void blk_mq_submit_bio(State& s, int p, Why* why) const;
  int blk_mq_do_dispatch_sched(State& s, Why* why) const;
  void blk_mq_dispatch_hctx_list(State& s) const;
  void blk_mq_complete_request(State& s, int r, Why* why) const;
  void blk_mq_requeue_request(State& s, int r, Why* why) const;
  void jiffies_tick(State& s, Why* why = nullptr) const;
  void issue_to_driver(State& s, int r) const;
  void renumber(State& s) const;
  bool same(const State& a, const State& b) const;
  bool interchangeable(int p, int q) const;
  // The bytes a state uses with their padding, no more: a kernel-code
  // state is far smaller than its capacity.
  void copy_state(State& to, const State& from) const {
    std::memcpy(to.b.data(), from.b.data(), padded_bytes(schema_.bytes()));
  }
  std::string rq_list(const State& s, St st) const;
  std::string fair_text(const State& s) const;

  int variant_;
  Workload wl_;
  RqTable rq_;
  bool clock_;
  int wait_cap_, fair_window_, nproc_;
  Sched sched_;
  using SchemaModel<SchedModel<Sched>>::schema_;
  ByteVar pc_, think_, head_, requeues_, wait_, wait_ticks_, expired_wait_, fair_;
  BitVar err_;
  // Flat indices (footprints): the requests' variables, each process's pc
  // and think, the device, the ghosts, the scheduler's (a tail).
  int rq_lo_ = 0, rq_hi_ = 0, dev_lo_ = 0, dev_hi_ = 0, ghost_lo_ = 0, ghost_hi_ = 0, sched_lo_ = 0;
  // Every block of one copy per request (the framework's, a scheduler's):
  // symmetry moves them with their processes.
  std::vector<Schema::BlockLayout> rq_blocks_;
};

// The successors in a fixed order (it decides BFS traces): submissions by
// process, then blk-mq's issue or dispatch, completions and requeues by
// request, the tick. One scratch state, no buffer.
template <class Sched>
template <class F>
void SchedModel<Sched>::expand(const State& s, F& emit) const {
  if constexpr (HasHalt<Sched>)
    if (sched_.halted(s)) return;
  // Each successor copies the state in first (copy_state: the used bytes,
  // padding included); no byte past them is read.
  State next(kNoInit);
  bool urgent = false;
  const int phase = gate_phase(s);
  for (int p = 0; p < nproc_; ++p)
    if (can_submit(s, p, phase)) {
      copy_state(next, s);
      const int r = next_request_of(s, p);
      blk_mq_submit_bio(next, p, nullptr);
      emit(Step{std::uint8_t(p), SUBMIT, std::uint8_t(r)}, std::as_const(next));
      urgent = true;
    }
  const std::uint8_t d = static_cast<std::uint8_t>(dispatcher());
  if (const int h = hctx_head(s); h >= 0) {
    if (free_tags(s) > 0) {
      copy_state(next, s);
      blk_mq_dispatch_hctx_list(next);
      emit(Step{d, ISSUE, std::uint8_t(h)}, std::as_const(next));
      urgent = true;
    }
  } else if (sched_.has_work(s) && (free_tags(s) > 0 || wl_.dev.slot)) {
    copy_state(next, s);
    const int r = blk_mq_do_dispatch_sched(next, nullptr);
    if (r >= 0) {
      emit(Step{d, DISPATCH, std::uint8_t(r)}, std::as_const(next));
      urgent = true;
    } else if (!same(next, s)) {
      emit(Step{d, DISPATCH, kNull}, std::as_const(next));
    }
  }
  if (phase == 2) {
    const std::uint8_t dev = static_cast<std::uint8_t>(device());
    for (int r = 0; r < rq_.size(); ++r) {
      if (rq_.status(s, r) != St::Driver || rq_.age(s, r) != 0 || !in_service(s, r)) continue;
      copy_state(next, s);
      blk_mq_complete_request(next, r, nullptr);
      emit(Step{dev, COMPLETE, std::uint8_t(r)}, std::as_const(next));
      urgent = true;
      if (requeues_left(s) > 0) {
        copy_state(next, s);
        blk_mq_requeue_request(next, r, nullptr);
        emit(Step{dev, REQUEUE, std::uint8_t(r)}, std::as_const(next));
      }
    }
  }
  // No tick once every request is done: nothing waits, and a scheduler
  // whose times are kept whole (the kernel's BFQ) would age forever.
  if (clock_ && !urgent && !finished(s)) {
    copy_state(next, s);
    jiffies_tick(next);
    if (!same(next, s)) emit(Step{std::uint8_t(clock_actor()), TICK, 0}, std::as_const(next));
  }
}

using DeadlineModel = SchedModel<DeadlineScheduler>;
using NoneModel = SchedModel<NoneScheduler>;
using BfqModel = SchedModel<BfqScheduler>;
using CfqModel = SchedModel<CfqScheduler>;
using KernelDeadlineModel = SchedModel<KernelScheduler>;
using KernelBfqModel = SchedModel<KernelBfqScheduler>;
extern template class SchedModel<DeadlineScheduler>;
extern template class SchedModel<KernelScheduler>;
extern template class SchedModel<KernelBfqScheduler>;
extern template class SchedModel<BfqScheduler>;
extern template class SchedModel<NoneScheduler>;
extern template class SchedModel<CfqScheduler>;

}  // namespace blkmc::sched

#include "model/sched/sim_observer.hpp"  // IWYU pragma: export
