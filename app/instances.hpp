// The explorer's templates for every registered model class, instantiated
// once, each model in a file of its own (app/instances/*.cpp), and declared
// extern here for every other unit: the registry, the device runner and the
// tests then call the search without compiling it again. One model's search
// is about 30 s of -O3 code generation; compiled in every unit that explores
// it, it was most of the build (docs/build.md).
#pragma once

#include <memory>

#include "app/registry.hpp"
#include "explorer/checks.hpp"
#include "explorer/simulate.hpp"
#include "model/inflight/inflight.hpp"
#include "model/integrity/integrity.hpp"
#include "model/sbitmap/sbitmap.hpp"
#include "model/sched/kernel/conform_model.hpp"
#include "model/sched/sched_model.hpp"
#include "model/tags/tags.hpp"
#include "model/workqueue/workqueue.hpp"

namespace blkmc {

// The registry's handle of model class M (app/adapter.hpp).
template <class M>
std::unique_ptr<ModelHandle> make_adapter(Offers offers);

namespace sched {
// blkmc conform (the hand model and the code) and compare --kernel A
// --after-kernel B (two sources of the code), per family.
using DeadlineConformModel = ConformModel<DeadlineScheduler>;
using BfqConformModel = ConformModel<BfqScheduler, KernelBfqScheduler>;
using DeadlinePairModel = ConformModel<KernelScheduler>;
using BfqPairModel = ConformModel<KernelBfqScheduler, KernelBfqScheduler>;
}  // namespace sched

// What is compiled once per model class: EXTERN is `extern` for a
// declaration, empty in the one file that defines them.
#define BLKMC_MODEL_INSTANCES(EXTERN, M)                                                \
  EXTERN template SearchResult<M::State> explore<M>(const M&, const SearchOptions&);   \
  EXTERN template SimOutcome simulate<M>(const M&, const SimOptions&);                 \
  EXTERN template std::unique_ptr<ModelHandle> make_adapter<M>(Offers);

BLKMC_MODEL_INSTANCES(extern, TagsModel)
BLKMC_MODEL_INSTANCES(extern, InflightModel)
BLKMC_MODEL_INSTANCES(extern, IntegrityModel)
BLKMC_MODEL_INSTANCES(extern, WorkqueueModel)
BLKMC_MODEL_INSTANCES(extern, SbitmapModel)
BLKMC_MODEL_INSTANCES(extern, sched::DeadlineModel)
BLKMC_MODEL_INSTANCES(extern, sched::NoneModel)
BLKMC_MODEL_INSTANCES(extern, sched::BfqModel)
BLKMC_MODEL_INSTANCES(extern, sched::CfqModel)
BLKMC_MODEL_INSTANCES(extern, sched::KernelDeadlineModel)
BLKMC_MODEL_INSTANCES(extern, sched::KernelBfqModel)
BLKMC_MODEL_INSTANCES(extern, sched::DeadlineConformModel)
BLKMC_MODEL_INSTANCES(extern, sched::BfqConformModel)
BLKMC_MODEL_INSTANCES(extern, sched::DeadlinePairModel)
BLKMC_MODEL_INSTANCES(extern, sched::BfqPairModel)

}  // namespace blkmc
