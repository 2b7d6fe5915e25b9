// A counterexample: the steps from the initial state and the states they
// lead through (explorer/search.hpp's path_to, explorer/key_path.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/model.hpp"

namespace blkmc {

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

}  // namespace blkmc
