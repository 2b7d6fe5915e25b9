// The rules every breadth-first search shares (the level search, the
// sequential one, the disk and the distributed ones), written once:
//
// A level's new states are numbered by origin, the parent's id and the
// successor's index: the order a one-thread search stores them in, so ids,
// parents and traces are the same on any number of threads, ranks and
// stores.
//
// At the depth bound a state is expanded only when every successor is
// stored already (its dead end or its edges are still seen; nothing new is
// added past the bound); otherwise it is left, and the search says it was
// truncated (expand::keep, explorer/expand.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/model.hpp"

namespace blkmc::origin {

constexpr unsigned kSuccBits = 24;                 // successors of one state: fewer than 2^24
constexpr std::uint32_t kTruncated = 0xffffffffu;  // a parent's successor count: left at the bound

constexpr std::uint64_t of(std::uint64_t parent, std::size_t successor) {
  return parent << kSuccBits | successor;
}
constexpr std::uint32_t parent(std::uint64_t o) { return std::uint32_t(o >> kSuccBits); }
// The largest origin a parent's successors can have: every origin up to it
// is of that parent or an earlier one.
constexpr std::uint64_t last_of(std::uint64_t parent) { return of(parent, (std::size_t(1) << kSuccBits) - 1); }

}  // namespace blkmc::origin
