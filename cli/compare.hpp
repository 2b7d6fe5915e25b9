// `blkmc compare`: the same properties checked on the variant before and
// after a patch, side by side.
#pragma once

#include <string>

#include "app/registry.hpp"

namespace blkmc {

// Prints both verdict columns (a maximize property without a bound: both
// maxima) and marks the properties whose verdict changed (REGRESSION when the
// patch breaks it, FIXED) or whose maximum changed (CHANGED); with trace_out,
// writes the trace of each such change (PREFIX-VARIANT-PROP.json). Returns 1
// when the patch breaks a property (a regression), 0 otherwise.
int print_comparison(const CheckOutcome& before, const CheckOutcome& after,
                     const std::string& trace_out, bool as_json);

// A property as part of a file name: NAME<=K becomes NAME-leK.
std::string prop_file_name(std::string prop);

}  // namespace blkmc
