// props/induction: k-induction over a symbolic transition system (blkmc
// prove). A model builds the system from the same step templates the
// explorer runs (e.g. model/tags/tags_logic.hpp through model/tags/tags_symbolic.cpp):
// state variables with sorts and ranges, init(s), trans(s, act, s') where
// act selects one concrete action, the property, and strengthening lemmas.
//
// For each target (every lemma in order, then the property) and k = 0, 1,
// ..., k_max:
//   base: a path init = s0 -> ... -> sk whose last state violates the target
//         (a real counterexample of length k: the target is violated);
//   step: s0 -> ... -> sk, a simple path (pairwise distinct states, so that
//         k-induction is complete for finite systems), the target holding in
//         s0..s(k-1) and failing in sk, every proved lemma assumed in every
//         state: unsat proves the target with this k. With a successor
//         function, k = 1 is one query per action (same question, split).
// Lemmas on demand: the property is first tried alone with k <= 1; only
// when that does not settle it are the lemmas proved (each assuming the
// earlier proved ones) and the property tried again, up to k_max, assuming
// them. A lemma that is not proved is reported as such and never assumed. When
// neither case settles the target up to k_max, the last step case's states
// are the counterexample to induction. A Z3 timeout (the --time budget) or
// unknown answer makes the target incomplete.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "model/transition_system.hpp"

namespace blkmc {

struct InductionOptions {
  int k_max = 6;
  double seconds = 0;  // 0: no limit
};

enum class ProofVerdict { Proved, Violated, Incomplete };
std::string to_string(ProofVerdict v);

// One target's outcome. Proved: k. Violated: `states`/`actions` is the
// path from an initial state (k steps). Incomplete: the counterexample to
// induction of the last k tried (or nothing after a timeout).
struct TargetResult {
  std::string name;
  ProofVerdict verdict = ProofVerdict::Incomplete;
  int k = -1;
  std::vector<std::vector<int>> states;  // variable values (bools 0/1)
  std::vector<int> actions;              // actions[i] leads from states[i]
  std::string note;                      // why incomplete
  double seconds = 0;
};

struct ProveResult {
  std::vector<TargetResult> lemmas;
  TargetResult prop;
  double seconds = 0;
};

// Throws std::invalid_argument on a malformed system.
ProveResult prove_by_induction(z3::context& c, const TransitionSystem& ts,
                               const InductionOptions& opt);

}  // namespace blkmc
