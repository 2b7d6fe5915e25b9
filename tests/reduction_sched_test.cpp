// Symmetry between a workload's interchangeable processes
// (model/sched/sched_symmetry.hpp): which processes each scheduler finds
// for which properties; permuting them within their classes commutes with
// every step and keeps what the properties see (random walks over random
// variants and parameters); and the verdicts, maxima and traces with and
// without it.
#include <doctest/doctest.h>
#include <rapidcheck.h>

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
namespace reduction_sched_test {

using namespace blkmc::sched;

template <class M>
Params defaults_with(const std::string& wl, std::vector<std::pair<std::string, int>> over = {}) {
  Params p;
  for (const auto& pi : M::static_info().params) p[pi.name] = pi.def;
  p["workload"] = shipped(wl);
  for (const auto& [k, v] : over) p[k] = v;
  return p;
}

// The classes a model finds, as process names grouped: "job0 job1 | job3 job7".
template <class M>
std::string classes(const std::string& wl, const std::vector<int>& props, int variant = 0) {
  const M m(variant, defaults_with<M>(wl));
  const std::vector<int> label = m.symmetry_classes(props);
  std::string out;
  std::vector<bool> done(label.size());
  for (std::size_t p = 0; p < label.size(); ++p) {
    if (done[p] || label[p] < 0) continue;
    std::string cl;
    int n = 0;
    for (std::size_t q = p; q < label.size(); ++q)
      if (label[q] == label[p]) {
        done[q] = true;
        cl += (n++ ? " " : "") + m.workload().procs[q].name;
      }
    if (n > 1) out += (out.empty() ? "" : " | ") + cl;
  }
  return out;
}

TEST_CASE("symmetry: the interchangeable processes each scheduler finds") {
  using D = DeadlineModel;
  const std::vector<int> safety{D::Conservation};
  // Equal parameters and equal sectors: every scheduler that can rename.
  CHECK(classes<D>("seed002-read-disk", safety) == "job0 job1 job2 job3 job4 job5 job6 job7");
  CHECK(classes<CfqModel>("seed002-read-disk", safety) == "job0 job1 job2 job3 job4 job5 job6 job7");
  CHECK(classes<NoneModel>("seed002-read-disk", safety) == "job0 job1 job2 job3 job4 job5 job6 job7");
  // The same sectors but other directions: only the two all-read jobs.
  CHECK(classes<D>("seed002-rw-disk", safety) == "job3 job7");
  // BFQ renames its queues, merges and rq_pos_tree in v6.12; the older
  // variants break equal finishes by process index, and find none.
  // (v6.12's state holds at most seven processes' queues.)
  const int v612 = variant_index_of<BfqScheduler>("v6.12");
  CHECK(classes<BfqModel>("seed002-readers-writer", safety, v612) == "reader0 reader1");
  CHECK(classes<BfqModel>("seed002-readers-writer", safety).empty());
  CHECK(classes<BfqModel>("seed002-readers-writer", {D::MaxWait}, v612).empty());
  CHECK(classes<BfqModel>("seed002-readers-writer", {D::FairRatio}, v612) == "reader0 reader1");
  CHECK(classes<BfqModel>("bfq-flash-readers", safety, v612).empty());
  // Sectors at an offset: mq-deadline's sort lists and CFQ's last position
  // read them; `none` reads none, and a flash device keeps no head.
  CHECK(classes<D>("bfq-flash-readers", safety).empty());
  CHECK(classes<CfqModel>("bfq-flash-readers", safety).empty());
  CHECK(classes<NoneModel>("bfq-flash-readers", safety) == "r1 r2");
  CHECK(classes<NoneModel>("bfq-flash-readers", {D::MaxWait}).empty());
  // A device that seeks reads the distance from the head: offsets tell
  // processes apart under `none` too; with seek=0 nothing reads the head.
  CHECK(classes<NoneModel>("bfq-heavy-writers-sim", safety).empty());
  CHECK(classes<NoneModel>("cfq-aio-raid", safety) == "aio0 aio1 aio2");
  CHECK(classes<NoneModel>("cfq-deep-stale", safety) == "late0 late1");
  CHECK(classes<NoneModel>("cfq-deep-stale", {D::FairRatio}).empty());
  // The tracked request's process and the fair pair stay put when their
  // properties are checked, and only then.
  CHECK(classes<D>("seed002-readers-writer", safety) == "reader0 reader1");
  CHECK(classes<D>("seed002-readers-writer", {D::MaxWait}).empty());
  CHECK(classes<D>("seed002-readers-writer", {D::MaxWaitTicks, D::Conservation}).empty());
  CHECK(classes<CfqModel>("seed002-readers-writer", {D::FairRatio}) == "reader0 reader1");
  CHECK(classes<NoneModel>("cfq-deep-stale", {D::FairRatio, D::Conservation}).empty());
}

// The workloads with interchangeable processes under some scheduler.
const char* const kWorkloads[] = {"seed002-read-disk", "seed002-read-raid0", "seed002-write-raid0",
                                  "seed002-rw-disk",   "seed002-readers-writer", "cfq-aio-raid",
                                  "bfq-flash-readers", "cfq-deep-stale"};

// Safety properties only: starvation switches symmetry off (weak fairness
// per actor), and progress needs the whole graph (kept short here).
std::vector<int> safety_props(const ModelInfo& inf) {
  std::vector<int> out;
  for (std::size_t i = 0; i < inf.props.size(); ++i) {
    const PropKind k = inf.props[i].kind;
    if (k != PropKind::Progress && k != PropKind::Starvation && *rc::gen::arbitrary<bool>()) out.push_back(int(i));
  }
  if (out.empty()) out.push_back(0);
  return out;
}

// Three copies of one sync reader, small enough to search whole; the
// device flash or rotational (where the sectors must be equal), and on
// flash at offsets unless `same` (BFQ reads them on either).
Workload identical_readers(bool rotational, bool same = false) {
  std::string text = fmt::format("device depth=2 slot=1 spindles=1 rotational={} service=2 seek=2\n", int(rotational));
  const bool apart = !rotational && !same;
  for (int j = 0; j < 3; ++j) text += fmt::format("proc job{} dir=R sync=1 reqs={},{}\n", j, apart ? 10 * j : 0, apart ? 10 * j + 1 : 1);
  return parse_workload(text, "identical-readers");
}

// A model (into m) with interchangeable processes for props, or false:
// a shipped workload from `names`, or (small) the identical readers.
// fixed: the variant (BFQ renames in v6.12 only), else any; same: the
// small readers' sectors equal on flash too.
template <class M>
bool random_model(const std::vector<int>& props, std::optional<M>& m, const std::vector<std::string>& names,
                  bool small, int fixed = -1, bool same = false) {
  const ModelInfo& inf = M::static_info();
  const int variant = fixed >= 0 ? fixed : *rc::gen::inRange(0, int(inf.variants.size()));
  Params p = small_params(inf);
  p["workload"] = shipped(*rc::gen::elementOf(names));
  p["clock"] = *rc::gen::inRange(0, 2);
  try {
    if (small && *rc::gen::arbitrary<bool>())
      m.emplace(variant, p, identical_readers(*rc::gen::arbitrary<bool>(), same));
    else
      m.emplace(variant, p);
  } catch (const UsageError&) {
    return false;
  }
  return m->symmetric_block(props) >= 0;
}

template <class M>
void commutes() {
  check_property<M>(25, [] {
    const std::vector<int> props = safety_props(M::static_info());
    std::optional<M> m;
    const std::vector<std::string> names(std::begin(kWorkloads), std::end(kWorkloads));
    if (!random_model<M>(props, m, names, false)) RC_DISCARD("no interchangeable processes");
    RC_ASSERT(check_symmetry(*m, props, 60) > 0);
  });
}

TEST_CASE("symmetry: permuting interchangeable processes commutes with every scheduler step") {
  commutes<DeadlineModel>();
  commutes<CfqModel>();
  commutes<NoneModel>();
  // BFQ v6.12: the readers-writer workload or three readers at one sector
  // (stable merging on flash, cooperator merging on a disk).
  check_property<BfqModel>(60, [] {
    const std::vector<int> props = safety_props(BfqModel::static_info());
    std::optional<BfqModel> m;
    if (!random_model<BfqModel>(props, m, {"seed002-readers-writer"}, true, variant_index_of<BfqScheduler>("v6.12"), true))
      RC_DISCARD("no interchangeable processes");
    RC_ASSERT(check_symmetry(*m, props, 60) > 0);
  });
}

// A rename that leaves the requests (and CFQ's queues) behind is caught:
// after the processes move, a request would be submitted twice.
TEST_CASE("symmetry: the check fails when the requests do not follow their processes") {
  struct Wrong : CfqModel {
    using CfqModel::CfqModel;
    void rename(State&, const std::vector<int>&) const {}
  };
  const Wrong w(variant_index_of<CfqScheduler>("3.1-rc5"), defaults_with<CfqModel>("seed002-readers-writer"));
  const auto r = rc::detail::checkTestable([&] { check_symmetry(w, {CfqModel::Conservation}, 60); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

template <class M>
void same_verdicts(int variant = -1) {
  check_property<M>(12, [variant] {
    const std::vector<int> props = safety_props(M::static_info());
    std::optional<M> m;
    if (!random_model<M>(props, m, {"seed002-readers-writer", "bfq-flash-readers"}, true, variant, variant >= 0))
      RC_DISCARD("no interchangeable processes");
    check_reduced_verdicts(*m, props, 200'000);
  });
}

TEST_CASE("symmetry: the scheduler models' verdicts, maxima and traces with and without it") {
  same_verdicts<DeadlineModel>();
  same_verdicts<CfqModel>();
  same_verdicts<NoneModel>();
  same_verdicts<BfqModel>(variant_index_of<BfqScheduler>("v6.12"));
}

}  // namespace reduction_sched_test
}  // namespace blkmc::testing
