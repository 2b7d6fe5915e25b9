// Progress properties: from every reachable state a finished() one stays
// reachable. Decided on the explored graph after a complete search (its
// edge log, explorer/progress.hpp); the counterexample is a lasso: a path
// to the first state found from which nothing finished is reachable, then
// a loop, or a state with no step at all.
#pragma once

#include <cstring>

#include <fmt/format.h>

#include "explorer/check_kind.hpp"
#include "explorer/reach.hpp"

namespace blkmc::checks {

template <class M>
class Progress : public Kind<M> {
 public:
  using State = typename M::State;
  static constexpr PropKind kKind = PropKind::Progress;
  static constexpr bool kOnGraph = true;

  // One stuck lasso answers every progress slot.
  void find(const EdgeLog& edges, bool complete, std::size_t n, std::vector<Finding>& out) const {
    if (this->slots.empty()) return;
    std::optional<Lasso> lasso;
    if (complete) lasso = find_stuck_lasso(edges, n);
    for (const Slot& sl : this->slots) {
      Finding& f = out.emplace_back();
      f.k = sl.k;
      f.prop = sl.prop;
      f.verdict = !complete ? Verdict::Incomplete : lasso ? Verdict::Violated : Verdict::Holds;
      if (lasso) {
        f.walk = lasso->walk;
        f.loop = lasso->loop_start;
      }
    }
  }
  // base: where the finding's walk begins on the trace, its first stuck state.
  static void mark(const M&, const Finding&, std::size_t base, Counterexample<State>& cx) { cx.stuck_at = base; }

  // The loop closes, and from the stuck state nothing finished is reachable
  // (a bounded search; undecided beyond it).
  static void judge(const Replayed<M>& t, ReplayResult& r) {
    const M& m = t.m;
    const std::size_t n = t.t.steps.size(), k = t.t.loop ? std::size_t(*t.t.loop) : n;
    const std::size_t j = t.t.stuck ? std::size_t(*t.t.stuck) : k;
    if (std::memcmp(t.states[k].b.data(), t.states[n].b.data(), m.state_bytes()) != 0)
      throw TraceMismatch(fmt::format(
          "the loop does not close: the state after step {} differs from the one after step {}", n, k));
    bool any = false;
    m.for_each_successor(t.states[k], [&](const Step&, const State&) { any = true; });
    // Markers, inserted from the back so the earlier positions stay valid.
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * k),
                   k < n ? fmt::format("      ---- steps {}..{} repeat forever ----", k + 1, n)
                   : any ? std::string("      ---- the trace ends here ----")
                         : std::string("      ---- no step is enabled: deadlock ----"));
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * j),
                   "      ---- stuck from here: no finished state is reachable ----");
    constexpr std::size_t kReplayBound = std::size_t(1) << 20;
    const std::optional<bool> stuck = stuck_from(m, t.states[j], kReplayBound);
    if (!stuck)
      r.story.push_back(fmt::format("      (undecided: more than {} states lie beyond the stuck state)",
                                    kReplayBound));
    r.reproduced = stuck.value_or(false);
  }
};

}  // namespace blkmc::checks
