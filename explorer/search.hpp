// Exhaustive explicit-state search over any model (see model/model.hpp).
// BFS expands states in id order (ids are insertion order, so the store is
// the queue) and yields shortest counterexamples; DFS is a LIFO worklist with
// parent links. Invariants are checked on every new state, deadlock on every
// expanded state without successors; progress properties log the explored
// graph and are decided after a complete search (explorer/progress.hpp), and
// so are starvation properties (explorer/starvation.hpp; the log then keeps
// each edge's actor). Maximize properties evaluate the model's measure() on
// every new state and keep the maximum and the first state reaching it (BFS:
// a shortest trace); with a bound K (NAME<=K) the first state above K is a
// violation. A search keeps going after a property fails, until every
// selected property has failed or the space is done, so one run gives a
// verdict for each.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "explorer/limits.hpp"
#include "explorer/progress.hpp"
#include "explorer/starvation.hpp"
#include "explorer/state_store.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "props/verdict.hpp"

namespace blkmc {

struct SearchOptions {
  bool bfs = true;
  Limits limits;
  std::vector<int> props;   // indices into ModelInfo::props; empty: all
  // Parallel to props (may be shorter): the bound K of a maximize property
  // selected as NAME<=K; nullopt (or missing) for no bound.
  std::vector<std::optional<int>> bounds;
  bool progress = true;     // a line on stderr every 2 s
  double progress_interval = 2.0;
};

template <class State>
struct Counterexample {
  std::vector<Step> steps;
  std::vector<State> states;  // states[0] is initial, states[i+1] follows steps[i]
  // Progress counterexamples are lassos: states[*stuck_at] is the first
  // state on the path from which no finished state is reachable; the steps
  // after *loop_start repeat forever (states.back() equals
  // states[*loop_start]) or, when loop_start is the last index, none is enabled.
  // Starvation counterexamples too: every state from *stuck_at on is pending,
  // and the steps after *loop_start form a weakly fair cycle (at least one).
  std::optional<std::size_t> stuck_at, loop_start;
};

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

template <class M>
class Explorer {
 public:
  using State = typename M::State;

  // Throws UsageError when a maximize (starvation) property is selected and
  // the model has no measure() (pending()), or a bound is given for a
  // property that is not a maximize property.
  Explorer(const M& m, SearchOptions opt)
      : m_(m), opt_(std::move(opt)), store_(m.state_bytes()) {
    const auto& inf = m.info();
    const auto& pinfo = inf.props;
    if (opt_.props.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) opt_.props.push_back(int(i));
    for (std::size_t n = 0; n < opt_.props.size(); ++n) {
      const int p = opt_.props[n];
      const PropKind kind = pinfo.at(std::size_t(p)).kind;
      const std::optional<int> bound = n < opt_.bounds.size() ? opt_.bounds[n] : std::nullopt;
      if (bound && (kind != PropKind::Maximize || *bound < 0))
        throw UsageError(fmt::format("property {}: a bound <={} needs a maximize property",
                                     pinfo[p].name, *bound));
      if (kind == PropKind::Maximize && !HasMeasure<M>)
        throw UsageError(
            fmt::format("model {}: property {} is a maximize property but the model "
                        "has no measure(prop, state)",
                        inf.name, pinfo[p].name));
      if (kind == PropKind::Starvation && !HasPending<M>)
        throw UsageError(
            fmt::format("model {}: property {} is a starvation property but the model "
                        "has no pending(prop, state)",
                        inf.name, pinfo[p].name));
      const int k = int(slots_.size());
      switch (kind) {
        case PropKind::Deadlock:
          deadlock_slots_.push_back(k);
          break;
        case PropKind::Progress:
          progress_slots_.push_back(k);
          break;
        case PropKind::Maximize:
          maximize_slots_.push_back(k);
          break;
        case PropKind::Starvation:
          starvation_slots_.push_back(k);
          break;
        case PropKind::Invariant:
          invariant_slots_.push_back(k);
          break;
      }
      Slot sl;
      sl.prop = p;
      sl.bound = bound;
      slots_.push_back(std::move(sl));
    }
    edges_ = EdgeLog(!starvation_slots_.empty());
  }

