// device/inflight_check: the inflight model against the running kernel's
// in-flight counters, on a loop device with a partition table.
//
// A row puts known requests at known places. `driver` writes take the four
// driver tags and hang behind the frozen ext4 (started: MQ_RQ_IN_FLIGHT);
// `queued` writes wait in mq-deadline without a driver tag (one of them on
// hctx->dispatch). Nothing moves while the ext4 is frozen, so every read is
// quiescent, and the model says exactly what each file must report:
//   /sys/block/D/inflight, /sys/block/D/Dk/inflight
//       a walk of the driver tags (since 6.16 blk_mq_in_driver_rw, the rule
//       of b0d97557ebfc: the whole disk counts every started request, a
//       partition those with rq->part == it): variant b0d97557ebfc;
//   /sys/block/D/stat, /sys/block/D/Dk/stat, /proc/diskstats (in progress)
//       bdev_count_inflight: the per-CPU counters of req->part, moved by
//       blk_account_io_start/_done (7be835694dae): variant 7be835694dae.
// After the thaw and every completion, each must read 0 ("drained").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/loop.hpp"
#include "device/tracefs.hpp"

namespace blkmc::device {

struct InflightRow {
  std::string name;
  std::vector<int> driver, queued;  // each request's target: 0 the whole disk, k partition k
  int parts = 2;
};
// The rows `device check` runs.
const std::vector<InflightRow>& inflight_rows();

// One file read: its name, the variant that predicts it, model and kernel.
struct InflightRead {
  std::string phase;  // "held" (frozen, requests in place) or "drained"
  std::string file;   // e.g. "loop7p1/inflight", "diskstats loop7"
  std::string variant;
  int target = 0;
  int model = 0, kernel = 0;
};

// The model's answer for every file of a row, before any run.
std::vector<InflightRead> predict_inflight(const InflightRow& row, const std::string& disk);

struct InflightCase {
  InflightRow row;
  std::vector<std::vector<InflightRead>> runs;
  int conforming = 0;
  std::string first_departure;  // "" when every run conforms
  bool match() const { return !runs.empty() && conforming == int(runs.size()); }
};

// `repeat` runs of the row on st (a stack with row.parts partitions).
// Throws Interrupted on SIGINT/SIGTERM (after thawing and reaping).
InflightCase run_inflight_case(Stack& st, TraceInstance& tr, const InflightRow& row, int repeat,
                               bool verbose);

nlohmann::json inflight_case_json(const InflightCase& c);
// "D,p1,p1" for a list of targets (D: the whole disk).
std::string targets_string(const std::vector<int>& targets);

}  // namespace blkmc::device
