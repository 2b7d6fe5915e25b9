#include "cli/simulate.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
#include "cli/options.hpp"
#include "model/params.hpp"
#include "app/sim_report.hpp"
#include "counterexamples/trace.hpp"
#include "props/verdict.hpp"

namespace blkmc {

int run_simulation(const ModelHandle& mh, const std::string& variant, const Params& params,
                   const SimOptions& opt, bool as_json, const std::string& report, const std::string& command) {
  const SimOutcome o = mh.simulate(variant, params, opt);
  // The page after the run; a write error is reported after the figures.
  std::string report_error;
  if (!report.empty()) try {
      write_text_file(simulation_report_html(o, params_string(mh.info(), o.params), command), report, "report");
    } catch (const UsageError& e) {
      report_error = e.what();
    }
  if (as_json) {
    nlohmann::json j{{"model", o.model},
                     {"variant", o.variant},
                     {"params", o.params},
                     {"schedule", o.random ? "random" : "first"},
                     {"seed", o.random ? nlohmann::json(o.seed) : nlohmann::json()},
                     {"steps", o.steps},
                     {"end", to_string(o.end)},
                     {"seconds", o.seconds},
                     {"final_state", o.final_summary},
                     {"figures", o.figures}};
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << fmt::format("{} --variant {} ({}), {}: {} after {} steps ({:.2f} s)\n", o.model,
                             o.variant, params_string(mh.info(), o.params), o.schedule, to_string(o.end),
                             o.steps, o.seconds);
    std::cout << o.text;
    std::cout << fmt::format("  final state: {}\n", o.final_summary);
    if (!report.empty() && report_error.empty()) std::cout << fmt::format("  report written to {}\n", report);
  }
  if (!report_error.empty()) {
    std::cerr << "blkmc: " << report_error << '\n';
    return kExitUsage;
  }
  return o.end == SimEnd::Deadlock      ? kExitViolated
         : o.end == SimEnd::Interrupted ? kExitIncomplete
                                        : kExitHolds;
}

CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& a) {
  auto* sim = app.add_subcommand(
      "simulate",
      "run one schedule (seeded random, or the first enabled step) and print per-process "
      "throughput, latency percentiles and the dispatch order");
  sim->add_option("model", a.model, "model name")->required();
  sim->add_option("--variant,-v", a.variant, "variant (or the kernel's code: --kernel / --source)");
  add_kernel_options(sim, a.kargs, "the code to run");
  sim->add_option("--param,-p", a.params, kParamHelp);
  sim->add_option("--workload", a.workload_opt, kWorkloadHelp);
  sim->add_option("--report", a.report_out,
                  "also draw the run in an HTML page here: latency CDF and service over time per process, seek distance");
  auto* seed_opt = sim->add_option("--seed", a.opt.seed, "seed of the random schedule (default 1)")->check(kUnsigned64);
  sim->add_flag("--first", a.first, "always take the first enabled step (no randomness)")->excludes(seed_opt);
  sim->add_option("--steps", a.opt.max_steps, "stop after this many steps (default 1000000)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1000000000000ULL)));
  sim->add_option("--ticks", a.opt.max_ticks, "stop after this many ticks (clock=1)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1000000000000ULL)));
  sim->add_option("--time", a.opt.seconds, "time limit in seconds")->check(finite_range(0.001, 1e7));
  sim->add_flag("--json", a.as_json, "print the figures as JSON");
  sim->add_flag("--quiet,-q", a.quiet, "no progress lines on stderr");
  return sim;
}

int run_simulate(SimulateArgs& a) {
  add_workload_param(a.workload_opt, a.params);
  const ModelHandle* chosen = &find_model(a.model);
  if (a.kargs.given()) {
    if (!a.variant.empty()) throw UsageError("simulate: --variant or the kernel's code (--kernel / --source), not both");
    const KernelChoice kc = choose_kernel(a.model, a.kargs);
    chosen = kc.model;
    a.variant = kc.variant;
  }
  if (a.variant.empty()) throw UsageError("simulate: --variant (or --kernel / --source) is required");
  const ModelHandle& mh = *chosen;
  a.opt.random = !a.first;
  a.opt.progress = !a.quiet;
  if (a.opt.max_steps == 0) a.opt.max_steps = 1000000;
  require_parent_dir("--report", a.report_out);
  return run_simulation(mh, a.variant, resolve_params(mh.info(), a.params), a.opt, a.as_json, a.report_out,
                        a.command);
}

}  // namespace blkmc
