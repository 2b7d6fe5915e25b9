#include "cli/simulate.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
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

}  // namespace blkmc
