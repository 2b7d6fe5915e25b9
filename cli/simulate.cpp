#include "cli/simulate.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
#include "props/verdict.hpp"

namespace blkmc {

int run_simulation(const ModelHandle& mh, const std::string& variant, const Params& params,
                   const SimOptions& opt, bool as_json) {
  const SimOutcome o = mh.simulate(variant, params, opt);
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
                             o.variant, params_text(o.model, o.params), o.schedule, to_string(o.end),
                             o.steps, o.seconds);
    std::cout << o.text;
    std::cout << fmt::format("  final state: {}\n", o.final_summary);
  }
  return o.end == SimEnd::Deadlock      ? kExitViolated
         : o.end == SimEnd::Interrupted ? kExitIncomplete
                                        : kExitHolds;
}

}  // namespace blkmc
