// props/induction: k-induction over a symbolic transition system (blkmc
// prove). A model builds the system from the same step templates the
// explorer runs (e.g. model/tags_logic.hpp through model/tags_symbolic.cpp):
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

namespace blkmc {

struct TsVar {
  std::string name;
  bool is_bool = false;
  int lo = 0, hi = 1;  // the range a well-formed state keeps it in
};

using Frame = std::vector<z3::expr>;  // one copy of the state variables

// What one action writes over a Frame: reads see the latest write, or the
// frame's value (the models' symbolic views build their steps on it).
class FrameWrites {
 public:
  explicit FrameWrites(const Frame& base) : base_(base) {}
  z3::expr get(int i) const {
    for (auto it = w_.rbegin(); it != w_.rend(); ++it)
      if (it->first == i) return it->second;
    return base_[std::size_t(i)];
  }
  void set(int i, const z3::expr& v) {
    for (auto& p : w_)
      if (p.first == i) {
        p.second = v;
        return;
      }
    w_.emplace_back(i, v);
  }
  const std::vector<std::pair<int, z3::expr>>& writes() const { return w_; }

 private:
  const Frame& base_;
  std::vector<std::pair<int, z3::expr>> w_;
};

struct TransitionSystem {
  std::vector<TsVar> vars;
  int nactions = 0;
  // Integer variables as bit-vectors of this width (0: mathematical
  // integers); act is then a 32-bit vector. Values must fit, signed.
  int bv_width = 0;
  std::function<z3::expr(const Frame&)> init;
  // act: an integer constant; trans constrains it to [0, nactions).
  std::function<z3::expr(const Frame&, const z3::expr& act, const Frame&)> trans;
  // Optional: action a's guard and successor of a frame (trans with act = a,
  // as a function). When given, the step case at k = 1 is asked one action
  // at a time: each query holds only what one action writes, where the whole
  // relation's ite network is what makes Z3 slow as the models grow.
  std::function<std::pair<z3::expr, Frame>(const Frame&, int a)> successor;
  struct Formula {
    std::string name;
    std::function<z3::expr(const Frame&)> holds;
  };
  Formula prop;
  std::vector<Formula> lemmas;
};

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
