#include "cli/replay.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/registry.hpp"
#include "app/report.hpp"
#include "app/trace_report.hpp"
#include "cli/options.hpp"
#include "common/errors.hpp"
#include "counterexamples/render.hpp"
#include "counterexamples/trace.hpp"
#include "model/params.hpp"

namespace blkmc {

CLI::App* add_replay_command(CLI::App& app, ReplayArgs& a) {
  auto* replay = app.add_subcommand("replay", "re-execute a counterexample trace in its model");
  replay->add_option("trace", a.trace_file, "trace JSON file")->required();
  add_kernel_options(replay, a.kargs, "a trace of kernel code: that code (default: the compiled object in the cache)");
  replay->add_flag("--quiet,-q", a.quiet, "only the verdict line");
  replay->add_flag("--msc", a.msc, "print the steps as a message-sequence chart, one column per actor");
  return replay;
}

CLI::App* add_report_command(CLI::App& app, ReportArgs& a) {
  auto* reportc = app.add_subcommand(
      "report", "write a counterexample trace as one self-contained HTML page: a sequence chart, the "
                "state after each step, and for scheduler traces a dispatch timeline");
  reportc->add_option("trace", a.trace_file, "trace JSON file")->required();
  reportc->add_option("-o,--output", a.report_out, "the HTML file to write")->required();
  add_kernel_options(reportc, a.kargs, "a trace of kernel code: that code (default: the compiled object in the cache)");
  return reportc;
}

int run_replay(const ReplayArgs& a) {
  Trace t = read_trace_file(a.trace_file);
  const ModelHandle& mh = model_for_trace(t, a.kargs);
  fix_trace_sources(t);
  const ReplayResult r = mh.replay(t);
  if (!a.quiet) {
    std::cout << fmt::format("{} --variant {} ({}), property {}: {} steps\n", t.model, t.variant,
                             params_string(mh.info(), trace_params(mh.info(), t)), t.property, t.steps.size());
    if (a.msc)
      std::cout << render_msc(t, 34, mh.info().props[std::size_t(parse_prop_spec(mh.info(), t.property).index)].kind);
    else
      for (const auto& line : r.story) std::cout << line << '\n';
  }
  if (!r.verdict_line.empty())
    std::cout << (r.reproduced ? "reproduced: " : "NOT reproduced: ") << r.verdict_line << '\n';
  else
    std::cout << (r.reproduced ? fmt::format("reproduced: {} is violated\n", t.property)
                               : fmt::format("NOT reproduced: {} holds at the end\n", t.property));
  return r.reproduced ? kExitHolds : kExitReplayMismatch;
}

int run_report(const ReportArgs& a) {
  Trace t = read_trace_file(a.trace_file);
  const ModelHandle& mh = model_for_trace(t, a.kargs);
  fix_trace_sources(t);
  const std::string cmd = fmt::format("blkmc replay {0}\nblkmc check --from-trace {0}", shell_quote(a.trace_file));
  require_parent_dir("report", a.report_out);
  write_text_file(trace_report_html(mh, t, cmd), a.report_out, "report");
  std::cout << fmt::format("report written to {}\n", a.report_out);
  return kExitHolds;
}

}  // namespace blkmc
