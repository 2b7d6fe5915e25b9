#include "model/sched/sched_model.hpp"
#include "model/sched/sched_abstraction.hpp"
#include "model/sched/sched_symmetry.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

namespace blkmc::sched {

namespace {

std::string workload_help() {
  std::string h = "a workload: a FILE.wl of yours, or shipped:";
  const auto& all = shipped_workloads();
  for (std::size_t i = 0; i < all.size(); ++i) h += fmt::format(" {}={}", i, all[i].name);
  return h;
}

// workload=FILE.wl: the workload registry (model/sched/workload.hpp).
const OpenValues kWorkloadFiles{
    [] { return workload_count() - 1; },
    [](const std::string& arg) { return load_workload(arg); },
    [](int v) { return workload_at(v).name; },
    [](int v) { return workload_added(v) ? workload_text(v) : std::string(); },
    [](const std::string& name, const std::string& text, const std::string& where) {
      return add_workload(name, text, where);
    },
};

}  // namespace

template <class Sched>
const ModelInfo& SchedModel<Sched>::static_info() {
  static ModelInfo info = [] {
    ModelInfo m;
    m.name = Sched::name();
    m.summary = Sched::summary();
    m.params = {
        {"workload", 0, 0, static_cast<int>(shipped_workloads().size()) - 1, workload_help()},
        {"clock", 0, 0, 1, "1: discrete time (ticks) with expiry, aging, service and think times"},
        {"wait_cap", 255, 1, 255, "saturation of the tracked request's wait counters"},
        {"fair_window", 4, 1, 255,
         "fair-ratio counts once the fair pair's window holds this many sectors"},
    };
    for (const auto& p : Sched::params()) m.params.push_back(p);
    m.variants = Sched::variants();
    // Value names: -p workload=NAME (a shipped workload), -p shadow=VARIANT
    // (none for -1).
    for (const auto& w : shipped_workloads()) m.params[0].names.push_back(w.name);
    m.params[0].open = &kWorkloadFiles;
    for (auto& p : m.params)
      if (p.name == "shadow")
        for (int v = p.min; v <= p.max; ++v)
          p.names.push_back(v < 0 ? "none" : m.variants.at(std::size_t(v)).name);
    m.props = sched_props();
    if constexpr (HasExtraProps<Sched>)
      for (const auto& x : Sched::extra_props()) m.props.push_back(x);
    m.actions = {"submit", "dispatch", "issue", "complete", "requeue", "tick"};
    return m;
  }();
  // Variants added at run time (loaded before any search starts).
  if constexpr (HasDynamicVariants<Sched>) {
    static unsigned gen = Sched::variants_generation();
    if (gen != Sched::variants_generation()) {
      info.variants = Sched::variants();
      gen = Sched::variants_generation();
    }
  }
  return info;
}

template <class Sched>
SchedModel<Sched>::SchedModel(int variant, const Params& p)
    : SchedModel(variant, p, workload_at(p.at("workload"))) {}

template <class Sched>
SchedModel<Sched>::SchedModel(int variant, const Params& p, const Workload& wl)
    : variant_(variant),
      wl_(wl),
      rq_(wl_),
      clock_(p.at("clock") != 0),
      wait_cap_(p.at("wait_cap")),
      fair_window_(p.at("fair_window")),
      nproc_(static_cast<int>(wl_.procs.size())),
      sched_(variant, p, rq_) {
  // The one declaration of the state: the requests, the processes, the
  // device, the ghosts, then the scheduler's own variables.
  SchemaSlots slots;
  rq_.declare(schema_, slots);
  const int proc = schema_.block("proc", nproc_);
  slots.byte(pc_, schema_.integer("pc", 0, 255, proc));
  slots.byte(think_, schema_.integer("think", 0, 255, proc));
  const int dev = schema_.group("device");
  slots.byte(head_, schema_.integer("head", 0, 255, dev));
  slots.byte(requeues_, schema_.integer("requeues_left", 0, 255, dev));
  const int ghost = schema_.group("ghost");
  slots.bit(err_, schema_.bit("err", ghost));  // kErrNotQueued
  slots.byte(wait_, schema_.integer("wait", 0, 255, ghost));
  slots.byte(wait_ticks_, schema_.integer("wait_ticks", 0, 255, ghost));
  slots.byte(expired_wait_, schema_.integer("expired_wait", 0, 255, ghost));
  if (wl_.has_fair()) slots.byte(fair_, schema_.integer("fair_svc", 0, 255, schema_.block("fair", 2)));
  const int sched0 = int(schema_.vars().size());
  sched_.declare(schema_, slots);
  schema_.layout();
  this->fit_schema("sched", "workload", true);
  slots.bind(schema_);
  if constexpr (requires { sched_.resolve(schema_); }) sched_.resolve(schema_);
  auto first = [&](const char* n) { return schema_.first(schema_.find(n)); };
  std::vector<int> rq_places;
  rq_lo_ = first("rq_status");
  rq_hi_ = first("pc");
  dev_lo_ = first("head");
  dev_hi_ = ghost_lo_ = first("err");
  ghost_hi_ = sched_lo_ = sched0 < int(schema_.vars().size()) ? schema_.first(sched0) : schema_.size();
  for (int id = 0; id < int(schema_.vars().size()); ++id) {
    const int place = schema_.var(id).place;
    if (place < 0 || schema_.place_name(place) != "rq") continue;
    if (std::find(rq_places.begin(), rq_places.end(), place) == rq_places.end()) rq_places.push_back(place);
  }
  for (int place : rq_places) rq_blocks_.push_back(schema_.block_layout(place));
}

template <class Sched>
typename SchedModel<Sched>::State SchedModel<Sched>::initial() const {
  State s{};
  sched_.init(s);
  set_requeues_left(s, wl_.dev.requeue);
  if (clock_)
    for (int p = 0; p < nproc_; ++p) set_think(s, p, wl_.procs[std::size_t(p)].delay);
  return s;
}

template <class Sched>
bool SchedModel<Sched>::same(const State& a, const State& b) const {
  return std::memcmp(a.b.data(), b.b.data(), schema_.bytes()) == 0;
}

template <class Sched>
bool SchedModel<Sched>::proc_done(const State& s, int p) const {
  const WlProc& pr = wl_.procs[std::size_t(p)];
  return !pr.cyclic && pc(s, p) >= pr.count;
}

template <class Sched>
int SchedModel<Sched>::gate_phase(const State& s) const {
  if (!wl_.gate) return 2;
  for (int p = 0; p < nproc_; ++p) {
    const WlProc& pr = wl_.procs[std::size_t(p)];
    if (!pr.pre_gate) continue;
    if (!proc_done(s, p)) return 0;
    for (int r = pr.first; r < pr.first + pr.count; ++r)
      if (rq_.queued(s, r)) return 0;
  }
  for (int p = 0; p < nproc_; ++p)
    if (!wl_.procs[std::size_t(p)].pre_gate && !proc_done(s, p)) return 1;
  return 2;
}

template <class Sched>
int SchedModel<Sched>::in_driver(const State& s) const {
  int n = 0;
  for (int r = 0; r < rq_.size(); ++r) n += rq_.status(s, r) == St::Driver;
  return n;
}

template <class Sched>
int SchedModel<Sched>::hctx_head(const State& s) const {
  int best = -1;
  for (int r = 0; r < rq_.size(); ++r)
    if (rq_.status(s, r) == St::Hctx && (best < 0 || rq_.seq(s, r) < rq_.seq(s, best))) best = r;
  return best;
}

template <class Sched>
bool SchedModel<Sched>::in_service(const State& s, int r) const {
  if (rq_.status(s, r) != St::Driver) return false;
  int before = 0;
  for (int q = 0; q < rq_.size(); ++q)
    before += rq_.status(s, q) == St::Driver && rq_.seq(s, q) < rq_.seq(s, r);
  return before < wl_.dev.spindles;
}

template <class Sched>
bool SchedModel<Sched>::can_submit(const State& s, int p) const {
  return can_submit(s, p, gate_phase(s));
}

template <class Sched>
bool SchedModel<Sched>::can_submit(const State& s, int p, int phase) const {
  const WlProc& pr = wl_.procs[std::size_t(p)];
  if (proc_done(s, p) || think(s, p) > 0) return false;
  if (wl_.gate && (pr.pre_gate ? phase != 0 : phase != 1)) return false;
  if (rq_.status(s, next_request_of(s, p)) != St::Idle) return false;  // previous life not over
  if (pr.sync)
    for (int r = pr.first; r < pr.first + pr.count; ++r) {
      const St st = rq_.status(s, r);
      if (st != St::Idle && st != St::Done) return false;
    }
  return true;
}

template <class Sched>
bool SchedModel<Sched>::tracked_expired(const State& s) const {
  const int t = wl_.track;
  return t >= 0 && rq_.status(s, t) == St::Sched && rq_.age(s, t) >= sched_.expire(rq_.dir(t));
}

template <class Sched>
bool SchedModel<Sched>::proc_queued(const State& s, int p) const {
  const WlProc& pr = wl_.procs[std::size_t(p)];
  for (int r = pr.first; r < pr.first + pr.count; ++r)
    if (rq_.queued(s, r)) return true;
  return false;
}

template <class Sched>
int SchedModel<Sched>::fair_ratio(const State& s) const {
  if (!wl_.has_fair()) return 0;
  const int g[2] = {fair_svc(s, 0), fair_svc(s, 1)};
  return path_value(FairRatio, g);
}

// Ranks the requests by the order they entered their place (a new arrival
// has seq 255), within each list whose order matters: hctx->dispatch, the
// driver, the scheduler's dispatch list(s), and its fifo lists (one per
// priority and direction when Sched::kFifoPerClass, else one).
template <class Sched>
void SchedModel<Sched>::renumber(State& s) const {
  std::array<std::pair<int, int>, kMaxRqs> live{};
  int n = 0;
  for (int r = 0; r < rq_.size(); ++r) {
    const St st = rq_.status(s, r);
    if (st == St::Idle || st == St::Done) {
      rq_.set_seq(s, r, 0);
      rq_.set_age(s, r, 0);
      continue;
    }
    int group = static_cast<int>(st) * 8;
    if (st == St::Sched && Sched::kFifoPerClass) group += 1 + rq_.prio(r) * 2 + rq_.dir(r);
    live[std::size_t(n++)] = {group * 256 + rq_.seq(s, r), r};
  }
  std::sort(live.begin(), live.begin() + n);
  int rank = 0;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && live[std::size_t(i)].first / 256 != live[std::size_t(i - 1)].first / 256) rank = 0;
    rq_.set_seq(s, live[std::size_t(i)].second, rank++);
  }
}

