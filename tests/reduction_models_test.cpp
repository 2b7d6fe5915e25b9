// The reduction hooks of the inflight, workqueue and integrity models
// (explorer/reduced_model.hpp) against their own steps, and the verdicts,
// maxima and traces with and without each reduction, over random small
// parameters (as tests/reduction_test.cpp does for tags).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "app/instances.hpp"
#include "model/inflight/inflight.hpp"
#include "model/integrity/integrity.hpp"
#include "model/workqueue/workqueue.hpp"
#include "tests/reduction_checks.hpp"

namespace blkmc::testing {
namespace reduction_models_test {

// A random nonempty selection of the model's properties; graph properties
// (progress, starvation: every reduction off) only when `graph`.
std::vector<int> some_props(const ModelInfo& inf, bool graph) {
  auto ok = [&](std::size_t i) {
    const PropKind k = inf.props[i].kind;
    return graph || (k != PropKind::Progress && k != PropKind::Starvation);
  };
  std::vector<int> out;
  for (std::size_t i = 0; i < inf.props.size(); ++i)
    if (ok(i) && *rc::gen::arbitrary<bool>()) out.push_back(int(i));
  if (out.empty()) {
    std::vector<int> all;
    for (std::size_t i = 0; i < inf.props.size(); ++i)
      if (ok(i)) all.push_back(int(i));
    out.push_back(*rc::gen::elementOf(all));
  }
  return out;
}
// Mostly without graph properties, which would switch the reductions off.
std::vector<int> verdict_props(const ModelInfo& inf) {
  return some_props(inf, *rc::gen::inRange(0, 4) == 0);
}

// What partial-order reduction takes from footprint(): every element a step
// changes is among its writes (visibility and independence rest on it).
template <class M>
int check_footprint_writes(const M& m, int steps) {
  const Schema& sc = m.schema();
  typename M::State s = m.initial();
  int checked = 0;
  for (int k = 0; k < steps; ++k) {
    const std::vector<int> before = sc.values(s);
    const auto succ = successors(m, s);
    for (const auto& [st, next] : succ) {
      const Footprint f = m.footprint(s, st);
      const std::vector<int> after = sc.values(next);
      for (std::size_t i = 0; i < before.size(); ++i)
        if (before[i] != after[i]) RC_ASSERT(f.writes.test(i));
      ++checked;
    }
    if (succ.empty()) break;
    s = succ[*rc::gen::inRange<std::size_t>(0, succ.size())].second;
  }
  return checked;
}

InflightModel random_inflight() {
  const int variant = *rc::gen::inRange(0, int(InflightModel::static_info().variants.size()));
  const int parts = *rc::gen::inRange(1, 3);
  const Params p{{"parts", parts},
                 {"submitters", *rc::gen::inRange(1, 4)},
                 {"rounds", *rc::gen::inRange(1, 3)},
                 {"reads", *rc::gen::inRange(1, 3)},
                 {"target", *rc::gen::inRange(-1, parts + 1)},
                 {"whole", *rc::gen::inRange(0, 2)},
                 {"cpus", *rc::gen::inRange(1, 3)}};
  return InflightModel(variant, p);
}

WorkqueueModel random_workqueue() {
  const int variant = *rc::gen::inRange(0, int(WorkqueueModel::static_info().variants.size()));
  const Params p{{"workers", *rc::gen::inRange(1, 4)},
                 {"keys", *rc::gen::inRange(1, 4)},
                 {"rounds", *rc::gen::inRange(1, 3)},
                 {"journal_full", *rc::gen::inRange(0, 2)}};
  return WorkqueueModel(variant, p);
}

IntegrityModel random_integrity() {
  const int variant = *rc::gen::inRange(0, int(IntegrityModel::static_info().variants.size()));
  const Params p{{"levels", *rc::gen::inRange(1, 5)},
                 {"owner", *rc::gen::inRange(0, 2)},
                 {"verify_fn", *rc::gen::inRange(0, 2)},
                 {"split", *rc::gen::inRange(0, 2)}};
  return IntegrityModel(variant, p);
}

// --- inflight ---

TEST_CASE("reduction: inflight's influence declaration holds along random walks") {
  CHECK(rc::check("sliced variables change nothing the properties depend on", [] {
    const InflightModel m = random_inflight();
    RC_ASSERT(check_slicing(m, some_props(m.info(), true), 40) > 0);
  }));
}

TEST_CASE("reduction: permuting inflight's submitters commutes with every step (counters)") {
  CHECK(rc::check("symmetry", [] {
    const InflightModel m = random_inflight();
    const auto props = some_props(m.info(), true);
    if (m.uses_tag_walk()) {
      RC_ASSERT(m.symmetric_block(props) == -1);
      return;
    }
    RC_ASSERT(check_symmetry(m, props, 40) > 0);
  }));
}

// The reason tag walks declare no symmetry: swapping the submitters while
// the walk is between their tags changes what it counts.
TEST_CASE("reduction: inflight's tag walk is not symmetric in its submitters") {
  using M = InflightModel;
  const M m(M::B0d97557, {{"parts", 1}, {"submitters", 2}, {"rounds", 1}, {"reads", 1},
                          {"target", 1}, {"whole", 0}, {"cpus", 1}});
  // Submitter 1 in flight; the reader has passed tag 0 and is at tag 1.
  M::State s = m.initial();
  for (const Step st : {Step{1, M::SUBMIT, 1}, Step{1, M::DISPATCH, 0}, Step{2, M::READ, 1}}) s = run(m, s, st);
  const M::State t = permuted(m, m.schema().find_place("submitters"), s, {1, 0});
  const M::State a = run(m, s, Step{2, M::VISIT, 1}), b = run(m, t, Step{2, M::VISIT, 1});
  CHECK(m.rd_done(a) == 1);
  CHECK(m.rd_done(b) == 1);
  // The walk counted submitter 1's request in s, nothing in the permuted state:
  // both reads are quiescent, only s's is exact.
  CHECK(m.violates(M::QuiescentExactPart, a) != m.violates(M::QuiescentExactPart, b));
}

TEST_CASE("reduction: inflight's actor futures cover what the actors do") {
  CHECK(rc::check("actor futures and guard reads", [] {
    const InflightModel m = random_inflight();
    check_futures(m, 30, 12);
    RC_ASSERT(check_footprint_writes(m, 30) > 0);
  }));
}

TEST_CASE("reduction: inflight keeps its verdicts, maxima and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const InflightModel m = random_inflight();
    check_reduced_verdicts(m, verdict_props(m.info()), 200000);
  }));
}

