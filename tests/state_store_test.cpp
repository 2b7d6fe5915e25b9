// The visited-state store (explorer/state_store.hpp): ids, duplicates,
// parents and depths across table growth and chunk boundaries.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "app/instances.hpp"
#include "explorer/hash.hpp"
#include "explorer/state_store.hpp"
#include "explorer/hash_compact_store.hpp"
#include "explorer/tree_store.hpp"
#include "model/model.hpp"

namespace state_store_test {

using namespace blkmc;

using S13 = ByteState<13>;

// A distinct 13-byte state per i (the index spread over the bytes, plus
// filler that depends on it so the states do not share long prefixes).
S13 make13(std::uint32_t i) {
  S13 s{};
  std::memcpy(s.b.data(), &i, 4);
  for (std::size_t k = 4; k < 13; ++k) s.b[k] = static_cast<std::uint8_t>((i * 31u + k * 7u) >> (k % 5));
  return s;
}

std::uint64_t h13(const S13& s) { return hash_padded(s.b.data(), 13); }

TEST_CASE("state store: hash_padded and hash_bytes_exact agree on zero-padded states") {
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const S13 s = make13(i);
    CHECK(hash_padded(s.b.data(), 13) == hash_bytes_exact(s.b.data(), 13));
  }
  // Different lengths of the same zero bytes hash differently.
  const S13 z{};
  CHECK(hash_padded(z.b.data(), 13) != hash_padded(z.b.data(), 12));
}

TEST_CASE("state store: 200k states of 13 bytes across growth, then reinserted") {
  const std::uint32_t n = 200000;
  StateStore store(13);
  CHECK(store.size() == 0);
  CHECK(store.state_bytes() == 13);
  std::size_t fresh_count = 0;
  bool ids_in_order = true;
  for (std::uint32_t i = 0; i < n; ++i) {
    const S13 s = make13(i);
    const std::uint32_t parent = i == 0 ? StateStore::kNone : i / 2;
    const auto [id, fresh] = store.insert(s.b.data(), h13(s), parent, i % 977);
    fresh_count += fresh;
    if (id != i) ids_in_order = false;
  }
  CHECK(fresh_count == n);
  CHECK(ids_in_order);
  CHECK(store.size() == n);

  // Reinsert every state with other parents and depths: all found, same ids,
  // parent and depth untouched.
  std::size_t found = 0, same_id = 0, bytes_ok = 0, links_ok = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const S13 s = make13(i);
    const auto [id, fresh] = store.insert(s.b.data(), h13(s), 12345, 99999);
    found += !fresh;
    same_id += id == i;
    bytes_ok += std::memcmp(store.get(id), s.b.data(), 13) == 0;
    const std::uint32_t parent = i == 0 ? StateStore::kNone : i / 2;
    links_ok += store.parent(id) == parent && store.depth(id) == i % 977;
  }
  CHECK(found == n);
  CHECK(same_id == n);
  CHECK(bytes_ok == n);
  CHECK(links_ok == n);
  CHECK(store.size() == n);
  // The store holds at least the states, parents and depths.
  CHECK(store.memory_bytes() >= std::size_t(n) * (13 + 4 + 4));
  CHECK(store.memory_after_insert() >= store.memory_bytes());

  // And new ones still get the next ids.
  const S13 extra = make13(n);
  const auto [eid, efresh] = store.insert(extra.b.data(), h13(extra), 7, 8);
  CHECK(efresh);
  CHECK(eid == n);
  CHECK(store.parent(eid) == 7);
  CHECK(store.depth(eid) == 8);
}

