// The sbitmap model: the search, the simulation and the registry's handle (app/instances.hpp).
#include "app/adapter.hpp"
#include "app/instances.hpp"

namespace blkmc {
BLKMC_MODEL_INSTANCES(, SbitmapModel)
}  // namespace blkmc
