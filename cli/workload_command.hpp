// `blkmc workload import`: a block trace of one device (blktrace's binary
// files, blkparse text or tracefs text) made into a workload file that
// check, simulate and device run take (device/capture_import.hpp).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace blkmc {

struct WorkloadArgs {
  std::vector<std::string> captures;
  std::string out, window, track, device;
  std::vector<std::string> procs;
  int max_requests = 16;
  bool rotational = false;
  CLI::App* import_cmd = nullptr;
};

CLI::App* add_workload_command(CLI::App& app, WorkloadArgs& a);
int run_workload(const WorkloadArgs& a);

}  // namespace blkmc
