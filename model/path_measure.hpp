// A maximize property whose measure is a function of ghost counters that
// every step moves the same way: it adds an amount that the rest of the
// state decides, saturating at a cap, after clearing them when the step
// resets them. For a step s -> s',
//   counters(s') = min(cap, (reset ? 0 : counters(s)) + gain)
// where gain is counters(t') for the same step from t = s with the counters
// cleared. Then the counters are no part of what the search must store:
// explorer/path_measure.hpp searches the graph without them and asks the
// product only where the measure can still reach its maximum.
//
// A model declares one with these hooks (counters == 0: not one):
//   PathMeasure path_measure(int prop) const;
//   void path_counters(int prop, const State& s, int* g) const;
//   bool path_reset(int prop, const State& before, const State& after) const;
//   int path_value(int prop, const int* g) const;        the measure of counters g
//   int path_bound(int prop, const int* lo, const int* hi) const;
//       at least path_value(g) for every lo <= g <= hi (per counter)
//
// share: the measure compares two processes' service (names[0], names[1]).
// check then also gives each one's least long-run share of the other's
// (explorer/long_run_share.hpp), over what the model's
//   void share_served(int prop, const State& before, const State& after, int* g) const;
// says each is served on a step (every sector, wanted by the other or not:
// the throughput a long simulation measures). Where `within` names a
// condition, the share counts only the runs that, from some point on, stay
// in states where it holds, as the model's
//   bool share_within(int prop, const State& s) const;
// says (CFQ: while a queue keeps its deep flag, seed 004's question).
#pragma once

#include <array>
#include <string>

namespace blkmc {

struct PathMeasure {
  int counters = 0;  // 0: the measure is no path measure
  int cap = 255;
  bool share = false;
  std::array<std::string, 2> names;
  std::string within;  // share: "while ..." (share_within), or empty for every run
};

}  // namespace blkmc