// --- steps ---

// blk_mq_submit_bio: a request for the next entry of process p, into the
// scheduler (.insert_requests) or, for a bypass request, onto hctx->dispatch.
template <class Sched>
void SchedModel<Sched>::blk_mq_submit_bio(State& s, int p, Why* why) const {
  const WlProc& pr = wl_.procs[std::size_t(p)];
  const int r = next_request_of(s, p);
  rq_.set_seq(s, r, 255);
  if (pr.bypass) {
    rq_.set_status(s, r, St::Hctx);
    rq_.set_age(s, r, 0);
    if (why)
      *why += fmt::format("blk_mq_request_bypass_insert: {} onto hctx->dispatch", rq_.name(r));
  } else {
    sched_.insert(s, r, pr.head, false, why);
  }
  set_pc(s, p, pr.cyclic ? (pc(s, p) + 1) % pr.count : pc(s, p) + 1);
  if (clock_ && !pr.sync) set_think(s, p, pr.think);
  if (r == wl_.track) {
    set_wait(s, 0);
    set_wait_ticks(s, 0);
    set_expired_wait(s, 0);
  }
  renumber(s);
}

template <class Sched>
void SchedModel<Sched>::issue_to_driver(State& s, int r) const {
  rq_.set_status(s, r, St::Driver);
  rq_.set_seq(s, r, 255);
  rq_.set_age(s, r, 0);
  if (clock_) {
    rq_.set_age(s, r, wl_.dev.service_ticks(rq_.sector(r), head_pos(s)));
    if (wl_.dev.rotational) set_head_pos(s, std::min(255, rq_.sector(r) + rq_.info(r).size));
  }
}

