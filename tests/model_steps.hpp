// Helpers the model step tests share: build steps, list successors, run
// steps that must be enabled (a failing REQUIRE names the step and state).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace blkmc::testing {

inline Step step(int actor, int action, int arg = 0) {
  return Step{static_cast<std::uint8_t>(actor), static_cast<std::uint8_t>(action),
              static_cast<std::uint8_t>(arg)};
}

template <class M>
std::vector<std::pair<Step, typename M::State>> successors(const M& m, const typename M::State& s) {
  std::vector<std::pair<Step, typename M::State>> out;
  m.for_each_successor(s, [&](const Step& st, const typename M::State& n) { out.emplace_back(st, n); });
  return out;
}

template <class M>
std::vector<std::pair<Step, typename M::State>> successors_of(const M& m, const typename M::State& s,
                                                              int actor) {
  std::vector<std::pair<Step, typename M::State>> out;
  for (auto& x : successors(m, s))
    if (x.first.actor == actor) out.push_back(x);
  return out;
}

// Applies a step that must be enabled.
template <class M>
typename M::State run(const M& m, const typename M::State& s, const Step& st) {
  typename M::State next{};
  const bool ok = m.apply(s, st, next);
  INFO("step actor=" << int(st.actor) << " action=" << int(st.action) << " arg=" << int(st.arg)
                     << " from: " << m.summary(s));
  REQUIRE(ok);
  return next;
}

template <class M>
typename M::State run_all(const M& m, typename M::State s, const std::vector<Step>& steps) {
  for (const Step& st : steps) s = run(m, s, st);
  return s;
}

template <class M>
bool same(const M& m, const typename M::State& a, const typename M::State& b) {
  return std::equal(a.b.begin(), a.b.begin() + static_cast<long>(m.state_bytes()), b.b.begin());
}

// Footprint bit of a variable, by name.
template <class M>
int var_index(const M& m, const std::string& name) {
  const auto names = m.variable_names();
  const auto it = std::find(names.begin(), names.end(), name);
  REQUIRE(it != names.end());
  return static_cast<int>(it - names.begin());
}

}  // namespace blkmc::testing
