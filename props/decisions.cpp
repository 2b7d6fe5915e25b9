#include "props/decisions.hpp"

#include <fmt/format.h>

#include "model/params.hpp"

namespace blkmc {

const std::vector<DecisionFn>& decision_functions(const std::string& model) {
  static const std::vector<DecisionFn> bfq = sched::bfq_decisions();
  static const std::vector<DecisionFn> cfq = sched::cfq_decisions();
  static const std::vector<DecisionFn> deadline = sched::deadline_decisions();
  static const std::vector<DecisionFn> inflight = inflight::inflight_decisions();
  if (model == "bfq") return bfq;
  if (model == "inflight") return inflight;
  if (model == "cfq") return cfq;
  if (model == "deadline") return deadline;
  throw UsageError(fmt::format(
      "diff: model {} has no decision functions registered (bfq, cfq, deadline and inflight have)", model));
}

}  // namespace blkmc
