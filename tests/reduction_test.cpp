// The explorer's reductions (explorer/reduced_model.hpp): each model's hooks
// against its own steps, and the verdicts, maxima and traces with and
// without each reduction, over random small parameters.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include "app/instances.hpp"
#include "app/registry.hpp"
#include "explorer/reach.hpp"
#include "explorer/reduced_model.hpp"
#include "model/tags/tags.hpp"
#include "tests/model_cases.hpp"
#include "tests/reduction_checks.hpp"

namespace blkmc::testing {
namespace reduction_test {

// A random nonempty selection of the model's properties.
std::vector<int> some_props(const ModelInfo& inf) {
  std::vector<int> out;
  for (std::size_t i = 0; i < inf.props.size(); ++i)
    if (*rc::gen::arbitrary<bool>()) out.push_back(int(i));
  if (out.empty()) out.push_back(*rc::gen::inRange(0, int(inf.props.size())));
  return out;
}

TagsModel random_tags() {
  const int variant = *rc::gen::inRange(0, int(TagsModel::static_info().variants.size()));
  const Params p{{"ntags", *rc::gen::inRange(1, 4)},
                 {"submitters", *rc::gen::inRange(1, 4)},
                 {"rounds", *rc::gen::inRange(1, 3)},
                 {"pool", *rc::gen::inRange(0, 3)}};
  return TagsModel(variant, p);
}

TEST_CASE("reduction: tags' influence declaration holds along random walks") {
  CHECK(rc::check("sliced variables change nothing the properties depend on", [] {
    const TagsModel m = random_tags();
    RC_ASSERT(check_slicing(m, some_props(m.info()), 40) > 0);
  }));
}

TEST_CASE("reduction: permuting tags' submitters commutes with every step") {
  CHECK(rc::check("symmetry", [] {
    const TagsModel m = random_tags();
    RC_ASSERT(check_symmetry(m, some_props(m.info()), 40) > 0);
  }));
}

TEST_CASE("reduction: tags' actor futures cover what the actors do") {
  CHECK(rc::check("actor futures and guard reads", [] {
    const TagsModel m = random_tags();
    check_futures(m, 30, 12, some_props(m.info()));
  }));
}

TEST_CASE("reduction: tags keeps its verdicts, maxima and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const TagsModel m = random_tags();
    check_reduced_verdicts(m, some_props(m.info()), 300000);
  }));
}

// The search explores the reduced model: Reduced<M> is a Model of its own,
// and searching it unreduced is searching M with its quotients (slicing and
// symmetry): the same states, transitions and ids, on one thread or two.
// (One Reduced keeps scratch, so the layered search runs on one thread.)
static_assert(Model<Reduced<TagsModel>>);
TEST_CASE("reduction: the reduced model, searched as a model, is the search with its quotients") {
  CHECK(rc::check("Search<Reduced<M>> unreduced and Search<M> with slicing and symmetry", [] {
    const TagsModel m = random_tags();
    const std::vector<int> props = some_props(m.info());
    const int prop = props.front();
    SearchOptions opt;
    opt.progress = false;
    opt.props = props;
    opt.limits.max_states = 200000;
    opt.bfs = *rc::gen::arbitrary<bool>();
    opt.threads = *rc::gen::inRange(1, 3);
    opt.reduce = ReduceOptions{true, true, false};
    auto violating = [&](const TagsModel::State& s) { return m.violates(prop, s); };
    Search<TagsModel> direct(m, opt);
    FindState<TagsModel> a(violating);
    const StopReason ra = direct.run(a);

    const Reduced<TagsModel> rm(m, opt.reduce, props, false);
    SearchOptions plain = opt;
    plain.reduce = ReduceOptions::none();
    plain.threads = 1;
    Search<Reduced<TagsModel>> layered(rm, plain);
    FindState<Reduced<TagsModel>> b(violating);
    const StopReason rb = layered.run(b);

    RC_ASSERT(ra == rb);
    RC_ASSERT(a.found == b.found);
    RC_ASSERT(direct.stats().states == layered.stats().states);
    RC_ASSERT(direct.stats().transitions == layered.stats().transitions);
    RC_ASSERT(direct.stats().reduction == rm.stats().summary);
  }));
}

