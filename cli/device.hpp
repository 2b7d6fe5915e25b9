// blkmc device run|check and blkmc export --fio (issue 7): real loop devices.
#pragma once

#include <string>
#include <vector>

#include "app/kernel_select.hpp"

namespace blkmc {

struct DeviceRunArgs {
  std::string source;     // TRACE (.json), workload file (.wl) or shipped workload name
  std::string scheduler;  // default: the trace's, else mq-deadline
  std::string variant;    // model variant (default: the trace's, else the newest)
  KernelArgs code;        // the prediction from the kernel's own code (--kernel / --source)
  std::vector<std::string> params;
  int repeat = 5;
  std::string engine = "libaio";
  bool json = false, quiet = false;
};

int run_device_run(const DeviceRunArgs& a);
// only: one scheduler's rows ("": all); only_model: deadline, bfq or
// inflight; kernel: predict the scheduler rows from the kernel's own code
// (a tree, a linux-source tarball or debian:X.Y; "": blkmc's hand models).
int run_device_check(int repeat, bool json, bool quiet, const std::string& only = "",
                     const std::string& only_model = "", const std::string& kernel = "");
struct DeviceStressArgs {
  std::string scheduler = "mq-deadline";
  int depth = 4, threads = 4, per_thread = 8;
  int partitions = 0;  // 0..Stack::kMaxPartitions
  double seconds = 1.0;
  bool json = false;
};
int run_device_stress(const DeviceStressArgs& a);
// Removes what killed runs left (see device/loop.hpp cleanup_stale).
int run_device_cleanup(bool dry_run);
int run_export_fio(const std::string& source, const std::string& out, const std::string& target);

}  // namespace blkmc
