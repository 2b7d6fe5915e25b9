// The scheduler models' abstraction layer (model/sched/sched_abstraction.hpp):
// what each scheduler merges on which device; along random walks, a state
// and any state with the same key (the order in service shuffled, the
// hw_tag detectors' values and CFQ's slice_dispatch changed) enable the
// same steps to successors with the same keys and show every property the
// same; the verdicts, maxima and traces with and without it; and a merge
// too wide is caught.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/sched/sched_model.hpp"
#include "tests/model_cases.hpp"
#include "tests/reduction_checks.hpp"
#include "tests/sched_test_util.hpp"

namespace blkmc::testing {
namespace reduction_abstraction_test {

using namespace blkmc::sched;

template <class M>
Params defaults_with(const std::string& wl) {
  Params p;
  for (const auto& pi : M::static_info().params) p[pi.name] = pi.def;
  p["workload"] = shipped(wl);
  return p;
}

template <class Sched>
std::string merged(const std::string& variant, const std::string& wl) {
  using M = SchedModel<Sched>;
  const M m(variant_index_of<Sched>(variant), defaults_with<M>(wl));
  std::string out;
  for (const std::string& a : m.abstractions()) out += (out.empty() ? "" : " | ") + a;
  return out;
}

TEST_CASE("abstraction: what each scheduler merges on which device") {
  // Eight requests served at once (RAID-0 behind a controller): their order
  // is read by nobody.
  CHECK(merged<DeadlineScheduler>("v6.18", "cfq-deep-stale") == "the order of the 8 requests in service");
  CHECK(merged<NoneScheduler>("v6.18", "cfq-mmap-raid") == "the order of the 4 requests in service");
  CHECK(merged<DeadlineScheduler>("v6.18", "seed002-read-raid0") == "the order of the 2 requests in service");
  // One request served at a time: the order decides which; nothing merged.
  CHECK(merged<DeadlineScheduler>("v6.18", "gated-write").empty());
  CHECK(merged<NoneScheduler>("v6.18", "fair-read-write").empty());
  // BFQ's and CFQ's hw_tag detectors, on every device.
  // v6.12 decides hw_tag after 32 samples: no run of 9 requests gets there.
  CHECK(merged<BfqScheduler>("v6.12", "seed002-readers-writer") ==
        "max_rq_in_driver: whether above 3; hw_tag's samples: none once hw_tag = 1 or 0 (the driver holds at most "
        "3, so hw_tag stays 0), or once fewer requests are left than samples to a decision (32)");
  // One tag and the parked request: never above 2, so hw_tag 0 is final.
  CHECK(merged<BfqScheduler>("v4.13", "bfq-reader-writer") ==
        "max_rq_in_driver: whether above 2; hw_tag's samples: none once hw_tag = 1 or 0 (the driver holds at "
        "most 2, so hw_tag stays 0), or once fewer requests are left than samples to a decision (3)");
  // Two tags; cyclic readers, so samples never run out.
  CHECK(merged<CfqScheduler>("3.1-rc5", "seed002-read-disk") ==
        "est_depth: whether at least 3; hw_tag's samples: none once hw_tag = 1 or 0 (the driver holds at most 2, "
        "so hw_tag stays 0) | slice_dispatch: none while no queue or a sync queue is active");
  CHECK(merged<CfqScheduler>("deep-fix-v2", "cfq-deep-stale") ==
        "the order of the 8 requests in service | est_depth: whether at least 3; hw_tag's samples: none once "
        "hw_tag = 1 | slice_dispatch: none while no queue or a sync queue is active");
}

// The variables the abstraction may merge, changed at random: the ranks of
// the requests in the driver permuted; the detectors' values redrawn among
// those a run can reach (a maximum of the requests in the driver is at most
// what the driver holds: the tags, and for BFQ the parked request); CFQ's
// slice_dispatch redrawn.
template <class M>
typename M::State scramble(const M& m, typename M::State s) {
  const RqTable& rq = m.rqs();
  std::vector<int> drv, seqs;
  for (int r = 0; r < rq.size(); ++r)
    if (rq.status(s, r) == St::Driver) {
      drv.push_back(r);
      seqs.push_back(rq.seq(s, r));
    }
  for (std::size_t i = seqs.size(); i > 1; --i) std::swap(seqs[i - 1], seqs[*rc::gen::inRange<std::size_t>(0, i)]);
  for (std::size_t i = 0; i < drv.size(); ++i) rq.set_seq(s, drv[i], seqs[i]);
  const Schema& sc = m.schema();
  const DeviceSpec& dev = m.workload().dev;
  for (const Schema::Var& v : sc.vars()) {
    int most = 8;
    if (v.name == "max_rq_in_driver") most = std::min(most, dev.depth + (dev.slot ? 1 : 0));
    if (v.name == "est_depth") most = std::min(most, dev.depth);
    if (v.name == "max_rq_in_driver" || v.name == "est_depth" || v.name == "hw_tag_samples")
      sc.byte_var(sc.find(v.name)).set(s, *rc::gen::inRange(0, most + 1));
    // CFQ's count of the active queue's dispatches in its slice.
    if (v.name == "slice_dispatch") sc.byte_var(sc.find(v.name)).set(s, *rc::gen::inRange(0, 40));
  }
  return s;
}

// Devices that serve several requests at once, and the hw_tag detectors on
// every device.
const char* const kWorkloads[] = {"cfq-deep-stale", "cfq-aio-raid", "cfq-fast-stale", "cfq-mmap-raid",
                                  "seed002-read-raid0", "seed002-readers-writer", "bfq-seeky-ncq",
                                  "gated-write", "bfq-reader-writer", "bfq-flash-readers", "seed002-read-disk",
                                  "fair-sync-reader"};

template <class M>
bool random_model(std::optional<M>& m) {
  const ModelInfo& inf = M::static_info();
  Params p = small_params(inf);
  p["workload"] = shipped(*rc::gen::elementOf(std::vector<std::string>(std::begin(kWorkloads), std::end(kWorkloads))));
  p["clock"] = *rc::gen::inRange(0, 2);
  try {
    m.emplace(*rc::gen::inRange(0, int(inf.variants.size())), p);
  } catch (const UsageError&) {
    return false;
  }
  return !m->abstractions().empty();
}

template <class M>
std::vector<int> every_prop() {
  std::vector<int> out(M::static_info().props.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = int(i);
  return out;
}

template <class M>
void bisimilar() {
  check_property<M>(25, [] {
    std::optional<M> m;
    if (!random_model<M>(m)) RC_DISCARD("nothing merged");
    RC_ASSERT(check_abstraction(*m, every_prop<M>(), 80, [&](const typename M::State& s) { return scramble(*m, s); }) > 0);
  });
}

TEST_CASE("abstraction: states with one key step alike and look alike") {
  bisimilar<DeadlineModel>();
  bisimilar<BfqModel>();
  bisimilar<CfqModel>();
  bisimilar<NoneModel>();
}

// Whether check_abstraction fails on a model whose key merges too much.
template <class W>
bool caught(const W& w) {
  const auto r = rc::detail::checkTestable([&] {
    check_abstraction(w, every_prop<W>(), 200, [&](const typename W::State& s) { return scramble(w, s); });
  });
  return r.template is<rc::detail::FailureResult>();
}

// Merging the order of every request in the driver, served or waiting,
// is caught where fewer are served than the driver holds.
TEST_CASE("abstraction: the check fails when it merges an order the device reads") {
  struct Wrong : DeadlineModel {
    using DeadlineModel::DeadlineModel;
    void abstract_key(State& s) const {
      int rank = 0;
      for (int r = 0; r < rqs().size(); ++r)
        if (rqs().status(s, r) == St::Driver) rqs().set_seq(s, r, rank++);
    }
  };
  const Wrong w(variant_index_of<DeadlineScheduler>("v6.18"), defaults_with<DeadlineModel>("seed002-read-raid0"));
  CHECK(caught(w));
}

// Forgetting the sample count at hw_tag 0 where the driver can hold more
// than hw_queue_thr (2 tags and the parked request) is caught: there the
// next round of samples may turn hw_tag to 1.
TEST_CASE("abstraction: the check fails when it forgets hw_tag 0's samples on a device that can queue") {
  struct Wrong : BfqModel {
    using BfqModel::BfqModel;
    void abstract_key(State& s) const {
      BfqModel::abstract_key(s);
      const Schema& sc = schema();
      if (sc.byte_var(sc.find("hw_tag")).get(s) != 0) return;
      sc.byte_var(sc.find("hw_tag_samples")).set(s, 0);
      sc.byte_var(sc.find("max_rq_in_driver")).set(s, 0);
    }
  };
  Params p = defaults_with<BfqModel>("seed002-readers-writer");
  p["hw_tag"] = 0;
  const Wrong w(variant_index_of<BfqScheduler>("v4.13"), p);
  CHECK(caught(w));
}

// Forgetting slice_dispatch while an async queue is active is caught: its
// share (4 x (8 - level) dispatches) ends the slice when others are busy.
TEST_CASE("abstraction: the check fails when it forgets an async queue's dispatches in its slice") {
  struct Wrong : CfqModel {
    using CfqModel::CfqModel;
    void abstract_key(State& s) const {
      CfqModel::abstract_key(s);
      const Schema& sc = schema();
      sc.byte_var(sc.find("slice_dispatch")).set(s, 0);
    }
  };
  const Wrong w(variant_index_of<CfqScheduler>("3.1-rc5"), defaults_with<CfqModel>("fair-sync-reader"));
  CHECK(caught(w));
}

// Small enough to search whole: three processes on a device that serves
// one to three requests at once, clock or not (with one, BFQ's and CFQ's
// hw_tag settles at 0 for good).
Workload small_device(int depth) {
  return parse_workload(
      fmt::format("device depth={0} slot=1 spindles={0} rotational=1 service=1 seek=0\n", depth) +
      "proc a dir=R sync=0 reqs=0,8\nproc b dir=W sync=0 reqs=40\nproc c dir=R sync=1 reqs=80,88\n"
      "track a:0\nfair a c\n",
      "small-device");
}

template <class M>
void same_verdicts(int min_depth) {
  check_property<M>(12, [min_depth] {
    const ModelInfo& inf = M::static_info();
    Params p = small_params(inf);
    p["clock"] = *rc::gen::inRange(0, 2);
    std::optional<M> m;
    try {
      m.emplace(*rc::gen::inRange(0, int(inf.variants.size())), p, small_device(*rc::gen::inRange(min_depth, 4)));
    } catch (const UsageError&) {
      RC_DISCARD("variant refuses the parameters");
    }
    RC_ASSERT(!m->abstractions().empty());
    check_reduced_verdicts(*m, every_prop<M>(), 200'000);
  });
}

TEST_CASE("abstraction: the scheduler models' verdicts, maxima and traces with and without it") {
  // deadline and none merge only the order in service: two spindles or more.
  same_verdicts<DeadlineModel>(2);
  same_verdicts<BfqModel>(1);
  same_verdicts<CfqModel>(1);
  same_verdicts<NoneModel>(2);
}

}  // namespace reduction_abstraction_test
}  // namespace blkmc::testing
