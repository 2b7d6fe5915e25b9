// What the breadth-first search asks of a visited-state store, whatever
// keeps the states: the plain store (explorer/state_store.hpp, every state's
// bytes), the tree-compressed one (explorer/tree_store.hpp), hash
// compaction, or the disk and bitstate stores (explorer/disk_store.hpp,
// resolved by explorer/resolve_on_disk.hpp, not by this interface's lookups).
//
// Ids are dense, in insertion order. During a level's expansion many threads
// look states up while nobody writes; then, after reserve(n), the level's
// new states are put at the ids the search assigned (in increasing id
// order on one thread, or from several at once where concurrent_put()),
// and commit(n) makes ids below n the stored ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace blkmc {

// How the visited states are kept (check --store; the table of stores is
// explorer/stores.cpp).
enum class StoreKind { Plain, Tree, HashCompact, Disk, Bitstate };
std::string to_string(StoreKind k);  // its --store name

// par(tasks, fn): runs fn(task) for every task in [0, tasks), on as many
// threads as it likes.
using ParFor = std::function<void(std::size_t, const std::function<void(std::size_t)>&)>;

class VisitedStore {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  virtual ~VisitedStore() = default;

  virtual std::size_t size() const = 0;
  virtual std::size_t state_bytes() const = 0;
  // The state_bytes() bytes of state id, into out.
  virtual void load(std::uint32_t id, std::uint8_t* out) const = 0;
  // Whether load() works for every id (hash compaction: the last levels only).
  virtual bool keeps_states() const { return true; }
  // Whether id is the state with these bytes (its key) and hash.
  virtual bool is(std::uint32_t id, const std::uint8_t* s, std::uint64_t) const {
    std::uint8_t buf[4096];
    if (state_bytes() > sizeof buf) {
      std::vector<std::uint8_t> big(state_bytes());
      load(id, big.data());
      return std::memcmp(big.data(), s, state_bytes()) == 0;
    }
    load(id, buf);
    return std::memcmp(buf, s, state_bytes()) == 0;
  }
  // The chance that a state was taken for another and omitted (0: lossless).
  virtual double omission_probability() const { return 0; }
  // What it keeps on disk (the disk and bitstate stores).
  virtual std::uint64_t disk_bytes() const { return 0; }
  virtual std::uint32_t parent(std::uint32_t id) const = 0;
  virtual std::uint32_t depth(std::uint32_t id) const = 0;
  // hash: hash_padded of the state's bytes. The id, or kNone.
  virtual std::uint32_t lookup(const std::uint8_t* s, std::uint64_t hash) const = 0;
  bool contains(const std::uint8_t* s, std::uint64_t hash) const { return lookup(s, hash) != kNone; }
  virtual void prefetch(std::uint64_t) const {}

  virtual std::size_t memory_bytes() const = 0;
  virtual std::size_t memory_after_reserve(std::size_t n) const = 0;
  virtual void reserve(std::size_t n, const ParFor& par) = 0;
  virtual bool concurrent_put() const = 0;
  virtual void put(std::uint32_t id, const std::uint8_t* s, std::uint64_t hash, std::uint32_t parent,
                   std::uint32_t depth) = 0;
  // Ids below n are the stored ones; par may spread the work of it.
  virtual void commit(std::size_t n, const ParFor& par) = 0;
  void commit(std::size_t n) { commit(n, serial); }
  static void serial(std::size_t tasks, const std::function<void(std::size_t)>& fn) {
    for (std::size_t t = 0; t < tasks; ++t) fn(t);
  }

  // Find-or-put on one thread: the id, and whether it was new.
  std::pair<std::uint32_t, bool> add(const std::uint8_t* s, std::uint64_t hash, std::uint32_t parent,
                                     std::uint32_t depth) {
    if (const std::uint32_t i = lookup(s, hash); i != kNone) return {i, false};
    const auto id = std::uint32_t(size());
    reserve(1, serial);
    put(id, s, hash, parent, depth);
    commit(std::size_t(id) + 1);
    return {id, true};
  }
};

}  // namespace blkmc
