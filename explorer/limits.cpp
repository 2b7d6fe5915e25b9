#include "explorer/limits.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>

#include <fmt/format.h>

namespace blkmc {

namespace {

// The processes mpirun started on this machine (Open MPI's
// OMPI_COMM_WORLD_LOCAL_SIZE), which share its cores and memory; 1 outside
// mpirun.
unsigned local_ranks() {
  const char* s = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long n = s ? std::strtol(s, nullptr, 10) : 1;
  return n > 1 && n < 1 << 20 ? unsigned(n) : 1u;
}
}  // namespace

unsigned default_threads() {
  unsigned cores = 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    cores = unsigned(std::max(1, CPU_COUNT(&set)));
  } else {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores = n > 0 ? unsigned(n) : 1u;
  }
  return std::max(1u, cores / local_ranks());
}

std::string to_string(StopReason r) {
  switch (r) {
    case StopReason::Complete:
      return "complete";
    case StopReason::AllViolated:
      return "all properties violated";
    case StopReason::MaxStates:
      return "max-states reached";
    case StopReason::MaxDepth:
      return "max-depth reached";
    case StopReason::Time:
      return "time limit reached";
    case StopReason::Memory:
      return "memory limit reached";
    case StopReason::Interrupted:
      return "interrupted";
    case StopReason::Disk:
      return "disk space limit reached";
  }
  return "?";
}

std::uint64_t peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return std::uint64_t(ru.ru_maxrss) * 1024;
}

std::uint64_t default_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return std::uint64_t(pages) * std::uint64_t(page) / 4 * 3 / local_ranks();
}

std::string human_count(double n) {
  if (n >= 1e9) return fmt::format("{:.2f}G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e4) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

std::string human_bytes(double n) {
  if (n >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", n / (1024.0 * 1024 * 1024));
  if (n >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", n / (1024.0 * 1024));
  if (n >= 1024.0) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{:.0f} B", n);
}

}  // namespace blkmc
