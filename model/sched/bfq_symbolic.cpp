// BFQ's decision functions for blkmc diff: the templates of bfq_decide.hpp,
// instantiated over z3::expr and over bool (the variant order is
// BfqScheduler's: v4.13, refactor, flash-boost, better-to-idle). The idling
// flag is one input for every version, as in the seed's claim: 4.13's
// idle_window and 1/2's has_short_ttime are taken as the same bit here; how
// the two flags are updated differently is the model's shadow check.
#include <z3++.h>

#include "model/sched/bfq_decide.hpp"
#include "props/diff.hpp"
#include "props/z3_values.hpp"

namespace blkmc::sched {

namespace {

const std::vector<std::string> kIdleNames = {"sg",    "si0",  "sync", "idlec", "rot",
                                             "noq",   "iob",  "seeky", "flag", "wr",
                                             "wrb",   "sym",  "burst"};
const std::vector<std::string> kVariants = {"v4.13", "refactor", "flash-boost", "better-to-idle"};

template <class B, class V>
IdleInputs<B> idle_inputs(const V& v, std::size_t o) {
  return {v[o + 0], v[o + 1], v[o + 2],  v[o + 3],  v[o + 4],  v[o + 5], v[o + 6],
          v[o + 7], v[o + 8], v[o + 9], v[o + 10], v[o + 11], v[o + 12]};
}

template <class B>
B may_idle(int variant, const IdleInputs<B>& in) {
  switch (variant) {
    case 0: return bfq_may_idle_v413(in);
    case 1: return bfq_may_idle_refactor(in);
    case 2: return bfq_may_idle_flash_boost(in);
    default: return bfq_better_to_idle(in);
  }
}

template <class B>
B must_idle(int variant, B empty, const IdleInputs<B>& in) {
  switch (variant) {
    case 0: return bfq_must_idle_v413(empty, in);
    case 1: return bfq_must_idle_refactor(empty, in);
    default: return bfq_must_idle_flash_boost(empty, in);  // 4.19: empty && better_to_idle
  }
}

}  // namespace

std::vector<DecisionFn> bfq_decisions() {
  std::vector<DecisionFn> v;
  v.push_back({"may_idle", "bfq_bfqq_may_idle (4.13, 4.14) / bfq_better_to_idle (4.19)",
               kIdleNames, kVariants,
               [](int var, const std::vector<z3::expr>& in) {
                 return may_idle<z3::expr>(var, idle_inputs<z3::expr>(in, 0));
               },
               [](int var, const std::vector<bool>& in) {
                 return may_idle<bool>(var, idle_inputs<bool>(in, 0));
               }});
  std::vector<std::string> must_names{"empty"};
  must_names.insert(must_names.end(), kIdleNames.begin(), kIdleNames.end());
  v.push_back({"must_idle", "bfq_bfqq_must_idle", must_names, kVariants,
               [](int var, const std::vector<z3::expr>& in) {
                 return must_idle<z3::expr>(var, in[0], idle_inputs<z3::expr>(in, 1));
               },
               [](int var, const std::vector<bool>& in) {
                 return must_idle<bool>(var, in[0], idle_inputs<bool>(in, 1));
               }});
  return v;
}

}  // namespace blkmc::sched
