#include "cli/conform.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
#include "app/trace_report.hpp"
#include "cli/options.hpp"
#include "common/errors.hpp"
#include "counterexamples/trace.hpp"
#include "explorer/limits.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

CLI::App* add_conform_command(CLI::App& app, ConformArgs& a) {
  auto* conformc = app.add_subcommand(
      "conform", "hold blkmc's model against the kernel's own code: both explored together over every "
                 "interleaving of a workload, the same dispatch at every step, or the first departure");
  conformc->add_option("model", a.model, "model name (deadline, bfq)")->required();
  conformc->add_option("--variant,-v", a.variant, "the model's variant")->required();
  add_kernel_options(conformc, a.code);
  conformc->add_option("--param,-p", a.params, kParamHelp);
  conformc->add_option("--workload", a.workload_opt, kWorkloadHelp);
  conformc->add_option("--trace-out", a.trace_out, "write the first departure's trace here");
  conformc->add_option("--report", a.report_out, "write the first departure as an HTML page here");
  conformc->add_option("--time", a.seconds, "time limit in seconds")->check(finite_range(0.001, 1e7));
  conformc->add_option("--max-states", a.max_states, "stop after this many states")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)));
  conformc->add_option("--threads", a.threads, "workers (default: every core)")->check(CLI::Range(1u, 1024u));
  conformc->add_flag("--json", a.as_json, "print the outcome as JSON");
  conformc->add_flag("--quiet,-q", a.quiet, "no progress lines on stderr");
  return conformc;
}

int run_conform(ConformArgs& a) {
  add_workload_param(a.workload_opt, a.params);
  require_parent_dir("--trace-out", a.trace_out);
  require_parent_dir("--report", a.report_out);
  if (a.variant.empty()) throw UsageError("conform: --variant names the model variant to hold against the code");
  const ModelHandle& hand = find_model(a.model);
  find_variant_index(hand.info(), a.variant);  // an unknown variant fails before anything is compiled
  const KernelChoice kc = choose_kernel(a.model, a.code, KernelUse::Conform);
  std::vector<std::string> params = a.params;
  for (const auto& kv : params)
    if (kv.rfind("hand=", 0) == 0) throw UsageError("conform: -v names the model's variant (not -p hand=)");
  params.push_back("hand=" + a.variant);
  SearchOptions opt;
  opt.bfs = true;
  opt.threads = a.threads ? a.threads : default_threads();
  opt.progress = !a.quiet;
  opt.limits.seconds = a.seconds;
  opt.limits.max_states = a.max_states;
  opt.limits.memory_bytes = default_memory_limit();
  const CheckOutcome o = kc.model->check(kc.variant, resolve_params(kc.model->info(), params), {}, opt);
  for (const auto& p : o.props)
    if (p.trace) {
      if (!a.trace_out.empty()) write_trace_file(*p.trace, a.trace_out);
      if (!a.report_out.empty())
        write_text_file(trace_report_html(*kc.model, *p.trace, a.command), a.report_out, "report");
      break;  // the first violation's (conforms before kernel-bug)
    }
  if (a.as_json) {
    std::cout << outcome_json(o).dump(2) << '\n';
  } else {
    std::cout << fmt::format("conform {}: blkmc's {} against {}\n", a.model, a.variant, kc.variant);
    std::cout << outcome_text(o);
    for (const auto& p : o.props)
      if (p.trace && p.name == "conforms") {
        const TraceStep& last = p.trace->steps.back();
        std::cout << fmt::format("  first departure after {} steps: {}\n", p.trace->steps.size() - 1, last.text);
        if (!a.trace_out.empty()) std::cout << fmt::format("  trace written to {}\n", a.trace_out);
        if (!a.report_out.empty()) std::cout << fmt::format("  report written to {}\n", a.report_out);
      }
  }
  return exit_code(o);
}

}  // namespace blkmc