// One round of blk_mq_do_dispatch_sched: ask the scheduler for a request;
// issue it when a driver tag is free, else park it on hctx->dispatch.
template <class Sched>
int SchedModel<Sched>::blk_mq_do_dispatch_sched(State& s, Why* why) const {
  const State before = s;
  const int r = sched_.dispatch(s, why);
  if (r < 0) return r;
  if (!rq_.queued(before, r)) set_ghost_err(s, kErrNotQueued);
  if (wl_.track >= 0 && r != wl_.track && rq_.queued(s, wl_.track)) {
    set_wait(s, std::min(wait(s) + 1, wait_cap_));
    if (tracked_expired(s)) set_expired_wait(s, std::min(expired_wait(s) + 1, wait_cap_));
  }
  for (int i = 0; i < 2 && wl_.has_fair(); ++i)
    if (rq_.info(r).proc == wl_.fair[i] && proc_queued(s, wl_.fair[1 - i]))
      set_fair_svc(s, i, std::min(fair_svc(s, i) + rq_.info(r).size, wait_cap_));
  if (free_tags(s) > 0) {
    issue_to_driver(s, r);
  } else {
    rq_.set_status(s, r, St::Hctx);
    rq_.set_seq(s, r, 255);
  }
  renumber(s);
  return r;
}

