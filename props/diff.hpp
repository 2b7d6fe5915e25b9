// props/diff: symbolic comparison of one decision function in two variants
// (blkmc diff). Each function is registered with its boolean inputs and two
// instantiations of the same template source: over z3::expr for the solver
// and over bool for the cross-check. The solver either proves the two
// variants equal for all inputs, or lists the input classes (cubes: partial
// assignments, shrunk until every completion still differs) where the FROM
// variant decides true and the TO variant false, and the other way round.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <z3++.h>

namespace blkmc {

struct DecisionFn {
  std::string name;     // "may_idle"
  std::string kernel;   // the kernel function(s) it stands for
  std::vector<std::string> inputs;  // boolean inputs, in order
  std::vector<std::string> variants;  // the variants it is defined for
  std::function<z3::expr(int variant, const std::vector<z3::expr>&)> symbolic;
  std::function<bool(int variant, const std::vector<bool>&)> concrete;
};

struct DiffCube {
  std::vector<std::pair<std::string, bool>> literals;  // input = value
  std::vector<bool> witness;  // a full input inside the cube
};

struct DiffResult {
  std::string function, from, to;
  bool equivalent = false;
  std::vector<DiffCube> from_only, to_only;  // FROM true & TO false; TO true & FROM false
  double seconds = 0;
};

// Throws UsageError for an unknown variant of f. Cross-checks every witness
// concretely (throws std::logic_error if the two semantics disagree).
DiffResult diff_decision(const DecisionFn& f, int from, int to);

std::string diff_text(const DiffResult& r);
nlohmann::json diff_json(const DiffResult& r);

}  // namespace blkmc
