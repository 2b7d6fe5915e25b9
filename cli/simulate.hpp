// blkmc simulate: one run of a model along a single schedule, its figures
// as text or JSON.
#pragma once

#include <string>

#include "app/registry.hpp"

namespace blkmc {

// Prints the run; returns kExitViolated when it ended in a deadlock, else 0.
int run_simulation(const ModelHandle& mh, const std::string& variant, const Params& params,
                   const SimOptions& opt, bool as_json);

}  // namespace blkmc
