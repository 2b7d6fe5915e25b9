// mq-deadline's own code: the search, the simulation and the registry's handle (app/instances.hpp).
#include "app/adapter.hpp"
#include "app/instances.hpp"

namespace blkmc {
BLKMC_MODEL_INSTANCES(, sched::KernelDeadlineModel)
}  // namespace blkmc
