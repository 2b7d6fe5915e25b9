// The shared boilerplate of the engine tests' toy models: apply() through
// apply_step, generic describe/actor_name, and a footprint per actor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/model.hpp"

namespace blkmc::testing {

inline Step mkstep(int actor, int action, int arg = 0) {
  return Step{static_cast<std::uint8_t>(actor), static_cast<std::uint8_t>(action),
              static_cast<std::uint8_t>(arg)};
}

template <class Derived, class S>
struct ToyBase {
  bool apply(const S& s, const Step& step, S& next) const {
    return apply_step(static_cast<const Derived&>(*this), s, step, next);
  }
  std::string describe(const S&, const Step& st) const {
    return fmt::format("actor {} action {} arg {}", int(st.actor), int(st.action), int(st.arg));
  }
  std::string actor_name(int a) const { return fmt::format("actor {}", a); }
  Footprint footprint(const S&, const Step& st) const {
    Footprint f;
    f.reads.set(st.actor);
    f.writes.set(st.actor);
    return f;
  }
  std::vector<std::string> variable_names() const { return {"a0", "a1", "a2"}; }
};

}  // namespace blkmc::testing