// blk_mq_dispatch_rq_list on hctx->dispatch: its first request gets a tag.
template <class Sched>
void SchedModel<Sched>::blk_mq_dispatch_hctx_list(State& s) const {
  issue_to_driver(s, hctx_head(s));
  renumber(s);
}

// The driver completes r: __blk_mq_end_request -> blk_mq_free_request ->
// the scheduler's .finish_request; the tag is freed.
template <class Sched>
void SchedModel<Sched>::blk_mq_complete_request(State& s, int r, Why* why) const {
  const WlProc& pr = rq_.proc_of(r);
  sched_.completed(s, r, why);
  rq_.set_status(s, r, pr.cyclic ? St::Idle : St::Done);
  rq_.set_flag(s, r, kFlagMask, false);
  if (clock_ && pr.sync) set_think(s, rq_.info(r).proc, pr.think);
  renumber(s);
}

// blk_mq_requeue_request + blk_mq_requeue_work: the driver gives r back; it
// is inserted into the scheduler again (tag freed).
template <class Sched>
void SchedModel<Sched>::blk_mq_requeue_request(State& s, int r, Why* why) const {
  set_requeues_left(s, requeues_left(s) - 1);
  rq_.set_seq(s, r, 255);
  sched_.insert(s, r, false, true, why);
  renumber(s);
}

template <class Sched>
void SchedModel<Sched>::jiffies_tick(State& s, Why* why) const {
  const State before = s;
  const int cap = sched_.age_cap();
  for (int r = 0; r < rq_.size(); ++r) {
    const St st = rq_.status(before, r);
    if (st == St::Sched || st == St::SchedHead || st == St::Hctx) {
      rq_.set_age(s, r, std::min(rq_.age(s, r) + 1, cap));
    } else if (st == St::Driver && in_service(before, r) && rq_.age(s, r) > 0) {
      rq_.set_age(s, r, rq_.age(s, r) - 1);
    }
  }
  for (int p = 0; p < nproc_; ++p)
    if (think(s, p) > 0) set_think(s, p, think(s, p) - 1);
  if (tracked_queued(before)) set_wait_ticks(s, std::min(wait_ticks(s) + 1, wait_cap_));
  sched_.timer(s, why);
}

