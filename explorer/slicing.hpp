// Slicing (cone of influence, model/influence.hpp), one layer of the
// reduced model (explorer/reduced_model.hpp): the variables that no guard,
// finished() or selected property depends on are cleared in the key, so
// states that differ only there are one state. A bisimulation quotient: it
// keeps every verdict, maximum and BFS depth.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "model/schema.hpp"

namespace blkmc {

class Slicing {
 public:
  Slicing() { kept_.set(); }
  // keep[v]: whether schema variable v is relevant; footprints: whether the
  // model's footprints name each flat element (then kept() says which are
  // stored, for the partial-order reduction).
  Slicing(const Schema& sc, const std::vector<bool>& keep, bool footprints) : Slicing() {
    for (std::size_t v = 0; v < keep.size(); ++v)
      if (!keep[v]) sliced_.push_back(sc.vars()[v].name);
    if (sliced_.empty()) return;
    mask_ = sc.keep_mask(keep);
    mask_.resize((mask_.size() + 7) / 8 * 8, 0);
    if (!footprints) return;
    // What a step does to a variable not stored does not matter.
    kept_.reset();
    for (std::size_t v = 0; v < keep.size(); ++v)
      if (keep[v])
        for (int c = 0; c < sc.copies(int(v)); ++c) kept_.set(std::size_t(sc.index(int(v), c)));
  }

  bool on() const { return !mask_.empty(); }
  // The names of the variables not stored.
  const std::vector<std::string>& sliced() const { return sliced_; }
  // The flat footprint elements that are stored (all, without slicing).
  const std::bitset<Footprint::kMaxVars>& kept() const { return kept_; }

  // s with the variables not stored cleared, in place, a word at a time.
  template <class State>
  void apply(State& s) const {
    const std::size_t n = std::min(mask_.size(), State::capacity);
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
      std::uint64_t w, k;
      std::memcpy(&w, s.b.data() + i, 8);
      std::memcpy(&k, mask_.data() + i, 8);
      w &= k;
      std::memcpy(s.b.data() + i, &w, 8);
    }
  }

 private:
  std::vector<std::uint8_t> mask_;  // bytes kept (8-byte padded); empty: none sliced
  std::vector<std::string> sliced_;
  std::bitset<Footprint::kMaxVars> kept_;
};

}  // namespace blkmc
