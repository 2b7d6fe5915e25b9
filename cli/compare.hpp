// `blkmc compare`: the same properties checked on the variant before and
// after a patch, side by side.
#pragma once

#include <string>

#include <utility>
#include <vector>

#include "app/kernel_select.hpp"
#include "app/registry.hpp"

namespace blkmc {

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
