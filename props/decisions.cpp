#include "props/decisions.hpp"

#include <fmt/format.h>

#include "model/params.hpp"

namespace blkmc {

const std::vector<DecisionFn>& decision_functions(const std::string& model) {
  static const std::vector<DecisionFn> bfq = sched::bfq_decisions();
  if (model == "bfq") return bfq;
  throw UsageError(fmt::format("diff: model {} has no decision functions registered (bfq has)",
                               model));
}

}  // namespace blkmc
