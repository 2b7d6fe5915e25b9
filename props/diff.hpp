// props/diff: symbolic comparison of one decision function in two variants
// (blkmc diff). Each function is registered with its typed inputs (booleans,
// and integers with the range the model allows), an optional domain
// constraint (the model's invariants on those inputs), and two
// instantiations of the same template source: over z3::expr for the solver
// and over int/bool for the cross-check.
//
// The solver either proves the two variants decide the same for every input
// allowed, or lists the input classes where they differ. A class is a cube
// over the *atoms* of the two decisions (their comparisons and boolean
// inputs, e.g. "queued >= 4", "!rot"), shrunk until every input it admits
// gives the same pair of outcomes, each with a minimised concrete witness
// that is re-run through the concrete semantics.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <z3++.h>

namespace blkmc {

struct DiffInput {
  std::string name;
  bool boolean = true;
  int lo = 0, hi = 1;  // integers: the range the model allows (inclusive)
};
inline DiffInput bool_input(std::string n) { return {std::move(n), true, 0, 1}; }
inline DiffInput int_input(std::string n, int lo, int hi) { return {std::move(n), false, lo, hi}; }

// Names an intermediate value of a decision. In the symbolic semantics it
// becomes a constant with its definition, so that the cubes read
// "seek_mean > 8" rather than the arithmetic behind it; in the concrete
// semantics it is the value itself.
class SymNames {
 public:
  explicit SymNames(z3::context& c) : c_(c), defs_(c) {}
  z3::expr operator()(const std::string& name, const z3::expr& def);
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

// The solver's constant for input i of f, and a concrete value of its sort.
z3::expr input_const(z3::context& c, const DecisionFn& f, std::size_t i);
z3::expr input_value(z3::context& c, const DecisionFn& f, std::size_t i, int v);

struct DiffLiteral {
  std::string text;  // "queued >= 4", "!rot"
  std::size_t atom;  // index into the result's atoms
  bool value;
};

struct DiffCube {
  int from_value = 0, to_value = 0;   // the two outcomes on every input of the cube
  std::vector<DiffLiteral> literals;  // empty: every allowed input
  std::vector<int> witness;           // a minimised input inside the cube
};

class DiffSemantics;  // the solver-side atoms, for in_cube()

struct DiffResult {
  std::string function, from, to;
  bool equivalent = false;
  bool truncated = false;  // more classes than the limit; the list is a prefix
  std::vector<DiffCube> cubes;
  std::vector<std::string> input_names, outcomes;
  double seconds = 0;
  std::shared_ptr<DiffSemantics> sem;

  // Cubes in which FROM decides `a` and TO decides `b`.
  std::vector<DiffCube> where(int a, int b) const;
  // Whether the concrete input x lies in cube c (evaluates its atoms).
  bool in_cube(const DiffCube& c, const std::vector<int>& x) const;
  // The truth value of every literal's atom on x, once, for many cubes.
  std::vector<bool> atom_values(const std::vector<int>& x) const;
  static bool in_cube(const DiffCube& c, const std::vector<bool>& atom_values);
  std::string outcome_name(int v) const;
};

// Throws UsageError for an unknown variant of f. Cross-checks every witness
// concretely (throws std::logic_error if the two semantics disagree).
DiffResult diff_decision(const DecisionFn& f, int from, int to, std::size_t max_cubes = 64);

std::string diff_text(const DiffResult& r, const DecisionFn& f);
nlohmann::json diff_json(const DiffResult& r);

}  // namespace blkmc
