// model/sched/cfq/cfq_symbolic: the cfq decision templates (cfq_decide.hpp)
// registered for `blkmc diff`, each instantiated over z3::expr and over int.
#pragma once

#include <vector>

#include "model/decision.hpp"

namespace blkmc::sched {

std::vector<DecisionFn> cfq_decisions();

}  // namespace blkmc::sched
