// blkmc's command line: list, check, replay, suite, compare, simulate,
// diff, prove, device and export (CLI11); each subcommand is a thin layer
// over app/ (the registry and the model adapters) and the engines. main()
// is in cli/blkmc.cpp, and in cli/mpi_main.cpp for the MPI runner.
#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <optional>

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
#include "cli/simulate.hpp"
#include "cli/suite.hpp"
#include "common/error_line.hpp"
#include "counterexamples/render.hpp"
#include "app/report.hpp"
#include "app/trace_report.hpp"
#include "app/kernel_select.hpp"
#include "app/registry.hpp"
#include "model/sched/kernel/kernel_source.hpp"

using namespace blkmc;

namespace {

// prove's parameter ranges, per model that offers it ("tags ntags 1..1024, ...").
std::string prove_ranges() {
  std::vector<std::string> out;
  for (const ModelHandle* m : all_models())
    if (m->offers().prove) {
      std::vector<std::string> ps;
      for (const auto& p : prove_params(m->info().name)) ps.push_back(fmt::format("{} {}..{}", p.name, p.min, p.max));
      out.push_back(fmt::format("{} {}", m->info().name, fmt::join(ps, ", ")));
    }
  return fmt::format("{}", fmt::join(out, "; "));
}

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

  std::string model, variant = "", trace_out, report_out;
  std::vector<std::string> params, props;
  bool as_json = false, quiet = false;
  std::uint64_t max_states = 0;
  double seconds = 0;
  CheckArgs check_args;
  CLI::App* check = add_check_command(app, check_args);
  std::string workload_opt;
  KernelArgs kargs;
  check->excludes(list);

  std::string trace_file;
  auto* reportc = app.add_subcommand(
      "report", "write a counterexample trace as one self-contained HTML page: a sequence chart, the "
                "state after each step, and for scheduler traces a dispatch timeline");
  reportc->add_option("trace", trace_file, "trace JSON file")->required();
  reportc->add_option("-o,--output", report_out, "the HTML file to write")->required();
  add_kernel_options(reportc, kargs, "a trace of kernel code: that code (default: the compiled object in the cache)");
  auto* replay = app.add_subcommand("replay", "re-execute a counterexample trace in its model");
  replay->add_option("trace", trace_file, "trace JSON file")->required();
  add_kernel_options(replay, kargs, "a trace of kernel code: that code (default: the compiled object in the cache)");
  replay->add_flag("--quiet,-q", quiet, "only the verdict line");
  bool msc = false;
  replay->add_flag("--msc", msc, "print the steps as a message-sequence chart, one column per actor");

