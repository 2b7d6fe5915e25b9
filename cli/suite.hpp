// `blkmc suite`: the verification suite behind Makefile.verify. Each line is
//   check MODEL VARIANT PARAMS PROPERTY EXPECTED     (PARAMS: k=v,k=v or -)
//   replay TRACE-FILE
// EXPECTED is holds, violated or incomplete, or for a maximize property
// without a bound its maximum (an integer: the row passes when the search
// completes with exactly that maximum); PROPERTY may be NAME<=K for a
// maximize property (EXPECTED then a verdict).
// Checks of the same model, variant and parameters share one BFS run. Prints
// a verdict table (expected vs found, states, time); returns non-zero when
// any verdict differs or a trace does not reproduce. markdown: the verdict
// table as Markdown (for the README), the replays only counted.
#pragma once

#include <functional>
#include <istream>
#include <string>

#include "app/registry.hpp"

namespace blkmc {

// How the suite finds a model by name (the registry's find_model; tests
// pass their own toy models).
using ModelLookup = std::function<const ModelHandle&(const std::string&)>;

int run_suite(std::istream& in, const std::string& name, double seconds_per_run,
              bool markdown = false, const ModelLookup& lookup = ModelLookup(find_model));

}  // namespace blkmc
