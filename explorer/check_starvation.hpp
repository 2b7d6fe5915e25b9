// Starvation properties: no reachable weakly fair cycle keeps pending(prop,
// s) true forever. Decided on the explored graph after a complete search
// (its edge log with each edge's actor, explorer/starvation.hpp); the
// counterexample is a path into such a cycle and the cycle.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "explorer/check_kind.hpp"
#include "explorer/starvation.hpp"

namespace blkmc::checks {

struct StarveSlot : Slot {
  std::vector<bool> pending;  // pending(prop, state) by state id
};

template <class M>
class Starvation : public Kind<M, StarveSlot> {
 public:
  using State = typename M::State;
  static constexpr PropKind kKind = PropKind::Starvation;
  static constexpr bool kOnGraph = true;

  static void usable(const M& m, int prop) {
    if (!HasPending<M>)
      throw UsageError(fmt::format("model {}: property {} is a starvation property but the model "
                                   "has no pending(prop, state)",
                                   m.info().name, m.info().props.at(std::size_t(prop)).name));
  }
  static bool pending(const M& m, int prop, const State& s) {
    if constexpr (HasPending<M>) return m.pending(prop, s);
    return false;
  }

  void on_new(const M& m, std::uint32_t, const State& s, std::size_t&) {
    for (StarveSlot& sl : this->slots) sl.pending.push_back(pending(m, sl.prop, s));
  }
  // A distributed search gathers each state's pending bits on the rank that decides.
  std::size_t marks() const { return this->slots.size(); }
  void marks_of(const M& m, const State& s, std::vector<std::uint8_t>& out) const {
    for (const StarveSlot& sl : this->slots) out.push_back(std::uint8_t(pending(m, sl.prop, s)));
  }
  void set_marks(std::uint32_t id, const std::uint8_t* b) {
    for (std::size_t j = 0; j < this->slots.size(); ++j) this->slots[j].pending[id] = b[j] != 0;
  }
  void resize_marks(std::size_t n) {
    for (StarveSlot& sl : this->slots) sl.pending.resize(n);
  }

  void find(const EdgeLog& edges, bool complete, std::size_t n, std::vector<Finding>& out) const {
    const std::size_t first = out.size();
    for (std::size_t i = 0; i < this->slots.size(); ++i) {
      const StarveSlot& sl = this->slots[i];
      Finding& f = out.emplace_back();
      f.k = sl.k;
      f.prop = sl.prop;
      if (!complete) continue;
      // The same property selected twice: one decision.
      const auto same = std::find_if(this->slots.begin(), this->slots.begin() + std::ptrdiff_t(i),
                                     [&](const StarveSlot& e) { return e.prop == sl.prop; });
      if (same != this->slots.begin() + std::ptrdiff_t(i)) {
        const Finding g = out[first + std::size_t(same - this->slots.begin())];
        f.verdict = g.verdict;
        f.walk = g.walk;
        f.actors = g.actors;
      } else if (const auto fc = find_fair_pending_cycle(edges, sl.pending, n)) {
        f.verdict = Verdict::Violated;
        f.walk = fc->walk;
        f.actors.assign(fc->actors.begin(), fc->actors.end());
      } else {
        f.verdict = Verdict::Holds;
      }
    }
  }
  // The trace is stuck where its last run of pending states begins.
  static void mark(const M& m, const Finding& f, std::size_t, Counterexample<State>& cx) {
    std::size_t j = *cx.loop_start;
    while (j > 0 && pending(m, f.prop, cx.states[j - 1])) --j;
    cx.stuck_at = j;
  }

  // The loop closes and has a step, every state from "stuck" on is
  // pending, and the loop is weakly fair: every actor enabled in all of its
  // states steps in it.
  static void judge(const Replayed<M>& t, ReplayResult& r) {
    const M& m = t.m;
    const std::size_t n = t.t.steps.size();
    if (!t.t.loop) throw TraceMismatch("a starvation trace needs a loop");
    const std::size_t k = std::size_t(*t.t.loop), j = t.t.stuck ? std::size_t(*t.t.stuck) : k;
    if (k >= n) throw TraceMismatch("the loop of a starvation trace needs at least one step");
    if (j > k) throw TraceMismatch("a starvation trace's stuck index lies after its loop start");
    if (std::memcmp(t.states[k].b.data(), t.states[n].b.data(), m.state_bytes()) != 0)
      throw TraceMismatch(fmt::format(
          "the loop does not close: the state after step {} differs from the one after step {}", n, k));
    std::optional<std::size_t> not_pending;
    for (std::size_t i = j; i <= n && !not_pending; ++i)
      if (!pending(m, t.prop, t.states[i])) not_pending = i;
    std::bitset<256> enabled_all, moved;
    enabled_all.set();
    for (std::size_t i = k; i < n; ++i) {
      std::bitset<256> en;
      m.for_each_successor(t.states[i], [&](const Step& st, const State&) { en.set(st.actor); });
      enabled_all &= en;
      moved.set(std::size_t(t.t.steps[i].actor));
    }
    std::vector<std::string> always, starved;
    for (std::size_t a = 0; a < 256; ++a)
      if (enabled_all[a]) {
        always.push_back(m.actor_name(int(a)));
        if (!moved[a]) starved.push_back(m.actor_name(int(a)));
      }
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * k),
                   fmt::format("      ---- steps {}..{} repeat forever; enabled throughout: {}; {} ----", k + 1, n,
                               always.empty() ? "none" : fmt::format("{}", fmt::join(always, ", ")),
                               starved.empty() ? "each of them steps in the loop (weakly fair)"
                                               : "never stepping: " + fmt::format("{}", fmt::join(starved, ", "))));
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * j),
                   fmt::format("      ---- {} is pending from here on ----", t.name));
    if (not_pending) {
      r.verdict_line = fmt::format("{}: the state {} is not pending", t.name,
                                   *not_pending ? fmt::format("after step {}", *not_pending)
                                                : std::string("at the start"));
    } else if (!starved.empty()) {
      r.verdict_line = fmt::format("{}: the loop is not weakly fair ({} enabled throughout, never steps)", t.name,
                                   fmt::format("{}", fmt::join(starved, ", ")));
    } else {
      r.reproduced = true;
      r.verdict_line = fmt::format("{} is violated: a weakly fair cycle keeps it pending forever", t.name);
    }
  }
};

}  // namespace blkmc::checks