  std::string before, after;
  auto* compare = app.add_subcommand(
      "compare", "regression-check a patch: the same properties on two variants, what changed");
  compare->add_option("model", model, "model name")->required();
  compare->add_option("--before", before, "variant before the patch");
  compare->add_option("--after", after, "variant after the patch");
  KernelArgs after_code;
  add_kernel_options(compare, kargs, "the code before the patch");
  compare->add_option("--after-kernel", after_code.kernel, "the code after the patch: a tree, tarball or debian:X.Y");
  compare->add_option("--after-source", after_code.source, "the code after the patch: a scheduler FILE.c");
  compare->add_option("--param,-p", params, kParamHelp);
  compare->add_option("--workload", workload_opt, kWorkloadHelp);
  compare->add_option("--prop", props,
                      "property (repeatable; default: all; NAME<=K bounds a maximize one)");
  compare->add_option("--time", seconds, "time limit per run, seconds")
      ->check(finite_range(0.001, 1e7));
  compare->add_option("--max-states", max_states, "state limit per run")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)));
  compare->add_option("--trace-out", trace_out,
                      "write the counterexample of each verdict that changed (prefix)");
  compare->add_flag("--json", as_json, "print the comparison as JSON");

  ConformArgs conform_args;
  auto* conformc = app.add_subcommand(
      "conform", "hold blkmc's model against the kernel's own code: both explored together over every "
                 "interleaving of a workload, the same dispatch at every step, or the first departure");
  conformc->add_option("model", conform_args.model, "model name (deadline, bfq)")->required();
  conformc->add_option("--variant,-v", conform_args.variant, "the model's variant")->required();
  add_kernel_options(conformc, conform_args.code);
  conformc->add_option("--param,-p", conform_args.params, kParamHelp);
  conformc->add_option("--workload", workload_opt, kWorkloadHelp);
  conformc->add_option("--trace-out", conform_args.trace_out, "write the first departure's trace here");
  conformc->add_option("--report", conform_args.report_out, "write the first departure as an HTML page here");
  conformc->add_option("--time", conform_args.seconds, "time limit in seconds")->check(finite_range(0.001, 1e7));
  conformc->add_option("--max-states", conform_args.max_states, "stop after this many states")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)));
  conformc->add_option("--threads", conform_args.threads, "workers (default: every core)")->check(CLI::Range(1u, 1024u));
  conformc->add_flag("--json", conform_args.as_json, "print the outcome as JSON");
  conformc->add_flag("--quiet,-q", conform_args.quiet, "no progress lines on stderr");

  std::string diff_from, diff_to, diff_function;
  auto* diffc = app.add_subcommand(
      "diff", "compare a model's decision functions in two variants with Z3: proved "
              "equivalent, or the input classes where they differ");
  diffc->add_option("model", model,
                    "model name (" + model_names([](const ModelHandle& h) { return h.offers().decisions != nullptr; }) + ")")->required();
  diffc->add_option("--from", diff_from, "variant before the patch")->required();
  diffc->add_option("--to", diff_to, "variant after the patch")->required();
  diffc->add_option("--function", diff_function, "only this decision function");
  diffc->add_flag("--json", as_json, "print the comparison as JSON");
  DiffReachOptions diff_reach;
  auto* reach_opt = diffc->add_flag("--reach", diff_reach.enabled,
                  "where they differ, search breadth-first for a shortest trace to such a state: "
                  "variant TO with shadow=FROM and the model's shadow property, on each shipped "
                  "workload, smallest first (bfq, cfq, deadline)");
  diffc->add_option("--trace-out", diff_reach.trace_out, "with --reach: write the trace found here")->needs(reach_opt);
  diffc->add_option("--report", diff_reach.report, "with --reach: write the trace found as an HTML page here")
      ->needs(reach_opt);
  diffc->add_option("--param,-p", diff_reach.params,
                    "with --reach: model parameter name=value for the search (repeatable; "
                    "workload=N, NAME or FILE.wl searches only that workload)")
      ->needs(reach_opt);
  diffc->add_option("--workload", workload_opt, "with --reach: search only this workload, NAME or FILE.wl")
      ->needs(reach_opt);
  diffc->add_option("--max-states", diff_reach.max_states,
                    "with --reach: states searched per workload (default 2000000)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)))
      ->needs(reach_opt);

  ProveRequest preq;
  bool no_lemmas = false;
  auto* provec = app.add_subcommand(
      "prove", "prove invariants by k-induction with Z3 for parameters beyond explicit reach "
               "(the model's steps instantiated on z3::expr): proved, violated (a real path) "
               "or incomplete (a counterexample to induction)");
  provec->add_option("model", preq.model,
                     "model name (" + model_names([](const ModelHandle& h) { return h.offers().prove != nullptr; }) + ")")->required();
  provec->add_option("--variant,-v", preq.variant, "variant")->required();
  provec->add_option("--param,-p", preq.params,
                     "parameter name=value (repeatable; prove's own ranges: " + prove_ranges() + ")");
  provec->add_option("--prop", preq.props, "invariant property (repeatable; default: all)");
  provec->add_option("--k-max", preq.k_max, "largest k tried (default 10)");
  provec->add_option("--time", preq.seconds, "time limit per property, seconds")
      ->check(finite_range(0.001, 1e7));
  provec->add_flag("--no-lemmas", no_lemmas, "induction without the model's strengthening lemmas");
  provec->add_option("--trace-out", preq.trace_out,
                     "write a violation's path as a trace file (-PROP is added when several)");
  provec->add_flag("--json", as_json, "print the outcome as JSON");

  SimulateArgs sim_args;
  CLI::App* sim = add_simulate_command(app, sim_args);

  std::vector<std::string> suite_paths;
  double suite_seconds = 600;
  auto* suite = app.add_subcommand(
      "suite",
      "run verification suites: rows 'check MODEL VARIANT PARAMS PROPERTY EXPECTED...', "
      "'simulate MODEL VARIANT PARAMS RUN FIGURE VALUE...', 'prove MODEL VARIANT PARAMS "
      "PROPERTY VERDICT...', 'diff MODEL FROM TO FUNCTION EXPECTED...', 'replay FILE...' "
      "(PARAMS: - or the non-default k=v,k=v; an indented line continues a row; see "
      "cli/suite.hpp); `blkmc suite model/` runs the shipped suite");
  suite
      ->add_option("paths", suite_paths,
                   "suite files, directories (every *.suite below, sorted) or - for stdin")
      ->required();
  suite->add_option("--time", suite_seconds, "time limit per run, seconds")->check(finite_range(0.001, 1e7));
  bool suite_markdown = false, suite_expand = false, suite_no_reduce = false, suite_compare = false;
  suite->add_flag("--no-reduce", suite_no_reduce, "search every row without reductions");
  suite->add_flag("--compare-reductions", suite_compare,
                  "search every row with and without reductions; a row also fails when they differ");
  unsigned suite_threads = 0;
  bool suite_compare_threads = false;
  suite->add_option("--threads", suite_threads, "workers of each search (default: every core)")
      ->check(CLI::Range(1u, 1024u));
  suite->add_flag("--compare-threads", suite_compare_threads,
                  "search every check row again on one thread; a row also fails when states, "
                  "transitions, verdicts, maxima or traces differ");
  std::vector<std::string> suite_only;
  suite->add_option("--only", suite_only,
                    "run only the rows of these kinds (check, conform, simulate, prove, diff, replay; "
                    "comma-separated); the others are counted as not run")
      ->delimiter(',')
      ->check(CLI::IsMember({"check", "conform", "simulate", "prove", "diff", "replay"}));
  suite->add_flag("--markdown", suite_markdown, "print the verdict table as Markdown");
  suite->add_flag("--expand", suite_expand,
                  "run nothing; print every expectation as a canonical one-per-line row (all "
                  "parameters, as integers)");

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
    else if (diffc->parsed()) add_workload_param(workload_opt, diff_reach.params);
    else if (conformc->parsed()) add_workload_param(workload_opt, conform_args.params);
    else add_workload_param(workload_opt, params);
    no_repeats(props, "--prop");
    no_repeats(preq.props, "--prop");
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
      require_parent_dir("--trace-out", conform_args.trace_out);
      require_parent_dir("--report", conform_args.report_out);
      return run_conform(conform_args);
    }
    if (reportc->parsed()) {
      Trace t = read_trace_file(trace_file);
      const ModelHandle& mh = model_for_trace(t, kargs);
      fix_trace_sources(t);
      const std::string cmd = fmt::format("blkmc replay {0}\nblkmc check --from-trace {0}", shell_quote(trace_file));
      require_parent_dir("report", report_out);
      write_text_file(trace_report_html(mh, t, cmd), report_out, "report");
      if (!quiet) std::cout << fmt::format("report written to {}\n", report_out);
      return kExitHolds;
    }
    if (replay->parsed()) {
      Trace t = read_trace_file(trace_file);
      const ModelHandle& mh = model_for_trace(t, kargs);
      fix_trace_sources(t);
      const ReplayResult r = mh.replay(t);
      if (!quiet) {
        std::cout << fmt::format("{} --variant {} ({}), property {}: {} steps\n", t.model,
                                 t.variant, params_string(mh.info(), trace_params(mh.info(), t)),
                                 t.property, t.steps.size());
        if (msc)
          std::cout << render_msc(
              t, 34,
              mh.info().props[std::size_t(parse_prop_spec(mh.info(), t.property).index)].kind);
        else
          for (const auto& line : r.story) std::cout << line << '\n';
      }
      if (!r.verdict_line.empty())
        std::cout << (r.reproduced ? "reproduced: " : "NOT reproduced: ") << r.verdict_line << '\n';
      else
        std::cout << (r.reproduced
                          ? fmt::format("reproduced: {} is violated\n", t.property)
                          : fmt::format("NOT reproduced: {} holds at the end\n", t.property));
      return r.reproduced ? kExitHolds : kExitReplayMismatch;
    }
    if (compare->parsed()) {
      if (kargs.given() || after_code.given())
        return run_compare_kernels(model, kargs, after_code, params, props, seconds, max_states, trace_out, as_json);
      if (before.empty() || after.empty())
        throw UsageError("compare: --before and --after (variants), or --kernel/--source and "
                         "--after-kernel/--after-source (code)");
      const ModelHandle& mh = find_model(model);
      SearchOptions opt;
      opt.bfs = true;
      opt.threads = default_threads();
      opt.progress = false;
      opt.limits.seconds = seconds;
      opt.limits.max_states = max_states;
      opt.limits.memory_bytes = default_memory_limit();
      opt.reduce = ReduceOptions::all();
      const Params p = resolve_params(mh.info(), params);
      const CheckOutcome a = mh.check(before, p, props, opt);
      const CheckOutcome b = mh.check(after, p, props, opt);
      return print_comparison(a, b, trace_out, as_json);
    }
    if (provec->parsed()) {
      preq.lemmas = !no_lemmas;
      return run_prove(preq, as_json);
    }
    if (diffc->parsed()) return run_diff(model, diff_from, diff_to, diff_function, as_json, diff_reach);
    if (sim->parsed()) {
      sim_args.command = command_line(argc, argv);
      return run_simulate(sim_args);
    }
    if (dev_run->parsed()) return run_device_run(dev);
    if (dev_check->parsed()) return run_device_check(check_repeat, dev.json, dev.quiet, check_only, check_model, check_kernel);
    if (dev_stress->parsed()) return run_device_stress(stress);
    if (dev_cleanup->parsed()) return run_device_cleanup(cleanup_dry);
    if (exportc->parsed()) return run_export_fio(export_source, fio_out, fio_target);
    if (suite->parsed()) {
      if (suite_no_reduce && suite_compare)
        throw UsageError("--no-reduce and --compare-reductions exclude each other");
      SuiteSearch how;
      how.reduce = suite_no_reduce ? SuiteReduce::Off
                   : suite_compare ? SuiteReduce::Compare
                                   : SuiteReduce::On;
      how.threads = suite_threads ? suite_threads : default_threads();
      how.compare_threads = suite_compare_threads;
      how.cluster = cluster;
      how.only.insert(suite_only.begin(), suite_only.end());
      return run_suite_files(suite_paths, suite_seconds, suite_markdown, suite_expand,
                             ModelLookup(find_model), how);
    }
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
