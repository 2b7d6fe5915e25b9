// app/kernel_select: what the commands do with --kernel WHERE, --source
// FILE.c and --kernel-version V: load the code (model/sched/kernel/
// kernel_source.hpp), compile it (kernel_build.hpp) and name the
// kernel-code model and the variant that stands for it; and for a trace
// made on kernel code, find that code again (the options, or the compiled
// object in the cache) and refuse other code.
#pragma once

#include <string>

#include "app/registry.hpp"
#include "counterexamples/trace.hpp"

namespace blkmc {

struct KernelArgs {
  std::string kernel;   // --kernel: a tree, a linux-source tarball or debian:X.Y
  std::string source;   // --source: a .c file
  std::string version;  // --kernel-version: the version of a --source file
  bool given() const { return !kernel.empty() || !source.empty(); }
};

struct KernelChoice {
  const ModelHandle* model = nullptr;
  std::string variant;  // the loaded code's variant name (version@sha8)
};

// The family's kernel-code model with k's code loaded and compiled (throws
// UsageError: no such tree, a file that does not compile, ...); `model`
// picks the kernel-code model (default), the conform model or the pair
// model of the family.
enum class KernelUse { Check, Conform, Pair };
KernelChoice choose_kernel(const std::string& family, const KernelArgs& k, KernelUse use = KernelUse::Check);

// The model a trace runs on: its hand model, or for a trace of kernel code
// the kernel-code model with that code loaded, from k when given (whose
// code must be the trace's) or else from the cache. Throws UsageError.
const ModelHandle& model_for_trace(const Trace& t, const KernelArgs& k);
// After model_for_trace: a trace of two sources names the first by its
// number in this process (the parameter `before`), set again from its hash.
void fix_trace_sources(Trace& t);

}  // namespace blkmc
