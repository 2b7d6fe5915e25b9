// Verdicts are data: what the explorer found for one property.
#pragma once

#include <string>

namespace blkmc {

enum class Verdict { Holds, Violated, Incomplete };

std::string to_string(Verdict v);
Verdict parse_verdict(const std::string& s);  // throws UsageError

// Process exit codes of `blkmc check`, `blkmc replay` and `blkmc device`.
enum ExitCode : int {
  kExitHolds = 0,
  kExitViolated = 1,
  kExitUsage = 2,
  kExitIncomplete = 3,
  kExitReplayMismatch = 4,
  kExitUnsupported = 5,  // blkmc device: no root, loop devices or tracefs here
};

}  // namespace blkmc
