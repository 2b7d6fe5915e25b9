// Invariant properties: violates(prop, s) must be false on every reachable
// state; the counterexample is a path to the first state found violating it.
#pragma once

#include "explorer/check_kind.hpp"

namespace blkmc::checks {

template <class M>
class Invariant : public Kind<M> {
 public:
  using State = typename M::State;
  static constexpr PropKind kKind = PropKind::Invariant;

  void on_new(const M& m, std::uint32_t id, const State& s, std::size_t& violated) {
    for (Slot& sl : this->slots)
      if (sl.violating == StateStore::kNone && m.violates(sl.prop, s)) {
        sl.violating = id;
        ++violated;
      }
  }
  void hit_new(const M& m, std::uint32_t id, const State& s, std::uint64_t* hits) const {
    for (std::size_t j = 0; j < this->slots.size(); ++j) {
      const Slot& sl = this->slots[j];
      if (sl.violating == StateStore::kNone && hits[j] == kNoHit && m.violates(sl.prop, s))
        hits[j] = std::uint64_t(id) << 32;
    }
  }

  static bool reaches(const M& m, const PropOutcome<State>& o, const State& s) { return m.violates(o.prop, s); }
  static void judge(const Replayed<M>& t, ReplayResult& r) {
    r.reproduced = t.m.violates(t.prop, t.states.back());
  }
};

}  // namespace blkmc::checks
