// common/error_line: an error message as the one line blkmc prints. Errors
// quote what the user gave ('NAME'); a name of a megabyte or with a newline
// in it must not become a megabyte or two lines of error.
#pragma once

#include <string>

namespace blkmc {

// msg with control characters written as escapes (\n, \x01), every quoted
// part longer than 80 bytes cut to its first 60 and its length, and the
// whole cut at 1000 bytes.
std::string error_line(const std::string& msg);

}  // namespace blkmc