// A slicing declaration that misses a flow is caught: tags without the flow
// from owner[] into stale_fn would slice owner[], which fn compares with.
TEST_CASE("reduction: the slicing check fails on a wrong influence declaration") {
  struct Wrong : TagsModel {
    using TagsModel::TagsModel;
    Influence influence() const {
      Influence inf = TagsModel::influence();
      const int owner = schema().find("owner");
      for (auto& from : inf.from) std::erase(from, owner);
      return inf;
    }
  };
  const Wrong w(TagsModel::Refcount, {{"ntags", 2}, {"submitters", 2}, {"rounds", 2}, {"pool", 0}});
  CHECK_FALSE(w.influence().relevant({TagsModel::FnSeesOwner})[std::size_t(w.schema().find("owner"))]);
  const auto r = rc::detail::checkTestable([&] { check_slicing(w, {TagsModel::FnSeesOwner}, 60); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

}  // namespace reduction_test
}  // namespace blkmc::testing

namespace blkmc::testing {
namespace reduction_test {

// Every model of the registry, through the same interface `check` and the
// suite use: random variants and small parameters (each between its minimum
// and its default), all properties, with and without the reductions: the
// same verdicts, maxima and exactness; every trace found reduced replays.
TEST_CASE("reduction: every model keeps its verdicts with the reductions on") {
  check_every_model(12, [](const ModelHandle& model) {
    const ModelHandle* mh = &model;
    const std::string variant = random_variant(mh->info());
    const Params p = small_params(mh->info());
    SearchOptions opt;
    opt.progress = false;
    opt.bfs = *rc::gen::arbitrary<bool>();
    opt.limits.max_states = 100000;
    CheckOutcome full;
    try {
      full = mh->check(variant, p, {}, opt);
    } catch (const UsageError&) {
      RC_DISCARD("parameters the model refuses");
    }
    if (full.stop != StopReason::Complete && full.stop != StopReason::AllViolated) RC_DISCARD("too large");
    opt.reduce = ReduceOptions::all();
    const CheckOutcome red = mh->check(variant, p, {}, opt);
    RC_ASSERT(red.stats.states <= full.stats.states + control_states(red.stats.reduction));
    RC_ASSERT(red.props.size() == full.props.size());
    for (std::size_t i = 0; i < red.props.size(); ++i) {
      RC_ASSERT(red.props[i].verdict == full.props[i].verdict);
      RC_ASSERT(red.props[i].value == full.props[i].value);
      RC_ASSERT(red.props[i].value_exact == full.props[i].value_exact);
      if (red.props[i].trace && red.props[i].verdict == Verdict::Violated)
        RC_ASSERT(mh->replay(*red.props[i].trace).reproduced);
    }
  });
}

}  // namespace reduction_test
}  // namespace blkmc::testing

#include "model/sched/sched_model.hpp"

namespace blkmc::testing {
namespace reduction_test {

// The scheduler models slice their property ghosts: random variants and
// shipped workloads (each parameter between its minimum and its default).
template <class M>
void sched_slicing() {
  const ModelInfo& inf = M::static_info();
  rc::detail::TestParams params;
  params.maxSuccess = 25;
  const auto r = rc::detail::checkTestable(
      [&] {
        const int variant = *rc::gen::inRange(0, int(inf.variants.size()));
        const Params p = small_params(inf);
        std::optional<M> m;
        try {
          m.emplace(variant, p);
        } catch (const UsageError&) {
          RC_DISCARD("parameters the model refuses");
        }
        RC_ASSERT(check_slicing(*m, some_props(inf), 60) > 0);
      },
      rc::detail::TestMetadata{}, params);
  INFO("model " << inf.name);
  CHECK(r.template is<rc::detail::SuccessResult>());
}

TEST_CASE("reduction: the scheduler models' ghosts are read by their properties only") {
  sched_slicing<sched::DeadlineModel>();
  sched_slicing<sched::BfqModel>();
  sched_slicing<sched::CfqModel>();
  sched_slicing<sched::NoneModel>();
}

}  // namespace reduction_test
}  // namespace blkmc::testing