  SearchResult<State> run() {
    // State ids are 32-bit: beyond that the search stops as at --max-states.
    max_states_ = std::min<std::uint64_t>(opt_.limits.max_states ? opt_.limits.max_states
                                                                 : StateStore::kNone,
                                          StateStore::kNone - 1);
    start_ = Clock::now();
    last_progress_ = start_;
    StopReason stop = search();
    return finish(stop);
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    int prop = 0;
    std::uint32_t violating = StateStore::kNone;  // state id, kNone while none found
    // Maximize: the bound, the measure of the violating state, the largest
    // measure so far and the first state with it.
    std::optional<int> bound;
    int violating_value = 0;
    int best = -1;
    std::uint32_t best_id = StateStore::kNone;
    std::vector<bool> pending;  // starvation: pending(prop, state) by state id
  };
  struct Succ {
    State next;
    std::uint64_t hash;
    std::uint8_t actor;
  };

  // Returns true when the state is new. Checks invariants on new states.
  bool visit(const State& s, std::uint64_t hash, std::uint32_t parent, std::uint32_t depth,
             std::uint32_t& id) {
    const auto [i, fresh] = store_.insert(s.b.data(), hash, parent, depth);
    id = i;
    if (!fresh) {
      // DFS under a depth bound: a shorter path re-opens a truncated state.
      if (!opt_.bfs && opt_.limits.max_depth && depth < store_.depth(i)) {
        store_.relink(i, parent, depth);
        return true;
      }
      return false;
    }
    if (depth > max_depth_) max_depth_ = depth;
    for (int k : invariant_slots_) {
      Slot& sl = slots_[k];
      if (sl.violating == StateStore::kNone && m_.violates(sl.prop, s)) {
        sl.violating = i;
        ++violated_;
      }
    }
    if constexpr (HasMeasure<M>) {
      for (int k : maximize_slots_) {
        Slot& sl = slots_[k];
        const int v = m_.measure(sl.prop, s);
        if (v < 0)
          throw std::logic_error(fmt::format("model {}: measure({}) is negative ({})",
                                             m_.info().name, m_.info().props[sl.prop].name, v));
        if (v > sl.best) {
          sl.best = v;
          sl.best_id = i;
        }
        if (sl.bound && v > *sl.bound && sl.violating == StateStore::kNone) {
          sl.violating = i;
          sl.violating_value = v;
          ++violated_;
        }
      }
    }
    if constexpr (HasPending<M>) {
      for (int k : starvation_slots_) slots_[k].pending.push_back(m_.pending(slots_[k].prop, s));
    }
    return true;
  }

  // Progress and starvation slots are decided after the search, and an
  // unbounded maximize slot is never violated, so they never stop it early.
  bool all_violated() const {
    return progress_slots_.empty() && starvation_slots_.empty() && violated_ == slots_.size();
  }

  StopReason search() {
    State init = m_.initial(), cur;
    std::uint32_t id;
    visit(init, hash_padded(init.b.data(), m_.state_bytes()), StateStore::kNone, 0, id);
    if (all_violated()) return StopReason::AllViolated;
    std::vector<std::uint32_t> stack;
    if (!opt_.bfs) stack.push_back(0);
    std::uint64_t next_bfs = 0, expanded = 0;
    bool truncated = false;
    const auto& lim = opt_.limits;
    while (true) {
      std::uint32_t cid;
      if (opt_.bfs) {
        if (next_bfs >= store_.size()) break;
        cid = std::uint32_t(next_bfs++);
      } else {
        if (stack.empty()) break;
        cid = stack.back();
        stack.pop_back();
      }
      if ((++expanded & 255) == 0) {
        if (auto r = check_clock_and_memory()) return *r;
      }
      std::memcpy(cur.b.data(), store_.get(cid), m_.state_bytes());
      const std::uint32_t d = store_.depth(cid);
      if (lim.max_depth && d >= lim.max_depth) {
        // Truncated only if a successor has not been reached another way;
        // otherwise expanded as usual (deadlock check, progress graph).
        bool any = false;
        m_.for_each_successor(cur, [&](const Step&, const State& next) {
          any = any || !store_.contains(next.b.data(), hash_padded(next.b.data(), m_.state_bytes()));
        });
        if (any) {
          truncated = true;
          continue;
        }
      }
      succ_.clear();
      m_.for_each_successor(cur, [&](const Step& st, const State& next) {
        const std::uint64_t h = hash_padded(next.b.data(), m_.state_bytes());
        store_.prefetch(h);
        succ_.push_back({next, h, st.actor});
      });
      transitions_ += succ_.size();
      const bool log = !progress_slots_.empty() || !starvation_slots_.empty();
      if (log) edges_.begin_state(cid, m_.finished(cur));
      bool stop_states = false;
      for (const auto& [next, h, actor] : succ_) {
        // At a limit, states already stored still count as explored.
        const bool at_states = store_.size() >= max_states_;
        const bool at_memory =
            lim.memory_bytes &&
            store_.memory_after_insert() + (log ? edges_.memory_bytes() : 0) > lim.memory_bytes;
        if ((at_states || at_memory) && !store_.contains(next.b.data(), h)) {
          memory_full_ = !at_states;
          stop_states = true;
          break;
        }
        std::uint32_t nid;
        if (visit(next, h, cid, d + 1, nid) && !opt_.bfs) stack.push_back(nid);
        if (log) edges_.add_edge(nid, actor);
      }
      if (log && !stop_states) edges_.end_state(cid);
      if (succ_.empty() && !deadlock_slots_.empty() && !m_.finished(cur)) {
        for (int k : deadlock_slots_) {
          Slot& sl = slots_[k];
          if (sl.violating == StateStore::kNone) {
            sl.violating = cid;
            ++violated_;
          }
        }
      }
      if (all_violated()) return StopReason::AllViolated;
      if (stop_states) return memory_full_ ? StopReason::Memory : StopReason::MaxStates;
    }
    return truncated ? StopReason::MaxDepth : StopReason::Complete;
  }

