// Deadlock properties: every reachable state without a successor must be
// finished(); the counterexample is a path to the first state found stuck so.
#pragma once

#include <algorithm>

#include "explorer/check_kind.hpp"

namespace blkmc::checks {

template <class M>
class Deadlock : public Kind<M> {
 public:
  using State = typename M::State;
  static constexpr PropKind kKind = PropKind::Deadlock;
  static constexpr bool kHitAtExpansion = true;

  void on_expanded(const M& m, std::uint32_t id, const State& s, std::size_t successors,
                   std::size_t& violated) {
    if (successors != 0 || this->slots.empty() || m.finished(s)) return;
    for (Slot& sl : this->slots)
      if (sl.violating == StateStore::kNone) {
        sl.violating = id;
        ++violated;
      }
  }
  void hit_expanded(const M& m, std::uint32_t id, const State& s, std::size_t successors,
                    std::uint64_t* hits) const {
    if (successors != 0 || this->slots.empty() || m.finished(s)) return;
    for (std::size_t j = 0; j < this->slots.size(); ++j)
      if (this->slots[j].violating == StateStore::kNone) hits[j] = std::min(hits[j], std::uint64_t(id) << 32);
  }

  static bool stuck(const M& m, const State& s) {
    bool any = false;
    m.for_each_successor(s, [&](const Step&, const State&) { any = true; });
    return !any && !m.finished(s);
  }
  static bool reaches(const M& m, const PropOutcome<State>&, const State& s) { return stuck(m, s); }
  static void judge(const Replayed<M>& t, ReplayResult& r) { r.reproduced = stuck(t.m, t.states.back()); }
};

}  // namespace blkmc::checks
