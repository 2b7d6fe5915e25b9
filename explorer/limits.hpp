// Search limits and run statistics shared by every search.
#pragma once

#include <cstdint>
#include <string>

#include "common/interrupt.hpp"

namespace blkmc {

struct Limits {
  std::uint64_t max_states = 0;    // 0: none
  std::uint32_t max_depth = 0;     // 0: none
  double seconds = 0;              // 0: none
  std::uint64_t memory_bytes = 0;  // 0: none; the visited store's bytes
  std::uint64_t disk_bytes = 0;    // 0: none; the disk store's scratch files
};

enum class StopReason { Complete, AllViolated, MaxStates, MaxDepth, Time, Memory, Interrupted, Disk };
std::string to_string(StopReason r);

struct Stats {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint32_t max_depth = 0;
  double seconds = 0;
  double states_per_second = 0;
  double bytes_per_state = 0;  // visited store (states, parents, depths, table) / states
  std::uint64_t state_bytes = 0;  // one state vector, as the model lays it out
  std::uint64_t store_bytes = 0;
  std::uint64_t disk_bytes = 0;  // the disk and bitstate stores' files
  std::uint64_t peak_rss_bytes = 0;
  // The reductions that applied (explorer/reduced_model.hpp), and how many
  // states the partial-order reduction expanded with an ample set or fully
  // (among those with steps of two or more actors).
  std::string reduction = "none";
  std::uint64_t ample_states = 0, full_states = 0;
  bool por_gave_up = false;
  unsigned threads = 1;  // workers of the search (of each rank)
  unsigned ranks = 1;    // processes of a distributed search (explorer/distributed_search.hpp)
  std::string store = "plain";  // how visited states were kept (StoreKind)
  // Hash compaction: the chance that a state was taken for another and
  // omitted, with all that only it leads to (0: lossless).
  double omission_probability = 0;
};

std::uint64_t peak_rss_bytes();  // getrusage ru_maxrss
// The default --memory: 3/4 of physical memory, so a large search stops
// cleanly with its statistics instead of meeting the OOM killer (shared by
// the ranks mpirun started on this machine).
std::uint64_t default_memory_limit();
// Every core this process may run on (sched_getaffinity), at least 1,
// shared by the ranks mpirun started on this machine.
unsigned default_threads();
std::string human_count(double n);
std::string human_bytes(double n);

}  // namespace blkmc
