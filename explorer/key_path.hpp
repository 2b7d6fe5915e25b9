// Concrete counterexamples from stored keys. A store holds a state's key
// (the state as the reductions left it: merged, sliced, permuted), so a trace is
// rebuilt on concrete states from the start: each step is the first of the
// current state's steps (of the given actor) whose successor has the next
// key. Used by Search (its store answers "is this id's key") and by the
// distributed search (the owners' keys gathered first).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "explorer/counterexample.hpp"
#include "explorer/reduced_model.hpp"
#include "model/model.hpp"

namespace blkmc::key_path {

// Appends the step from cx.states.back() to the successor is(key) accepts
// (of actor, where actor >= 0).
template <Model M, class Is>
void step_to(const Reduced<M>& rm, Counterexample<typename M::State>& cx, Is&& is, int actor) {
  bool found = false;
  typename M::State to{};
  rm.base().for_each_successor(cx.states.back(), [&](const Step& st, const typename M::State& n) {
    if (found || (actor >= 0 && st.actor != actor)) return;
    const typename M::State kn = rm.keyed(n);
    if (is(kn)) {
      cx.steps.push_back(st);
      to = n;
      found = true;
    }
  });
  if (!found) throw std::logic_error("a stored step has no concrete counterpart");
  cx.states.push_back(to);
}

// cx (a path to walk[0]) continued along the stored states walk[1..], by
// actors[k] for the step walk[k] -> walk[k + 1] where given; is(id, key):
// whether key is state id's. When walk.back() == walk[loop] (a cycle; loop
// == walk.size() - 1 when the walk ends in a dead end), cx.loop_start is
// where the repeating part begins, so that states.back() ==
// states[*loop_start]. Unless keys are the concrete states (concrete), the
// cycle of keys is followed until a concrete state repeats (a permuted,
// sliced or merged copy of the entry state is not yet the entry state); every state
// on the way has the keys of the walk.
template <Model M, class Is>
void along(const Reduced<M>& rm, Counterexample<typename M::State>& cx,
           const std::vector<std::uint32_t>& walk, std::size_t loop, const std::vector<int>& actors,
           bool concrete, Is&& is) {
  const std::size_t base = cx.steps.size();
  auto follow = [&](std::size_t k) {  // the step walk[k - 1] -> walk[k]
    step_to(rm, cx, [&](const typename M::State& key) { return is(walk[k], key); },
            k - 1 < actors.size() ? actors[k - 1] : -1);
  };
  for (std::size_t k = 1; k < walk.size(); ++k) follow(k);
  cx.loop_start = base + loop;
  if (concrete || loop + 1 >= walk.size()) return;
  // Rounds of the cycle walk[loop..] until a round ends in a concrete
  // state some earlier round began with.
  std::vector<std::size_t> entries{base + loop};
  for (int round = 0; round < 100000; ++round) {
    const auto& end = cx.states.back();
    for (std::size_t e : entries)
      if (std::memcmp(cx.states[e].b.data(), end.b.data(), rm.state_bytes()) == 0) {
        cx.loop_start = e;
        return;
      }
    entries.push_back(cx.states.size() - 1);
    for (std::size_t k = loop + 1; k < walk.size(); ++k) follow(k);
  }
  throw std::logic_error("path_along: the concrete cycle does not close");
}

}  // namespace blkmc::key_path