// --- workqueue ---

TEST_CASE("reduction: workqueue's influence declaration holds along random walks") {
  CHECK(rc::check("sliced variables change nothing the properties depend on", [] {
    const WorkqueueModel m = random_workqueue();
    RC_ASSERT(check_slicing(m, some_props(m.info(), true), 40) > 0);
  }));
}

// The symmetry workqueue would have with an engine that keeps classes of
// copies apart: permuting the issued keys among themselves (and the
// unissued ones, all idle) commutes with every step; a permutation that
// mixes the two does not.
TEST_CASE("reduction: permuting workqueue's issued keys commutes with every step") {
  CHECK(rc::check("symmetry within the issued keys", [] {
    const WorkqueueModel m = random_workqueue();
    const int block = m.schema().find_place("keys");
    WorkqueueModel::State s = m.initial();
    for (int k = 0; k < 40; ++k) {
      const int n = m.wb_issued(s);
      std::vector<int> perm(std::size_t(m.keys()));
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = n - 1; i > 0; --i) std::swap(perm[std::size_t(i)], perm[*rc::gen::inRange<std::size_t>(0, std::size_t(i) + 1)]);
      const auto t = permuted(m, block, s, perm);
      RC_ASSERT(m.finished(s) == m.finished(t));
      const auto a = successors(m, s), b = successors(m, t);
      RC_ASSERT(a.size() == b.size());
      for (const auto& [st, next] : a) {
        const auto want = permuted(m, block, next, perm);
        RC_ASSERT(std::any_of(b.begin(), b.end(), [&](const auto& x) { return same_bytes(m, x.second, want); }));
      }
      bool stuck = false;
      s = random_step(m, s, stuck);
      if (stuck) break;
    }
  }));
  // Key 0 issued, key 1 not: swapping them leaves read_dirty issuing key 1 again.
  const WorkqueueModel m(WorkqueueModel::Fix, {{"workers", 1}, {"keys", 2}, {"rounds", 1}, {"journal_full", 1}});
  WorkqueueModel::State s = m.initial();
  for (const Step st : {Step{WorkqueueModel::WB, WorkqueueModel::REFILL_DIRTY, 0},
                        Step{WorkqueueModel::WB, WorkqueueModel::READ_DIRTY, 0}})
    s = run(m, s, st);
  const auto t = permuted(m, m.schema().find_place("keys"), s, {1, 0});
  const auto next = run(m, t, Step{WorkqueueModel::WB, WorkqueueModel::READ_DIRTY, 1});
  CHECK(m.key(next, 0) == WorkqueueModel::K_IDLE);  // never issued: its closure never runs
}

