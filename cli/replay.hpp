// `blkmc replay` and `blkmc report`: a counterexample trace re-executed in
// its model (the story, or a message-sequence chart, and whether the
// property fails again), or drawn as one self-contained HTML page.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"

namespace blkmc {

struct ReplayArgs {
  std::string trace_file;
  KernelArgs kargs;
  bool quiet = false, msc = false;
};
struct ReportArgs {
  std::string trace_file, report_out;
  KernelArgs kargs;
};

// The subcommands and their options, bound to a.
CLI::App* add_replay_command(CLI::App& app, ReplayArgs& a);
CLI::App* add_report_command(CLI::App& app, ReportArgs& a);
// Run them: replay exits 0 when the trace reproduces its verdict, 4 when
// not; report 0 once the page is written.
int run_replay(const ReplayArgs& a);
int run_report(const ReportArgs& a);

}  // namespace blkmc
