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
#pragma once

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/params.hpp"
#include "model/sched/bfq/bfq.hpp"
#include "model/sched/cfq/cfq.hpp"
#include "model/sched/deadline/deadline.hpp"
#include "model/sched/none/none.hpp"
#include "model/sched/scheduler.hpp"
#include "model/sched/workload.hpp"
#include "model/sched/sched_props.hpp"

namespace blkmc::sched {

template <class M>
class SchedObserver;  // model/sched/sim_observer.hpp

// A scheduler with invariants of its own (BFQ's decision comparison, ...).
template <class Sched>
concept HasExtraProps = requires(const Sched& sc, const SchedState& s) {
  { Sched::extra_props() } -> std::convertible_to<std::vector<PropInfo>>;
  { sc.violates_extra(0, s) } -> std::convertible_to<bool>;
};

template <class Sched>
class SchedModel {
 public:
  using State = SchedState;
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

  std::size_t state_bytes() const { return nbytes_; }
  State initial() const;

  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    std::vector<std::pair<Step, State>> out;
    expand(s, out);
    for (const auto& [st, n] : out) emit(st, n);
  }
  bool apply(const State& s, const Step& step, State& next) const;
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;
  int measure(int prop, const State& s) const;
  bool pending(int prop, const State& s) const;

  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const;
  Footprint footprint(const State& s, const Step& step) const;
  std::vector<std::string> variable_names() const;
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;

  // --- parameters and parts ---
  const Workload& workload() const { return wl_; }
  const RqTable& rqs() const { return rq_; }
  const Sched& sched() const { return sched_; }
  int variant() const { return variant_; }
  bool clock() const { return clock_; }
  int wait_cap() const { return wait_cap_; }
  int nprocs() const { return nproc_; }
  int dispatcher() const { return nproc_; }
  int device() const { return nproc_ + 1; }
  int clock_actor() const { return nproc_ + 2; }
  int tracked() const { return wl_.track; }

  // --- state accessors ---
  std::uint8_t pc(const State& s, int p) const { return s.b[off_proc_ + 2 * std::size_t(p)]; }
  std::uint8_t& pc(State& s, int p) const { return s.b[off_proc_ + 2 * std::size_t(p)]; }
  std::uint8_t think(const State& s, int p) const {
    return s.b[off_proc_ + 2 * std::size_t(p) + 1];
  }
  std::uint8_t& think(State& s, int p) const { return s.b[off_proc_ + 2 * std::size_t(p) + 1]; }
  std::uint8_t head_pos(const State& s) const { return s.b[off_dev_]; }
  std::uint8_t& head_pos(State& s) const { return s.b[off_dev_]; }
  std::uint8_t requeues_left(const State& s) const { return s.b[off_dev_ + 1]; }
  std::uint8_t& requeues_left(State& s) const { return s.b[off_dev_ + 1]; }
  std::uint8_t ghost_err(const State& s) const { return s.b[off_ghost_]; }
  std::uint8_t& ghost_err(State& s) const { return s.b[off_ghost_]; }
  std::uint8_t wait(const State& s) const { return s.b[off_ghost_ + 1]; }
  std::uint8_t& wait(State& s) const { return s.b[off_ghost_ + 1]; }
  std::uint8_t wait_ticks(const State& s) const { return s.b[off_ghost_ + 2]; }
  std::uint8_t& wait_ticks(State& s) const { return s.b[off_ghost_ + 2]; }
  std::uint8_t expired_wait(const State& s) const { return s.b[off_ghost_ + 3]; }
  std::uint8_t& expired_wait(State& s) const { return s.b[off_ghost_ + 3]; }
  // fair-ratio: the service of the fair pair's process i (only with `fair`).
  std::uint8_t fair_svc(const State& s, int i) const {
    return wl_.has_fair() ? s.b[off_ghost_ + 4 + std::size_t(i)] : 0;
  }
  std::uint8_t& fair_svc(State& s, int i) const { return s.b[off_ghost_ + 4 + std::size_t(i)]; }
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
  void expand(const State& s, std::vector<std::pair<Step, State>>& out) const;
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
  std::string rq_list(const State& s, St st) const;
  std::string fair_text(const State& s) const;

  int variant_;
  Workload wl_;
  RqTable rq_;
  bool clock_;
  int wait_cap_, fair_window_, nproc_;
  std::size_t off_proc_, off_dev_, off_ghost_, off_sched_, nbytes_;
  Sched sched_;
};

using DeadlineModel = SchedModel<DeadlineScheduler>;
using NoneModel = SchedModel<NoneScheduler>;
using BfqModel = SchedModel<BfqScheduler>;
using CfqModel = SchedModel<CfqScheduler>;
extern template class SchedModel<DeadlineScheduler>;
extern template class SchedModel<BfqScheduler>;
extern template class SchedModel<NoneScheduler>;
extern template class SchedModel<CfqScheduler>;

}  // namespace blkmc::sched

#include "model/sched/sim_observer.hpp"  // IWYU pragma: export
