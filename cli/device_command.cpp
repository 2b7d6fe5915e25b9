#include "cli/device_command.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli/options.hpp"
#include "common/errors.hpp"

namespace blkmc {
namespace {

// device run / export: the source positional or --workload, one of them.
void take_source(std::string& source, const std::string& workload, const char* cmd) {
  if (!source.empty() && !workload.empty())
    throw UsageError(fmt::format("{}: give a source or --workload, not both", cmd));
  if (!workload.empty()) source = workload;
  if (source.empty()) throw UsageError(fmt::format("{}: a trace, workload file or workload name is required", cmd));
}

}  // namespace

CLI::App* add_device_command(CLI::App& app, DeviceArgs& a) {
  auto* devc = app.add_subcommand(
      "device", "run a trace or workload on a loop device this command creates, and check the "
                "model against the kernel (needs root, loop devices, tracefs; exit 5 without)");
  devc->require_subcommand(1);

  DeviceRunArgs& dev = a.run;
  auto* run = a.run_cmd = devc->add_subcommand(
      "run", "replay TRACE|WORKLOAD N times behind the freeze gate; report the modal dispatch "
             "order, its share, the spread, and the model's order and conformance");
  run->add_option("source", dev.source, "trace (.json), workload file (.wl) or shipped workload name");
  run->add_option("--workload", a.workload, "the workload to run, NAME or FILE.wl (instead of a source)");
  run->add_option("--scheduler", dev.scheduler, "mq-deadline (default), bfq or none");
  run->add_option("--variant,-v", dev.variant, "model variant (default: the trace's, else v6.18 / newest)");
  add_kernel_options(run, dev.code, "the prediction from the kernel's own code");
  run->add_option("--param,-p", dev.params,
                  "model parameter / tunable name=value (repeatable; workload=NAME, "
                  "shadow=VARIANT|none)");
  run->add_option("--repeat", dev.repeat, "runs (default 5)");
  run->add_option("--engine", dev.engine, "submission engine: libaio (default) or io_uring (may punt to io-wq and reorder a process's requests)");
  run->add_flag("--json", dev.json, "print the result as JSON");
  run->add_flag("--quiet,-q", dev.quiet, "no per-run lines on stderr");

  auto* check = a.check_cmd = devc->add_subcommand(
      "check", "run the mq-deadline and BFQ workloads on a loop device, and the in-flight rows on one "
               "with two partitions, and compare with the models: workload, tunables, model prediction, "
               "kernel observation, conforming runs, match");
  check->add_option("--repeat", a.check_repeat, "runs per row (default 3)");
  check->add_option("--scheduler", a.check_only, "only the rows of this scheduler: mq-deadline or bfq");
  check->add_option("--model", a.check_model, "only the rows of this model: deadline, bfq or inflight");
  check->add_option("--kernel", a.check_kernel,
                    "predict the scheduler rows from the kernel's own code: a kernel tree DIR, a linux-source "
                    "tarball, or debian:X.Y (/usr/src/linux-source-X.Y.tar.xz), compiled against blkmc's shim "
                    "(default: blkmc's hand models; rows only the code predicts are skipped)");
  check->add_flag("--json", a.check_json, "print the rows as JSON");
  check->add_flag("--quiet,-q", a.check_quiet, "no progress lines on stderr");

  DeviceStressArgs& stress = a.stress;
  auto* st = a.stress_cmd = devc->add_subcommand(
      "stress", "concurrent I/O on a loop device while sampling /sys/block/loopN/inflight and "
                "/proc/diskstats: never negative, never above the driver tags");
  st->add_option("--scheduler", stress.scheduler, "mq-deadline (default), bfq, kyber or none");
  st->add_option("--depth", stress.depth, "driver tags, nr_requests (default 4)");
  st->add_option("--threads", stress.threads, "submitting threads (default 4)");
  st->add_option("--per-thread", stress.per_thread, "requests in flight per thread (default 8)");
  st->add_option("--seconds", stress.seconds, "duration (default 1)");
  st->add_option("--partitions", stress.partitions,
                 "partitions on the device (0-4, default 0): I/O goes to the disk or a partition at "
                 "random, and every target's inflight and diskstats line is checked");
  st->add_flag("--json", stress.json, "print the figures as JSON");

  auto* cleanup = a.cleanup_cmd = devc->add_subcommand(
      "cleanup", "remove what runs killed by SIGKILL left: their tracefs instances, frozen ext4, "
                 "mounts, loop devices and directories (only blkmc's own, of dead processes)");
  cleanup->add_flag("--dry-run,-n", a.cleanup_dry, "only list what would be removed");
  return devc;
}

CLI::App* add_export_command(CLI::App& app, ExportArgs& a) {
  auto* exportc = app.add_subcommand("export", "export a trace or workload for other tools");
  exportc->add_option("source", a.source, "trace (.json), workload file (.wl) or shipped workload name");
  exportc->add_option("--workload", a.workload, "the workload to export, NAME or FILE.wl (instead of a source)");
  exportc->add_flag("--fio", a.fio, "a fio job file (one job per process, iolog replay)")->required();
  exportc->add_option("-o,--output", a.out, "job file to write (iologs go next to it)")->required();
  exportc->add_option("--target", a.target, "file or device the iologs name (default blkmc-fio.img; fio writes to it)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            const bool blank = s.find_first_not_of(" \t") == std::string::npos;
            const bool control = std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
            return blank || control ? "a path, not empty and without control characters" : "";
          },
          "PATH"));
  return exportc;
}

int run_device(DeviceArgs& a) {
  if (a.run_cmd->parsed()) {
    take_source(a.run.source, a.workload, "device run");
    return run_device_run(a.run);
  }
  if (a.check_cmd->parsed())
    return run_device_check(a.check_repeat, a.check_json, a.check_quiet, a.check_only, a.check_model, a.check_kernel);
  if (a.stress_cmd->parsed()) return run_device_stress(a.stress);
  return run_device_cleanup(a.cleanup_dry);
}

int run_export(ExportArgs& a) {
  take_source(a.source, a.workload, "export");
  return run_export_fio(a.source, a.out, a.target);
}

}  // namespace blkmc
