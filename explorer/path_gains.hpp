// The control graph of a path measure (explorer/path_measure.hpp): the
// states a search stored with the measure's ghost counters cleared, and on
// each edge what the step adds to each counter and whether it resets them.
// analyze_gains() answers, per state, how much each counter can still gain
// (an upper bound for pruning: before the next reset, and after one) and
// which counters the best paths reach (a lower bound of the maximum), both
// exact where no cycle without a reset adds to a counter.
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
  std::vector<std::uint8_t> actor;     // edge e's actor (the long-run share's fairness)
  // A share measure's (PathMeasure::share): edge e serves each of the pair
  // served[e * 2 + i] sectors (explorer/long_run_share.hpp).
  std::vector<std::uint8_t> served;
  // A share measure restricted to some states (PathMeasure::within): node
  // u is one of them where within[u]; empty: every node is.
  std::vector<std::uint8_t> within;

  std::size_t nodes() const { return first.size() - 1; }
  std::size_t edges() const { return to.size(); }
  // Node ids are the store's ids: node 0 is the start; a node's edges are
  // added before the next node's.
  void add_edge(std::uint32_t v, const int* add, bool clears, int by = 0, const int* serves = nullptr) {
    to.push_back(v);
    for (int i = 0; i < counters; ++i) gain.push_back(std::uint8_t(add[i]));
    reset.push_back(clears);
    actor.push_back(std::uint8_t(by));
    if (serves)
      for (int i = 0; i < 2; ++i) served.push_back(std::uint8_t(serves[i] < 255 ? serves[i] : 255));
  }
  void end_node() { first.push_back(to.size()); }
};

using Objective = std::array<int, kMaxPathCounters>;

struct GainAnalysis {
  // A cycle with no reset on it adds to a counter: that counter climbs to
  // the cap there, and the forward pass below is a search, not exact.
  bool cyclic_gain = false;
  // ahead[u * counters + i]: the most counter i gains on a path from u
  // before its first reset (at most the cap).
  std::vector<std::uint8_t> ahead;
  // resets_ahead[u]: a path from u resets the counters; after_reset[u *
  // counters + i]: the most counter i can hold after such a reset.
  std::vector<std::uint8_t> resets_ahead;
  std::vector<std::uint8_t> after_reset;
  // reached[(o * nodes + u) * counters + i]: counter i at u at the end of a
  // path from the start that scores highest on objective o (its dot product
  // with the counters) among the paths the analysis follows; the values of
  // a real path, so any measure of them is at most the true maximum.
  std::vector<std::uint8_t> reached;
  // via[o * nodes + u]: the edge that last set reached at u (kNoEdge: the
  // start, or never reached); where asked for.
  static constexpr std::uint64_t kNoEdge = ~std::uint64_t(0);
  std::vector<std::uint64_t> via;
  std::size_t components = 0;  // strongly connected components of the graph
};

// Every value the measure can take on a path from u whose counters are c
// at u: path_bound over c grown by ahead, or over 0 .. after_reset once a
// reset is ahead. Bound(lo, hi) is the model's path_bound.
template <class Bound>
int bound_ahead(const GainAnalysis& a, std::size_t u, int counters, int cap, const int* c, Bound&& bound) {
  int hi[kMaxPathCounters] = {}, zero[kMaxPathCounters] = {}, after[kMaxPathCounters] = {};
  for (int i = 0; i < counters; ++i) {
    const std::size_t x = u * std::size_t(counters) + std::size_t(i);
    hi[i] = c[i] + int(a.ahead[x]) < cap ? c[i] + int(a.ahead[x]) : cap;
    after[i] = a.after_reset[x];
  }
  int b = bound(c, hi);
  if (a.resets_ahead[u]) {
    const int r = bound(zero, after);
    if (r > b) b = r;
  }
  return b;
}

// start: the counters at node 0; record_via: fill GainAnalysis::via.
GainAnalysis analyze_gains(const GainGraph& g, const int* start, const std::vector<Objective>& objectives,
                           bool record_via = false);

// The edges from the start to u along via for objective o, each as its
// index among its node's edges (the model's successor order); empty where
// the links do not lead back to the start without a repeat (a label set
// later along a cycle). The counters along the result are checked by
// whoever follows it.
std::vector<std::uint32_t> via_path(const GainGraph& g, const GainAnalysis& a, std::size_t o, std::uint32_t u);

}  // namespace blkmc
