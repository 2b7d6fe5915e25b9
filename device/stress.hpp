// device/stress: the user-visible in-flight counters under concurrent I/O.
//
// Threads submit random 4 KiB O_DIRECT reads and writes (libaio, several in
// flight each) to the stack's DUT, with `depth` driver tags, while a
// sampler reads /sys/block/loopN/inflight and the device's /proc/diskstats
// line (field "I/Os currently in progress") as fast as it can. The
// invariants the race models (model/inflight) are about, as a user sees
// them: the counters are never negative (a huge unsigned value) and never
// above the number of driver tags (a request in flight holds one).
#pragma once

#include <cstdint>
#include <string>

#include "device/loop.hpp"

namespace blkmc::device {

struct StressOptions {
  std::string scheduler = "mq-deadline";
  int depth = 4, threads = 4, per_thread = 8;
  double seconds = 1.0;
};

struct StressResult {
  std::uint64_t samples = 0, ios = 0;
  long long inflight_min = 0, inflight_max = 0;    // reads + writes in /sys/block/X/inflight
  long long diskstats_min = 0, diskstats_max = 0;  // /proc/diskstats in-progress field
  long long bad_samples = 0;                       // samples outside 0..depth
  std::string first_bad;
  bool ok() const { return bad_samples == 0; }
};

StressResult run_stress(Stack& st, const StressOptions& opt);

}  // namespace blkmc::device
