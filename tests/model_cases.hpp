// Property tests over every registered model (RapidCheck): a random variant
// and small parameters, each between its minimum and its default, so that
// the spaces stay small; a failure or a give-up is reported with the model.
#pragma once

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "app/registry.hpp"

namespace blkmc::testing {

inline std::string random_variant(const ModelInfo& inf) {
  return inf.variants[*rc::gen::inRange<std::size_t>(0, inf.variants.size())].name;
}

inline Params small_params(const ModelInfo& inf) {
  Params p;
  for (const ParamInfo& pi : inf.params)
    p[pi.name] = *rc::gen::inRange(pi.min, std::max(pi.min, std::min(pi.max, pi.def)) + 1);
  return p;
}

// A random non-empty selection of the model's safety properties (invariant,
// deadlock, maximize): what a search without an edge log can check. Discards
// the case where the model has none selected.
inline std::vector<std::string> random_safety_props(const ModelInfo& inf) {
  std::vector<std::string> props;
  for (const PropInfo& pi : inf.props)
    if (pi.kind != PropKind::Progress && pi.kind != PropKind::Starvation && *rc::gen::arbitrary<bool>())
      props.push_back(pi.name);
  if (props.empty()) RC_DISCARD("no safety property selected");
  return props;
}

// A random selection of the model's properties with at least one progress
// or starvation property (what needs an edge log), or none when the model
// has no such property.
inline std::vector<std::string> random_graph_props(const ModelInfo& inf) {
  std::vector<std::string> props, graph;
  for (const PropInfo& pi : inf.props) {
    const bool g = pi.kind == PropKind::Progress || pi.kind == PropKind::Starvation;
    if (g) graph.push_back(pi.name);
    if (*rc::gen::arbitrary<bool>()) props.push_back(pi.name);
  }
  if (graph.empty()) return {};
  props.push_back(*rc::gen::elementOf(graph));
  return props;
}

// Search options without progress lines, with a random --max-states (0:
// none) and, half the time, a random depth bound.
inline SearchOptions random_limits() {
  SearchOptions opt;
  opt.progress = false;
  opt.limits.max_states = *rc::gen::element<std::uint64_t>(0, 300, 20000, 100000);
  if (*rc::gen::arbitrary<bool>()) opt.limits.max_depth = *rc::gen::inRange(1u, 30u);
  return opt;
}

// A random check of a model's progress and starvation properties (with
// some others), small parameters and random limits, and its outcome in one
// process with the plain store: what another search must match. Nothing
// when the model has no such property.
struct GraphCase {
  std::string variant;
  Params params;
  std::vector<std::string> props;
  SearchOptions opt;
  CheckOutcome plain;
};
inline std::optional<GraphCase> random_graph_case(const ModelHandle& mh, bool por) {
  GraphCase c;
  c.props = random_graph_props(mh.info());
  if (c.props.empty()) return std::nullopt;
  c.variant = random_variant(mh.info());
  c.params = small_params(mh.info());
  c.opt = random_limits();
  c.opt.reduce = *rc::gen::arbitrary<bool>() ? ReduceOptions::all() : ReduceOptions::none();
  c.opt.reduce.por = c.opt.reduce.por && por;
  // path measures (explorer/path_measure.hpp) run only on stores that give
  // states back, in one process: tests/path_measure_test.cpp holds them to this.
  c.opt.reduce.lift = false;
  try {
    c.plain = mh.check(c.variant, c.params, c.props, c.opt);
  } catch (const UsageError&) {
    RC_DISCARD("parameters the model refuses");
  }
  return c;
}

// Runs `cases` RapidCheck cases of fn(model) on every model.
template <class F>
void check_every_model(int cases, F fn) {
  for (const ModelHandle* mh : all_models()) {
    rc::detail::TestParams params;
    params.maxSuccess = cases;
    params.maxDiscardRatio = 20;
    const auto r = rc::detail::checkTestable([&] { fn(*mh); }, rc::detail::TestMetadata{}, params);
    INFO("model " << mh->info().name);
    rc::detail::FailureResult f;
    rc::detail::GaveUpResult g;
    if (r.match(f)) MESSAGE(f.description);
    if (r.match(g)) MESSAGE(g.description);
    CHECK(r.template is<rc::detail::SuccessResult>());
  }
}

}  // namespace blkmc::testing