template <class Sched>
bool SchedModel<Sched>::finished(const State& s) const {
  if constexpr (HasHalt<Sched>)
    if (sched_.halted(s)) return true;  // the kernel stopped: kernel-bug says so
  if (wl_.any_cyclic()) return false;
  for (int p = 0; p < nproc_; ++p)
    if (!proc_done(s, p)) return false;
  for (int r = 0; r < rq_.size(); ++r)
    if (rq_.status(s, r) != St::Done) return false;
  return true;
}

template <class Sched>
bool SchedModel<Sched>::violates(int prop, const State& s) const {
  if (prop == Conservation) return ghost_err(s) != 0 || !sched_.accounting_ok(s);
  if constexpr (HasExtraProps<Sched>)
    if (prop > FairRatio) return sched_.violates_extra(prop - FairRatio - 1, s);
  return false;
}

template <class Sched>
int SchedModel<Sched>::measure(int prop, const State& s) const {
  switch (prop) {
    case MaxWait:
      return wait(s);
    case MaxWaitTicks:
      return wait_ticks(s);
    case MaxExpiredWait:
      return expired_wait(s);
    case FairRatio:
      return fair_ratio(s);
    default:
      return 0;
  }
}

// The ghosts of the measured properties are path measures: each step adds
// what the requests and the tracked request's place decide (one dispatch
// passing the tracked request, one tick it waits, a dispatch's sectors to
// the fair pair), saturating at wait_cap, and never reads them.
template <class Sched>
PathMeasure SchedModel<Sched>::path_measure(int prop) const {
  switch (prop) {
    case MaxWait:
    case MaxWaitTicks:
    case MaxExpiredWait: {
      PathMeasure pm;
      pm.counters = 1;
      pm.cap = wait_cap_;
      return pm;
    }
    case FairRatio: {
      PathMeasure pm;
      if (!wl_.has_fair()) return pm;
      pm.counters = 2;
      pm.cap = wait_cap_;
      pm.share = true;
      for (std::size_t i = 0; i < 2; ++i) pm.names[i] = wl_.procs[std::size_t(wl_.fair[i])].name;
      if constexpr (requires { sched_.share_within_text(pm.names[0]); })
        pm.within = sched_.share_within_text(pm.names[0]);
      return pm;
    }
    default:
      return PathMeasure();
  }
}

template <class Sched>
void SchedModel<Sched>::path_counters(int prop, const State& s, int* g) const {
  switch (prop) {
    case FairRatio:
      g[0] = fair_svc(s, 0);
      g[1] = fair_svc(s, 1);
      break;
    default:
      g[0] = measure(prop, s);
  }
}

// The wait counters start again when the tracked request is submitted (it
// leaves Idle); a requeue inserts it again without a reset. The fair pair's
// service is never cleared.
template <class Sched>
bool SchedModel<Sched>::path_reset(int prop, const State& before, const State& after) const {
  if (prop == FairRatio || wl_.track < 0) return false;
  return rq_.status(before, wl_.track) == St::Idle && rq_.status(after, wl_.track) != St::Idle;
}

// The fair pair's sectors that leave the scheduler on this step (a
// dispatch: to the driver, or parked on hctx->dispatch), as fair_svc counts
// them but whether or not the other waits. Over a cycle every request
// dispatched is completed too, so this is the share of completions.
template <class Sched>
void SchedModel<Sched>::share_served(int prop, const State& before, const State& after, int* g) const {
  g[0] = g[1] = 0;
  if (prop != FairRatio || !wl_.has_fair()) return;
  for (int r = 0; r < rq_.size(); ++r)
    if (rq_.queued(before, r) && !rq_.queued(after, r))
      for (int i = 0; i < 2; ++i)
        if (rq_.info(r).proc == wl_.fair[i]) g[i] += rq_.info(r).size;
}

