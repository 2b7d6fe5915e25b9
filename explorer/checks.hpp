// The property checks, each an observer of the one search
// (explorer/search.hpp):
//   invariant    violates() on every new state;
//   deadlock     every expanded state without successors must be finished();
//   maximize     the model's measure() on every new state: the maximum and the
//                first state reaching it (BFS: a shortest trace); with a bound
//                K (NAME<=K) the first state above K is a violation;
//   progress and starvation  an edge log of the explored graph (with each
//                edge's actor for starvation), decided after a complete
//                search (explorer/progress.hpp, explorer/starvation.hpp).
// PropertyChecks runs the selected ones on one search; the search keeps going
// after a property fails, until every selected property has failed or the
// space is done, so one run gives a verdict for each.
#pragma once

#include <algorithm>
#include <concepts>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "explorer/progress.hpp"
#include "explorer/search.hpp"
#include "explorer/reach.hpp"
#include "explorer/starvation.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "props/verdict.hpp"

namespace blkmc {

template <class State>
struct PropOutcome {
  int prop = 0;
  Verdict verdict = Verdict::Holds;
  std::optional<Counterexample<State>> trace;
  // Maximize properties only. bound: K of NAME<=K. value: unbounded, or
  // bounded and not violated: the largest measure over the explored states
  // (the trace, unbounded only, ends in the first state reaching it); bounded
  // and violated: the measure of the trace's last state (the first state
  // found above K). value_exact: the value is the maximum over the whole
  // state space (a complete search and no violation).
  std::optional<int> bound, value;
  bool value_exact = false;
};

template <class State>
struct SearchResult {
  std::vector<PropOutcome<State>> props;
  StopReason stop = StopReason::Complete;
  Stats stats;
};

// The optional model hooks of maximize and starvation properties.
template <class M>
concept HasMeasure = requires(const M& m, const typename M::State& s) {
  { m.measure(0, s) } -> std::convertible_to<int>;
};
template <class M>
concept HasPending = requires(const M& m, const typename M::State& s) {
  { m.pending(0, s) } -> std::convertible_to<bool>;
};

namespace checks {

// One selected property: where it stands in the selection, and the first
// state that violates it (kNone while none).
struct Slot {
  std::size_t k = 0;  // position in the selection (the result's order)
  int prop = 0;
  std::uint32_t violating = StateStore::kNone;
};

// Invariants: violates(prop, s) on every new state.
template <class M>
class Invariant {
 public:
  using State = typename M::State;
  std::vector<Slot> slots;
  void on_new(const M& m, std::uint32_t id, const State& s, std::size_t& violated) {
    for (Slot& sl : slots)
      if (sl.violating == StateStore::kNone && m.violates(sl.prop, s)) {
        sl.violating = id;
        ++violated;
      }
  }
};

// Deadlock: an expanded state without successors that is not finished().
template <class M>
class Deadlock {
 public:
  using State = typename M::State;
  std::vector<Slot> slots;
  void on_expanded(const M& m, std::uint32_t id, const State& s, std::size_t successors,
                   std::size_t& violated) {
    if (successors != 0 || slots.empty() || m.finished(s)) return;
    for (Slot& sl : slots)
      if (sl.violating == StateStore::kNone) {
        sl.violating = id;
        ++violated;
      }
  }
};

// Maximize: the largest measure and the first state with it; with a bound,
// the first state above it violates.
template <class M>
class Maximize {
 public:
  using State = typename M::State;
  struct Max : Slot {
    std::optional<int> bound;
    int violating_value = 0;
    int best = -1;
    std::uint32_t best_id = StateStore::kNone;
  };
  std::vector<Max> slots;
  // The measure of s (never negative: a model's bug otherwise).
  static int measure(const M& m, const Max& sl, const State& s) {
    if constexpr (HasMeasure<M>) {
      const int v = m.measure(sl.prop, s);
      if (v < 0)
        throw std::logic_error(fmt::format("model {}: measure({}) is negative ({})", m.info().name,
                                           m.info().props[std::size_t(sl.prop)].name, v));
      return v;
    } else {
      return 0;
    }
  }
  void on_new(const M& m, std::uint32_t id, const State& s, std::size_t& violated) {
    if constexpr (HasMeasure<M>) {
      for (Max& sl : slots) {
        const int v = measure(m, sl, s);
        if (v > sl.best) {
          sl.best = v;
          sl.best_id = id;
        }
        if (sl.bound && v > *sl.bound && sl.violating == StateStore::kNone) {
          sl.violating = id;
          sl.violating_value = v;
          ++violated;
        }
      }
    }
  }
};

// Progress and starvation: the explored graph, decided after the search
// in two steps, so that a search over several ranks can decide on one and
// build the traces on all: find() gives each slot's verdict and walk, and
// traces() turns the walks into counterexamples.
template <class M>
class Graph {
 public:
  using State = typename M::State;
  struct Starve : Slot {
    std::vector<bool> pending;  // pending(prop, state) by state id
  };
  std::vector<Slot> progress;
  std::vector<Starve> starvation;
  EdgeLog edges;

