#include "cli/workload_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "device/capture.hpp"
#include "device/capture_import.hpp"

namespace blkmc {

CLI::App* add_workload_command(CLI::App& app, WorkloadArgs& a) {
  auto* wl = app.add_subcommand("workload", "make workload files (.wl) from what a machine recorded");
  wl->require_subcommand(1);
  auto* imp = a.import_cmd = wl->add_subcommand(
      "import", "a block trace of one device (blktrace's binary files, blkparse text, or tracefs text of the "
                "block_rq_* events) as a workload: one proc per process, its requests, sectors renumbered small");
  imp->add_option("capture", a.captures,
                  "the capture: a text file, or blktrace's per-CPU files (NAME for NAME.blktrace.0, .1, ...)")
      ->required();
  imp->add_option("-o,--output", a.out, "write the workload here (default: standard output); nothing is "
                                        "written when the import fails");
  imp->add_option("--window", a.window,
                  "FROM..TO: a time range from the first event (0.5s..2s, 200ms.., ..3s) or a range of "
                  "requests by submission order (10..40; TO excluded)");
  imp->add_option("--procs", a.procs, "only these processes (comm or pid; repeatable or comma-separated)")
      ->delimiter(',');
  imp->add_option("--max-requests", a.max_requests, "the first N requests of the window (1..64, default 16)");
  imp->add_option("--track", a.track,
                  "NAME[:I]: the request whose wait the properties bound (default: the longest queue-to-complete "
                  "time in the window)");
  imp->add_option("--device", a.device, "MAJOR,MINOR: the device, where the capture holds several");
  imp->add_flag("--rotational", a.rotational, "a rotational device (rotational=1 seek=4 on the device line)");
  return wl;
}

int run_workload(const WorkloadArgs& a) {
  int major = -1, minor = -1;
  if (!a.device.empty()) {
    char tail = 0;
    if (std::sscanf(a.device.c_str(), "%d%*[,:]%d%c", &major, &minor, &tail) != 2 || major < 0 || minor < 0)
      throw UsageError(fmt::format("--device '{}' is not MAJOR,MINOR", a.device));
  }
  const device::Capture cap = device::read_capture(a.captures, major, minor);
  device::ImportOptions o;
  o.window = a.window;
  o.procs = a.procs;
  o.max_requests = a.max_requests;
  o.track = a.track;
  o.rotational = a.rotational;
  const device::Imported im = device::import_workload(cap, o);
  if (a.out.empty()) {
    std::cout << im.text;
  } else {
    // Written beside the target and renamed, so a failure leaves nothing.
    namespace fs = std::filesystem;
    const std::string tmp = fmt::format("{}.tmp.{}", a.out, getpid());
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!(f << im.text) || !f.flush()) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw UsageError(fmt::format("{}: cannot be written", a.out));
      }
    }
    std::error_code ec;
    fs::rename(tmp, a.out, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw UsageError(fmt::format("{}: cannot be written", a.out));
    }
  }
  std::cerr << fmt::format("blkmc: {} ({}): {} events, {} requests; kept {} requests of {} of {} processes; "
                           "1 tick = {:.1f} us{}\n",
                           cap.name, cap.format, im.events, im.requests, im.kept, im.kept_procs, im.procs,
                           double(im.tick_ns) / 1e3, a.out.empty() ? "" : fmt::format("; wrote {}", a.out));
  return 0;
}

}  // namespace blkmc
