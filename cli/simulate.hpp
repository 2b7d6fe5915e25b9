// blkmc simulate: one run of a model along a single schedule, its figures
// as text or JSON.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"
#include "app/registry.hpp"

namespace blkmc {

struct SimulateArgs {
  std::string model, variant, workload_opt, report_out;
  std::vector<std::string> params;
  KernelArgs kargs;
  SimOptions opt;
  bool first = false, as_json = false, quiet = false;
  std::string command;  // this command line, for the page's "reproduce it"
};

// The subcommand and its options, bound to a.
CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& a);
// Runs it: run_simulation's exit code.
int run_simulate(SimulateArgs& a);

// Prints the run, and with `report` also writes its charts there
// (app/sim_report.hpp; `command` is this command line). Returns
// kExitViolated when it ended in a deadlock, kExitIncomplete when
// interrupted, kExitUsage when the page could not be written, else 0.
int run_simulation(const ModelHandle& mh, const std::string& variant, const Params& params,
                   const SimOptions& opt, bool as_json, const std::string& report = "",
                   const std::string& command = "");

}  // namespace blkmc
