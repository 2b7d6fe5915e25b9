// The registry's models of the kernel's own code (app/registry.hpp): in a
// file of their own, as each instantiates the explorer for its model class.
#include <fmt/format.h>

#include "app/adapter.hpp"
#include "app/registry.hpp"
#include "model/sched/kernel/conform_model.hpp"
#include "model/sched/kernel/kernel_source.hpp"

namespace blkmc {

namespace {

// One line per family with a kernel-source harness (mq-deadline's): the
// model class M of it, registered as the family's hand model's elevator.
template <class M>
const ModelHandle& of_family(const std::string& family) {
  static const ModelAdapter<M> deadline({.elevator = "mq-deadline", .tunables = {"fifo_batch", "writes_starved"}});
  if (family == "deadline") return deadline;
  kernel::family_file(family);  // the one-line error naming the families that have one
  throw UsageError(fmt::format("model '{}' has no kernel-source harness", family));
}

}  // namespace

const ModelHandle& kernel_model(const std::string& family) { return of_family<sched::KernelDeadlineModel>(family); }

const ModelHandle& conform_model(const std::string& family) {
  return of_family<sched::ConformModel<sched::DeadlineScheduler>>(family);
}

const ModelHandle& pair_model(const std::string& family) {
  return of_family<sched::ConformModel<sched::KernelScheduler>>(family);
}

}  // namespace blkmc
