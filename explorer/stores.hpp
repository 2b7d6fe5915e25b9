// The visited-state stores `check --store` offers, in one table: a store is
// its class (one file) and one row in explorer/stores.cpp; the command's
// choices and help, the search's construction and its checks read the row.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "explorer/visited_store.hpp"

namespace blkmc {

// What a store is made from.
struct StoreParams {
  std::size_t state_bytes = 0;
  std::string disk_dir;        // the disk stores' scratch directory ("": $TMPDIR or /tmp)
  unsigned bitstate_log2 = 0;  // bitstate: an array of 2^N bits
};

struct StoreSpec {
  StoreKind kind;
  const char* name;  // --store NAME
  const char* help;  // what it keeps, for --store's help
  // Searched breadth-first only (all but plain, which depth-first search
  // needs for re-opening states under a depth bound).
  bool breadth_first_only;
  // Levels on disk, duplicates found once per level (Search::OnDisk):
  // nothing is looked up while a state expands, so no partial-order
  // reduction; edges for progress and starvation only where the visited
  // runs carry tags (disk, not bitstate).
  bool on_disk;
  std::unique_ptr<VisitedStore> (*make)(const StoreParams&);
};

const std::vector<StoreSpec>& store_specs();
const StoreSpec& store_spec(StoreKind k);
// The store named so, or null.
const StoreSpec* find_store(std::string_view name);
// "plain (every state's bytes), tree (...), ...": --store's help.
std::string stores_help();

}  // namespace blkmc
