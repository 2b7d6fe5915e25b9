// `blkmc compare`: the same properties checked on the variant before and
// after a patch, side by side.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"
#include "app/registry.hpp"

namespace blkmc {

struct CompareArgs {
  std::string model, before, after, workload_opt, trace_out;
  KernelArgs before_code, after_code;
  std::vector<std::string> params, props;
  double seconds = 0;
  std::uint64_t max_states = 0;
  bool as_json = false;
};

// The subcommand and its options, bound to a.
CLI::App* add_compare_command(CLI::App& app, CompareArgs& a);
// Runs it: print_comparison's (or run_compare_kernels') exit code.
int run_compare(CompareArgs& a);

// Prints both verdict columns (a maximize property without a bound: both
// maxima) and marks the properties whose verdict changed (REGRESSION when the
// patch breaks it, FIXED) or whose maximum changed (CHANGED); with trace_out,
// writes the trace of each such change (PREFIX-VARIANT-PROP.json). Returns 1
// when the patch breaks a property (a regression), 0 otherwise.
// extra: more to say (the first divergence of two sources): lines after the
// table, or members of the JSON object.
int print_comparison(const CheckOutcome& before, const CheckOutcome& after,
                     const std::string& trace_out, bool as_json,
                     const std::vector<std::pair<std::string, nlohmann::json>>& extra = {});

// `blkmc compare MODEL --kernel A --after-kernel B` (or --source /
// --after-source): the same properties on the two sources of the code, and
// a shortest trace to the first state where they dispatch differently.
int run_compare_kernels(const std::string& model, const KernelArgs& before, const KernelArgs& after,
                        const std::vector<std::string>& params, const std::vector<std::string>& props,
                        double seconds, std::uint64_t max_states, const std::string& trace_out, bool as_json);

// A property as part of a file name: NAME<=K becomes NAME-leK.
std::string prop_file_name(std::string prop);

}  // namespace blkmc
