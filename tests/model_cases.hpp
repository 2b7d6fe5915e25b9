// Property tests over every registered model (RapidCheck): a random variant
// and small parameters, each between its minimum and its default, so that
// the spaces stay small; a failure or a give-up is reported with the model.
#pragma once

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <string>

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
