// blkmc diff: a model's decision functions in two variants, compared by Z3.
#pragma once

#include <string>

namespace blkmc {

// Prints the comparison of every registered decision function (or only
// `function`); returns 0 when all are equivalent, 1 when some differ.
int run_diff(const std::string& model, const std::string& from, const std::string& to,
             const std::string& function, bool as_json);

}  // namespace blkmc
