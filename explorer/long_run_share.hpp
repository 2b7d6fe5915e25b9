// The long-run share of a pair's service on a control graph
// (explorer/path_gains.hpp, its `served` counts): on a run that goes on
// forever, how little can one process be served for each sector the other is?
//
// fair-ratio asks the most the pair's cumulative service ever differs; on
// a cyclic workload that comes from the start-up. A simulation measures a
// share over a long run instead (seed 004: one instance gets 0.6 of its
// peer's service). Its exhaustive counterpart is a ratio over cycles: every
// infinite run ends in one strongly connected component, and what it
// gains there splits into simple cycles of that component plus fewer than
// `nodes` edges. So no run's long-run share is below the least ratio of a
// cycle in its last component, and a weakly fair run gets as close to that
// cycle's ratio as wanted: it goes round the cycle more and more times
// between the detours that give every actor its steps. The answer is the
// least cycle ratio over the components that admit a weakly fair run (the
// component test of explorer/starvation.cpp).
//
// Restricted (g.within): only the runs that stay among the marked nodes
// from some point on count. Such a run ends in a component of the subgraph
// those nodes span, so the components, their fairness and the cycles are
// that subgraph's; what is enabled at a node is still read off all of its
// edges, since a step out of the marked nodes is one the run must forgo.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "explorer/path_gains.hpp"
#include "model/model.hpp"

namespace blkmc {

struct ShareCycle {
  bool found = false;      // a cycle on which the other counter gains, in a fair component
  std::uint64_t mine = 0;  // what this one is served going round once
  std::uint64_t other = 0;  // what the other is (> 0 where found)
  std::uint32_t entry = 0;  // the cycle's first node
  std::vector<std::uint64_t> edges;  // its edges in order (indices into g.to), entry back to entry
  bool fair_alone = false;  // weakly fair by itself: each actor enabled all along it steps in it
};

struct LongRunShare {
  // least[i]: the cycle that serves process i least per sector of the
  // other, among the cycles of components that admit a weakly fair run.
  ShareCycle least[2];
  std::size_t fair_components = 0;  // nontrivial components that admit one
  int rounds = 0;                   // negative-cycle searches run
  bool stopped = false;             // cut (time limit, Ctrl-C): nothing found is kept
};

// g has g.served and g.actor; each node's edges are all of its steps
// (a complete search), so that an actor without an edge at a node is
// disabled there. cut() is asked now and then; true stops the search.
LongRunShare long_run_share(const GainGraph& g, const std::function<bool()>& cut = {});

// One process's least long-run share as check reports it: the cycle
// followed on the model from the start (prefix steps to its entry).
struct ShareFigure {
  std::string name, other;  // the process, and the other of the pair
  bool found = false;       // some weakly fair run serves the other without end
  std::uint64_t mine = 0, theirs = 0;  // sectors each gets going round the cycle once
  std::size_t prefix = 0, steps = 0;   // the path to the cycle, and the cycle
  bool fair_alone = false;
  std::string within;      // the restriction (PathMeasure::within), or empty
  std::vector<Step> path;  // the steps from the start: prefix, then the cycle (check's trace of it)
};

}  // namespace blkmc
