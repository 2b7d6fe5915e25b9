// The control graph of a path measure (explorer/path_measure.hpp): the
// states a search stored with the measure's ghost counters cleared, and on
// each edge what the step adds to each counter and whether it resets them.
// analyze_gains() answers, per state, how much each counter can still gain
// (an upper bound for pruning) and which counters the best paths reach (a
// lower bound of the maximum), both exact where no cycle adds to a counter.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace blkmc {

inline constexpr int kMaxPathCounters = 2;

struct GainGraph {
  int counters = 1;                    // 1..kMaxPathCounters
  int cap = 255;                       // every counter saturates here
  std::vector<std::uint64_t> first{0};  // node u's edges: [first[u], first[u + 1])
  std::vector<std::uint32_t> to;
  std::vector<std::uint8_t> gain;      // edge e adds gain[e * counters + i] to counter i
  std::vector<std::uint8_t> reset;     // edge e clears every counter before adding

  std::size_t nodes() const { return first.size() - 1; }
  std::size_t edges() const { return to.size(); }
  // Node ids are the store's ids: node 0 is the start; a node's edges are
  // added before the next node's.
  void add_edge(std::uint32_t v, const int* add, bool clears) {
    to.push_back(v);
    for (int i = 0; i < counters; ++i) gain.push_back(std::uint8_t(add[i]));
    reset.push_back(clears);
  }
  void end_node() { first.push_back(to.size()); }
};

using Objective = std::array<int, kMaxPathCounters>;

struct GainAnalysis {
  // A cycle adds to a counter: its sum has no bound below the cap, and the
  // fields below are left empty.
  bool cyclic_gain = false;
  // ahead[u * counters + i]: the most counter i gains on any path from u
  // (resets ignored; at most the cap).
  std::vector<std::uint8_t> ahead;
  // reached[(o * nodes + u) * counters + i]: counter i at u at the end of a
  // path from the start that scores highest on objective o (its dot product
  // with the counters) among the paths the analysis follows; the values of
  // a real path, so any measure of them is at most the true maximum.
  std::vector<std::uint8_t> reached;
  std::size_t components = 0;  // strongly connected components of the graph
};

// start: the counters at node 0.
GainAnalysis analyze_gains(const GainGraph& g, const int* start, const std::vector<Objective>& objectives);

}  // namespace blkmc
