// Checks of a model's reduction hooks against the model itself
// (explorer/reduced_model.hpp), shared by the models' tests: along random
// walks, the influence declaration (slicing), the abstraction (states with
// one key are bisimilar), the symmetry (permuting the block's copies
// commutes with every step and keeps every property) and the actor futures
// and footprints (partial-order reduction).
#pragma once

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "explorer/reduced_model.hpp"
#include "tests/model_steps.hpp"

namespace blkmc::testing {

// A RapidCheck property of model M, with why it failed.
template <class M, class F>
void check_property(int max_success, F&& property) {
  rc::detail::TestParams params;
  params.maxSuccess = max_success;
  const auto r = rc::detail::checkTestable(property, rc::detail::TestMetadata{}, params);
  std::ostringstream why;
  rc::detail::printResultMessage(r, why);
  INFO("model " << M::static_info().name << ": " << why.str());
  CHECK(r.template is<rc::detail::SuccessResult>());
}

// Path measures (explorer/path_measure.hpp) search twice: the control
// graph's states, from the reduction line ("...: N states, M edges"), may
// come on top of the full search's; 0 where the layer stepped aside.
inline std::uint64_t control_states(const std::string& reduction) {
  const auto at = reduction.find("counter(s): ");
  return at == std::string::npos ? 0 : std::stoull(reduction.substr(at + 12));
}

template <class M>
bool same_bytes(const M& m, const typename M::State& a, const typename M::State& b) {
  return std::memcmp(a.b.data(), b.b.data(), m.state_bytes()) == 0;
}

// Every property value the explorer reads from a state.
template <class M>
std::vector<int> observations(const M& m, const std::vector<int>& props, const typename M::State& s) {
  std::vector<int> out{int(m.finished(s))};
  for (int p : props) {
    const PropKind k = m.info().props.at(std::size_t(p)).kind;
    if (k == PropKind::Invariant) out.push_back(m.violates(p, s));
    if constexpr (HasMeasure<M>)
      if (k == PropKind::Maximize) out.push_back(m.measure(p, s));
    if constexpr (HasPending<M>)
      if (k == PropKind::Starvation) out.push_back(m.pending(p, s));
  }
  return out;
}

template <class M>
typename M::State random_step(const M& m, const typename M::State& s, bool& stuck) {
  const auto succ = successors(m, s);
  stuck = succ.empty();
  if (stuck) return s;
  return succ[*rc::gen::inRange<std::size_t>(0, succ.size())].second;
}

// Slicing: values of the variables the properties do not depend on change
// neither the enabled steps, nor the kept variables of their successors,
// nor what the properties see. Returns the states checked.
template <class M>
int check_slicing(const M& m, const std::vector<int>& props, int steps) {
  const Schema& sc = m.schema();
  const std::vector<bool> keep = m.influence().relevant(props);
  const std::vector<std::uint8_t> mask = sc.keep_mask(keep);
  auto masked = [&](typename M::State s) {
    for (std::size_t i = 0; i < mask.size(); ++i) s.b[i] &= mask[i];
    return s;
  };
  typename M::State s = m.initial();
  int checked = 0;
  for (int k = 0; k < steps; ++k) {
    typename M::State t = s;
    for (int v = 0; v < int(keep.size()); ++v)
      if (!keep[std::size_t(v)])
        for (int c = 0; c < sc.copies(v); ++c) {
          const auto& var = sc.var(v);
          sc.set_value(t, v, c, *rc::gen::inRange(var.lo, var.hi + 1));
        }
    const auto a = successors(m, s), b = successors(m, t);
    RC_ASSERT(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      RC_ASSERT(a[i].first == b[i].first);
      RC_ASSERT(same_bytes(m, masked(a[i].second), masked(b[i].second)));
    }
    RC_ASSERT(observations(m, props, s) == observations(m, props, t));
    ++checked;
    bool stuck = false;
    s = random_step(m, s, stuck);
    if (stuck) break;
  }
  return checked;
}

// The state with the symmetric block's copies permuted (copy c to perm[c]).
template <class M>
typename M::State permuted(const M& m, int block, const typename M::State& s, const std::vector<int>& perm) {
  // Variable by variable through the schema (not the explorer's byte
  // layout), so the check does not share the engine's code.
  const Schema& sc = m.schema();
  typename M::State t = s;
  for (int id = 0; id < int(sc.vars().size()); ++id)
    if (sc.var(id).place == block)
      for (int c = 0; c < int(perm.size()); ++c) sc.set_value(t, id, perm[std::size_t(c)], sc.value(s, id, c));
  m.rename(t, perm);
  return t;
}

// Symmetry: permuting the copies commutes with the successor relation (as
// sets of states) and keeps what the properties see.
template <class M>
int check_symmetry(const M& m, const std::vector<int>& props, int steps) {
  const int block = m.symmetric_block(props);
  if (block < 0) return 0;
  const int n = m.schema().place_copies(block);
  // The classes of interchangeable copies (all of them, unless the model
  // names classes); a permutation shuffles each class among its positions.
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  if constexpr (HasSymmetryClasses<M>) label = m.symmetry_classes(props);
  // Successors are compared on what the properties depend on: a ghost no
  // selected property reads may name a process that moved (the tracked
  // request's, when only conservation is checked); slicing's own check
  // (check_slicing) shows that nothing else reads it.
  std::vector<std::uint8_t> mask(m.state_bytes(), 0xff);
  if constexpr (HasInfluence<M>) mask = m.schema().keep_mask(m.influence().relevant(props));
  auto masked = [&](typename M::State x) {
    for (std::size_t i = 0; i < mask.size(); ++i) x.b[i] &= mask[i];
    return x;
  };
  typename M::State s = m.initial();
  int checked = 0;
  for (int k = 0; k < steps; ++k) {
    std::vector<int> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    for (int i = n - 1; i > 0; --i) {
      if (label[std::size_t(i)] < 0) continue;
      std::vector<int> with;  // positions j <= i of i's class
      for (int j = 0; j <= i; ++j)
        if (label[std::size_t(j)] == label[std::size_t(i)]) with.push_back(j);
      std::swap(perm[std::size_t(i)], perm[std::size_t(*rc::gen::elementOf(with))]);
    }
    const typename M::State t = permuted(m, block, s, perm);
    RC_ASSERT(observations(m, props, s) == observations(m, props, t));
    const auto a = successors(m, s), b = successors(m, t);
    RC_ASSERT(a.size() == b.size());
    for (const auto& [st, next] : a) {
      const typename M::State want = masked(permuted(m, block, next, perm));
      RC_ASSERT(std::any_of(b.begin(), b.end(), [&](const auto& x) { return same_bytes(m, masked(x.second), want); }));
    }
    ++checked;
    bool stuck = false;
    s = random_step(m, s, stuck);
    if (stuck) break;
  }
  return checked;
}

inline bool within(const Footprint& f, const Footprint& fut) {
  return (f.reads & ~(fut.reads | fut.writes)).none() && (f.writes & ~fut.writes).none();
}

// Partial-order reduction's model hooks: from a state on a random walk,
// every step another actor takes while one actor stands still stays within
// its actor_future() of that state; and a step independent of all of an
// actor's enabled steps changes none of them (footprints name the guards).
// The explorer computes futures and footprints on stored keys, whose sliced
// variables are cleared: on such a state they must still cover what they
// cover on the concrete one (restricted to the kept variables).
template <class M>
int check_futures(const M& m, int steps, int lookahead, const std::vector<int>& props = {}) {
  const Schema& sc = m.schema();
  const std::vector<bool> keep = m.influence().relevant(props);
  const std::vector<std::uint8_t> mask = sc.keep_mask(keep);
  std::bitset<Footprint::kMaxVars> kept;
  for (int v = 0; v < int(keep.size()); ++v)
    if (keep[std::size_t(v)])
      for (int c = 0; c < sc.copies(v); ++c) kept.set(std::size_t(sc.index(v, c)));
  auto restricted = [&](Footprint f) {
    f.reads &= kept;
    f.writes &= kept;
    return f;
  };
  typename M::State s = m.initial();
  int checked = 0;
  for (int k = 0; k < steps; ++k) {
    const int still = *rc::gen::inRange(0, m.actors());
    std::vector<Footprint> fut;
    for (int q = 0; q < m.actors(); ++q) fut.push_back(m.actor_future(s, q));
    typename M::State key = s;
    for (std::size_t i = 0; i < mask.size(); ++i) key.b[i] &= mask[i];
    for (int q = 0; q < m.actors(); ++q) RC_ASSERT(within(restricted(fut[std::size_t(q)]), m.actor_future(key, q)));
    for (const auto& [st, next] : successors(m, s)) RC_ASSERT(within(restricted(m.footprint(s, st)), m.footprint(key, st)));
    typename M::State u = s;
    for (int j = 0; j < lookahead; ++j) {
      std::vector<std::pair<Step, typename M::State>> others;
      for (auto& x : successors(m, u))
        if (x.first.actor != still) others.push_back(x);
      if (others.empty()) break;
      const auto& [st, next] = others[*rc::gen::inRange<std::size_t>(0, others.size())];
      RC_ASSERT(within(m.footprint(u, st), fut.at(st.actor)));
      u = next;
      ++checked;
    }
    const auto succ = successors(m, s);
    for (const auto& [b, nb] : succ) {
      const Footprint fb = m.footprint(s, b);
      for (int p = 0; p < m.actors(); ++p) {
        if (p == b.actor) continue;
        const auto mine = successors_of(m, s, p);
        if (mine.empty()) continue;
        bool indep = true;
        for (const auto& [a, na] : mine) indep = indep && m.footprint(s, a).independent_of(fb);
        if (!indep) continue;
        const auto after = successors_of(m, nb, p);
        RC_ASSERT(after.size() == mine.size());
        for (std::size_t i = 0; i < after.size(); ++i) RC_ASSERT(after[i].first == mine[i].first);
      }
    }
    bool stuck = false;
    s = random_step(m, s, stuck);
    if (stuck) break;
  }
  return checked;
}

// Abstraction (a model's abstract_key): a state and another with the same
// key (s keyed, and scramble(s) where its key is s's) show every property
// the same and enable the same steps in the same order, to successors with
// the same keys. Returns the pairs checked.
template <class M, class Scramble>
int check_abstraction(const M& m, const std::vector<int>& props, int steps, Scramble&& scramble) {
  using State = typename M::State;
  auto key = [&](State s) {
    m.abstract_key(s);
    return s;
  };
  auto keyed_successors = [&](const State& s) {
    auto out = successors(m, s);
    for (auto& [step, n] : out) n = key(n);
    return out;
  };
  int checked = 0;
  State s = m.initial();
  for (int i = 0; i < steps; ++i) {
    for (const State& t : {key(s), scramble(s)}) {
      if (!same_bytes(m, key(t), key(s))) continue;
      RC_ASSERT(observations(m, props, t) == observations(m, props, s));
      const auto a = keyed_successors(s), b = keyed_successors(t);
      RC_ASSERT(a.size() == b.size());
      for (std::size_t j = 0; j < a.size(); ++j) {
        RC_ASSERT(a[j].first == b[j].first);
        RC_ASSERT(same_bytes(m, a[j].second, b[j].second));
      }
      ++checked;
    }
    bool stuck = false;
    s = random_step(m, s, stuck);
    if (stuck) break;
  }
  return checked;
}

// The search with and without each reduction: the same verdicts and maxima;
// a trace found under reduction is a path of the full model (every step
// enabled, every state the step's successor) ending where its property says.
template <class M>
void check_reduced_verdicts(const M& m, const std::vector<int>& props, std::uint64_t max_states) {
  SearchOptions opt;
  opt.progress = false;
  opt.props = props;
  opt.limits.max_states = max_states;
  opt.bfs = *rc::gen::arbitrary<bool>();
  const auto full = explore(m, opt);
  if (full.stop != StopReason::Complete && full.stop != StopReason::AllViolated) RC_DISCARD("too large");
  for (const ReduceOptions& r : {ReduceOptions{true, false, false}, ReduceOptions{false, true, false},
                                ReduceOptions{false, false, true}, ReduceOptions{false, false, false, true},
                                ReduceOptions::all()}) {
    opt.reduce = r;
    const auto red = explore(m, opt);
    RC_ASSERT(red.stats.states <= full.stats.states + control_states(red.stats.reduction));
    RC_ASSERT(red.props.size() == full.props.size());
    for (std::size_t i = 0; i < red.props.size(); ++i) {
      const auto &a = full.props[i], &b = red.props[i];
      RC_ASSERT(a.verdict == b.verdict);
      RC_ASSERT(a.value == b.value);
      if (!b.trace) continue;
      const auto& cx = *b.trace;
      RC_ASSERT(same_bytes(m, cx.states.front(), m.initial()));
      for (std::size_t k = 0; k < cx.steps.size(); ++k) {
        typename M::State next{};
        RC_ASSERT(m.apply(cx.states[k], cx.steps[k], next));
        RC_ASSERT(same_bytes(m, next, cx.states[k + 1]));
      }
      const PropKind kind = m.info().props.at(std::size_t(b.prop)).kind;
      if (kind == PropKind::Invariant) RC_ASSERT(m.violates(b.prop, cx.states.back()));
      if constexpr (HasMeasure<M>)
        if (kind == PropKind::Maximize && b.value) RC_ASSERT(m.measure(b.prop, cx.states.back()) == *b.value);
      // Under --bfs the trace is as short as the full search's.
      if (opt.bfs && a.trace) RC_ASSERT(cx.steps.size() == a.trace->steps.size());
    }
  }
}

}  // namespace blkmc::testing
