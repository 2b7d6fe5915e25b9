// blkmc's command line: list, check, replay, suite, compare, simulate,
// diff, prove, device, export and workload (CLI11); each subcommand is a thin layer
// over app/ (the registry and the model adapters) and the engines. main()
// is in cli/blkmc.cpp, and in cli/mpi_main.cpp for the MPI runner.
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/check.hpp"
#include "cli/compare.hpp"
#include "cli/conform.hpp"
#include "cli/device_command.hpp"
#include "cli/entry.hpp"
#include "cli/options.hpp"
#include "cli/diff.hpp"
#include "cli/list.hpp"
#include "cli/prove.hpp"
#include "cli/replay.hpp"
#include "cli/simulate.hpp"
#include "cli/suite.hpp"
#include "cli/workload_command.hpp"
#include "common/error_line.hpp"
#include "common/version.hpp"

using namespace blkmc;

int blkmc::blkmc_main(int argc, char** argv) {
  CLI::App app{"blkmc: a model checker for the Linux block layer"};
  app.require_subcommand(1);
  const std::string date = build_commit_date();
  app.set_version_flag("--version", fmt::format("blkmc {} (commit {}{})", version(), build_commit(),
                                                date.empty() ? "" : ", " + date));

  ListArgs list_args;
  CLI::App* list = add_list_command(app, list_args);

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

  DeviceArgs device_args;
  CLI::App* devc = add_device_command(app, device_args);
  ExportArgs export_args;
  CLI::App* exportc = add_export_command(app, export_args);
  WorkloadArgs workload_args;
  CLI::App* workloadc = add_workload_command(app, workload_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
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
    if (list->parsed()) return run_list(list_args);
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
    if (devc->parsed()) return run_device(device_args);
    if (exportc->parsed()) return run_export(export_args);
    if (workloadc->parsed()) return run_workload(workload_args);
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
