// Maximize properties: the largest measure(prop, s) over the reachable
// states and the first state reaching it (breadth-first: a shortest trace);
// with a bound K (NAME<=K) the first state above K violates it.
#pragma once

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "explorer/check_kind.hpp"

namespace blkmc::checks {

struct MaxSlot : Slot {
  std::optional<int> bound;
  int violating_value = 0;
  int best = -1;
  std::uint32_t best_id = StateStore::kNone;
};

template <class M>
class Maximize : public Kind<M, MaxSlot> {
 public:
  using State = typename M::State;
  static constexpr PropKind kKind = PropKind::Maximize;

  static void usable(const M& m, int prop) {
    if (!HasMeasure<M>)
      throw UsageError(fmt::format("model {}: property {} is a maximize property but the model "
                                   "has no measure(prop, state)",
                                   m.info().name, m.info().props.at(std::size_t(prop)).name));
  }
  void add(std::size_t k, int prop, std::optional<int> bound) {
    Kind<M, MaxSlot>::add(k, prop, bound);
    this->slots.back().bound = bound;
  }
  // The measure of s (never negative: a model's bug otherwise).
  static int measure(const M& m, int prop, const State& s) {
    if constexpr (HasMeasure<M>) {
      const int v = m.measure(prop, s);
      if (v < 0)
        throw std::logic_error(fmt::format("model {}: measure({}) is negative ({})", m.info().name,
                                           m.info().props[std::size_t(prop)].name, v));
      return v;
    } else {
      return 0;
    }
  }

  void on_new(const M& m, std::uint32_t id, const State& s, std::size_t& violated) {
    for (MaxSlot& sl : this->slots) {
      const int v = measure(m, sl.prop, s);
      if (v > sl.best) {
        sl.best = v;
        sl.best_id = id;
      }
      if (sl.bound && v > *sl.bound && sl.violating == StateStore::kNone) {
        sl.violating = id;
        sl.violating_value = v;
        ++violated;
      }
    }
  }

  // A distributed search: hits carry the value above the bound; best[j] is
  // the smallest ((0x7fffffff - measure) << 32 | id), the largest measure
  // first reached.
  void hit_new(const M& m, std::uint32_t id, const State& s, std::uint64_t* hits) const {
    for (std::size_t j = 0; j < this->slots.size(); ++j) {
      const MaxSlot& sl = this->slots[j];
      if (sl.violating != StateStore::kNone || !sl.bound || hits[j] != kNoHit) continue;
      const int v = measure(m, sl.prop, s);
      if (v > *sl.bound) hits[j] = (std::uint64_t(id) << 32) | std::uint32_t(v);
    }
  }
  void settle(std::size_t j, std::uint64_t hit, std::size_t& violated) {
    MaxSlot& sl = this->slots[j];
    if (hit == kNoHit || sl.violating != StateStore::kNone) return;
    sl.violating = std::uint32_t(hit >> 32);
    sl.violating_value = int(std::uint32_t(hit));
    ++violated;
  }
  std::size_t bests() const { return this->slots.size(); }
  void best_new(const M& m, std::uint32_t id, const State& s, std::uint64_t* best) const {
    for (std::size_t j = 0; j < this->slots.size(); ++j) {
      const int v = measure(m, this->slots[j].prop, s);
      best[j] = std::min(best[j], (std::uint64_t(0x7fffffffu - std::uint32_t(v)) << 32) | id);
    }
  }
  void settle_best(const std::uint64_t* best) {
    for (std::size_t j = 0; j < this->slots.size(); ++j) {
      if (best[j] == kNoHit) continue;
      MaxSlot& sl = this->slots[j];
      const int v = int(0x7fffffffu - std::uint32_t(best[j] >> 32));
      if (v > sl.best) {
        sl.best = v;
        sl.best_id = std::uint32_t(best[j]);
      }
    }
  }

  template <class PathTo>
  void results(bool complete, PathTo&& path_to, SearchResult<State>& r) const {
    for (const MaxSlot& sl : this->slots) {
      PropOutcome<State>& o = r.props[sl.k];
      local_outcome(sl, complete, path_to, o);
      o.bound = sl.bound;
      if (sl.violating != StateStore::kNone) {
        o.value = sl.violating_value;
      } else {
        o.value = std::max(sl.best, 0);
        o.value_exact = complete;
        if (!sl.bound && sl.best_id != StateStore::kNone) o.trace = path_to(sl.best_id);
      }
    }
  }

  // Above the bound, or the maximum found.
  static bool reaches(const M& m, const PropOutcome<State>& o, const State& s) {
    const int v = measure(m, o.prop, s);
    return o.bound ? v > *o.bound : v == *o.value;
  }
  static void retraced(const M& m, PropOutcome<State>& o) {
    if (o.bound) o.value = measure(m, o.prop, o.trace->states.back());
  }
  static void judge(const Replayed<M>& t, ReplayResult& r) {
    const int v = measure(t.m, t.prop, t.states.back());
    if (t.bound) {
      r.reproduced = v > *t.bound;
      r.story.push_back(fmt::format("      ---- {} = {} at the end: {} {} ----", t.name, v,
                                    r.reproduced ? "above the bound" : "within the bound", *t.bound));
      r.verdict_line = r.reproduced ? fmt::format("{} is violated ({} = {} > {})", t.t.property, t.name, v, *t.bound)
                                    : fmt::format("{} holds at the end ({} = {})", t.t.property, t.name, v);
    } else {
      r.reproduced = v == *t.t.value;
      r.story.push_back(
          fmt::format("      ---- {} = {} at the end (the recorded maximum: {}) ----", t.name, v, *t.t.value));
      r.verdict_line = r.reproduced ? fmt::format("{} reaches its maximum {}", t.name, v)
                                    : fmt::format("{} is {} at the end, not the recorded maximum {}", t.name,
                                                  v, *t.t.value);
    }
  }
};

}  // namespace blkmc::checks
