// blkmc simulate: one run of a model along a single schedule, its figures
// as text or JSON.
#pragma once

#include <string>

#include "app/registry.hpp"

namespace blkmc {

// Prints the run, and with `report` also writes its charts there
// (app/sim_report.hpp; `command` is this command line). Returns
// kExitViolated when it ended in a deadlock, kExitIncomplete when
// interrupted, kExitUsage when the page could not be written, else 0.
int run_simulation(const ModelHandle& mh, const std::string& variant, const Params& params,
                   const SimOptions& opt, bool as_json, const std::string& report = "",
                   const std::string& command = "");

}  // namespace blkmc
