// props/decisions: the decision functions each model registers for
// blkmc diff (written once as templates; see props/diff.hpp).
#pragma once

#include <string>
#include <vector>

#include "props/diff.hpp"

namespace blkmc {

namespace sched {
std::vector<DecisionFn> bfq_decisions();
std::vector<DecisionFn> cfq_decisions();
std::vector<DecisionFn> deadline_decisions();
}
namespace inflight {
std::vector<DecisionFn> inflight_decisions();
}

// The decision functions of a model; throws UsageError when it has none.
const std::vector<DecisionFn>& decision_functions(const std::string& model);

}  // namespace blkmc
