// Footprint soundness, for the RapidCheck tests of every model: along a
// random walk, every pair of enabled steps of different actors whose
// footprints are independent must commute (both orders enabled, same state).
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <cstring>

#include "tests/model_steps.hpp"

namespace blkmc::testing {

// Walks up to max_steps random steps from the initial state; returns how
// many independent pairs it checked (the caller asserts there were some).
template <class M>
int walk_checking_commutation(const M& m, int max_steps) {
  typename M::State s = m.initial();
  int independent = 0;
  for (int k = 0; k < max_steps; ++k) {
    const auto succ = successors(m, s);
    for (std::size_t i = 0; i < succ.size(); ++i)
      for (std::size_t j = i + 1; j < succ.size(); ++j) {
        const Step &a = succ[i].first, &b = succ[j].first;
        if (a.actor == b.actor) continue;  // one actor's choices never commute
        if (!m.footprint(s, a).independent_of(m.footprint(s, b))) continue;
        ++independent;
        typename M::State ab{}, ba{};
        RC_ASSERT(m.apply(succ[i].second, b, ab));
        RC_ASSERT(m.apply(succ[j].second, a, ba));
        RC_ASSERT(std::memcmp(ab.b.data(), ba.b.data(), m.state_bytes()) == 0);
      }
    if (succ.empty()) break;
    s = succ[*rc::gen::inRange<std::size_t>(0, succ.size())].second;
  }
  return independent;
}

}  // namespace blkmc::testing
