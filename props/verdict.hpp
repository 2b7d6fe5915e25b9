// Verdicts are data: what the explorer found for one property.
#pragma once

#include <string>

#include "common/errors.hpp"

namespace blkmc {

enum class Verdict { Holds, Violated, Incomplete };

std::string to_string(Verdict v);
Verdict parse_verdict(const std::string& s);  // throws UsageError

}  // namespace blkmc