  std::optional<StopReason> check_clock_and_memory() {
    if (g_interrupted) return StopReason::Interrupted;
    const auto now = Clock::now();
    const double el = std::chrono::duration<double>(now - start_).count();
    if (opt_.limits.seconds > 0 && el >= opt_.limits.seconds) return StopReason::Time;
    if (opt_.progress &&
        std::chrono::duration<double>(now - last_progress_).count() >= opt_.progress_interval) {
      last_progress_ = now;
      std::fprintf(stderr, "[blkmc] %s states, %s transitions, depth %u, %s states/s, store %s, %.0f s\n",
                   human_count(double(store_.size())).c_str(),
                   human_count(double(transitions_)).c_str(), max_depth_,
                   human_count(double(store_.size()) / el).c_str(),
                   human_bytes(double(store_.memory_bytes())).c_str(), el);
    }
    return std::nullopt;
  }

  State load(std::uint32_t i) const {
    State s{};
    std::memcpy(s.b.data(), store_.get(i), m_.state_bytes());
    return s;
  }

  // The step that leads from one stored state to another (by that actor,
  // when one is given).
  Step step_between(const State& from, const State& to, int actor = -1) const {
    Step found{};
    bool any = false;
    m_.for_each_successor(from, [&](const Step& st, const State& n) {
      if (!any && (actor < 0 || st.actor == actor) &&
          std::memcmp(n.b.data(), to.b.data(), m_.state_bytes()) == 0) {
        found = st;
        any = true;
      }
    });
    return found;
  }

  // Path to the first stuck state, then the walk to a cycle or a dead end.
  Counterexample<State> lasso_trace(const Lasso& l) const {
    Counterexample<State> cx = reconstruct(l.stuck);
    const std::size_t base = cx.states.size() - 1;
    for (std::size_t k = 1; k < l.walk.size(); ++k) {
      const State to = load(l.walk[k]);
      cx.steps.push_back(step_between(cx.states.back(), to));
      cx.states.push_back(to);
    }
    cx.stuck_at = base;
    cx.loop_start = base + l.loop_start;
    return cx;
  }

  // Path to the fair cycle's entry, then the cycle; stuck_at is where the
  // path's last run of pending states begins.
  Counterexample<State> fair_cycle_trace(const FairCycle& fc, int prop) const {
    Counterexample<State> cx = reconstruct(fc.entry);
    const std::size_t base = cx.states.size() - 1;
    for (std::size_t k = 1; k < fc.walk.size(); ++k) {
      const State to = load(fc.walk[k]);
      cx.steps.push_back(step_between(cx.states.back(), to, fc.actors[k - 1]));
      cx.states.push_back(to);
    }
    std::size_t j = base;
    if constexpr (HasPending<M>) {
      while (j > 0 && m_.pending(prop, cx.states[j - 1])) --j;
    }
    cx.stuck_at = j;
    cx.loop_start = base;
    return cx;
  }

