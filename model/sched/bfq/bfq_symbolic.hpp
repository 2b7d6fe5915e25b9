// model/sched/bfq/bfq_symbolic: the bfq decision templates (bfq_decide.hpp)
// registered for `blkmc diff`, each instantiated over z3::expr and over int.
#pragma once

#include <vector>

#include "model/decision.hpp"

namespace blkmc::sched {

std::vector<DecisionFn> bfq_decisions();

}  // namespace blkmc::sched