  // A slot's verdict; violated: the walk of its trace (a lasso from the
  // first stuck state, loop its repeating part; or a fair cycle from its
  // entry, with the actor of each step).
  struct Finding {
    std::size_t k = 0;
    int prop = 0;
    bool starvation = false;
    Verdict verdict = Verdict::Incomplete;
    std::vector<std::uint32_t> walk;
    std::size_t loop = 0;
    std::vector<int> actors;
  };

  bool active() const { return !progress.empty() || !starvation.empty(); }
  void on_new(const M& m, std::uint32_t, const State& s) {
    if constexpr (HasPending<M>) {
      for (Starve& sl : starvation) sl.pending.push_back(m.pending(sl.prop, s));
    }
  }

  // The verdicts of a search that stopped so, over states [0, n).
  std::vector<Finding> find(StopReason stop, std::size_t n) const {
    std::vector<Finding> out;
    const bool complete = stop == StopReason::Complete;
    std::optional<Lasso> lasso;
    if (complete && !progress.empty()) lasso = find_stuck_lasso(edges, n);
    for (const Slot& sl : progress) {
      Finding& f = out.emplace_back();
      f.k = sl.k;
      f.prop = sl.prop;
      f.verdict = !complete ? Verdict::Incomplete : lasso ? Verdict::Violated : Verdict::Holds;
      if (lasso) {
        f.walk = lasso->walk;
        f.loop = lasso->loop_start;
      }
    }
    for (std::size_t i = 0; i < starvation.size(); ++i) {
      const Starve& sl = starvation[i];
      Finding& f = out.emplace_back();
      f.k = sl.k;
      f.prop = sl.prop;
      f.starvation = true;
      if (!complete) continue;
      // The same property selected twice: one decision.
      const auto same = std::find_if(starvation.begin(), starvation.begin() + std::ptrdiff_t(i),
                                     [&](const Starve& e) { return e.prop == sl.prop; });
      if (same != starvation.begin() + std::ptrdiff_t(i)) {
        const Finding& g = out[progress.size() + std::size_t(same - starvation.begin())];
        f.verdict = g.verdict;
        f.walk = g.walk;
        f.actors = g.actors;
      } else if (const auto fc = find_fair_pending_cycle(edges, sl.pending, n)) {
        f.verdict = Verdict::Violated;
        f.walk = fc->walk;
        f.actors.assign(fc->actors.begin(), fc->actors.end());
      } else {
        f.verdict = Verdict::Holds;
      }
    }
    return out;
  }

  // The findings into r, with their traces: path_along(walk, loop, actors,
  // base) is Search::path_along (base: the steps of its path to walk[0]).
  template <class PathAlong>
  static void traces(const M& m, const std::vector<Finding>& found, PathAlong&& path_along,
                     SearchResult<State>& r) {
    for (const Finding& f : found) {
      PropOutcome<State>& o = r.props[f.k];
      o.prop = f.prop;
      o.verdict = f.verdict;
      if (f.verdict != Verdict::Violated) continue;
      std::size_t base = 0;
      Counterexample<State> cx = path_along(f.walk, f.loop, f.actors, base);
      if (!f.starvation) {
        cx.stuck_at = base;  // the lasso's walk begins at the first stuck state
      } else {
        // Where the path's last run of pending states begins.
        std::size_t j = *cx.loop_start;
        if constexpr (HasPending<M>) {
          while (j > 0 && m.pending(f.prop, cx.states[j - 1])) --j;
        }
        cx.stuck_at = j;
      }
      o.trace = std::move(cx);
    }
  }
};

}  // namespace checks

template <Model M>
class PropertyChecks {
 public:
  using State = typename M::State;

