#include "cli/conform.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
#include "app/trace_report.hpp"
#include "common/errors.hpp"
#include "counterexamples/trace.hpp"
#include "explorer/limits.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

int run_conform(const ConformArgs& a) {
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
