// blkmc diff: a model's decision functions in two variants, compared by Z3,
// and (--reach) the explorer's shortest trace to a state where they differ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace blkmc {

struct DiffReachOptions {
  bool enabled = false;       // --reach
  std::string trace_out;      // --trace-out: write the trace found here
  std::string report;         // --report: its HTML page (app/trace_report.hpp)
  std::uint64_t max_states = 2000000;  // --max-states, per workload searched
  std::vector<std::string> params;     // -p k=v for the search (workload=N: only that one)
};

// Prints the comparison of every registered decision function (or only
// `function`); returns 0 when all are equivalent, 1 when some differ. With
// reach.enabled and a difference, the model's shadow property (bfq, cfq:
// same-decisions, deadline: same-choice) is checked breadth-first on
// variant TO with shadow = FROM, one shipped workload after another,
// smallest first, until a trace is found; the exit code stays the diff's.
int run_diff(const std::string& model, const std::string& from, const std::string& to,
             const std::string& function, bool as_json, const DiffReachOptions& reach = {});

struct DiffArgs {
  std::string model, from, to, function, workload_opt;
  bool as_json = false;
  DiffReachOptions reach;
};

// The subcommand and its options, bound to a.
CLI::App* add_diff_command(CLI::App& app, DiffArgs& a);
// Runs it: run_diff's exit code.
int run_diff(DiffArgs& a);

}  // namespace blkmc
