// One parent's expansion, as every search makes it: the one-thread loop
// (explorer/search.hpp), the level search's workers (explorer/
// level_search.hpp) and the ranks of a distributed search (explorer/
// distributed_search.hpp). Two steps, so that a search that learns whether
// a successor is stored only later (a distributed one asks its owner) runs
// the same rules between them:
//   gather  the successors, in order, into reused buffers;
//   keep    what the parent keeps of them: nothing where it is left at the
//           depth bound, else the ample set of the partial-order reduction.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "explorer/origin.hpp"
#include "model/model.hpp"

namespace blkmc::expand {

// s's successors under rm (the Reduced model: keys) into succ from index
// `first` on, in order, and succ cut to their end; returns how many. Each
// gets its bytes (only the `used` ones that carry data: a kernel-code state
// is kilobytes of capacity, mostly unused; nothing reads past them), hash,
// actor and step, id = unlooked, and then each(x) (a prefetch, an owner).
// succ's elements are reused, not rebuilt.
template <class RM, class Succ, class Hash, class Each>
std::size_t gather(const RM& rm, const typename RM::State& s, std::vector<Succ>& succ, std::size_t first,
                   std::size_t used, std::uint32_t unlooked, Hash&& hash, Each&& each) {
  std::size_t n = first;
  rm.for_each_successor(s, [&](const Step& st, const typename RM::State& next) {
    if (n == succ.size()) succ.emplace_back();
    Succ& x = succ[n++];
    std::memcpy(x.next.b.data(), next.b.data(), used);
    x.hash = hash(x.next);
    x.actor = st.actor;
    x.step = st;
    x.id = unlooked;
    each(x);
  });
  succ.resize(n);
  return n - first;
}

// What a parent s keeps of its successors succ (all of them, from gather),
// in place. At the depth bound (at_bound) a parent with a successor that is
// not stored (stored(x) false) is left unexpanded: a deeper search would
// meet that state, so the result is only as good as the bound. Otherwise,
// under partial-order reduction, the ample set, whose proviso asks
// proviso(x): whether x was stored before (breadth-first: before this level
// began, since an edge to a deeper level never closes a cycle without one
// that does not). Returns {the successors kept, or origin::kTruncated; the
// ample set's outcome (rm's Outcome)}.
template <class RM, class Succ, class Stored, class Proviso>
std::pair<std::uint32_t, std::uint8_t> keep(RM& rm, const typename RM::State& s, std::vector<Succ>& succ,
                                            bool at_bound, Stored&& stored, Proviso&& proviso) {
  if (at_bound)
    for (const Succ& x : succ)
      if (!stored(x)) return {origin::kTruncated, 0};
  std::uint8_t por = 0;
  if (rm.por()) por = std::uint8_t(rm.reduce(s, succ, proviso));
  return {std::uint32_t(succ.size()), por};
}

}  // namespace blkmc::expand
