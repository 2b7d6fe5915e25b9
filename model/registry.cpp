#include "model/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "explorer/adapter.hpp"
#include "model/inflight.hpp"
#include "model/integrity.hpp"
#include "model/sbitmap.hpp"
#include "model/sched/sched_model.hpp"
#include "model/tags.hpp"
#include "model/workqueue.hpp"

namespace blkmc {

const std::vector<const ModelHandle*>& all_models() {
  static const ModelAdapter<TagsModel> tags;
  static const ModelAdapter<InflightModel> inflight;
  static const ModelAdapter<IntegrityModel> integrity;
  static const ModelAdapter<WorkqueueModel> workqueue;
  static const ModelAdapter<SbitmapModel> sbitmap;
  static const ModelAdapter<sched::DeadlineModel> deadline;
  static const ModelAdapter<sched::NoneModel> none;
  static const ModelAdapter<sched::BfqModel> bfq;
  static const ModelAdapter<sched::CfqModel> cfq;
  static const std::vector<const ModelHandle*> models{
      &tags, &inflight, &integrity, &workqueue, &sbitmap, &deadline, &none, &bfq, &cfq};
  return models;
}

const ModelHandle& find_model(const std::string& name) {
  std::vector<std::string> names;
  for (const ModelHandle* m : all_models()) {
    if (m->info().name == name) return *m;
    names.push_back(m->info().name);
  }
  throw UsageError(fmt::format("unknown model '{}' (valid: {})", name, fmt::join(names, ", ")));
}

}  // namespace blkmc
