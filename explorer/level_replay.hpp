// The observe phase of a breadth-first level, shared by the level search's
// resolvers, in memory (explorer/resolve_in_memory.hpp) and on disk
// (explorer/resolve_on_disk.hpp): Search<M>::replay, included by
// explorer/search.hpp.
//
// Once a store has resolved a range of a level's parents (which successors
// are new, and which of equal new ones was reached first), the parents are
// replayed to the observer in id order, their successors in order, as a
// one-thread breadth-first search meets them. New states take the next ids
// one by one, so they are numbered in origin order (parent id, successor
// index) whatever the store and the number of threads; the rules for where
// the search stops live here once:
//   - a new state at or past the cap (--max-states, or what --memory leaves)
//     is not stored: its parent is cut short (whole = false) and the
//     search stops with MaxStates or Memory;
//   - the observer answered every question (done()): it stops after that
//     parent, with AllViolated;
//   - a parent left at the depth bound counts as truncated and is skipped;
//   - src.limit() (the clock, Ctrl-C, memory kept beside the store) is
//     asked every 64 Ki parents, before the next one.
// On a stop, next_id is the first id a one-thread search had not stored:
// what the store commits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "explorer/origin.hpp"

namespace blkmc {

// A resolved range of parents, as replay() reads it:
//   count(p)           -> {successors of p, or origin::kTruncated; its ample-set outcome}
//   load(p, State&)    p's state (asked for only where the observer wants edges,
//                      or p has no successors)
//   successors(p, f)   f(const State* fresh, std::uint32_t to, int actor) -> bool for p's
//                      successors in order: fresh, the key of a state first reached here
//                      (it takes the next id), else an edge to stored state `to`; an
//                      actor < 0 sends no edge (a store that gives edges apart). Stops
//                      where f returns false.
//   limit()            -> std::optional<StopReason>
template <class Count, class Load, class Successors, class Limit>
struct ReplaySource {
  Count count;
  Load load;
  Successors successors;
  Limit limit;
};

// What replay() works through: parents [p0, p1) at depth, no new state at or
// past cap (cap_by_memory: the cap is --memory's), next_id: the next new
// state's id; truncated: set when a parent was left at the depth bound.
struct ReplayRange {
  std::size_t p0 = 0, p1 = 0;
  std::uint32_t depth = 0;
  std::size_t cap = 0;
  bool cap_by_memory = false;
  std::size_t next_id = 0;
  bool truncated = false;
};

template <Model M>
template <class Obs, class Src>
std::optional<StopReason> Search<M>::replay(Obs& obs, Src&& src, ReplayRange& r) {
  const bool edges = obs.wants_edges();
  State cur{};
  for (std::size_t p = r.p0; p < r.p1; ++p) {
    if (((p - r.p0) & 0xffff) == 0xffff)
      if (auto why = src.limit()) return why;
    const auto [n, por] = src.count(p);
    if (n == origin::kTruncated) {
      r.truncated = true;
      continue;
    }
    if (edges || n == 0) src.load(p, cur);
    transitions_ += n;
    rm_.count(typename Reduced<M>::Outcome(por));
    const auto id = std::uint32_t(p);
    if (edges) obs.on_expand(id, cur);
    std::optional<StopReason> stop;
    src.successors(p, [&](const State* fresh, std::uint32_t to, int actor) {
      if (fresh) {
        if (r.next_id >= r.cap) {
          memory_full_ = r.cap_by_memory && r.cap < max_states_;
          stop = memory_full_ ? StopReason::Memory : StopReason::MaxStates;
          return false;
        }
        to = std::uint32_t(r.next_id++);
        max_depth_ = std::max(max_depth_, r.depth + 1);
        obs.on_new(to, *fresh);
      }
      if (edges && actor >= 0) obs.on_edge(to, std::uint8_t(actor));
      return true;
    });
    obs.on_expanded(id, cur, n, !stop);
    if (obs.done()) return StopReason::AllViolated;
    if (stop) return stop;
  }
  return std::nullopt;
}

}  // namespace blkmc
