// common/errors: the error every layer may raise for bad user input, and the
// process exit codes the commands return. Depends on nothing of blkmc.
#pragma once

#include <stdexcept>

namespace blkmc {

// Bad input from the user (unknown name, out-of-range value, malformed
// trace): reported as one line, exit code kExitUsage.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
