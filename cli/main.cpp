// blkmc's command line: list, check, replay, suite, compare, simulate,
// diff, prove, device and export (CLI11); each subcommand is a thin layer
// over app/ (the registry and the model adapters) and the engines. main()
// is in cli/blkmc.cpp, and in cli/mpi_main.cpp for the MPI runner.
#include <algorithm>
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/check.hpp"
#include "cli/compare.hpp"
#include "cli/conform.hpp"
#include "cli/device.hpp"
#include "cli/entry.hpp"
#include "cli/options.hpp"
#include "cli/diff.hpp"
#include "cli/prove.hpp"
#include "cli/replay.hpp"
#include "cli/simulate.hpp"
#include "cli/suite.hpp"
#include "common/error_line.hpp"
#include "app/report.hpp"
#include "app/kernel_select.hpp"
#include "app/registry.hpp"
#include "model/sched/kernel/kernel_source.hpp"

using namespace blkmc;

namespace {

// device run / export: the source positional or --workload, one of them.
void take_source(std::string& source, const std::string& workload, const char* cmd) {
  if (!source.empty() && !workload.empty())
    throw UsageError(fmt::format("{}: give a source or --workload, not both", cmd));
  if (!workload.empty()) source = workload;
  if (source.empty()) throw UsageError(fmt::format("{}: a trace, workload file or workload name is required", cmd));
}

bool has_kernel_harness(const std::string& model) {
  const auto& f = kernel::source_families();
  return std::find(f.begin(), f.end(), model) != f.end();
}

void print_list(bool as_json) {
  nlohmann::json all = nlohmann::json::array();
  for (const ModelHandle* mh : all_models()) {
    const ModelInfo& inf = mh->info();
    if (as_json) {
      nlohmann::json j{{"model", inf.name}, {"summary", inf.summary}};
      for (const auto& p : inf.params)
      {
        j["params"].push_back(
            {{"name", p.name}, {"default", p.def}, {"min", p.min}, {"max", p.max}, {"help", p.help}});
        if (!p.names.empty()) j["params"].back()["names"] = p.names;
      }
      for (const auto& v : inf.variants)
        j["variants"].push_back(
            {{"name", v.name}, {"commit", v.commit}, {"summary", v.summary}, {"source", v.source}});
      for (const auto& p : inf.props)
        j["properties"].push_back(
            {{"name", p.name}, {"kind", to_string(p.kind)}, {"summary", p.summary}});
      if (has_kernel_harness(inf.name)) j["kernel_code"] = kernel::family_file(inf.name);
      all.push_back(j);
      continue;
    }
    std::cout << fmt::format("model {}: {}\n  parameters:\n", inf.name, inf.summary);
    for (const auto& p : inf.params)
      std::cout << fmt::format("    {:<12} default {:<3} range {}..{}  {}\n", p.name, p.def, p.min,
                               p.max, p.help);
    std::cout << "  variants:\n";
    for (const auto& v : inf.variants)
      std::cout << fmt::format("    {:<12} [{}] {}\n    {:<12} source: {}\n", v.name, v.commit,
                               v.summary, "", v.source);
    if (has_kernel_harness(inf.name))
      std::cout << fmt::format("  the kernel's own code: --kernel DIR|TARBALL|debian:X.Y or --source FILE.c runs {} (6.1 "
                               "to 6.12) instead of a variant; blkmc conform -v V holds a variant against it\n",
                               kernel::family_file(inf.name));
    std::cout << "  properties:\n";
    for (const auto& p : inf.props)
      std::cout << fmt::format("    {:<20} {}{}\n", p.name, p.summary, kind_info(p.kind).note);
  }
  if (as_json) std::cout << all.dump(2) << '\n';
}

}  // namespace