// A scheduler without the hook restricts nothing (its PathMeasure::within
// is empty, so this is never asked).
template <class Sched>
bool SchedModel<Sched>::share_within(int prop, const State& s) const {
  if constexpr (requires { sched_.share_within(s, 0); }) {
    return prop == FairRatio && wl_.has_fair() && sched_.share_within(s, wl_.fair[0]);
  } else {
    (void)prop;
    (void)s;
    return true;
  }
}

template <class Sched>
int SchedModel<Sched>::path_value(int prop, const int* g) const {
  if (prop != FairRatio) return g[0];
  if (g[0] + g[1] < fair_window_) return 0;
  return 100 * std::max(g[0], g[1]) / std::max(1, std::min(g[0], g[1]));
}

// fair-ratio grows with the larger service and falls with the smaller:
// its most over a box takes one at its top and the other at its bottom.
template <class Sched>
int SchedModel<Sched>::path_bound(int prop, const int* lo, const int* hi) const {
  if (prop != FairRatio) return hi[0];
  if (hi[0] + hi[1] < fair_window_) return 0;
  return std::max(100 * hi[0] / std::max(1, lo[1]), 100 * hi[1] / std::max(1, lo[0]));
}

template <class Sched>
Influence SchedModel<Sched>::influence() const {
  const std::size_t n = schema_.vars().size();
  Influence inf;
  inf.from.resize(n);
  inf.control.assign(n, true);
  inf.prop_reads.resize(info().props.size());
  std::vector<int> ghosts;
  auto ghost = [&](const char* name, int prop) {
    const int g = schema_.find(name);
    ghosts.push_back(g);
    inf.control[std::size_t(g)] = false;
    inf.prop_reads[std::size_t(prop)].push_back(g);
  };
  ghost("err", Conservation);
  ghost("wait", MaxWait);
  ghost("wait_ticks", MaxWaitTicks);
  ghost("expired_wait", MaxExpiredWait);
  if (wl_.has_fair()) ghost("fair_svc", FairRatio);
  // The head's position is read only by the seek time of a rotational
  // device with seek > 0 (DeviceSpec::service_ticks); elsewhere it is
  // written and never read, like a ghost no property reads: the searches
  // do not store it.
  const bool head_read = wl_.dev.rotational && wl_.dev.seek > 0;
  const int head = schema_.find("head");
  if (!head_read) inf.control[std::size_t(head)] = false;
  // A ghost's new value comes from the requests, the tracked request's
  // place, the clock and itself, never from another ghost; so does the
  // head's.
  if (!head_read) ghosts.push_back(head);
  for (int g : ghosts)
    for (int v = 0; v < int(n); ++v)
      if (v == g || inf.control[std::size_t(v)]) inf.from[std::size_t(g)].push_back(v);
  return inf;
}

template <class Sched>
bool SchedModel<Sched>::pending(int prop, const State& s) const {
  return prop == Starvation && tracked_queued(s);
}

template <class Sched>
std::string SchedModel<Sched>::actor_name(int actor) const {
  if (actor >= 0 && actor < nproc_) return wl_.procs[std::size_t(actor)].name;
  if (actor == dispatcher()) return "blk-mq";
  if (actor == device()) return "device";
  if (actor == clock_actor()) return "clock";
  return "?";
}

