// Starvation on an explored state graph: is there a reachable cycle of
// pending states (the model's pending(prop, s), e.g. "the tracked request is
// still queued") that is weakly fair, i.e. every actor that is enabled in
// every state of the cycle takes at least one step in it? Such a cycle is a
// schedule that the fairness of the real scheduler/CPUs cannot rule out and
// that keeps the request pending forever.
//
// Decided after a complete search on the logged graph (EdgeLog with actors):
// the strongly connected components of the subgraph of pending states
// (Boost.Graph), then a fairness test per component (see starvation.cpp for
// why the component-level test is exact). The counterexample is the fair
// component with the lowest entry state id (under BFS: the one entered
// closest to the initial state) and a closed walk through it from that entry.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "explorer/progress.hpp"

namespace blkmc {

struct FairCycle {
  std::uint32_t entry = 0;           // lowest state id of the component
  std::vector<std::uint32_t> walk;   // walk.front() == walk.back() == entry, >= 1 edge
  std::vector<std::uint8_t> actors;  // actors[i]: the actor of the edge walk[i] -> walk[i+1]
};

// log: every state id < nstates expanded, actors kept; pending[id] for each.
// Returns nothing when no reachable pending cycle is weakly fair.
std::optional<FairCycle> find_fair_pending_cycle(const EdgeLog& log,
                                                 const std::vector<bool>& pending,
                                                 std::size_t nstates);

}  // namespace blkmc
