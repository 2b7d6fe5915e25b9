// device/fio_export: a request plan as a fio job.
//
// One job per process, each replaying its own requests in order from an
// iolog (fio version 2 iolog: one line per request, "FILE read|write OFFSET
// LENGTH") with libaio, O_DIRECT, the process's ioprio class and level, and
// iodepth 1 for a sync process (it waits for each completion) or the
// number of its requests for an async one. All jobs start together (no
// stonewall). fio cannot freeze a filesystem: the gate is not reproduced,
// the header says so; `blkmc device run` does the gated run.
#pragma once

#include <string>
#include <vector>

#include "device/plan.hpp"

namespace blkmc::device {

struct FioExport {
  std::string job;  // the job file's text
  std::vector<std::pair<std::string, std::string>> iologs;  // file name, text
};

// job_path: where the job file goes (the iologs go next to it, named
// JOB.PROCESS.iolog); target: the file or device the iologs name.
FioExport export_fio(const Plan& plan, const std::string& job_path, const std::string& target);

}  // namespace blkmc::device
