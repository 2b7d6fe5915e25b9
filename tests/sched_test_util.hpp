// Helpers shared by the scheduler model tests (deadline, bfq, cfq): shipped
// workloads and variants by name, and one explorer verdict.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/sched/workload.hpp"

namespace blkmc::testing {

// The index of a shipped workload (tests never hard-code the number).
inline int shipped(const std::string& name) {
  const auto& all = sched::shipped_workloads();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (name == all[i].name) return static_cast<int>(i);
  FAIL("no shipped workload " << name);
  return -1;
}

template <class Sched>
int variant_index_of(const std::string& name) {
  const auto& v = Sched::variants();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return static_cast<int>(i);
  FAIL("no variant " << name);
  return -1;
}

// The explorer's verdict on one property (a complete search is required).
template <class M>
int verdict(const M& m, int prop) {
  SearchOptions opt;
  opt.progress = false;
  opt.props = {prop};
  const auto r = explore(m, opt);
  REQUIRE(r.stop != StopReason::MaxStates);
  return static_cast<int>(r.props[0].verdict);
}
inline constexpr int kHolds = static_cast<int>(Verdict::Holds);
inline constexpr int kViolated = static_cast<int>(Verdict::Violated);

}  // namespace blkmc::testing