template <class Sched>
std::string SchedModel<Sched>::describe(const State& s, const Step& st) const {
  State n = s;
  Why why;
  const int r = st.arg;
  switch (st.action) {
    case SUBMIT: {
      blk_mq_submit_bio(n, st.actor, &why);
      std::string extra;
      if (r == wl_.track) extra = " [tracked]";
      return fmt::format("blk_mq_submit_bio: {}{}; {}", rq_.label(r), extra, why);
    }
    case DISPATCH: {
      const int got = blk_mq_do_dispatch_sched(n, &why);
      if (got < 0)
        return fmt::format("blk_mq_do_dispatch_sched -> {}: {}; returns NULL", Sched::dispatch_fn(),
                           why);
      const bool tag = rq_.status(n, got) == St::Driver;
      std::string w;
      if (wl_.track >= 0 && got != wl_.track && rq_.queued(n, wl_.track))
        w = fmt::format(" [tracked {} has waited {} dispatch(es)]", rq_.name(wl_.track),
                        int(wait(n)));
      if (wl_.has_fair() && (fair_svc(n, 0) != fair_svc(s, 0) || fair_svc(n, 1) != fair_svc(s, 1)))
        w += fmt::format(" [fair: {}]", fair_text(n));
      return fmt::format(
          "blk_mq_do_dispatch_sched -> {}: {} => {} {}{}", Sched::dispatch_fn(), why, rq_.name(got),
          tag ? "issued to the driver" : "parked on hctx->dispatch (no driver tag free)", w);
    }
    case ISSUE:
      return fmt::format(
          "blk_mq_dispatch_rq_list: {} from hctx->dispatch to the driver (a tag is free)",
          rq_.name(r));
    case COMPLETE:
      blk_mq_complete_request(n, r, &why);
      return fmt::format("blk_mq_complete_request: {} completes; {}", rq_.name(r), why);
    case REQUEUE:
      blk_mq_requeue_request(n, r, &why);
      return fmt::format(
          "blk_mq_requeue_request: the driver gives {} back; blk_mq_requeue_work -> {}",
          rq_.name(r), why);
    case TICK: {
      std::string what;
      for (int q = 0; q < rq_.size(); ++q)
        if (rq_.status(s, q) == St::Sched && rq_.age(s, q) + 1 == sched_.expire(rq_.dir(q)))
          what += fmt::format(" {} expires;", rq_.name(q));
      jiffies_tick(n, &why);
      if (!why.empty()) what += " " + why;
      return fmt::format("jiffies++ (requests age, the device works){}", what);
    }
    default:
      return "?";
  }
}

// Conservative: every step may renumber every request's place in its list,
// and reads the gate (all processes) and the scheduler. Past
// Footprint::kMaxVars flat variables, every step reads and writes all (no
// two steps independent: sound, no reduction).
template <class Sched>
Footprint SchedModel<Sched>::footprint(const State&, const Step& st) const {
  Footprint f;
  if (std::size_t(schema_.size()) > Footprint::kMaxVars) {
    f.reads.set();
    f.writes.set();
    return f;
  }
  auto write = [&](int lo, int hi) {
    for (int i = lo; i < hi; ++i) f.writes.set(std::size_t(i));
  };
  auto write_proc = [&](int p) {
    f.writes.set(std::size_t(schema_.index(schema_.find("pc"), p)));
    f.writes.set(std::size_t(schema_.index(schema_.find("think"), p)));
  };
  for (int i = 0; i < schema_.size(); ++i) f.reads.set(std::size_t(i));
  write(rq_lo_, rq_hi_);
  write(ghost_lo_, ghost_hi_);
  write(sched_lo_, schema_.size());
  if (st.actor < nproc_) {
    write_proc(st.actor);
  } else if (st.actor == device()) {
    write(dev_lo_, dev_hi_);
    write_proc(rq_.info(st.arg).proc);
  } else if (st.actor == dispatcher()) {
    write(dev_lo_, dev_hi_);
  } else {
    for (int p = 0; p < nproc_; ++p) write_proc(p);
  }
  return f;
}

template <class Sched>
std::string SchedModel<Sched>::rq_list(const State& s, St st) const {
  // In list order; the scheduler's fifo lists one after another (RT, BE,
  // IDLE; reads, writes).
  std::vector<std::pair<int, int>> v;
  for (int r = 0; r < rq_.size(); ++r)
    if (rq_.status(s, r) == st)
      v.push_back({(rq_.prio(r) * 2 + rq_.dir(r)) * 256 + rq_.seq(s, r), r});
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& [q, r] : v) {
    if (!out.empty()) out += ' ';
    out += rq_.name(r);
    if (st == St::Sched && rq_.age(s, r) >= sched_.expire(rq_.dir(r)))
      out += "!";  // past its deadline
    if (rq_.flag(s, r, kNoFifoTime)) out += "(fifo_time unset)";
  }
  return out.empty() ? "-" : out;
}

