// `blkmc check`: explore every interleaving of a model (or of the kernel's
// own scheduler code) and check its properties; verdicts, traces, pages and
// the state graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/kernel_select.hpp"

namespace blkmc {

class Cluster;

struct CheckArgs {
  std::string model, variant, from_trace, workload_opt;
  std::vector<std::string> params, props;
  KernelArgs kargs;
  bool bfs = false, dfs = false;
  // How visited states are kept, and the disk stores' scratch.
  std::string store_kind = "plain", disk_dir;
  double disk_mib = 0, sort_mib = 0;
  unsigned bitstate_log2 = 0;
  // Limits: 0 is none (memory: 3/4 of RAM).
  unsigned threads = 0;
  std::uint64_t max_states = 0;
  std::uint32_t max_depth = 0;
  double seconds = 0, memory_mib = 0;
  bool no_reduce = false, no_por = false, no_slice = false, no_symmetry = false, no_abstract = false,
       no_path_measure = false;
  std::string trace_out, report_out, dot_out;
  std::size_t dot_limit = 2000;
  bool as_json = false, quiet = false, census = false;
  std::string command;  // this command line, for the pages' "reproduce it"
};

// The subcommand and its options, bound to a.
CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
// Runs it (over the ranks of cluster, when set): the exit code of its
// verdicts (kExitHolds, kExitViolated, kExitIncomplete) or kExitUsage when a
// trace, page or graph could not be written.
int run_check(CheckArgs& a, Cluster* cluster);

}  // namespace blkmc
