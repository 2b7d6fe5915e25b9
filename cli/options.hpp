// Option helpers the subcommands share (CLI11): help texts, validators,
// and the checks every command makes of its arguments before any work.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"

namespace blkmc {

inline constexpr const char* kParamHelp =
    "model parameter name=value (repeatable; workload=NAME|FILE.wl, shadow=VARIANT|none)";
inline constexpr const char* kWorkloadHelp =
    "scheduler models: the workload, a shipped NAME (blkmc list) or your own FILE.wl (same as -p workload=)";

// A number 0..2^64-1 in decimal digits: CLI11's unsigned conversion takes
// "-1" (as 2^64-1) and a number past the range (as the largest).
extern const CLI::Validator kUnsigned64;
// Seconds or MiB: a finite number in [lo, hi] (CLI::Range lets nan through,
// and nan switched a limit off).
CLI::Validator finite_range(double lo, double hi);

// The same property twice would be checked twice and printed twice.
void no_repeats(const std::vector<std::string>& xs, const char* opt);
// --workload W: the same as -p workload=W, given once.
void add_workload_param(const std::string& w, std::vector<std::string>& params);
// --kernel, --source, --kernel-version: the kernel's own scheduler code.
void add_kernel_options(CLI::App* cmd, KernelArgs& k, const char* what = "the code to check");
// An output file is refused before the work when its directory is missing.
void require_parent_dir(const std::string& what, const std::string& path);

// A word as the shell reads it back: as is when plain, else in single quotes.
std::string shell_quote(const std::string& w);
// This process's command line, for a report's "reproduce it".
std::string command_line(int argc, char** argv);
// Where one of several properties' traces goes: BASE-PROP.EXT (BASE alone
// when there is one).
std::string trace_path(const std::string& base, const std::string& prop_spec, bool several);

}  // namespace blkmc