TEST_CASE("state store: tiny initial table grows many times") {
  StateStore store(13, 4);
  const std::uint32_t n = 5000;
  for (std::uint32_t i = 0; i < n; ++i) {
    const S13 s = make13(i * 3);
    const auto [id, fresh] = store.insert(s.b.data(), h13(s), i, i);
    REQUIRE(fresh);
    REQUIRE(id == i);
    // Each insertion of an old state in between finds it again.
    const S13 old = make13((i / 2) * 3);
    const auto [oid, ofresh] = store.insert(old.b.data(), h13(old), 0, 0);
    REQUIRE_FALSE(ofresh);
    REQUIRE(oid == i / 2);
  }
  CHECK(store.size() == n);
  for (std::uint32_t i = 0; i < n; ++i) {
    REQUIRE(store.parent(i) == i);
    REQUIRE(store.depth(i) == i);
  }
  // States that were never inserted are new.
  const S13 s = make13(1);
  CHECK(store.insert(s.b.data(), h13(s), 0, 0).second);
}

TEST_CASE("state store: colliding hashes are told apart by their bytes") {
  StateStore store(13);
  const std::uint32_t n = 1500;
  for (std::uint32_t i = 0; i < n; ++i) {
    const S13 s = make13(i);
    const auto [id, fresh] = store.insert(s.b.data(), 0x1234567800000000ULL, 0, i);
    REQUIRE(fresh);
    REQUIRE(id == i);
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const S13 s = make13(i);
    const auto [id, fresh] = store.insert(s.b.data(), 0x1234567800000000ULL, 0, 0);
    REQUIRE_FALSE(fresh);
    REQUIRE(id == i);
    REQUIRE(store.depth(id) == i);
  }
  CHECK(store.size() == n);
}

TEST_CASE("state store: only the first state_bytes() bytes matter") {
  StateStore store(3);
  std::uint8_t a[8] = {1, 2, 3, 0, 0, 0, 0, 0};
  std::uint8_t b[8] = {1, 2, 3, 9, 9, 9, 9, 9};
  std::uint8_t c[8] = {1, 2, 4, 0, 0, 0, 0, 0};
  const auto ra = store.insert(a, hash_bytes_exact(a, 3), StateStore::kNone, 0);
  const auto rb = store.insert(b, hash_bytes_exact(b, 3), 0, 1);
  const auto rc = store.insert(c, hash_bytes_exact(c, 3), 0, 1);
  CHECK(ra.second);
  CHECK_FALSE(rb.second);
  CHECK(rb.first == ra.first);
  CHECK(rc.second);
  CHECK(rc.first == 1);
  CHECK(store.size() == 2);
  CHECK(store.parent(0) == StateStore::kNone);
  CHECK(store.get(1)[2] == 4);
}

TEST_CASE("state store: relink changes parent and depth only") {
  StateStore store(13);
  std::vector<S13> states;
  for (std::uint32_t i = 0; i < 10; ++i) {
    states.push_back(make13(i));
    store.insert(states.back().b.data(), h13(states.back()), i ? i - 1 : StateStore::kNone, i);
  }
  store.relink(9, 2, 3);
  CHECK(store.parent(9) == 2);
  CHECK(store.depth(9) == 3);
  CHECK(std::memcmp(store.get(9), states[9].b.data(), 13) == 0);
  const auto [id, fresh] = store.insert(states[9].b.data(), h13(states[9]), 0, 0);
  CHECK_FALSE(fresh);
  CHECK(id == 9);
  CHECK(store.parent(8) == 7);
  CHECK(store.size() == 10);
}

