// The table of visited-state stores (explorer/stores.hpp).
#include "explorer/stores.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "explorer/disk_store.hpp"
#include "explorer/hash_compact_store.hpp"
#include "explorer/state_store.hpp"
#include "explorer/tree_store.hpp"

namespace blkmc {

const std::vector<StoreSpec>& store_specs() {
  static const std::vector<StoreSpec> specs{
      {StoreKind::Plain, "plain", "every state's bytes", false, false,
       [](const StoreParams& p) -> std::unique_ptr<VisitedStore> { return std::make_unique<StateStore>(p.state_bytes); }},
      {StoreKind::Tree, "tree", "tree compression", true, false,
       [](const StoreParams& p) -> std::unique_ptr<VisitedStore> { return std::make_unique<TreeStore>(p.state_bytes); }},
      {StoreKind::HashCompact, "hash",
       "hash compaction: 64-bit hashes only, lossy; verdicts say the chance of an omitted state", true, false,
       [](const StoreParams& p) -> std::unique_ptr<VisitedStore> {
         return std::make_unique<HashCompactStore>(p.state_bytes);
       }},
      {StoreKind::Disk, "disk", "levels and visited set on disk, duplicates found once per level", true, true,
       [](const StoreParams& p) -> std::unique_ptr<VisitedStore> {
         return std::make_unique<DiskStore>(p.state_bytes, p.disk_dir, 0);
       }},
      {StoreKind::Bitstate, "bitstate", "3 bits a state, lossy; levels on disk; no progress or starvation", true, true,
       [](const StoreParams& p) -> std::unique_ptr<VisitedStore> {
         return std::make_unique<DiskStore>(p.state_bytes, p.disk_dir, p.bitstate_log2);
       }},
  };
  return specs;
}

const StoreSpec& store_spec(StoreKind k) {
  for (const StoreSpec& s : store_specs())
    if (s.kind == k) return s;
  throw std::logic_error("a store kind without a row in explorer/stores.cpp");
}

const StoreSpec* find_store(std::string_view name) {
  for (const StoreSpec& s : store_specs())
    if (name == s.name) return &s;
  return nullptr;
}

std::string to_string(StoreKind k) { return store_spec(k).name; }

std::string stores_help() {
  std::vector<std::string> parts;
  for (const StoreSpec& s : store_specs()) parts.push_back(fmt::format("{} ({})", s.name, s.help));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace blkmc
