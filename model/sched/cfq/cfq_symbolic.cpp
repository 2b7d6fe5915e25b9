// CFQ's decision functions for blkmc diff: the templates of cfq_decide.hpp,
// instantiated over z3::expr and over int/bool, composed per variant as
// CfqScheduler composes them (variant order: 2.6.33, seeky-rework, 3.1-rc5,
// deep-fix-v1, deep-fix-v2). Seed 000's v1-vs-v2 question is mark_deep,
// undeepen and fast_sample; seed 001's is seeky.
#include <fmt/format.h>
#include <z3++.h>

#include "model/sched/cfq/cfq_decide.hpp"
#include "model/sched/cfq/cfq_symbolic.hpp"
#include "model/z3_values.hpp"

namespace blkmc::sched {

namespace {

const std::vector<std::string> kVariants = {"2.6.33", "seeky-rework", "3.1-rc5", "deep-fix-v1",
                                            "deep-fix-v2"};
// The features of each variant, as CfqScheduler derives them.
bool history_seek(int v) { return v != 0; }
bool v31(int v) { return v >= 2; }
bool fast_rule(int v) { return v >= 3; }

// The model's default thresholds (CfqScheduler::params()).
constexpr int kWindow = 8, kSeekyBits = 1, kSeekThr = 8, kSeekMeanThr = 8, kNonrotSize = 2;

// Constants and booleans of the instantiation's type.
z3::expr bconst(const z3::expr& like, bool b) { return like.ctx().bool_val(b); }
bool bconst(int /*like*/, bool b) { return b; }
z3::expr iconst(const z3::expr& like, int v) { return z3::ival(like, v); }
int iconst(int /*like*/, int v) { return v; }
const z3::expr& as_bool(const z3::expr& e) { return e; }
bool as_bool(int v) { return v != 0; }

// cfq_update_idle_window step 1: mark the queue deep.
struct MarkDeep {
  template <class X, class N>
  auto operator()(int v, const std::vector<X>& in, N& /*names*/) const {
    return cfq::marks_deep(bconst(in[0], fast_rule(v)), in[0], as_bool(in[1]));
  }
};

// cfq_select_queue step 8 (3.1-rc5 only; deleted by seed 000's patches):
// whether the queue is still deep afterwards.
struct KeepsDeep {
  template <class X, class N>
  auto operator()(int v, const std::vector<X>& in, N& /*names*/) const {
    const auto deep = as_bool(in[0]);
    const auto undeepen = cfq::undeepen_v31(as_bool(in[1]), as_bool(in[2]), as_bool(in[3]),
                                            in[4], in[5]);
    return deep && !(bconst(in[0], v == 2) && undeepen);
  }
};

// cfq_fast_device_detect_end: whether the drained batch is a fast sample.
// v1 (reconstructed) times single requests: its count stays 1. Versions
// without the detector never take a sample.
struct FastSample {
  template <class X, class N>
  auto operator()(int v, const std::vector<X>& in, N& /*names*/) const {
    const X count = v == 3 ? iconst(in[1], 1) : in[1];
    return bconst(in[0], fast_rule(v)) &&
           cfq::fast_sample<decltype(bconst(in[0], true)), X>(in[0], count);
  }
};

struct ShouldIdle {
  template <class X, class N>
  auto operator()(int v, const std::vector<X>& in, N& /*names*/) const {
    return cfq::should_idle(bconst(in[0], v31(v)), in[0], as_bool(in[1]), as_bool(in[2]),
                            as_bool(in[3]), as_bool(in[4]), in[5], as_bool(in[6]),
                            as_bool(in[7]));
  }
};

// Seed 001: is a queue seeky after its first kWindow requests? Inputs:
// nonrot, the distances of requests 2..W from their predecessor (request 1
// has no last position: distance 0), and the sizes of requests 1..W.
// 2.6.33 feeds the distances to the EWMA and compares the mean once the
// samples are valid; the rework shifts one bit per request into
// seek_history and counts the bits.
struct Seeky {
  template <class X, class N>
  auto operator()(int v, const std::vector<X>& in, N& names) const {
    const auto nonrot = as_bool(in[0]);
    const X zero = iconst(in[1], 0);
    auto dist = [&](int i) { return i == 0 ? zero : in[std::size_t(i)]; };
    auto size = [&](int i) { return in[std::size_t(kWindow + i)]; };
    if (!history_seek(v)) {
      int samples = 0;
      X total = zero;
      for (int i = 0; i < kWindow; ++i) {
        const X mean = cfq::seek_mean_v2633(samples, total);
        const X sdist = cfq::seek_sdist_clamped_v2633(samples, mean, dist(i), kSeekMeanThr);
        total = cfq::seek_total_next_v2633(total, sdist);
        samples = cfq::seek_samples_next_v2633(samples);
      }
      const X mean = names("seek_mean", cfq::seek_mean_v2633(samples, total));
      return cfq::seeky_mean_v2633(bconst(in[1], samples > 80), mean,
                                   iconst(in[1], kSeekMeanThr));
    }
    using blkmc::ite;  // and z3::ite, by argument-dependent lookup
    X count = zero;
    for (int i = 0; i < kWindow; ++i)
      count = count + ite(cfq::seek_bit_v31(nonrot, size(i), dist(i),
                                                 iconst(in[1], kNonrotSize),
                                                 iconst(in[1], kSeekThr)),
                               iconst(in[1], 1), zero);
    const X bits = names("seeky_requests", count);
    return cfq::seeky_hist_v31<decltype(bconst(in[1], true)), X>(bits,
                                                                 iconst(in[1], kSeekyBits));
  }
};

template <class F>
DecisionFn make(std::string name, std::string kernel, std::vector<DiffInput> inputs) {
  DecisionFn f;
  f.name = std::move(name);
  f.kernel = std::move(kernel);
  f.inputs = std::move(inputs);
  f.variants = kVariants;
  f.outcomes = {"false", "true"};
  f.symbolic = [](int v, const std::vector<z3::expr>& in, SymNames& names) {
    return F{}(v, in, names);
  };
  f.concrete = [](int v, const std::vector<int>& in) {
    ConcreteNames names;
    return int(F{}(v, in, names));
  };
  f.reach =
      "blkmc check cfq -v TO -p shadow=FROM --prop same-decisions --bfs (shadow_fn=N: this "
      "decision only) finds a trace to such a state; blkmc diff --reach runs it";
  return f;
}

}  // namespace

std::vector<DecisionFn> cfq_decisions() {
  std::vector<DecisionFn> v;
  // Each input with the kernel expression it stands for (block/cfq-iosched.c
  // 2.6.33 to 3.1, and seed 000's patches); times are in the model's ticks
  // (jiffies), distances and sizes in its sector units.
  v.push_back(make<MarkDeep>(
      "mark_deep", "cfq_update_idle_window: mark the queue deep",
      {int_input("queued", 0, 64, "cfqq->queued[0] + cfqq->queued[1]"),
       bool_input("device_fast", "CFQD_FAST(cfqd)")}));
  v.push_back(make<KeepsDeep>(
      "keeps_deep", "cfq_select_queue: the deep flag after the un-deepening block (3.1)",
      {bool_input("deep", "cfq_cfqq_deep(cfqq)"), bool_input("seeky", "CFQQ_SEEKY(cfqq)"),
       bool_input("idle_window", "cfq_cfqq_idle_window(cfqq)"),
       bool_input("slice_new", "cfq_cfqq_slice_new(cfqq)"),
       int_input("slice_left", 0, 60, "cfqq->slice_end - jiffies"),
       int_input("slice_elapsed", 0, 60, "jiffies - cfqq->slice_start")}));
  v.push_back(make<FastSample>(
      "fast_sample", "cfq_fast_device_detect_end: a fast sample",
      {int_input("elapsed", 0, 15, "jiffies - cfqq->seeky_dispatch_start"),
       int_input("batch", 1, 15, "cfqq->seeky_dispatched")}));
  v.push_back(make<ShouldIdle>(
      "should_idle", "cfq_should_idle",
      {int_input("slice_idle", 0, 30, "cfqd->cfq_slice_idle"),
       bool_input("idle_class", "cfqq_prio(cfqq) == IDLE_WORKLOAD"),
       bool_input("idle_window", "cfq_cfqq_idle_window(cfqq)"),
       bool_input("nonrot", "blk_queue_nonrot(cfqd->queue)"), bool_input("hw_tag", "cfqd->hw_tag"),
       int_input("tree_count", 0, 8, "service_tree->count"), bool_input("sync", "cfq_cfqq_sync(cfqq)"),
       bool_input("tree_ttime_big", "cfq_io_thinktime_big(cfqd, &service_tree->ttime, false)")}));
  std::vector<DiffInput> window{bool_input("nonrot", "blk_queue_nonrot(cfqd->queue)")};
  for (int i = 2; i <= kWindow; ++i)
    window.push_back(int_input("dist" + std::to_string(i), 0, 255,
                               fmt::format("abs(blk_rq_pos(rq{}) - cfqq->last_request_pos)", i)));
  for (int i = 1; i <= kWindow; ++i)
    window.push_back(int_input("size" + std::to_string(i), 1, 255, fmt::format("blk_rq_sectors(rq{})", i)));
  v.push_back(make<Seeky>(
      "seeky", "CFQQ_SEEKY after a queue's first 8 requests rq1..rq8 (cfq_update_io_seektime)", window));
  v.back().bv_width = 24;  // the 2.6.33 EWMA divides at every step
  v.back().terms = {{"seek_mean", "cfqq->seek_mean"}, {"seeky_requests", "hweight32(cfqq->seek_history)"}};
  return v;
}

}  // namespace blkmc::sched
