// device/stress: the user-visible in-flight counters under concurrent I/O.
//
// Threads submit random 4 KiB O_DIRECT reads and writes (libaio, several in
// flight each) to the stack's DUT, with `depth` driver tags, while a
// sampler reads /sys/block/loopN/inflight and the device's /proc/diskstats
// line (field "I/Os currently in progress") as fast as it can, and checks
// each read against the bound the inflight model gives the running kernel
// (docs/models/inflight.md):
//   inflight    a walk of the driver tags (b0d97557ebfc's rule, since 6.16
//               blk_mq_in_driver_rw): never negative, never above the tags;
//   diskstats   a sum of per-CPU counters (7be835694dae): never more than
//               the requests inside the accounting window at some moment
//               during the read (live-read-bounded). That is not the number
//               outstanding at any one moment: a request counted on a CPU
//               already summed may complete, and its successor be counted
//               on a CPU not yet summed. User space bounds it by what was
//               outstanding when the read began (at most threads x
//               per_thread) plus the submissions begun during the read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device/loop.hpp"

namespace blkmc::device {

struct StressOptions {
  std::string scheduler = "mq-deadline";
  int depth = 4, threads = 4, per_thread = 8;
  double seconds = 1.0;
  // On a stack with partitions each I/O goes to the whole disk or to a
  // partition, chosen at random, and every target's files are sampled.
};

// One target's files: the whole disk (loopN) or a partition (loopNpK).
struct StressTarget {
  std::string name;
  long long inflight_min = 0, inflight_max = 0;
  long long diskstats_min = 0, diskstats_max = 0;
  long long diskstats_over_outstanding = 0;
};

struct StressResult {
  std::uint64_t samples = 0, ios = 0;
  long long inflight_min = 0, inflight_max = 0;    // reads + writes in /sys/block/X/inflight
  long long diskstats_min = 0, diskstats_max = 0;  // /proc/diskstats in-progress field
  // diskstats reads above the outstanding count, within the live bound: the
  // overcount the per-CPU sum allows (not a violation)
  long long diskstats_over_outstanding = 0;
  long long bad_samples = 0;                       // samples outside their bound
  std::string first_bad;
  std::vector<StressTarget> targets;               // the disk, then each partition
  bool ok() const { return bad_samples == 0; }
};

StressResult run_stress(Stack& st, const StressOptions& opt);

}  // namespace blkmc::device