TEST_CASE("reduction: workqueue's actor futures cover what the actors do") {
  CHECK(rc::check("actor futures and guard reads", [] {
    const WorkqueueModel m = random_workqueue();
    check_futures(m, 30, 12);
    RC_ASSERT(check_footprint_writes(m, 30) > 0);
  }));
}

TEST_CASE("reduction: workqueue keeps its verdicts and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const WorkqueueModel m = random_workqueue();
    check_reduced_verdicts(m, verdict_props(m.info()), 200000);
  }));
}

// --- integrity ---

TEST_CASE("reduction: integrity's influence declaration holds along random walks") {
  CHECK(rc::check("sliced variables change nothing the properties depend on", [] {
    const IntegrityModel m = random_integrity();
    RC_ASSERT(check_slicing(m, some_props(m.info(), true), 40) > 0);
  }));
}

TEST_CASE("reduction: integrity's actor futures cover what the actors do") {
  CHECK(rc::check("actor futures and guard reads", [] {
    const IntegrityModel m = random_integrity();
    check_futures(m, 30, 12);
    RC_ASSERT(check_footprint_writes(m, 30) > 0);
  }));
}

TEST_CASE("reduction: integrity keeps its verdicts and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const IntegrityModel m = random_integrity();
    check_reduced_verdicts(m, verdict_props(m.info()), 200000);
  }));
}

// --- the checks catch wrong declarations ---

// inflight without the flow from the counters into the reader's sum would
// slice the counters, which an atomic read copies into the sum.
TEST_CASE("reduction: the slicing check fails on a wrong inflight declaration") {
  struct Wrong : InflightModel {
    using InflightModel::InflightModel;
    Influence influence() const {
      Influence inf = InflightModel::influence();
      for (std::size_t v = 0; v < schema().vars().size(); ++v)
        if (schema().vars()[v].place < 0)
          for (auto& from : inf.from) std::erase(from, int(v));
      return inf;
    }
  };
  const Wrong w(InflightModel::LegacyAtomic, {{"parts", 1}, {"submitters", 1}, {"rounds", 1}, {"reads", 1},
                                             {"target", -1}, {"whole", 0}, {"cpus", 1}});
  CHECK_FALSE(w.influence().relevant({InflightModel::QuiescentExactPart})[std::size_t(w.schema().find("in_flight[sda]"))]);
  const auto r = rc::detail::checkTestable([&] { check_slicing(w, {InflightModel::QuiescentExactPart}, 60); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

// workqueue's irq steps read every key and the journal io: without those
// guard reads read_dirty of key 1 looks independent of the completion of
// key 0's read bio, yet it gives the irq actor a second step, and an ample
// set of the irq's steps would miss the other queue order.
TEST_CASE("reduction: the futures check fails without an actor's guard reads") {
  struct Wrong : WorkqueueModel {
    using WorkqueueModel::WorkqueueModel;
    Footprint footprint(const State& s, const Step& st) const {
      Footprint f = WorkqueueModel::footprint(s, st);
      if (st.actor != IRQ) return f;
      const int key0 = schema().index(schema().find("key"));
      for (int k = 0; k < keys(); ++k)
        if (st.action == JOURNAL_WRITE_ENDIO || k != st.arg) f.reads.reset(std::size_t(key0 + k));
      if (st.action != JOURNAL_WRITE_ENDIO) f.reads.reset(std::size_t(schema().index(schema().find("io"))));
      return f;
    }
  };
  const Wrong w(WorkqueueModel::Fix, {{"workers", 1}, {"keys", 3}, {"rounds", 1}, {"journal_full", 1}});
  const auto r = rc::detail::checkTestable([&] { check_futures(w, 40, 4); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

// An actor future that leaves out the queue the irq actor appends to.
TEST_CASE("reduction: the futures check fails on a future that misses writes") {
  struct Wrong : WorkqueueModel {
    using WorkqueueModel::WorkqueueModel;
    Footprint actor_future(const State& s, int actor) const {
      Footprint f = WorkqueueModel::actor_future(s, actor);
      if (actor == IRQ) f.writes.reset();
      return f;
    }
  };
  const Wrong w(WorkqueueModel::Before, {{"workers", 1}, {"keys", 2}, {"rounds", 1}, {"journal_full", 1}});
  const auto r = rc::detail::checkTestable([&] { check_futures(w, 40, 12); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

}  // namespace reduction_models_test
}  // namespace blkmc::testing
