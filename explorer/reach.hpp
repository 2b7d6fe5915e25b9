// Searches for a state with a given quality, on the one search
// (explorer/search.hpp): the first such state breadth-first, and the path
// to it. Replay asks it whether a progress trace's stuck state can still
// finish; prove asks it whether a counterexample to induction is reachable.
#pragma once

#include <cstring>
#include <functional>
#include <optional>

#include "explorer/search.hpp"

namespace blkmc {

// The predicate is type-erased: one instantiation of the search per model
// serves every question (a search per predicate type was a fifth of the
// build), at an indirect call per new state.
template <class M>
class FindState {
 public:
  using State = typename M::State;
  using Pred = std::function<bool(const State&)>;
  explicit FindState(Pred pred) : pred_(std::move(pred)) {}
  void on_new(std::uint32_t id, const State& s) {
    if (found == StateStore::kNone && pred_(s)) found = id;
  }
  bool wants_edges() const { return false; }
  void on_expand(std::uint32_t, const State&) {}
  void on_edge(std::uint32_t, std::uint8_t) {}
  void on_expanded(std::uint32_t, const State&, std::size_t, bool) {}
  bool done() const { return found != StateStore::kNone; }
  std::uint64_t memory_bytes() const { return 0; }
  std::uint32_t found = StateStore::kNone;

 private:
  Pred pred_;
};

// Breadth-first from `start` (default: the initial state) for a state
// satisfying pred, storing at most max_states: its shortest path; nullopt
// when none is reachable. *complete tells whether the search covered
// everything reachable (false: stopped at max_states, nothing found).
template <class M, class Pred>
std::optional<Counterexample<typename M::State>> find_state(
    const M& m, Pred pred, std::uint64_t max_states, bool* complete = nullptr,
    std::optional<typename M::State> start = std::nullopt) {
  SearchOptions opt;
  opt.bfs = true;
  opt.progress = false;
  opt.limits.max_states = max_states;
  Search<M> search(m, opt, std::move(start));
  FindState<M> obs(std::move(pred));
  const StopReason stop = search.run(obs);
  if (complete) *complete = obs.done() || stop == StopReason::Complete;
  if (!obs.done()) return std::nullopt;
  return search.path_to(obs.found);
}

// Whether no finished() state is reachable from s0 (a progress violation);
// nothing when more than max_states states lie beyond s0.
template <class M>
std::optional<bool> stuck_from(const M& m, const typename M::State& s0, std::uint64_t max_states) {
  bool complete = false;
  const auto path =
      find_state(m, [&](const typename M::State& s) { return m.finished(s); }, max_states, &complete, s0);
  if (path) return false;
  if (!complete) return std::nullopt;
  return true;
}

// The shortest path from the initial state to `target`; nothing when it is
// unreachable. *complete as in find_state.
template <class M>
std::optional<Counterexample<typename M::State>> find_path(const M& m, const typename M::State& target,
                                                           std::uint64_t max_states, bool* complete) {
  const std::size_t n = m.state_bytes();
  return find_state(
      m, [&](const typename M::State& s) { return std::memcmp(s.b.data(), target.b.data(), n) == 0; },
      max_states, complete);
}

}  // namespace blkmc
