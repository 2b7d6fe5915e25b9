// `blkmc check` (cli/check.hpp).
#include "cli/check.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "app/registry.hpp"
#include "app/report.hpp"
#include "app/trace_report.hpp"
#include "cli/options.hpp"
#include "common/errors.hpp"
#include "explorer/census.hpp"
#include "explorer/stores.hpp"

namespace blkmc {

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  CLI::App* check = app.add_subcommand("check", "explore every interleaving and check properties");
  check->add_option("model", a.model, "model name (see blkmc list)");
  check->add_option("--variant,-v", a.variant, "variant (kernel version or patch)");
  check->add_option("--from-trace", a.from_trace,
                    "rerun the check that produced this trace: its model, variant, parameters, "
                    "property and search order (options given here override them)");
  check->add_option("--param,-p", a.params, kParamHelp);
  check->add_option("--workload", a.workload_opt, kWorkloadHelp);
  check->add_option("--prop", a.props,
                    "property to check (repeatable; default: all); NAME<=K bounds a maximize "
                    "property");
  check->add_flag("--bfs", a.bfs, "breadth-first on every thread: shortest counterexamples (default)");
  check->add_flag("--dfs", a.dfs, "depth-first, as SPIN (one thread)");
  std::vector<std::string> stores;
  for (const StoreSpec& st : store_specs()) stores.push_back(st.name);
  check->add_option("--store", a.store_kind,
                    "how visited states are kept: " + stores_help() + "; all but plain search breadth-first")
      ->check(CLI::IsMember(stores));
  check->add_option("--disk-dir", a.disk_dir,
                    "where the disk and bitstate stores put their scratch directory (default: "
                    "$TMPDIR or /tmp; removed at the end)");
  check->add_option("--disk", a.disk_mib,
                    "disk and bitstate stores: limit on their scratch files, MiB (default: the free space of "
                    "--disk-dir's filesystem, less 16 MiB)")
      ->check(finite_range(1.0, 1e9));
  check->add_option("--sort-buffer", a.sort_mib,
                    "disk store: RAM for each of a level's two sorts, MiB (default: a quarter of --memory)")
      ->check(finite_range(1.0, 1e7));
  check->add_option("--bitstate-bits", a.bitstate_log2,
                    "bitstate: a bit array of 2^N bits (default: the largest in half of --memory, at most 2^35)")
      ->check(CLI::Range(20u, 40u));
  check->add_option("--threads", a.threads, "workers of a breadth-first search (default: every core)")
      ->check(CLI::Range(1u, 1024u));
  check->add_option("--max-states", a.max_states, "stop after this many states")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)));
  check->add_option("--max-depth", a.max_depth, "do not expand states deeper than this")
      ->check(CLI::Range(1u, 1000000000u));
  check->add_option("--time", a.seconds, "time limit in seconds")->check(finite_range(0.001, 1e7));
  check->add_option("--memory", a.memory_mib, "limit on the visited-state store, MiB (default: 3/4 of RAM)")
      ->check(finite_range(1.0, 1e7));
  check->add_option("--report", a.report_out,
                    "write each violation's trace as an HTML page here (FILE-PROP.html when several)");
  check->add_option("--trace-out", a.trace_out,
                    "write each violation's counterexample here (-PROP is added when several), and each "
                    "long-run share's cycle as a lasso (-PROP-long-run-NAME)");
  check->add_option("--dot", a.dot_out,
                    "also write the state graph in Graphviz DOT (searched again without reductions), "
                    "each counterexample drawn on it");
  check->add_option("--dot-limit", a.dot_limit, "--dot refuses a space with more states than this (default 2000)")
      ->check(CLI::Range(std::size_t(1), std::size_t(200000)));
  check->add_flag("--no-reduce", a.no_reduce, "explore the full state space (no reduction)");
  check->add_flag("--no-por", a.no_por, "no partial-order reduction");
  check->add_flag("--no-slice", a.no_slice, "no property slicing (store every variable)");
  check->add_flag("--no-symmetry", a.no_symmetry, "no symmetry reduction");
  check->add_flag("--no-abstract", a.no_abstract, "no abstraction (store values no step tells apart as they are)");
  check->add_flag("--no-path-measure", a.no_path_measure,
                  "search a path measure's counters everywhere, not only where its maximum can still be reached");
  check->add_flag("--census", a.census,
                  "after the search, which variables multiply the stored states (a factor per variable)");
  check->add_flag("--json", a.as_json, "print the outcome as JSON");
  check->add_flag("--quiet,-q", a.quiet, "no progress lines on stderr");
  add_kernel_options(check, a.kargs);
  return check;
}

