// Rendering a check's outcome: text table, JSON, exit code.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/registry.hpp"

namespace blkmc {

nlohmann::json stats_json(const Stats& s);
nlohmann::json outcome_json(const CheckOutcome& o);
std::string outcome_text(const CheckOutcome& o);
// check --census's table (explorer/census.hpp), as outcome_text prints it.
std::string census_text(const Census& c);
// A run's parameters for a header: by value name where the model names
// them (workload=gated-write, shadow=none), as numbers for an unknown model.
std::string params_text(const std::string& model, const Params& p);
// An outcome's parameters as the model that ran names them.
std::string params_text(const CheckOutcome& o);
// One property's result as outcome_text prints it: "violated  (7 steps)",
// "max = 32 (trace 17 steps)", "holds  (max = 30)", ...
std::string prop_result_text(const CheckOutcome::Prop& p);
std::string stats_text(const Stats& s);
// Which reductions applied, and what the partial-order reduction got.
std::string reduction_text(const Stats& s);
int exit_code(const CheckOutcome& o);  // violated > incomplete > holds
// What differs between two searches of one check that must agree exactly
// (on 1 and on N threads, in two stores): how each stopped, states,
// transitions, depth, partial-order counts, verdicts, maxima and traces.
// Empty when nothing does; otherwise a's side of the first difference.
std::string search_difference(const CheckOutcome& a, const CheckOutcome& b);

}  // namespace blkmc
