// BFQ's decision functions for blkmc diff: the templates of bfq_decide.hpp,
// instantiated over z3::expr and over bool (the variant order is
// BfqScheduler's: v4.13, refactor, flash-boost, better-to-idle, v6.12). The idling
// flag is one input for every version, as in the seed's claim: 4.13's
// idle_window and 1/2's has_short_ttime are taken as the same bit here; how
// the two flags are updated differently is the model's shadow check.
#include <z3++.h>

#include "model/sched/bfq/bfq_decide.hpp"
#include "model/sched/bfq/bfq_symbolic.hpp"
#include "model/z3_values.hpp"

namespace blkmc::sched {

namespace {

// The inputs of IdleInputs, in its order, with the kernel expressions they
// stand for (block/bfq-iosched.c, 4.13 to 4.19). `flag` is one bit for
// every version: 4.13's bfq_bfqq_idle_window, later has_short_ttime.
const std::vector<KernelTerm> kIdleInputs = {
    {"sg", "bfqd->strict_guarantees"},
    {"si0", "bfqd->bfq_slice_idle == 0"},
    {"sync", "bfq_bfqq_sync(bfqq)"},
    {"idlec", "bfqq->ioprio_class == IOPRIO_CLASS_IDLE"},
    {"rot", "!blk_queue_nonrot(bfqd->queue)"},
    {"noq", "!bfqd->hw_tag"},
    {"iob", "bfq_bfqq_IO_bound(bfqq)"},
    {"seeky", "BFQQ_SEEKY(bfqq)"},
    {"flag", "bfq_bfqq_has_short_ttime(bfqq)"},
    {"wr", "bfqq->wr_coeff > 1"},
    {"wrb", "bfqd->wr_busy_queues > 0"},
    {"sym", "bfq_symmetric_scenario(bfqd)"},
    {"burst", "bfq_bfqq_in_large_burst(bfqq)"},
    {"asym", "bfq_asymmetric_scenario(bfqd, bfqq)"},
    {"tot1", "bfq_tot_busy_queues(bfqd) == 1"},
    {"wrlt", "bfqd->wr_busy_queues < bfq_tot_busy_queues(bfqd)"},
    {"drv4", "bfqd->tot_rq_in_driver >= bfqq->dispatched + 4"}};
const std::vector<std::string> kVariants = {"v4.13", "refactor", "flash-boost", "better-to-idle", "v6.12"};

template <class B, class V>
IdleInputs<B> idle_inputs(const V& v, std::size_t o) {
  return {v[o + 0], v[o + 1], v[o + 2],  v[o + 3],  v[o + 4],  v[o + 5],  v[o + 6], v[o + 7], v[o + 8],
          v[o + 9], v[o + 10], v[o + 11], v[o + 12], v[o + 13], v[o + 14], v[o + 15], v[o + 16]};
}

template <class B>
B may_idle(int variant, const IdleInputs<B>& in) {
  switch (variant) {
    case 0: return bfq_may_idle_v413(in);
    case 1: return bfq_may_idle_refactor(in);
    case 2: return bfq_may_idle_flash_boost(in);
    case 3: return bfq_better_to_idle(in);
    default: return bfq_better_to_idle_612(in);
  }
}

template <class B>
B must_idle(int variant, B empty, const IdleInputs<B>& in) {
  switch (variant) {
    case 0: return bfq_must_idle_v413(empty, in);
    case 1: return bfq_must_idle_refactor(empty, in);
    case 4: return bfq_must_idle_612(empty, in);
    default: return bfq_must_idle_flash_boost(empty, in);  // 4.19: empty && better_to_idle
  }
}

std::vector<bool> bools(const std::vector<int>& x) { return std::vector<bool>(x.begin(), x.end()); }

std::vector<DiffInput> bool_inputs(const std::vector<KernelTerm>& terms) {
  std::vector<DiffInput> v;
  for (const auto& t : terms) v.push_back(bool_input(t.name, t.kernel));
  return v;
}

}  // namespace

std::vector<DecisionFn> bfq_decisions() {
  std::vector<DecisionFn> v;
  const std::string reach =
      "blkmc check bfq -v FROM -p shadow=TO --prop same-decisions finds a trace to such a state "
      "(see counterexamples/bfq/)";
  DecisionFn may;
  may.name = "may_idle";
  may.kernel =
      "bfq_bfqq_may_idle (4.13, 4.14) / bfq_better_to_idle (4.19); the idling flag is 4.13's "
      "bfq_bfqq_idle_window, later bfq_bfqq_has_short_ttime";
  may.inputs = bool_inputs(kIdleInputs);
  may.variants = kVariants;
  may.outcomes = {"false", "true"};
  may.symbolic = [](int var, const std::vector<z3::expr>& in, SymNames&) {
    return may_idle<z3::expr>(var, idle_inputs<z3::expr>(in, 0));
  };
  may.concrete = [](int var, const std::vector<int>& x) {
    return int(may_idle<bool>(var, idle_inputs<bool>(bools(x), 0)));
  };
  may.reach = reach;
  v.push_back(may);
  std::vector<KernelTerm> must_names{{"empty", "RB_EMPTY_ROOT(&bfqq->sort_list)"}};
  must_names.insert(must_names.end(), kIdleInputs.begin(), kIdleInputs.end());
  DecisionFn must = may;
  must.name = "must_idle";
  must.kernel = "bfq_bfqq_must_idle";
  must.inputs = bool_inputs(must_names);
  must.symbolic = [](int var, const std::vector<z3::expr>& in, SymNames&) {
    return must_idle<z3::expr>(var, in[0], idle_inputs<z3::expr>(in, 1));
  };
  must.concrete = [](int var, const std::vector<int>& x) {
    const auto b = bools(x);
    return int(must_idle<bool>(var, b[0], idle_inputs<bool>(b, 1)));
  };
  v.push_back(must);
  return v;
}

}  // namespace blkmc::sched