int run_check(CheckArgs& a, Cluster* cluster) {
  add_workload_param(a.workload_opt, a.params);
  no_repeats(a.props, "--prop");
  if (a.bfs && a.dfs) throw UsageError("--bfs and --dfs exclude each other");
  std::optional<Trace> from;
  const ModelHandle* chosen = nullptr;
  if (!a.from_trace.empty()) {
    Trace& t = *(from = read_trace_file(a.from_trace));
    if (!a.model.empty() && a.model != t.model)
      throw UsageError(fmt::format("--from-trace: the trace is for model {}, not {}", t.model, a.model));
    a.model = t.model;
    chosen = &model_for_trace(t, a.kargs);
    fix_trace_sources(t);
    if (a.variant.empty()) a.variant = t.variant;
    if (a.props.empty()) a.props = {t.property};
    if (!a.bfs && !a.dfs) a.dfs = t.search == "dfs";
  } else if (a.kargs.given()) {
    if (a.model.empty()) throw UsageError("check: a model name is required");
    if (!a.variant.empty())
      throw UsageError("check: --variant names one of blkmc's models of the code; with --kernel or --source the "
                       "code itself is checked (compare it with a model variant: blkmc conform)");
    const KernelChoice kc = choose_kernel(a.model, a.kargs);
    chosen = kc.model;
    a.variant = kc.variant;
  }
  if (a.model.empty()) throw UsageError("check: a model name (or --from-trace) is required");
  if (a.variant.empty()) throw UsageError("check: --variant (or --from-trace, --kernel, --source) is required");
  const ModelHandle& mh = chosen ? *chosen : find_model(a.model);
  // -p values win over the trace's, the trace's over the defaults.
  Params run_params = resolve_params(mh.info(), a.params);
  for (const auto& [k, v] : from ? trace_params(mh.info(), *from) : Params{}) {
    const bool named = std::any_of(a.params.begin(), a.params.end(), [&](const std::string& kv) {
      return kv.substr(0, kv.find('=')) == k;
    });
    if (!a.from_trace.empty() && !named) run_params[k] = v;
  }
  if (a.dfs && a.threads > 1) throw UsageError("--dfs searches on one thread (--threads is for breadth-first)");
  SearchOptions opt;
  opt.bfs = !a.dfs;
  opt.threads = a.threads ? a.threads : default_threads();
  opt.store = find_store(a.store_kind)->kind;  // CLI11 checked the name
  const bool on_disk = store_spec(opt.store).on_disk;
  if (!on_disk && (!a.disk_dir.empty() || a.sort_mib > 0 || a.bitstate_log2 || a.disk_mib > 0))
    throw UsageError("--disk, --disk-dir, --sort-buffer and --bitstate-bits are for --store disk or bitstate");
  if (a.sort_mib > 0 && opt.store != StoreKind::Disk) throw UsageError("--sort-buffer is for --store disk");
  if (a.bitstate_log2 && opt.store != StoreKind::Bitstate) throw UsageError("--bitstate-bits is for --store bitstate");
  if (!a.disk_dir.empty() && !std::filesystem::is_directory(a.disk_dir))
    throw UsageError(fmt::format("--disk-dir {}: not a directory", a.disk_dir));
  opt.disk_dir = a.disk_dir;
  opt.sort_buffer_bytes = std::size_t(a.sort_mib * 1024 * 1024);
  opt.bitstate_log2 = a.bitstate_log2;
  opt.progress = !a.quiet;
  opt.cluster = cluster;
  opt.limits.max_states = a.max_states;
  opt.limits.max_depth = a.max_depth;
  opt.limits.seconds = a.seconds;
  opt.limits.memory_bytes = a.memory_mib > 0 ? std::uint64_t(a.memory_mib * 1024 * 1024)
                                           : default_memory_limit();
  opt.limits.disk_bytes = std::uint64_t(a.disk_mib * 1024 * 1024);
  // Every reduction that is sound for the selected properties
  // (explorer/reduced_model.hpp), unless switched off.
  opt.reduce = {!a.no_reduce && !a.no_slice, !a.no_reduce && !a.no_symmetry, !a.no_reduce && !a.no_por,
                !a.no_reduce && !a.no_abstract, !a.no_reduce && !a.no_slice && !a.no_path_measure};
  // Where traces go is checked before the search, not after it.
  for (const auto& [what, out] :
       {std::pair{"--trace-out", a.trace_out}, std::pair{"--dot", a.dot_out}, std::pair{"--report", a.report_out}})
    require_parent_dir(what, out);
  if (a.census && cluster) throw UsageError("--census reads one process's store: run it without mpirun");
  if (a.census && opt.store == StoreKind::HashCompact) throw UsageError(kCensusNeedsStates);
  opt.census = a.census;
  if (!a.dot_out.empty() && cluster) throw UsageError("--dot draws small spaces: run it without mpirun");
  const CheckOutcome o = mh.check(a.variant, run_params, a.props, opt);
  std::vector<std::string> write_errors;  // reported after the verdicts, which are never lost
  // Each violation's trace (and page) under BASE, or BASE-PROP.EXT when
  // several; under mpirun every rank has the verdicts, rank 0 writes.
  auto write_each = [&](const std::string& base, const auto& write) {
    nlohmann::json done = nlohmann::json::object();
    if (base.empty() || (cluster && cluster->rank() != 0)) return done;
    int violated = 0;
    for (const auto& p : o.props) violated += p.trace.has_value();
    for (const auto& p : o.props)
      if (p.trace) try {
          const std::string path = trace_path(base, p.name, violated > 1);
          write(*p.trace, path);
          done[p.name] = path;
        } catch (const UsageError& e) {
          write_errors.push_back(e.what());
        }
    return done;
  };
  nlohmann::json written = write_each(a.trace_out, write_trace_file);
  // Each long-run share's lasso beside them: BASE-PROP-long-run-NAME.EXT.
  if (!a.trace_out.empty() && (!cluster || cluster->rank() == 0))
    for (const auto& p : o.props)
      for (const Trace& st : p.share_traces) try {
          const std::string of = st.share.at("of").get<std::string>();
          const std::string path = trace_path(a.trace_out, p.name + "-long-run-" + of, true);
          write_trace_file(st, path);
          written[fmt::format("{} (long run: {})", p.name, of)] = path;
        } catch (const UsageError& e) {
          write_errors.push_back(e.what());
        }
  const nlohmann::json reports = write_each(a.report_out, [&](const Trace& t, const std::string& path) {
    write_text_file(trace_report_html(mh, t, a.command), path, "report");
  });
  // The graph after the verdicts are in hand: a refusal or a write
  // error loses none of them.
  std::string dot_written;
  if (!a.dot_out.empty()) {
    try {
      std::size_t n = 0, e = 0;
      const std::string dot = mh.state_graph(a.variant, run_params, o, a.dot_limit, n, e);
      std::ofstream f(a.dot_out);
      if (!f || !(f << dot) || !f.flush()) throw UsageError(fmt::format("cannot write '{}'", a.dot_out));
      dot_written = fmt::format("state graph ({} states, {} edges) written to {}", n, e, a.dot_out);
    } catch (const UsageError& e) {
      write_errors.push_back(e.what());
    }
  }
  if (a.as_json) {
    auto j = outcome_json(o);
    j["traces_written"] = written;
    if (!a.report_out.empty()) j["reports_written"] = reports;
    if (!dot_written.empty()) j["dot_written"] = a.dot_out;
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << outcome_text(o);
    for (const auto& [prop, path] : written.items())
      std::cout << fmt::format("  trace for {} written to {}\n", prop, path.get<std::string>());
    for (const auto& [prop, path] : reports.items())
      std::cout << fmt::format("  report for {} written to {}\n", prop, path.get<std::string>());
    if (!dot_written.empty()) std::cout << "  " << dot_written << '\n';
  }
  for (const auto& e : write_errors) std::cerr << "blkmc: " << e << '\n';
  if (!write_errors.empty()) return kExitUsage;
  return exit_code(o);
}

}  // namespace blkmc
