#include "app/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/instances.hpp"
#include "app/prove_driver.hpp"
#include "model/inflight/inflight.hpp"
#include "model/inflight/inflight_symbolic.hpp"
#include "model/integrity/integrity.hpp"
#include "model/sbitmap/sbitmap.hpp"
#include "model/sched/bfq/bfq_symbolic.hpp"
#include "model/sched/cfq/cfq_symbolic.hpp"
#include "model/sched/deadline/deadline_symbolic.hpp"
#include "model/sched/sched_model.hpp"
#include "model/tags/tags.hpp"
#include "model/tags/tags_symbolic.hpp"
#include "model/workqueue/workqueue.hpp"

namespace blkmc {

namespace {

// A family's decision functions, built once.
template <std::vector<DecisionFn> (*F)()>
const std::vector<DecisionFn>& once() {
  static const std::vector<DecisionFn> v = F();
  return v;
}

template <class P>
const ProveDriver* driver() {
  static const ProveDriverFor<P> d;
  return &d;
}

}  // namespace

// One line per family: the model and what it offers.
const std::vector<const ModelHandle*>& all_models() {
  static const auto tags = make_adapter<TagsModel>({.prove = driver<tags::Proof>(), .elevator = ""});
  static const auto inflight = make_adapter<InflightModel>(
      {.decisions = once<inflight::inflight_decisions>, .prove = driver<inflight::Proof>(), .elevator = ""});
  static const auto integrity = make_adapter<IntegrityModel>({});
  static const auto workqueue = make_adapter<WorkqueueModel>({});
  static const auto sbitmap = make_adapter<SbitmapModel>({});
  static const auto deadline = make_adapter<sched::DeadlineModel>(
      {.decisions = once<sched::deadline_decisions>,
       .elevator = "mq-deadline",
       .tunables = {"fifo_batch", "writes_starved"}});
  static const auto none = make_adapter<sched::NoneModel>({.elevator = "none"});
  static const auto bfq = make_adapter<sched::BfqModel>(
      {.decisions = once<sched::bfq_decisions>,
       .elevator = "bfq",
       .tunables = {"low_latency", "strict_guarantees"},
       // v6.12: the hand variant the kernel's 5.13+ code confirms.
       .device_variant = 4,
       .async_depth_16ths = 3,
       .depth_limit = "BFQ's limit_depth held them (bfq_limit_depth: async requests and sync writes get at most "
                      "1/2 and 3/4 of nr_requests, 3/16 and 3/8 while a queue is weight-raised, and with group "
                      "scheduling a queue past its weight's share, as an idle-class queue beside best-effort ones "
                      "is at once, one at a time); put those processes above the gate or gate fewer of their "
                      "requests"});
  static const auto cfq = make_adapter<sched::CfqModel>({.decisions = once<sched::cfq_decisions>, .elevator = ""});
  static const std::vector<const ModelHandle*> models{
      tags.get(), inflight.get(), integrity.get(), workqueue.get(), sbitmap.get(), deadline.get(), none.get(), bfq.get(), cfq.get()};
  return models;
}

std::string model_names(const std::function<bool(const ModelHandle&)>& pred) {
  std::vector<std::string> names;
  for (const ModelHandle* m : all_models())
    if (!pred || pred(*m)) names.push_back(m->info().name);
  return fmt::format("{}", fmt::join(names, ", "));
}

const ModelHandle& find_model(const std::string& name) {
  for (const ModelHandle* m : all_models())
    if (m->info().name == name) return *m;
  throw UsageError(fmt::format("unknown model '{}' (valid: {})", name,
                               model_names()));
}

const std::vector<DecisionFn>& decision_functions(const std::string& model) {
  const ModelHandle& m = find_model(model);
  if (!m.offers().decisions)
    throw UsageError(fmt::format("diff: model {} has no decision functions registered ({} have)", model, model_names([](const ModelHandle& h) { return h.offers().decisions != nullptr; })));
  return m.offers().decisions();
}

const ProveDriver& prove_driver(const std::string& model) {
  const ModelHandle& m = find_model(model);
  if (!m.offers().prove)
    throw UsageError(fmt::format("prove: model '{}' has no symbolic semantics (provable: {})", model,
                                 model_names([](const ModelHandle& h) { return h.offers().prove != nullptr; })));
  return *m.offers().prove;
}

const ModelHandle& model_of_elevator(const std::string& elevator) {
  for (const ModelHandle* m : all_models())
    if (!m->offers().elevator.empty() && (m->offers().elevator == elevator || m->info().name == elevator))
      return *m;
  std::vector<std::string> names;
  for (const ModelHandle* m : all_models())
    if (!m->offers().elevator.empty()) names.push_back(m->offers().elevator);
  throw UsageError(fmt::format("scheduler '{}' has no model here ({})", elevator, fmt::join(names, ", ")));
}

const std::string& elevator_of_model(const std::string& model) {
  const ModelHandle& m = find_model(model);
  if (m.offers().elevator.empty())
    throw UsageError(fmt::format("model '{}' is not a scheduler model a loop device runs", model));
  return m.offers().elevator;
}

}  // namespace blkmc