  // Throws UsageError when a maximize (starvation) property is selected and
  // the model has no measure() (pending()), or a bound is given for a
  // property that is not a maximize property.
  PropertyChecks(const M& m, const SearchOptions& opt) : m_(m) {
    const auto& inf = m.info();
    const auto& pinfo = inf.props;
    props_ = opt.props;
    if (props_.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) props_.push_back(int(i));
    for (std::size_t n = 0; n < props_.size(); ++n) {
      const int p = props_[n];
      const PropKind kind = pinfo.at(std::size_t(p)).kind;
      const std::optional<int> bound = n < opt.bounds.size() ? opt.bounds[n] : std::nullopt;
      if (bound && (!kind_info(kind).measured || *bound < 0))
        throw UsageError(fmt::format("property {}: a bound <={} needs a maximize property",
                                     pinfo[p].name, *bound));
      if (kind_info(kind).measured && !HasMeasure<M>)
        throw UsageError(
            fmt::format("model {}: property {} is a maximize property but the model "
                        "has no measure(prop, state)",
                        inf.name, pinfo[p].name));
      if (kind == PropKind::Starvation && !HasPending<M>)
        throw UsageError(
            fmt::format("model {}: property {} is a starvation property but the model "
                        "has no pending(prop, state)",
                        inf.name, pinfo[p].name));
      const checks::Slot sl{n, p, StateStore::kNone};
      switch (kind) {
        case PropKind::Invariant:
          invariant_.slots.push_back(sl);
          break;
        case PropKind::Deadlock:
          deadlock_.slots.push_back(sl);
          break;
        case PropKind::Maximize: {
          typename checks::Maximize<M>::Max mx;
          static_cast<checks::Slot&>(mx) = sl;
          mx.bound = bound;
          maximize_.slots.push_back(mx);
          break;
        }
        case PropKind::Progress:
          graph_.progress.push_back(sl);
          break;
        case PropKind::Starvation: {
          typename checks::Graph<M>::Starve st;
          static_cast<checks::Slot&>(st) = sl;
          graph_.starvation.push_back(std::move(st));
          break;
        }
      }
    }
    graph_.edges = EdgeLog(!graph_.starvation.empty());
  }

  // --- the search's events ---
  void on_new(std::uint32_t id, const State& s) {
    invariant_.on_new(m_, id, s, violated_);
    maximize_.on_new(m_, id, s, violated_);
    graph_.on_new(m_, id, s);
  }
  bool wants_edges() const { return graph_.active(); }
  void on_expand(std::uint32_t id, const State& s) { graph_.edges.begin_state(id, m_.finished(s)); }
  void on_edge(std::uint32_t to, std::uint8_t actor) { graph_.edges.add_edge(to, actor); }
  void on_expanded(std::uint32_t id, const State& s, std::size_t successors, bool whole) {
    if (graph_.active() && whole) graph_.edges.end_state(id);
    deadlock_.on_expanded(m_, id, s, successors, violated_);
  }
  // Progress and starvation are decided after the search, and an unbounded
  // maximize property is never violated, so they never stop it early.
  bool done() const { return !graph_.active() && violated_ == props_.size(); }
  std::uint64_t memory_bytes() const { return graph_.active() ? graph_.edges.memory_bytes() : 0; }

  // The verdicts, in the order the properties were selected.
  SearchResult<State> result(StopReason stop, const Search<M>& search) const {
    SearchResult<State> r;
    r.stop = stop;
    r.props.resize(selected());
    local_results(stop, [&](std::uint32_t id) { return search.path_to(id); }, r);
    graph_result(stop, search, r);
    r.stats = search.stats(memory_bytes());
    return r;
  }

