// model/transition_system: a model's symbolic transition system, as it builds
// it for `blkmc prove` (props/induction.hpp runs k-induction over it) from
// the same step templates the explorer runs.
#pragma once

#include <functional>
#include <string>
#include <utility>
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

}  // namespace blkmc
