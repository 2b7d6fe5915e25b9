// The registry's models of the kernel's own code (app/registry.hpp); each
// model's search is compiled in app/instances/.
#include <fmt/format.h>

#include "app/instances.hpp"
#include "model/sched/kernel/kernel_source.hpp"

namespace blkmc {

namespace {

// The family's name checked: the one-line error names the families that
// have a harness.
void require_family(const std::string& family) { kernel::family_file(family); }

}  // namespace

// One line per family with a kernel-source harness: the model of its code,
// registered as the family's hand model's elevator.
const ModelHandle& kernel_model(const std::string& family) {
  static const auto deadline = make_adapter<sched::KernelDeadlineModel>(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const auto bfq = make_adapter<sched::KernelBfqModel>(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? *bfq : *deadline;
}

// The hand model held against the code (blkmc conform), and two sources of
// the code together (blkmc compare --kernel A --after-kernel B).
const ModelHandle& conform_model(const std::string& family) {
  static const auto deadline = make_adapter<sched::DeadlineConformModel>(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const auto bfq = make_adapter<sched::BfqConformModel>(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? *bfq : *deadline;
}

const ModelHandle& pair_model(const std::string& family) {
  static const auto deadline = make_adapter<sched::DeadlinePairModel>(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const auto bfq = make_adapter<sched::BfqPairModel>(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? *bfq : *deadline;
}

}  // namespace blkmc
