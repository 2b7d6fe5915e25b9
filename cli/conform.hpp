// `blkmc conform MODEL -v V --kernel DIR`: blkmc's model (variant V) and
// the kernel's own code explored together over every interleaving of a
// workload (model/sched/kernel/conform_model.hpp): conforms, or the first
// departure as a shortest trace (and an HTML page with --report).
#pragma once

#include <string>
#include <vector>

#include "app/kernel_select.hpp"

namespace blkmc {

struct ConformArgs {
  std::string model, variant;  // the hand model and its variant
  KernelArgs code;
  std::vector<std::string> params;
  std::string trace_out, report_out, command;
  double seconds = 0;
  std::uint64_t max_states = 0;
  unsigned threads = 0;
  bool as_json = false, quiet = false;
};

// 0: conforms on every interleaving; 1: departs (or a kernel-bug); 3: a
// limit stopped the search first.
int run_conform(const ConformArgs& a);

}  // namespace blkmc