  Counterexample<State> reconstruct(std::uint32_t id) const {
    std::vector<std::uint32_t> path;
    for (std::uint32_t i = id; i != StateStore::kNone; i = store_.parent(i)) path.push_back(i);
    Counterexample<State> cx;
    cx.states.push_back(load(path.back()));
    for (std::size_t k = path.size() - 1; k > 0; --k) {
      const State to = load(path[k - 1]);
      cx.steps.push_back(step_between(cx.states.back(), to));
      cx.states.push_back(to);
    }
    return cx;
  }

  SearchResult<State> finish(StopReason stop) {
    SearchResult<State> r;
    r.stop = stop;
    const bool complete = stop == StopReason::Complete || stop == StopReason::AllViolated;
    std::optional<Lasso> lasso;
    if (!progress_slots_.empty() && stop == StopReason::Complete)
      lasso = find_stuck_lasso(edges_, store_.size());
    auto is = [](const std::vector<int>& v, std::size_t k) {
      return std::find(v.begin(), v.end(), int(k)) != v.end();
    };
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      const Slot& sl = slots_[k];
      PropOutcome<State> o;
      o.prop = sl.prop;
      if (is(progress_slots_, k)) {
        o.verdict = stop != StopReason::Complete ? Verdict::Incomplete
                    : lasso                       ? Verdict::Violated
                                                  : Verdict::Holds;
        if (lasso) o.trace = lasso_trace(*lasso);
      } else if (is(starvation_slots_, k)) {
        o.verdict = Verdict::Incomplete;
        if (stop == StopReason::Complete) {
          // The same property selected twice: one decision.
          std::size_t same = k;
          for (std::size_t e = 0; e < k; ++e)
            if (slots_[e].prop == sl.prop && is(starvation_slots_, e)) {
              same = e;
              break;
            }
          if (same != k) {
            o.verdict = r.props[same].verdict;
            o.trace = r.props[same].trace;
          } else if (const auto fc = find_fair_pending_cycle(edges_, sl.pending, store_.size())) {
            o.verdict = Verdict::Violated;
            o.trace = fair_cycle_trace(*fc, sl.prop);
          } else {
            o.verdict = Verdict::Holds;
          }
        }
      } else if (is(maximize_slots_, k)) {
        o.bound = sl.bound;
        if (sl.violating != StateStore::kNone) {
          o.verdict = Verdict::Violated;
          o.trace = reconstruct(sl.violating);
          o.value = sl.violating_value;
        } else {
          o.verdict = complete ? Verdict::Holds : Verdict::Incomplete;
          o.value = std::max(sl.best, 0);
          o.value_exact = complete;
          if (!sl.bound && sl.best_id != StateStore::kNone) o.trace = reconstruct(sl.best_id);
        }
      } else if (sl.violating != StateStore::kNone) {
        o.verdict = Verdict::Violated;
        o.trace = reconstruct(sl.violating);
      } else {
        o.verdict = complete ? Verdict::Holds : Verdict::Incomplete;
      }
      r.props.push_back(std::move(o));
    }
    auto& st = r.stats;
    st.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    st.states = store_.size();
    st.transitions = transitions_;
    st.max_depth = max_depth_;
    st.states_per_second = st.seconds > 0 ? double(st.states) / st.seconds : 0;
    st.store_bytes = store_.memory_bytes() + edges_.memory_bytes();
    st.bytes_per_state = st.states ? double(st.store_bytes) / double(st.states) : 0;
    st.peak_rss_bytes = peak_rss_bytes();
    return r;
  }

  const M& m_;
  SearchOptions opt_;
  std::vector<Succ> succ_;  // one state's successors
  StateStore store_;
  std::vector<Slot> slots_;
  std::vector<int> invariant_slots_;
  std::vector<int> deadlock_slots_;
  std::vector<int> progress_slots_;
  std::vector<int> maximize_slots_;
  std::vector<int> starvation_slots_;
  EdgeLog edges_;  // the explored graph, kept only for progress and starvation properties
  std::size_t violated_ = 0;
  std::uint64_t transitions_ = 0;
  std::uint32_t max_depth_ = 0;
  bool memory_full_ = false;
  std::uint64_t max_states_ = 0;
  Clock::time_point start_, last_progress_;
};

template <class M>
SearchResult<typename M::State> explore(const M& m, SearchOptions opt) {
  return Explorer<M>(m, std::move(opt)).run();
}

}  // namespace blkmc
