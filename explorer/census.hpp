// `check --census`: which variables multiply the states a search stored.
// For each schema variable (all its copies together), over the stored keys
// (after slicing, symmetry and abstraction, as the search counted them):
//   tuples   how many distinct values the variable's copies take together;
//   without  how many stored states remain distinct once it is cleared.
// states / without is the factor the variable multiplies the space by: 1
// for a variable that another one determines, up to `tuples` for one that
// varies independently of all the rest. It says where an abstraction or a
// symmetry would pay, and what a ghost costs (docs/reductions.md).
// Distinct keys are counted by 64-bit hashes of the masked state (a
// collision among n states has probability about n^2 / 2^65).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "explorer/hash.hpp"
#include "explorer/visited_store.hpp"
#include "model/schema.hpp"

namespace blkmc {

struct CensusRow {
  std::string var;  // PLACE.NAME, or NAME for a variable of no place
  int copies = 1;
  std::uint64_t tuples = 0, without = 0;
};

// The models whose states are laid out by a Schema (model/schema.hpp).
template <class M>
concept HasSchema = requires(const M& m) {
  { m.schema() } -> std::convertible_to<const Schema&>;
};

struct Census {
  std::uint64_t states = 0;
  std::vector<CensusRow> rows;  // largest factor first, then schema order
};

namespace census_detail {

inline std::uint64_t distinct(std::vector<std::uint64_t>& h) {
  std::sort(h.begin(), h.end());
  return std::uint64_t(std::unique(h.begin(), h.end()) - h.begin());
}

}  // namespace census_detail

// Why a store that keeps no states (hash compaction) has no census; `check`
// says it before the search, take_census after it.
inline constexpr const char* kCensusNeedsStates =
    "--census reads the stored states back: use a store that keeps them (any but --store hash)";

// progress(var, i, n): called before variable i of n.
template <class Progress>
Census take_census(const Schema& sc, const VisitedStore& store, Progress&& progress) {
  if (!store.keeps_states()) throw UsageError(kCensusNeedsStates);
  Census c;
  const std::size_t n = store.size(), bytes = store.state_bytes();
  c.states = n;
  const std::size_t padded = (bytes + 7) / 8 * 8;
  std::vector<std::uint8_t> s(padded, 0), part(padded, 0);
  std::vector<std::uint64_t> only(n), rest(n);
  const std::size_t nv = sc.vars().size();
  for (std::size_t v = 0; v < nv; ++v) {
    const Schema::Var& var = sc.vars()[v];
    const std::string name = var.place < 0 ? var.name : sc.place_name(var.place) + "." + var.name;
    progress(name, v, nv);
    std::vector<bool> keep(nv, true);
    keep[v] = false;
    std::vector<std::uint8_t> clear = sc.keep_mask(keep);  // 1s everywhere but v's bits
    clear.resize(padded, 0xff);
    for (std::size_t i = 0; i < n; ++i) {
      store.load(std::uint32_t(i), s.data());
      for (std::size_t b = 0; b < padded; ++b) part[b] = std::uint8_t(s[b] & ~clear[b]);
      only[i] = hash_padded(part.data(), padded);
      for (std::size_t b = 0; b < padded; ++b) part[b] = std::uint8_t(s[b] & clear[b]);
      rest[i] = hash_padded(part.data(), padded);
    }
    CensusRow row{name, sc.copies(int(v)), census_detail::distinct(only), 0};
    // A variable with one value multiplies nothing.
    row.without = row.tuples <= 1 ? n : census_detail::distinct(rest);
    c.rows.push_back(std::move(row));
  }
  // Largest factor (fewest states without) first; ties in schema order.
  std::stable_sort(c.rows.begin(), c.rows.end(),
                   [](const CensusRow& a, const CensusRow& b) { return a.without < b.without; });
  return c;
}

}  // namespace blkmc
