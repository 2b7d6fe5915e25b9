// model/sched/deadline/deadline_symbolic: the deadline decision templates (deadline_decide.hpp)
// registered for `blkmc diff`, each instantiated over z3::expr and over int.
#pragma once

#include <vector>

#include "model/decision.hpp"

namespace blkmc::sched {

std::vector<DecisionFn> deadline_decisions();

}  // namespace blkmc::sched