// The tree-compressed store (explorer/tree_store.hpp), filled as a
// breadth-first search fills it: parents in non-decreasing order, with runs
// of children of every length (none, one, past the 4-bit count, hundreds),
// depths by level. Every state loads back, is found under its id, and knows
// its parent and depth; states that were never put are not found.
TEST_CASE("tree store: 300k states of 13 bytes in breadth-first order") {
  for (const std::size_t len : {std::size_t(1), std::size_t(4), std::size_t(13)}) {
    TreeStore store(len);
    std::vector<std::uint32_t> parent{TreeStore::kNone}, depth{0};
    // Children per parent: a repeating pattern with 0, 1, 15, 16 and 300.
    const std::uint32_t pattern[] = {3, 0, 2, 15, 2, 0, 0, 16, 1, 300, 2, 1};
    std::uint32_t p = 0, left = pattern[0];
    const std::uint32_t n = len == 1 ? 256 : 300000;
    std::vector<S13> states;
    auto state = [&](std::uint32_t i) {
      S13 s = make13(i);
      for (std::size_t k = len; k < 13; ++k) s.b[k] = 0;  // zero padding, as a model's
      if (len == 1) s.b[0] = std::uint8_t(i);
      return s;
    };
    store.add(state(0).b.data(), 0, TreeStore::kNone, 0);
    for (std::uint32_t i = 1; i < n; ++i) {
      while (left == 0) left = pattern[++p % 12];
      --left;
      REQUIRE(p < i);  // a parent is stored before its children
      parent.push_back(p);
      depth.push_back(depth[p] + 1);
      const S13 s = state(i);
      const auto [id, fresh] = store.add(s.b.data(), 0, p, depth.back());
      REQUIRE(fresh);
      REQUIRE(id == i);
    }
    CHECK(store.size() == n);
    bool ok = true;
    for (std::uint32_t i = 0; i < n && ok; ++i) {
      const S13 s = state(i);
      S13 back{};
      store.load(i, back.b.data());
      ok = std::memcmp(back.b.data(), s.b.data(), 13) == 0 && store.lookup(s.b.data(), 0) == i &&
           store.parent(i) == parent[i] && store.depth(i) == depth[i];
      if (!ok) INFO("state " << i << " of " << len << " bytes");
    }
    CHECK(ok);
    if (len > 4)
      for (std::uint32_t i = n; i < n + 1000; ++i) CHECK(store.lookup(state(i).b.data(), 0) == TreeStore::kNone);
  }
}

// Hash compaction (explorer/hash_compact_store.hpp): states by their hash
// only, parents and depths as in the tree store, and the bytes of the last
// two levels; an older state cannot be loaded.
TEST_CASE("hash compaction store: ids by hash, parents, and the last two levels only") {
  HashCompactStore store(13);
  // Levels of 1, 3, 9, 27, ... states; each parent has 3 children.
  std::vector<std::uint32_t> first{0};
  store.add(make13(0).b.data(), h13(make13(0)), HashCompactStore::kNone, 0);
  std::uint32_t id = 1;
  for (std::uint32_t d = 1; d <= 8; ++d) {
    first.push_back(id);
    for (std::uint32_t p = first[d - 1]; p < first[d]; ++p)
      for (int k = 0; k < 3; ++k, ++id) {
        const S13 s = make13(id);
        const auto [got, fresh] = store.add(s.b.data(), h13(s), p, d);
        REQUIRE(fresh);
        REQUIRE(got == id);
      }
  }
  first.push_back(id);
  CHECK(store.size() == id);
  bool ok = true;
  for (std::uint32_t i = 0; i < id && ok; ++i) {
    const S13 s = make13(i);
    ok = store.lookup(s.b.data(), h13(s)) == i && store.is(i, s.b.data(), h13(s)) &&
         store.parent(i) == (i == 0 ? HashCompactStore::kNone : (i - 1) / 3) &&
         store.depth(i) == std::uint32_t(std::upper_bound(first.begin(), first.end(), i) - first.begin() - 1);
  }
  CHECK(ok);
  S13 back{};
  store.load(first[7], back.b.data());  // the level before the last
  CHECK(std::memcmp(back.b.data(), make13(first[7]).b.data(), 13) == 0);
  store.load(id - 1, back.b.data());
  CHECK(std::memcmp(back.b.data(), make13(id - 1).b.data(), 13) == 0);
  CHECK_THROWS_AS(store.load(first[6], back.b.data()), std::logic_error);
  CHECK(store.omission_probability() > 0);
  CHECK(store.omission_probability() < 1e-9);
}

}  // namespace state_store_test