int blkmc::blkmc_main(int argc, char** argv) {
  CLI::App app{"blkmc: a model checker for the Linux block layer"};
  app.require_subcommand(1);

  bool list_json = false;
  auto* list = app.add_subcommand("list", "models, variants, properties and parameters");
  list->add_flag("--json", list_json, "machine-readable output");

  CheckArgs check_args;
  CLI::App* check = add_check_command(app, check_args);
  check->excludes(list);
  ReportArgs report_args;
  CLI::App* reportc = add_report_command(app, report_args);
  ReplayArgs replay_args;
  CLI::App* replay = add_replay_command(app, replay_args);
  CompareArgs compare_args;
  CLI::App* compare = add_compare_command(app, compare_args);

  ConformArgs conform_args;
  CLI::App* conformc = add_conform_command(app, conform_args);
  DiffArgs diff_args;
  CLI::App* diffc = add_diff_command(app, diff_args);
  ProveArgs prove_args;
  CLI::App* provec = add_prove_command(app, prove_args);
  SimulateArgs sim_args;
  CLI::App* sim = add_simulate_command(app, sim_args);

  SuiteArgs suite_args;
  CLI::App* suite = add_suite_command(app, suite_args);

  std::string workload_opt;  // device run and export: the source by name
  DeviceRunArgs dev;
  auto* devc = app.add_subcommand(
      "device", "run a trace or workload on a loop device this command creates, and check the "
                "model against the kernel (needs root, loop devices, tracefs; exit 5 without)");
  devc->require_subcommand(1);
  auto* dev_run = devc->add_subcommand(
      "run", "replay TRACE|WORKLOAD N times behind the freeze gate; report the modal dispatch "
             "order, its share, the spread, and the model's order and conformance");
  dev_run->add_option("source", dev.source, "trace (.json), workload file (.wl) or shipped workload name");
  dev_run->add_option("--workload", workload_opt, "the workload to run, NAME or FILE.wl (instead of a source)");
  dev_run->add_option("--scheduler", dev.scheduler, "mq-deadline (default), bfq or none");
  dev_run->add_option("--variant,-v", dev.variant, "model variant (default: the trace's, else v6.18 / newest)");
  add_kernel_options(dev_run, dev.code, "the prediction from the kernel's own code");
  dev_run->add_option("--param,-p", dev.params,
                     "model parameter / tunable name=value (repeatable; workload=NAME, "
                     "shadow=VARIANT|none)");
  dev_run->add_option("--repeat", dev.repeat, "runs (default 5)");
  dev_run->add_option("--engine", dev.engine, "submission engine: libaio (default) or io_uring (may punt to io-wq and reorder a process's requests)");
  dev_run->add_flag("--json", dev.json, "print the result as JSON");
  dev_run->add_flag("--quiet,-q", dev.quiet, "no per-run lines on stderr");
  int check_repeat = 3;
  auto* dev_check = devc->add_subcommand(
      "check", "run the mq-deadline and BFQ workloads on a loop device, and the in-flight rows on one "
               "with two partitions, and compare with the models: workload, tunables, model prediction, "
               "kernel observation, conforming runs, match");
  dev_check->add_option("--repeat", check_repeat, "runs per row (default 3)");
  std::string check_only;
  dev_check->add_option("--scheduler", check_only, "only the rows of this scheduler: mq-deadline or bfq");
  std::string check_model;
  dev_check->add_option("--model", check_model, "only the rows of this model: deadline, bfq or inflight");
  std::string check_kernel;
  dev_check->add_option("--kernel", check_kernel,
                        "predict the scheduler rows from the kernel's own code: a kernel tree DIR, a linux-source "
                        "tarball, or debian:X.Y (/usr/src/linux-source-X.Y.tar.xz), compiled against blkmc's shim "
                        "(default: blkmc's hand models; rows only the code predicts are skipped)");
  dev_check->add_flag("--json", dev.json, "print the rows as JSON");
  dev_check->add_flag("--quiet,-q", dev.quiet, "no progress lines on stderr");

  DeviceStressArgs stress;
  auto* dev_stress = devc->add_subcommand(
      "stress", "concurrent I/O on a loop device while sampling /sys/block/loopN/inflight and "
                "/proc/diskstats: never negative, never above the driver tags");
  dev_stress->add_option("--scheduler", stress.scheduler, "mq-deadline (default), bfq, kyber or none");
  dev_stress->add_option("--depth", stress.depth, "driver tags, nr_requests (default 4)");
  dev_stress->add_option("--threads", stress.threads, "submitting threads (default 4)");
  dev_stress->add_option("--per-thread", stress.per_thread, "requests in flight per thread (default 8)");
  dev_stress->add_option("--seconds", stress.seconds, "duration (default 1)");
  dev_stress->add_option("--partitions", stress.partitions,
                         "partitions on the device (0-4, default 0): I/O goes to the disk or a partition at "
                         "random, and every target's inflight and diskstats line is checked");
  dev_stress->add_flag("--json", stress.json, "print the figures as JSON");

  bool cleanup_dry = false;
  auto* dev_cleanup = devc->add_subcommand(
      "cleanup", "remove what runs killed by SIGKILL left: their tracefs instances, frozen ext4, "
                 "mounts, loop devices and directories (only blkmc's own, of dead processes)");
  dev_cleanup->add_flag("--dry-run,-n", cleanup_dry, "only list what would be removed");

  std::string fio_out, fio_target = "blkmc-fio.img", export_source;
  bool export_fio_flag = false;
  auto* exportc = app.add_subcommand("export", "export a trace or workload for other tools");
  exportc->add_option("source", export_source, "trace (.json), workload file (.wl) or shipped workload name");
  exportc->add_option("--workload", workload_opt, "the workload to export, NAME or FILE.wl (instead of a source)");
  exportc->add_flag("--fio", export_fio_flag, "a fio job file (one job per process, iolog replay)")->required();
  exportc->add_option("-o,--output", fio_out, "job file to write (iologs go next to it)")->required();
  exportc->add_option("--target", fio_target, "file or device the iologs name (default blkmc-fio.img; fio writes to it)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            const bool blank = s.find_first_not_of(" \t") == std::string::npos;
            const bool control = std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
            return blank || control ? "a path, not empty and without control characters" : "";
          },
          "PATH"));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "blkmc: " << error_line(e.what()) << " (see blkmc --help)\n";
    return kExitUsage;
  }

  install_interrupt_handler();
  Cluster* const cluster = process_cluster();
  try {
    if (cluster && !check->parsed() && !list->parsed() && !suite->parsed())
      throw UsageError("under mpirun only `blkmc check` and `blkmc suite` run (their searches spread "
                       "over the ranks); run the other commands without mpirun");
    if (dev_run->parsed()) take_source(dev.source, workload_opt, "device run");
    else if (exportc->parsed()) take_source(export_source, workload_opt, "export");
    if (list->parsed()) {
      print_list(list_json);
      return 0;
    }
    if (check->parsed()) {
      check_args.command = command_line(argc, argv);
      return run_check(check_args, cluster);
    }
    if (conformc->parsed()) {
      conform_args.command = command_line(argc, argv);
      return run_conform(conform_args);
    }
    if (reportc->parsed()) return run_report(report_args);
    if (replay->parsed()) return run_replay(replay_args);
    if (compare->parsed()) return run_compare(compare_args);
    if (provec->parsed()) return run_prove(prove_args);
    if (diffc->parsed()) return run_diff(diff_args);
    if (sim->parsed()) {
      sim_args.command = command_line(argc, argv);
      return run_simulate(sim_args);
    }
    if (dev_run->parsed()) return run_device_run(dev);
    if (dev_check->parsed()) return run_device_check(check_repeat, dev.json, dev.quiet, check_only, check_model, check_kernel);
    if (dev_stress->parsed()) return run_device_stress(stress);
    if (dev_cleanup->parsed()) return run_device_cleanup(cleanup_dry);
    if (exportc->parsed()) return run_export_fio(export_source, fio_out, fio_target);
    if (suite->parsed()) return run_suite(suite_args, cluster);
  } catch (const TraceMismatch& e) {
    std::cerr << "blkmc: trace does not fit the model: " << e.what() << '\n';
    return kExitReplayMismatch;
  } catch (const Interrupted&) {
    std::cerr << "blkmc: interrupted\n";
    return kExitIncomplete;
  } catch (const UsageError& e) {
    std::cerr << "blkmc: " << error_line(e.what()) << '\n';
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "blkmc: out of memory (use --memory to stop cleanly before this)\n";
    return kExitIncomplete;
  } catch (const std::exception& e) {
    // An interrupt may surface as a solver's error (z3: "push canceled").
    if (g_interrupted) {
      std::cerr << "blkmc: interrupted\n";
      return kExitIncomplete;
    }
    std::cerr << "blkmc: error: " << error_line(e.what()) << '\n';
    return kExitUsage;
  }
  return kExitUsage;
}
