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

#include "model/decision.hpp"

namespace blkmc {

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
  // Every short name (inputs and named intermediates) -> the kernel
  // expression it stands for.
  std::map<std::string, std::string> kernel_names;
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

// A literal or cube over short names, with each name replaced by its kernel
// expression (bracketed where it is compound and not alone; "!" before a
// negated expression cancels).
std::string kernel_text(const std::string& text, const std::map<std::string, std::string>& names);

// Cubes and witnesses in kernel expressions; --json has the short names too.
std::string diff_text(const DiffResult& r, const DecisionFn& f);
nlohmann::json diff_json(const DiffResult& r);

}  // namespace blkmc
