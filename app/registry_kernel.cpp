// The registry's models of the kernel's own code (app/registry.hpp): in a
// file of their own, as each instantiates the explorer for its model class.
#include <fmt/format.h>

#include "app/adapter.hpp"
#include "app/registry.hpp"
#include "model/sched/kernel/conform_model.hpp"
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
  static const ModelAdapter<sched::KernelDeadlineModel> deadline(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const ModelAdapter<sched::KernelBfqModel> bfq(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? static_cast<const ModelHandle&>(bfq) : deadline;
}

// The hand model held against the code (blkmc conform), and two sources of
// the code together (blkmc compare --kernel A --after-kernel B).
const ModelHandle& conform_model(const std::string& family) {
  static const ModelAdapter<sched::ConformModel<sched::DeadlineScheduler>> deadline(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const ModelAdapter<sched::ConformModel<sched::BfqScheduler, sched::KernelBfqScheduler>> bfq(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? static_cast<const ModelHandle&>(bfq) : deadline;
}

const ModelHandle& pair_model(const std::string& family) {
  static const ModelAdapter<sched::ConformModel<sched::KernelScheduler>> deadline(
      {.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  static const ModelAdapter<sched::ConformModel<sched::KernelBfqScheduler, sched::KernelBfqScheduler>> bfq(
      {.elevator = "bfq", .tunables = {"low_latency", "strict_guarantees", "slice_idle"}});
  require_family(family);
  return family == "bfq" ? static_cast<const ModelHandle&>(bfq) : deadline;
}

}  // namespace blkmc