  // --- The same checks for a search that meets states away from this
  // observer, out of id order (each rank of a distributed search holds its
  // own): the state-local slots (invariants, deadlocks, then maxima,
  // numbered from 0) report hits, the smallest (id << 32 | value) of a
  // state that violates each, which the search reduces over its parts and
  // settles where a one-process search would have seen them. ---
  static constexpr std::uint64_t kNoHit = ~std::uint64_t(0);
  std::size_t selected() const { return props_.size(); }
  std::size_t local_slots() const {
    return invariant_.slots.size() + deadlock_.slots.size() + maximize_.slots.size();
  }
  bool open(std::size_t i) const { return local(i).violating == StateStore::kNone; }
  // A deadlock is seen when its own state is expanded; the others when the
  // state is first reached (its parent expanded).
  bool hit_at_expansion(std::size_t i) const { return i >= invariant_.slots.size() && i < first_max(); }
  // A new state's hits (invariants, bounded maxima).
  void hit_new(std::uint32_t id, const State& s, std::vector<std::uint64_t>& hits) const {
    for (std::size_t j = 0; j < invariant_.slots.size(); ++j) {
      const checks::Slot& sl = invariant_.slots[j];
      if (sl.violating == StateStore::kNone && hits[j] == kNoHit && m_.violates(sl.prop, s))
        hits[j] = std::uint64_t(id) << 32;
    }
    for (std::size_t j = 0; j < maximize_.slots.size(); ++j) {
      const auto& sl = maximize_.slots[j];
      std::uint64_t& h = hits[first_max() + j];
      if (sl.violating != StateStore::kNone || !sl.bound || h != kNoHit) continue;
      const int v = checks::Maximize<M>::measure(m_, sl, s);
      if (v > *sl.bound) h = (std::uint64_t(id) << 32) | std::uint32_t(v);
    }
  }
  // An expanded state's hits (deadlocks).
  void hit_expanded(std::uint32_t id, const State& s, std::size_t successors,
                    std::vector<std::uint64_t>& hits) const {
    if (successors != 0 || deadlock_.slots.empty() || m_.finished(s)) return;
    for (std::size_t j = 0; j < deadlock_.slots.size(); ++j) {
      std::uint64_t& h = hits[invariant_.slots.size() + j];
      if (deadlock_.slots[j].violating == StateStore::kNone) h = std::min(h, std::uint64_t(id) << 32);
    }
  }
  // Slot i is violated by the hit a one-process search met first.
  void settle(std::size_t i, std::uint64_t hit) {
    checks::Slot& sl = local(i);
    if (hit == kNoHit || sl.violating != StateStore::kNone) return;
    sl.violating = std::uint32_t(hit >> 32);
    if (i >= first_max()) maximize_.slots[i - first_max()].violating_value = int(std::uint32_t(hit));
    ++violated_;
  }
  // Maxima: best[j] of maximize slot j is the smallest
  // ((0x7fffffff - measure) << 32 | id), the largest measure first reached.
  std::size_t maxima() const { return maximize_.slots.size(); }
  void best_new(std::uint32_t id, const State& s, std::vector<std::uint64_t>& best) const {
    for (std::size_t j = 0; j < maximize_.slots.size(); ++j) {
      const int v = checks::Maximize<M>::measure(m_, maximize_.slots[j], s);
      best[j] = std::min(best[j], (std::uint64_t(0x7fffffffu - std::uint32_t(v)) << 32) | id);
    }
  }
  void settle_best(const std::vector<std::uint64_t>& best) {
    for (std::size_t j = 0; j < maximize_.slots.size(); ++j) {
      if (best[j] == kNoHit) continue;
      auto& sl = maximize_.slots[j];
      const int v = int(0x7fffffffu - std::uint32_t(best[j] >> 32));
      if (v > sl.best) {
        sl.best = v;
        sl.best_id = std::uint32_t(best[j]);
      }
    }
  }
  // The state-local slots' outcomes into r; path_to(id): the trace to a
  // stored state.
  template <class PathTo>
  void local_results(StopReason stop, PathTo&& path_to, SearchResult<State>& r) const {
    const bool complete = stop == StopReason::Complete || stop == StopReason::AllViolated;
    auto violated_or = [&](const checks::Slot& sl, PropOutcome<State>& o) {
      o.prop = sl.prop;
      if (sl.violating != StateStore::kNone) {
        o.verdict = Verdict::Violated;
        o.trace = path_to(sl.violating);
      } else {
        o.verdict = complete ? Verdict::Holds : Verdict::Incomplete;
      }
    };
    for (const auto& sl : invariant_.slots) violated_or(sl, r.props[sl.k]);
    for (const auto& sl : deadlock_.slots) violated_or(sl, r.props[sl.k]);
    for (const auto& sl : maximize_.slots) {
      PropOutcome<State>& o = r.props[sl.k];
      violated_or(sl, o);
      o.bound = sl.bound;
      if (sl.violating != StateStore::kNone) {
        o.value = sl.violating_value;
      } else {
        o.value = std::max(sl.best, 0);
        o.value_exact = complete;
        if (!sl.bound && sl.best_id != StateStore::kNone) o.trace = path_to(sl.best_id);
      }
    }
  }
  // Progress and starvation, for a search that keeps their edge log itself.
  checks::Graph<M>& graph() { return graph_; }
  const checks::Graph<M>& graph() const { return graph_; }

