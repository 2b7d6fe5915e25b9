// The replay of a long-run share trace (Trace::share, check --trace-out):
// the steps after "loop" form a cycle that a run repeats forever, and each
// time round it serves process `of` `mine` sectors for every `theirs` of the
// other's (explorer/long_run_share.hpp).
//
// The search found the cycle on its control graph, where the counters and
// the merged values (abstraction) are not stored, so the model's state
// after one round need not equal the state before it: fair_svc counts on
// (up to its cap), a merged sample count moves. Replay therefore goes round
// again from the end, with the same steps, until the state at a round's
// start is one it had: the states are finitely many, and from there the
// rounds repeat exactly, forever. Every round must serve the recorded
// sectors, and where the trace says the cycle is weakly fair by itself,
// each actor enabled at every state of the repeating rounds must step in
// them.
#pragma once

#include <bitset>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "counterexamples/trace.hpp"
#include "explorer/path_measure.hpp"
#include "model/model.hpp"

namespace blkmc {

// Rounds tried before a replay gives up on the cycle's start repeating.
inline constexpr int kShareRounds = 1024;

// states and steps: the trace as replay_in followed it on the model.
template <class M>
void replay_share(const M& m, int prop, const Trace& t, const std::vector<typename M::State>& states,
                  const std::vector<Step>& steps, ReplayResult& r) {
  using State = typename M::State;
  if constexpr (!HasShareServed<M> || !HasPathMeasure<M>) {
    (void)prop;
    (void)states;
    (void)steps;
    (void)r;
    throw TraceMismatch(fmt::format("model {} gives no long-run share", m.info().name));
  } else {
    const PathMeasure pm = m.path_measure(prop);
    if (!pm.share) throw TraceMismatch(fmt::format("{} gives no long-run share", t.property));
    const std::string of = t.share.at("of").get<std::string>();
    const std::string other = t.share.at("other").get<std::string>();
    int i = -1;
    for (int k = 0; k < 2; ++k)
      if (pm.names[std::size_t(k)] == of && pm.names[std::size_t(1 - k)] == other) i = k;
    if (i < 0)
      throw TraceMismatch(fmt::format("the share is {}'s against {}'s, not one of the pair {} and {}", of, other,
                                      pm.names[0], pm.names[1]));
    const std::uint64_t mine = t.share.at("mine").get<std::uint64_t>();
    const std::uint64_t theirs = t.share.at("theirs").get<std::uint64_t>();
    const bool fair_claimed = t.share.at("fair_alone").get<bool>();
    // A restricted share (PathMeasure::within): the trace's parameters make
    // the model restrict it, and the trace says to what.
    const std::string within = t.share.contains("within") ? t.share.at("within").get<std::string>() : "";
    if (within != pm.within)
      throw TraceMismatch(fmt::format("the share is restricted {}, the model's {}",
                                      within.empty() ? "to nothing" : "'" + within + "'",
                                      pm.within.empty() ? "to nothing" : "'" + pm.within + "'"));
    const std::size_t n = t.steps.size(), k = std::size_t(*t.loop);
    if (k >= n) throw TraceMismatch("the cycle of a long-run share trace needs at least one step");

    const std::vector<Step> cycle(steps.begin() + std::ptrdiff_t(k), steps.end());
    std::bitset<256> moved;
    for (const Step& st : cycle) moved.set(st.actor);
    auto fail = [&](std::string line) {
      r.reproduced = false;
      r.verdict_line = std::move(line);
    };
    // Round after round from the cycle's start: each round's start state,
    // and the actors enabled at every state of it.
    std::vector<State> starts;
    std::vector<std::bitset<256>> enabled;
    State cur = states[k], next;
    int back_to = -1;
    for (int round = 0; round < kShareRounds && back_to < 0; ++round) {
      for (std::size_t q = 0; q < starts.size(); ++q)
        if (std::memcmp(starts[q].b.data(), cur.b.data(), m.state_bytes()) == 0) back_to = int(q);
      if (back_to >= 0) break;
      starts.push_back(cur);
      std::bitset<256> all;
      all.set();
      std::uint64_t sum[2] = {};
      for (std::size_t j = 0; j < cycle.size(); ++j) {
        std::bitset<256> en;
        m.for_each_successor(cur, [&](const Step& st, const State&) { en.set(st.actor); });
        all &= en;
        if (!m.apply(cur, cycle[j], next))
          return fail(fmt::format("round {}: step {} of the cycle ({} {}) is not enabled", round + 1, k + j + 1,
                                  m.actor_name(cycle[j].actor), t.steps[k + j].action));
        if constexpr (HasShareWithin<M>)
          if (!within.empty() && !m.share_within(prop, cur))
            return fail(fmt::format("round {}: at step {} of the cycle it is not so: {}", round + 1, k + j + 1,
                                    within));
        int on[2] = {};
        m.share_served(prop, cur, next, on);
        sum[0] += std::uint64_t(on[0]);
        sum[1] += std::uint64_t(on[1]);
        cur = next;
      }
      if (sum[i] != mine || sum[1 - i] != theirs)
        return fail(fmt::format("round {}: {} is served {} sector(s) and {} {}, not the recorded {} and {}",
                                round + 1, of, sum[i], other, sum[1 - i], mine, theirs));
      enabled.push_back(all);
    }
    if (back_to < 0)
      return fail(fmt::format("the state at the cycle's start does not repeat within {} rounds", kShareRounds));
    const std::size_t rounds = starts.size();
    std::bitset<256> all;
    all.set();
    for (std::size_t q = std::size_t(back_to); q < rounds; ++q) all &= enabled[q];
    std::vector<std::string> always, starved;
    for (std::size_t a = 0; a < 256; ++a)
      if (all[a]) {
        always.push_back(m.actor_name(int(a)));
        if (!moved[a]) starved.push_back(m.actor_name(int(a)));
      }
    const std::string closes =
        std::size_t(back_to) + 1 < rounds
            ? fmt::format("rounds {}..{} repeat: the state after round {} is the one at round {}'s start",
                          back_to + 1, rounds, rounds, back_to + 1)
        : rounds == 1 ? std::string("each round ends where it began")
                      : fmt::format("from round {} on, each round ends where it began", rounds);
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * k),
                   fmt::format("      ---- steps {}..{} repeat forever ({}); each round serves {} {} sector(s) and "
                               "{} {}; enabled throughout: {}; {} ----",
                               k + 1, n, closes, of, mine, other, theirs,
                               always.empty() ? "none" : fmt::format("{}", fmt::join(always, ", ")),
                               starved.empty() ? "each of them steps in the cycle (weakly fair)"
                                               : "never stepping: " + fmt::format("{}", fmt::join(starved, ", "))));
    if (fair_claimed && !starved.empty())
      return fail(fmt::format("the cycle is not weakly fair by itself ({} enabled throughout, never steps)",
                              fmt::join(starved, ", ")));
    r.reproduced = true;
    r.verdict_line = fmt::format(
        "going round steps {}..{} forever serves {} {} sector(s) for every {} of {}'s ({:.2f}){}{}", k + 1, n, of,
        mine, theirs, other, double(mine) / double(theirs),
        starved.empty() ? ", a weakly fair cycle"
                        : " (not weakly fair by itself: a fair run needs detours from it, as the check said)",
        within.empty() ? "" : ", " + within + " at every step of it");
  }
}

}  // namespace blkmc
