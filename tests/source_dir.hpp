// The source tree the tests read (checked-in traces, suite files): ctest
// passes it in BLKMC_SOURCE_DIR. It is not compiled in, so that a build of
// another clone of the tree is the same compilation (ccache hits it).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace blkmc::testing {

inline std::filesystem::path source_dir() {
  const char* d = std::getenv("BLKMC_SOURCE_DIR");
  if (!d || !*d) throw std::runtime_error("BLKMC_SOURCE_DIR is not set: run the tests through ctest, or set it to the source tree");
  return d;
}

}  // namespace blkmc::testing
