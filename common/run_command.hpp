// common/run_command: a program run to its end, its output to files (the
// C compiler, objdump, addr2line). No shell: argv as given, found on PATH,
// in the C locale so that its messages read the same everywhere.
#pragma once

#include <string>
#include <vector>

namespace blkmc {

// Runs argv with stdout to `out` and stderr to `err` (empty: to `out` as
// well; "/dev/null" to drop it). Its exit status; -1 when it could not be
// started or did not exit, 127 when the program is not found.
int run_command(const std::vector<std::string>& argv, const std::string& out, const std::string& err = "");

}  // namespace blkmc
