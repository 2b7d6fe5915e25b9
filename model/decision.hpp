// model/decision: a decision function as a model registers it for
// `blkmc diff` (props/diff.hpp compares two variants of it with Z3). The
// function is one template source with two instantiations: over z3::expr for
// the solver and over int/bool for the cross-check (model/z3_values.hpp).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <z3++.h>

namespace blkmc {

struct DiffInput {
  std::string name;    // short, for the solver and --json: "sg"
  bool boolean = true;
  int lo = 0, hi = 1;  // integers: the range the model allows (inclusive)
  std::string kernel;  // the kernel expression it stands for: "bfqd->strict_guarantees"
};
inline DiffInput bool_input(std::string n, std::string kernel) {
  return {std::move(n), true, 0, 1, std::move(kernel)};
}
inline DiffInput int_input(std::string n, int lo, int hi, std::string kernel) {
  return {std::move(n), false, lo, hi, std::move(kernel)};
}
// A short name and the kernel expression it stands for (a table of them
// sits beside each model's decision templates).
struct KernelTerm {
  std::string name, kernel;
};

// Names an intermediate value of a decision. In the symbolic semantics it
// becomes a constant with its definition, so that the cubes read
// "seek_mean > 8" rather than the arithmetic behind it; in the concrete
// semantics it is the value itself.
class SymNames {
 public:
  explicit SymNames(z3::context& c) : c_(c), defs_(c) {}
  // A constant for `def` named `name`; the same name with another
  // definition (the other variant's) gets the suffix.
  z3::expr operator()(const std::string& name, const z3::expr& def) {
    for (const auto& [k, d] : named_)
      if (k.decl().name().str() == name) {
        if (z3::eq(d, def)) return k;  // the same definition in both variants
        return (*this)(name + suffix_, def);
      }
    const z3::expr k = c_.constant(name.c_str(), def.get_sort());
    named_.push_back({k, def});
    defs_.push_back(k == def);
    return k;
  }
  const z3::expr_vector& definitions() const { return defs_; }
  // (named constant, definition) pairs, in definition order.
  const std::vector<std::pair<z3::expr, z3::expr>>& named() const { return named_; }
  void set_suffix(std::string s) { suffix_ = std::move(s); }

 private:
  z3::context& c_;
  z3::expr_vector defs_;
  std::vector<std::pair<z3::expr, z3::expr>> named_;
  std::string suffix_;
};
struct ConcreteNames {
  int operator()(const std::string&, int v) const { return v; }
  bool operator()(const std::string&, bool v) const { return v; }
};

struct DecisionFn {
  std::string name;     // "may_idle"
  std::string kernel;   // the kernel function(s) it stands for
  std::vector<DiffInput> inputs;
  // The kernel expressions of the intermediate values it names (SymNames).
  std::vector<KernelTerm> terms;
  std::vector<std::string> variants;  // the variants it is defined for
  std::vector<std::string> outcomes;  // names of the output values (bool: false, true)
  // The decision (a bool- or int-sorted expression; a bool counts as 0/1).
  std::function<z3::expr(int variant, const std::vector<z3::expr>&, SymNames&)> symbolic;
  std::function<int(int variant, const std::vector<int>&)> concrete;
  // Inputs the model can present (its invariants); empty: every input in range.
  std::function<z3::expr(const std::vector<z3::expr>&)> assume;
  std::function<bool(const std::vector<int>&)> assume_concrete;
  // How the explorer reaches a differing input (a command or trace), if it can.
  std::string reach;
  // 0: integers are mathematical integers; N: N-bit vectors (signed
  // comparisons), for arithmetic that bit-blasts faster than it solves as
  // linear integer arithmetic with division (the ranges keep the values
  // far from overflow).
  unsigned bv_width = 0;
};

}  // namespace blkmc
