// The explorer's reductions (explorer/reduction.hpp): each model's hooks
// against its own steps, and the verdicts, maxima and traces with and
// without each reduction, over random small parameters.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include "app/registry.hpp"
#include "model/tags/tags.hpp"
#include "tests/reduction_checks.hpp"

namespace blkmc::testing {
namespace {

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
    check_futures(m, 30, 12);
  }));
}

TEST_CASE("reduction: tags keeps its verdicts, maxima and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const TagsModel m = random_tags();
    check_reduced_verdicts(m, some_props(m.info()), 300000);
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

}  // namespace
}  // namespace blkmc::testing
