// `blkmc conform MODEL -v V --kernel DIR`: blkmc's model (variant V) and
// the kernel's own code explored together over every interleaving of a
// workload (model/sched/kernel/conform_model.hpp): conforms, or the first
// departure as a shortest trace (and an HTML page with --report).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"

namespace blkmc {

struct ConformArgs {
  std::string model, variant;  // the hand model and its variant
  KernelArgs code;
  std::vector<std::string> params;
  std::string workload_opt, trace_out, report_out;
  std::string command;  // this command line, for the page's "reproduce it"
  double seconds = 0;
  std::uint64_t max_states = 0;
  unsigned threads = 0;
  bool as_json = false, quiet = false;
};

// The subcommand and its options, bound to a.
CLI::App* add_conform_command(CLI::App& app, ConformArgs& a);
// 0: conforms on every interleaving; 1: departs (or a kernel-bug); 3: a
// limit stopped the search first.
int run_conform(ConformArgs& a);

}  // namespace blkmc
