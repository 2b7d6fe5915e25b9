#include "cli/diff.hpp"

#include <csignal>
#include <iostream>

#include <fmt/format.h>

#include "model/params.hpp"
#include "props/decisions.hpp"
#include "props/verdict.hpp"

namespace blkmc {

namespace {

int variant_of(const DecisionFn& f, const std::string& name) {
  for (std::size_t i = 0; i < f.variants.size(); ++i)
    if (f.variants[i] == name) return static_cast<int>(i);
  std::string valid;
  for (const auto& v : f.variants) valid += (valid.empty() ? "" : ", ") + v;
  throw UsageError(fmt::format("diff: {} has no variant '{}' (valid: {})", f.name, name, valid));
}

}  // namespace

int run_diff(const std::string& model, const std::string& from, const std::string& to,
             const std::string& function, bool as_json) {
  // Nothing partial is worth keeping from a solver call, and z3 does not
  // poll the explorer's interrupt flag: Ctrl-C and SIGTERM end diff at once.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const auto& fns = decision_functions(model);
  std::vector<const DecisionFn*> chosen;
  for (const auto& f : fns)
    if (function.empty() || f.name == function) chosen.push_back(&f);
  if (chosen.empty()) {
    std::string valid;
    for (const auto& f : fns) valid += (valid.empty() ? "" : ", ") + f.name;
    throw UsageError(
        fmt::format("diff: model {} has no decision function '{}' (valid: {})", model, function, valid));
  }
  bool all_equal = true;
  nlohmann::json j = nlohmann::json::array();
  for (const DecisionFn* f : chosen) {
    const DiffResult r = diff_decision(*f, variant_of(*f, from), variant_of(*f, to));
    all_equal = all_equal && r.equivalent;
    if (as_json) j.push_back(diff_json(r));
    else std::cout << fmt::format("{} ", model) << diff_text(r, *f) << std::flush;
  }
  if (as_json) std::cout << j.dump(2) << '\n';
  return all_equal ? kExitHolds : kExitViolated;
}

}  // namespace blkmc