 private:
  // The local slots are the invariants, the deadlocks, then the maxima.
  std::size_t first_max() const { return invariant_.slots.size() + deadlock_.slots.size(); }
  const checks::Slot& local(std::size_t i) const {
    if (i < invariant_.slots.size()) return invariant_.slots[i];
    if (i < first_max()) return deadlock_.slots[i - invariant_.slots.size()];
    return maximize_.slots.at(i - first_max());
  }
  checks::Slot& local(std::size_t i) {
    return const_cast<checks::Slot&>(std::as_const(*this).local(i));
  }
  void graph_result(StopReason stop, const Search<M>& search, SearchResult<State>& r) const {
    checks::Graph<M>::traces(m_, graph_.find(stop, search.store().size()),
                             [&](const std::vector<std::uint32_t>& walk, std::size_t loop,
                                 const std::vector<int>& actors, std::size_t& base) {
                               return search.path_along(walk, loop, actors, &base);
                             },
                             r);
  }

  const M& m_;
  std::vector<int> props_;
  checks::Invariant<M> invariant_;
  checks::Deadlock<M> deadlock_;
  checks::Maximize<M> maximize_;
  checks::Graph<M> graph_;
  std::size_t violated_ = 0;
};

// Under partial-order reduction a breadth-first search finds shortest paths
// of the reduced graph only. For `--bfs`, each trace is then searched again
// breadth-first without it (slicing and symmetry keep depths), bounded by
// the trace's length: the first state with the same quality (violating the
// invariant, a deadlock, the same maximum, above the bound) and a shortest
// full-model path to it. A trace stays as it is if that search stops early.
template <class M>
void shortest_traces(const M& m, const SearchOptions& opt, SearchResult<typename M::State>& r) {
  using State = typename M::State;
  for (PropOutcome<State>& o : r.props) {
    if (!o.trace || o.trace->steps.empty()) continue;
    SearchOptions again = opt;
    again.reduce.por = false;
    again.props = {o.prop};
    again.bounds.clear();
    again.limits.max_depth = std::uint32_t(o.trace->steps.size());
    const PropKind kind = m.info().props.at(std::size_t(o.prop)).kind;
    const std::optional<int> bound = o.bound, value = o.value;
    auto pred = [&](const State& s) {
      switch (kind) {
        case PropKind::Invariant:
          return m.violates(o.prop, s);
        case PropKind::Deadlock: {
          bool any = false;
          m.for_each_successor(s, [&](const Step&, const State&) { any = true; });
          return !any && !m.finished(s);
        }
        case PropKind::Maximize:
          if constexpr (HasMeasure<M>) return bound ? m.measure(o.prop, s) > *bound : m.measure(o.prop, s) == *value;
          return false;
        default:
          return false;
      }
    };
    Search<M> search(m, again);
    FindState<M, decltype(pred)> obs(pred);
    search.run(obs);
    if (!obs.done()) continue;
    o.trace = search.path_to(obs.found);
    if constexpr (HasMeasure<M>)
      if (kind == PropKind::Maximize && bound) o.value = m.measure(o.prop, o.trace->states.back());
  }
}

template <Model M>
class DistributedSearch;  // explorer/distributed_search.hpp

// Searches m with the selected properties checked on the way (over the
// ranks of opt.cluster where it is set).
template <Model M>
SearchResult<typename M::State> explore(const M& m, const SearchOptions& opt) {
  if (opt.cluster) return DistributedSearch<M>(m, opt).run();
  PropertyChecks<M> checks(m, opt);
  Search<M> search(m, opt);
  const StopReason stop = search.run(checks);
  SearchResult<typename M::State> r = checks.result(stop, search);
  if (opt.bfs && search.reduced().por()) shortest_traces(m, opt, r);
  return r;
}

}  // namespace blkmc

#include "explorer/distributed_search.hpp"