// "reader 3 : writer 1 sector(s), ratio 3.00"
template <class Sched>
std::string SchedModel<Sched>::fair_text(const State& s) const {
  const int a = fair_svc(s, 0), b = fair_svc(s, 1);
  const int ratio = fair_ratio(s);
  return fmt::format("{} {} : {} {} sector(s){}", wl_.procs[std::size_t(wl_.fair[0])].name, a,
                     wl_.procs[std::size_t(wl_.fair[1])].name, b,
                     ratio ? fmt::format(", ratio {}.{:02}", ratio / 100, ratio % 100) : "");
}

template <class Sched>
std::string SchedModel<Sched>::summary(const State& s) const {
  int done = 0;
  for (int r = 0; r < rq_.size(); ++r) done += rq_.status(s, r) == St::Done;
  std::string out = fmt::format("sched[{}]", rq_list(s, St::Sched));
  if (const std::string h = rq_list(s, St::SchedHead); h != "-") out += fmt::format(" head[{}]", h);
  out += fmt::format(" hctx[{}] driver[{}] done {}", rq_list(s, St::Hctx), rq_list(s, St::Driver),
                     done);
  if (const std::string x = sched_.summary(s); !x.empty()) out += " | " + x;
  if (wl_.track >= 0)
    out += fmt::format(" | {} {} waited {}{}{}", rq_.name(wl_.track),
                       st_name(rq_.status(s, wl_.track)), int(wait(s)),
                       expired_wait(s) ? fmt::format(" ({} expired)", int(expired_wait(s))) : "",
                       clock_ ? fmt::format(", {} tick(s)", int(wait_ticks(s))) : "");
  if (wl_.has_fair()) out += fmt::format(" | fair {}", fair_text(s));
  if (ghost_err(s)) out += " | DISPATCHED A REQUEST IT DID NOT HOLD";
  if (!sched_.accounting_ok(s)) out += " | BOOKS WRONG";
  return out;
}

template <class Sched>
nlohmann::json SchedModel<Sched>::state_json(const State& s) const {
  nlohmann::json j;
  auto& procs = j["procs"] = nlohmann::json::array();
  for (int p = 0; p < nproc_; ++p) {
    nlohmann::json o{{"name", wl_.procs[std::size_t(p)].name}, {"pc", pc(s, p)}};
    if (clock_) o["think"] = think(s, p);
    procs.push_back(o);
  }
  auto& rqs = j["requests"] = nlohmann::json::array();
  for (int r = 0; r < rq_.size(); ++r) {
    const St st = rq_.status(s, r);
    if (st == St::Idle) continue;
    std::string v = fmt::format("{}:{}", rq_.name(r), st_name(st));
    if (st != St::Done) v += fmt::format(":{}:{}", int(rq_.seq(s, r)), int(rq_.age(s, r)));
    if (rq_.flag(s, r, kInserted)) v += ":ins";
    if (rq_.flag(s, r, kNoFifoTime)) v += ":nofifotime";
    rqs.push_back(v);
  }
  j["device"] = {{"head", head_pos(s)}, {"requeues_left", requeues_left(s)}};
  j["ghost"] = {{"err", ghost_err(s)},
                {"wait", wait(s)},
                {"wait_ticks", wait_ticks(s)},
                {"expired_wait", expired_wait(s)}};
  if (wl_.has_fair()) j["ghost"]["fair"] = {fair_svc(s, 0), fair_svc(s, 1)};
  j["sched"] = sched_.json(s);
  return j;
}

template class SchedModel<DeadlineScheduler>;
template class SchedModel<NoneScheduler>;
template class SchedModel<BfqScheduler>;
template class SchedModel<CfqScheduler>;
template class SchedModel<KernelScheduler>;
template class SchedModel<KernelBfqScheduler>;

}  // namespace blkmc::sched
