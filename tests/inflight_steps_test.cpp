// Unit tests for every step of InflightModel (model/inflight/inflight.hpp), checked
// through the model's state accessors, and the verdicts the explorer finds.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/inflight/inflight.hpp"
#include "tests/commuting.hpp"
#include "tests/model_steps.hpp"

namespace inflight_steps_test {

using namespace blkmc;
using namespace blkmc::testing;

using M = InflightModel;
using State = M::State;

Params params(int parts, int submitters, int rounds, int reads, int target, int whole, int cpus) {
  return {{"parts", parts},   {"submitters", submitters}, {"rounds", rounds}, {"reads", reads},
          {"target", target}, {"whole", whole},           {"cpus", cpus}};
}
Params defaults() { return params(2, 2, 1, 1, -1, 0, 2); }

// Submit to part t on CPU c.
Step submit(int sub, int t, int c = 0) { return step(sub, M::SUBMIT, t | (c << 4)); }
Step dispatch(int sub) { return step(sub, M::DISPATCH); }
Step complete(int sub, int c = 0) { return step(sub, M::COMPLETE, c); }
Step free_rq(int sub) { return step(sub, M::FREE); }

// A whole read of target t: READ then VISITs to the end.
State read_all(const M& m, State s, int t) {
  const int r = m.reader_actor();
  s = run(m, s, step(r, M::READ, t));
  for (int e = 1; e < m.read_elements(); ++e) s = run(m, s, step(r, M::VISIT, e));
  return s;
}

SearchOptions opts(std::vector<int> props = {}) {
  SearchOptions o;
  o.bfs = true;
  o.progress = false;
  o.props = std::move(props);
  return o;
}

// Verdicts of every property, in property order.
std::vector<Verdict> verdicts(const M& m) {
  const auto r = explore(m, opts());
  std::vector<Verdict> v(r.props.size());
  for (const auto& o : r.props) v[std::size_t(o.prop)] = o.verdict;
  return v;
}

constexpr Verdict H = Verdict::Holds, V = Verdict::Violated;

TEST_CASE("inflight: initial state, layout and parameters") {
  const M m(M::LegacyAtomic, defaults());
  const State s = m.initial();
  for (int sub = 0; sub < 2; ++sub) {
    CHECK(m.pc(s, sub) == M::SUBMIT);
    CHECK(m.round(s, sub) == 0);
    CHECK(m.target(s, sub) == 0);
  }
  for (int t = 0; t <= 2; ++t) CHECK(m.counter(s, t, 0) == 0);
  CHECK_FALSE(m.reading(s));
  CHECK(m.rd_done(s) == 0);
  CHECK(m.rd_flags(s) == 0);
  CHECK(m.reader_actor() == 2);
  CHECK_FALSE(m.finished(s));
  // 2 bytes per submitter (pc and target packed in one, round) + counters + 7
  // reader bytes and a byte of 6 flags.
  CHECK(m.state_bytes() == 4 + 3 + 8);
  CHECK(M(M::TagWalkV1, defaults()).state_bytes() == 4 + 8);
  CHECK(M(M::Percpu, defaults()).state_bytes() == 4 + 6 + 8);
  CHECK(M(M::Be835694, params(3, 4, 3, 3, -1, 1, 3)).state_bytes() == 8 + 12 + 8);
  CHECK(M(M::Percpu, params(3, 4, 3, 3, -1, 1, 3)).state_bytes() <= State::capacity);
  CHECK(m.read_elements() == 1);
  CHECK(M(M::B0d97557, defaults()).read_elements() == 2);  // one per driver tag
  CHECK(M(M::Percpu, params(2, 2, 1, 1, -1, 0, 3)).read_elements() == 3);  // one per CPU
  CHECK(m.target_name(0) == "sda");
  CHECK(m.target_name(2) == "sda2");
  // Bytes beyond state_bytes() stay zero along a run.
  const State r = run_all(m, s, {submit(0, 1), dispatch(0), complete(0), free_rq(0)});
  for (std::size_t i = m.state_bytes(); i < State::capacity; ++i) CHECK(r.b[i] == 0);
}

TEST_CASE("inflight: constructor rejects bad variants and targets") {
  CHECK_THROWS_AS(M(-1, defaults()), UsageError);
  CHECK_THROWS_AS(M(7, defaults()), UsageError);
  CHECK_THROWS_AS(M(0, params(2, 2, 1, 1, 3, 0, 2)), UsageError);
  CHECK_NOTHROW(M(0, params(3, 2, 1, 1, 3, 0, 2)));
  const auto& info = M::static_info();
  REQUIRE(info.variants.size() == 7);
  CHECK(info.variants[M::LegacyAtomic].name == "legacy-atomic");
  CHECK(info.variants[M::TagWalkV1].name == "tag-walk-v1");
  CHECK(info.variants[M::TagWalkDouble].name == "tag-walk-double");
  CHECK(info.variants[M::Bf0ddaba].name == "bf0ddaba65dd");
  CHECK(info.variants[M::B0d97557].name == "b0d97557ebfc");
  CHECK(info.variants[M::Percpu].name == "percpu");
  CHECK(info.variants[M::Be835694].name == "7be835694dae");
  REQUIRE(info.props.size() == 7);
  CHECK(info.props[M::QuiescentExactPart].name == "quiescent-exact-part");
  CHECK(info.props[M::QuiescentExactPart0].name == "quiescent-exact-part0");
  CHECK(info.props[M::LiveReadBounded].name == "live-read-bounded");
  CHECK(info.props[M::NeverNegative].name == "never-negative");
  CHECK(info.props[M::QuiescentCountsQueued].name == "quiescent-counts-queued");
  CHECK(info.props[M::Deadlock].name == "deadlock");
  CHECK(info.props[M::Deadlock].kind == PropKind::Deadlock);
  CHECK(info.props[M::Progress].name == "progress");
  CHECK(info.props[M::Progress].kind == PropKind::Progress);
  CHECK(info.actions.at(M::READ) == "read");
  CHECK(info.actions.at(M::VISIT) == "visit");
  CHECK(info.actions.at(M::SUBMIT) == "submit");
}

TEST_CASE("inflight: SUBMIT chooses a target (and a CPU) and accounts where the variant does") {
  // One successor per partition (whole = 0), and the reader's reads.
  const M leg(M::LegacyAtomic, defaults());
  const State s0 = leg.initial();
  auto subs = successors_of(leg, s0, 0);
  REQUIRE(subs.size() == 2);
  CHECK(subs[0].first == submit(0, 1));
  CHECK(subs[1].first == submit(0, 2));
  // legacy: part_inc_in_flight on the partition and on part0.
  const State l = subs[1].second;
  CHECK(leg.pc(l, 0) == M::DISPATCH);
  CHECK(leg.target(l, 0) == 2);
  CHECK(leg.counter(l, 2, 0) == 1);
  CHECK(leg.counter(l, 0, 0) == 1);
  CHECK(leg.counter(l, 1, 0) == 0);
  CHECK(leg.submitted(l, 0));
  CHECK_FALSE(leg.started(l, 0));
  CHECK_FALSE(leg.holds_driver_tag(l, 0));
  CHECK(leg.in_window(l, 0));
  State dummy{};
  CHECK_FALSE(leg.apply(s0, submit(0, 0), dummy));  // whole-disk I/O only with whole = 1
  CHECK_FALSE(leg.apply(s0, submit(0, 1, 1), dummy));  // no CPU choice without per-CPU counters

  // whole = 1: the whole disk is a target; only part0 is counted.
  const M legw(M::LegacyAtomic, params(2, 2, 1, 1, -1, 1, 2));
  auto w = successors_of(legw, legw.initial(), 0);
  REQUIRE(w.size() == 3);
  CHECK(w[0].first == submit(0, 0));
  CHECK(legw.counter(w[0].second, 0, 0) == 1);
  CHECK(legw.counter(w[0].second, 1, 0) == 0);

  // percpu: on the chosen CPU, partition and part0.
  const M pc(M::Percpu, defaults());
  auto ps = successors_of(pc, pc.initial(), 1);
  REQUIRE(ps.size() == 4);  // 2 partitions x 2 CPUs
  const State p = run(pc, pc.initial(), submit(1, 2, 1));
  CHECK(pc.counter(p, 2, 1) == 1);
  CHECK(pc.counter(p, 0, 1) == 1);
  CHECK(pc.counter(p, 2, 0) == 0);
  CHECK(pc.counter(p, 0, 0) == 0);
  CHECK(pc.counter(p, 1, 1) == 0);

  // 7be835694dae: req->part only.
  const M be(M::Be835694, defaults());
  const State b = run(be, be.initial(), submit(0, 1, 0));
  CHECK(be.counter(b, 1, 0) == 1);
  CHECK(be.counter(b, 0, 0) == 0);

  // tag walks: nothing is counted; the request has no driver tag yet.
  for (int v : {M::TagWalkV1, M::TagWalkDouble, M::Bf0ddaba, M::B0d97557}) {
    const M tw(v, defaults());
    const State t = run(tw, tw.initial(), submit(0, 1));
    CHECK(tw.pc(t, 0) == M::DISPATCH);
    CHECK(tw.submitted(t, 0));
    CHECK_FALSE(tw.in_window(t, 0));  // the window is started..completed
    CHECK_FALSE(tw.holds_driver_tag(t, 0));
    CHECK(tw.truth(t, 0) == 0);
    CHECK(tw.submitted_count(t, 0) == 1);
  }
}

TEST_CASE("inflight: DISPATCH takes the driver tag and starts the request") {
  const M m(M::B0d97557, defaults());
  State s = run(m, m.initial(), submit(1, 2));
  auto d = successors_of(m, s, 1);
  REQUIRE(d.size() == 1);
  CHECK(d[0].first == dispatch(1));
  s = run(m, s, dispatch(1));
  CHECK(m.pc(s, 1) == M::COMPLETE);
  CHECK(m.started(s, 1));
  CHECK(m.holds_driver_tag(s, 1));
  CHECK(m.in_window(s, 1));
  CHECK(m.truth(s, 2) == 1);
  CHECK(m.truth(s, 0) == 1);
  CHECK(m.truth(s, 1) == 0);
  // Counters do not move at dispatch.
  const M leg(M::LegacyAtomic, defaults());
  const State l = run_all(leg, leg.initial(), {submit(0, 1), dispatch(0)});
  CHECK(leg.counter(l, 1, 0) == 1);
  CHECK(leg.counter(l, 0, 0) == 1);
}

TEST_CASE("inflight: COMPLETE decrements on the completing CPU; the tag is kept until FREE") {
  const M pc(M::Percpu, defaults());
  State s = run_all(pc, pc.initial(), {submit(0, 1, 0), dispatch(0)});
  auto c = successors_of(pc, s, 0);
  REQUIRE(c.size() == 2);  // completes on either CPU
  CHECK(c[0].first == complete(0, 0));
  CHECK(c[1].first == complete(0, 1));
  const State x = run(pc, s, complete(0, 1));  // submitted on cpu0, completed on cpu1
  CHECK(pc.counter(x, 1, 0) == 1);
  CHECK(pc.counter(x, 1, 1) == -1);
  CHECK(pc.counter(x, 0, 0) == 1);
  CHECK(pc.counter(x, 0, 1) == -1);
  CHECK(pc.pc(x, 0) == M::FREE);
  CHECK_FALSE(pc.in_window(x, 0));

  const M leg(M::LegacyAtomic, defaults());
  const State l = run_all(leg, leg.initial(), {submit(0, 2), dispatch(0), complete(0)});
  CHECK(leg.counter(l, 2, 0) == 0);
  CHECK(leg.counter(l, 0, 0) == 0);

  const M be(M::Be835694, defaults());
  const State b = run_all(be, be.initial(), {submit(0, 2, 1), dispatch(0), complete(0, 0)});
  CHECK(be.counter(b, 2, 1) == 1);
  CHECK(be.counter(b, 2, 0) == -1);
  CHECK(be.counter(b, 0, 0) == 0);
  CHECK(be.counter(b, 0, 1) == 0);

  const M tw(M::TagWalkV1, defaults());
  const State t = run_all(tw, tw.initial(), {submit(0, 1), dispatch(0), complete(0)});
  CHECK_FALSE(tw.started(t, 0));
  CHECK(tw.holds_driver_tag(t, 0));
  CHECK(tw.truth(t, 1) == 0);
}

TEST_CASE("inflight: FREE releases the tag and moves to the next round or DONE") {
  const M m(M::TagWalkDouble, params(2, 1, 2, 1, -1, 0, 2));
  State s = run_all(m, m.initial(), {submit(0, 2), dispatch(0), complete(0), free_rq(0)});
  CHECK(m.pc(s, 0) == M::SUBMIT);
  CHECK(m.round(s, 0) == 1);
  CHECK(m.target(s, 0) == 0);
  CHECK_FALSE(m.holds_driver_tag(s, 0));
  CHECK(m.request_id(s, 0) == 2);
  s = run_all(m, s, {submit(0, 1), dispatch(0), complete(0), free_rq(0)});
  CHECK(m.pc(s, 0) == M::DONE);
  CHECK(m.round(s, 0) == 2);
  CHECK(successors_of(m, s, 0).empty());
  CHECK_FALSE(m.finished(s));  // the reader has not read yet
  s = read_all(m, s, 0);
  CHECK(m.finished(s));
  CHECK(successors(m, s).empty());
}

TEST_CASE("inflight: READ picks the target, one read step per element") {
  // target = -1: any of part0 and the partitions.
  const M m(M::B0d97557, defaults());
  const int r = m.reader_actor();
  auto rs = successors_of(m, m.initial(), r);
  REQUIRE(rs.size() == 3);
  for (int t = 0; t < 3; ++t) CHECK(rs[t].first == step(r, M::READ, t));
  // A fixed target.
  const M f(M::B0d97557, params(2, 2, 1, 1, 2, 0, 2));
  auto fs = successors_of(f, f.initial(), r);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].first == step(r, M::READ, 2));
  // A tag walk: READ visits tag 0, then VISIT tag 1 ends the read.
  State s = run(m, m.initial(), step(r, M::READ, 1));
  CHECK(m.reading(s));
  CHECK(m.rd_pos(s) == 1);
  CHECK(m.rd_target(s) == 1);
  auto vs = successors_of(m, s, r);
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].first == step(r, M::VISIT, 1));
  s = run(m, s, step(r, M::VISIT, 1));
  CHECK_FALSE(m.reading(s));
  CHECK(m.rd_done(s) == 1);
  CHECK(m.reader_done(s));
  CHECK(successors_of(m, s, r).empty());
  // legacy: one atomic read is the whole read.
  const M leg(M::LegacyAtomic, params(2, 2, 1, 2, -1, 0, 2));
  const State l = run(leg, leg.initial(), step(r, M::READ, 0));
  CHECK_FALSE(leg.reading(l));
  CHECK(leg.rd_done(l) == 1);
  CHECK(successors_of(leg, l, r).size() == 3);  // a second read
}

TEST_CASE("inflight: legacy and per-CPU reads return the counters") {
  const M leg(M::LegacyAtomic, defaults());
  State l = run_all(leg, leg.initial(), {submit(0, 1), submit(1, 2)});
  CHECK(leg.element_value(l, 0, 0).first == 2);
  CHECK(leg.element_value(l, 1, 0).first == 1);
  l = read_all(leg, l, 0);
  CHECK(leg.rd_flags(l) == 0);  // exact
  const M pc(M::Percpu, defaults());
  const State p = run_all(pc, pc.initial(), {submit(0, 1, 0), submit(1, 2, 1)});
  CHECK(pc.element_value(p, 0, 0).first == 1);
  CHECK(pc.element_value(p, 0, 1).first == 1);
  CHECK(pc.element_value(p, 2, 0).first == 0);
  CHECK(pc.rd_flags(read_all(pc, p, 0)) == 0);
  CHECK(pc.rd_flags(read_all(pc, p, 2)) == 0);
}

TEST_CASE("inflight: what each tag walk counts for a partition and for part0") {
  // Submitter 0: rq to sda1, started. Submitter 1: rq to sda2, completed but
  // still holding its tag.
  const std::vector<Step> prefix = {submit(0, 1), dispatch(0), submit(1, 2), dispatch(1),
                                    complete(1)};
  struct Row {
    int variant;
    std::pair<int, int> tag0_sda1, tag1_sda2, tag0_sda, tag1_sda;
  };
  const Row rows[] = {
      // v1: rq->part == part, no state check: the completed rq counts.
      {M::TagWalkV1, {1, 0}, {1, 0}, {0, 0}, {0, 0}},
      // double: STARTED only; a partition read counts part0 as rq->part == part or part0.
      {M::TagWalkDouble, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
      // bf0ddaba65dd: IN_FLIGHT and rq->part == part, part0 too.
      {M::Bf0ddaba, {1, 0}, {0, 0}, {0, 0}, {0, 0}},
      // b0d97557ebfc: part0 counts every IN_FLIGHT request.
      {M::B0d97557, {1, 0}, {0, 0}, {1, 0}, {0, 0}},
  };
  for (const Row& row : rows) {
    const M m(row.variant, defaults());
    const State s = run_all(m, m.initial(), prefix);
    INFO("variant " << row.variant);
    CHECK(m.element_value(s, 1, 0) == row.tag0_sda1);
    CHECK(m.element_value(s, 2, 1) == row.tag1_sda2);
    CHECK(m.element_value(s, 0, 0) == row.tag0_sda);
    CHECK(m.element_value(s, 0, 1) == row.tag1_sda);
  }
  // Bart's 4/4 remark: reading sda1 with part0 alongside misses sda2's requests.
  const M d(M::TagWalkDouble, defaults());
  const State s = run_all(d, d.initial(), {submit(1, 2), dispatch(1)});
  CHECK(d.element_value(s, 1, 1) == std::make_pair(0, 0));
  // ... but counts whole-disk requests for part0.
  const M dw(M::TagWalkDouble, params(2, 2, 1, 1, -1, 1, 2));
  const State w = run_all(dw, dw.initial(), {submit(1, 0), dispatch(1)});
  CHECK(dw.element_value(w, 1, 1) == std::make_pair(0, 1));
  CHECK(dw.element_value(w, 0, 1) == std::make_pair(1, 0));
  // A free tag counts nothing.
  for (int v : {M::TagWalkV1, M::TagWalkDouble, M::Bf0ddaba, M::B0d97557}) {
    const M m(v, defaults());
    const State q = run(m, m.initial(), submit(0, 1));  // in the scheduler, no driver tag
    CHECK(m.element_value(q, 1, 0) == std::make_pair(0, 0));
    CHECK(m.element_value(q, 0, 0) == std::make_pair(0, 0));
  }
}

TEST_CASE("inflight: the end of a read sets the ghost verdicts") {
  const int r = 2;
  // Bart's question (3/4): a quiescent part0 walk misses partition I/O.
  const M v1(M::TagWalkV1, defaults());
  State s = read_all(v1, run_all(v1, v1.initial(), {submit(0, 1), dispatch(0)}), 0);
  CHECK((v1.rd_flags(s) & M::kPart0Wrong) != 0);
  CHECK(v1.violates(M::QuiescentExactPart0, s));
  CHECK_FALSE(v1.violates(M::QuiescentExactPart, s));
  CHECK_FALSE(v1.violates(M::LiveReadBounded, s));
  // The completed request still holding its tag is counted: wrong and over the bound.
  s = read_all(v1, run_all(v1, v1.initial(), {submit(0, 1), dispatch(0), complete(0)}), 1);
  CHECK(v1.violates(M::QuiescentExactPart, s));
  CHECK(v1.violates(M::LiveReadBounded, s));
  CHECK(v1.violates(M::QuiescentCountsQueued, s));
  // b0d97557ebfc gets part0 right, but misses the request still in the scheduler.
  const M b0(M::B0d97557, defaults());
  s = read_all(b0, run_all(b0, b0.initial(), {submit(0, 1), dispatch(0), submit(1, 2)}), 0);
  CHECK_FALSE(b0.violates(M::QuiescentExactPart0, s));
  CHECK(b0.violates(M::QuiescentCountsQueued, s));
  // bf0ddaba65dd gets partitions right and part0 wrong.
  const M bf(M::Bf0ddaba, defaults());
  const State bp = run_all(bf, bf.initial(), {submit(0, 1), dispatch(0)});
  CHECK(bf.rd_flags(read_all(bf, bp, 1)) == 0);
  CHECK(bf.violates(M::QuiescentExactPart0, read_all(bf, bp, 0)));
  // double: reading sda1 also checks its part0 half; sda2's request is missed.
  const M d(M::TagWalkDouble, defaults());
  s = read_all(d, run_all(d, d.initial(), {submit(1, 2), dispatch(1)}), 1);
  CHECK(d.violates(M::QuiescentExactPart0, s));
  CHECK_FALSE(d.violates(M::QuiescentExactPart, s));
  // A live read: the submitter steps mid-walk; the quiescent checks do not apply.
  State live = run(b0, b0.initial(), step(r, M::READ, 1));
  live = run_all(b0, live, {submit(1, 1), dispatch(1)});
  CHECK((b0.rd_flags(live) & M::kLive) != 0);
  CHECK(b0.rd_seen(live) == 1);   // sda1's request entered the window during the read
  CHECK(b0.rd_seen0(live) == 1);
  live = run(b0, live, step(r, M::VISIT, 1));
  CHECK(b0.rd_flags(live) == 0);  // counted 1 <= 1 seen, and no quiescent check
  // Submitter steps outside a read change nothing in the reader.
  const State q = run(b0, b0.initial(), submit(0, 1));
  CHECK(b0.rd_flags(q) == 0);
  CHECK(b0.rd_seen(q) == 0);
}

TEST_CASE("inflight: a per-CPU sum goes negative when a request completes on a CPU read later") {
  const M pc(M::Percpu, defaults());
  const int r = pc.reader_actor();
  // Yu Kuai's sequence (c007062188d8): read cpu0, issue on cpu0, complete on cpu1, read cpu1.
  State s = run(pc, pc.initial(), step(r, M::READ, 0));
  s = run_all(pc, s, {submit(0, 1, 0), dispatch(0), complete(0, 1)});
  CHECK(pc.rd_acc(s) == 0);
  s = run(pc, s, step(r, M::VISIT, 1));
  CHECK(pc.violates(M::NeverNegative, s));
  CHECK_FALSE(pc.violates(M::LiveReadBounded, s));  // clamped to 0
  CHECK_FALSE(pc.violates(M::QuiescentExactPart0, s));  // a live read
  // With one CPU the sum cannot go negative.
  CHECK(verdicts(M(M::Percpu, params(2, 2, 1, 1, -1, 0, 1)))[M::NeverNegative] == H);
  // 7be835694dae: part0 never sees partition I/O.
  const M be(M::Be835694, defaults());
  s = read_all(be, run(be, be.initial(), submit(0, 2, 1)), 0);
  CHECK(be.violates(M::QuiescentExactPart0, s));
}

TEST_CASE("inflight: violates() reads the sticky flags") {
  const M m(M::Percpu, defaults());
  State s = m.initial();
  for (int p = 0; p < 7; ++p) CHECK_FALSE(m.violates(p, s));
  const std::pair<std::uint8_t, int> map[] = {{M::kPartWrong, M::QuiescentExactPart},
                                              {M::kPart0Wrong, M::QuiescentExactPart0},
                                              {M::kOverBound, M::LiveReadBounded},
                                              {M::kNegative, M::NeverNegative},
                                              {M::kMissedQueued, M::QuiescentCountsQueued}};
  auto with_flag = [&](std::uint8_t flag) {
    State f = s;
    M::View v(m, f);
    v.set_live(flag == M::kLive);
    v.set_part_wrong(flag == M::kPartWrong);
    v.set_part0_wrong(flag == M::kPart0Wrong);
    v.set_over_bound(flag == M::kOverBound);
    v.set_negative(flag == M::kNegative);
    v.set_missed_queued(flag == M::kMissedQueued);
    CHECK(m.rd_flags(f) == flag);
    return f;
  };
  for (const auto& [flag, prop] : map) {
    const State f = with_flag(flag);
    for (int p = 0; p < 7; ++p) CHECK(m.violates(p, f) == (p == prop));
  }
  const State live = with_flag(M::kLive);
  for (int p = 0; p < 7; ++p) CHECK_FALSE(m.violates(p, live));
}

TEST_CASE("inflight: the explorer's verdicts on the default parameters") {
  struct Row {
    int variant;
    // part, part0, bounded, never-negative, counts-queued, deadlock, progress
    std::vector<Verdict> expect;
  };
  const Row rows[] = {
      {M::LegacyAtomic, {H, H, H, H, H, H, H}}, {M::TagWalkV1, {V, V, V, H, V, H, H}},
      {M::TagWalkDouble, {V, V, V, H, V, H, H}}, {M::Bf0ddaba, {H, V, H, H, V, H, H}},
      {M::B0d97557, {H, H, H, H, V, H, H}},     {M::Percpu, {H, H, H, V, H, H, H}},
      {M::Be835694, {H, V, H, V, V, H, H}},
  };
  for (const Row& row : rows) {
    INFO("variant " << M::static_info().variants[std::size_t(row.variant)].name);
    CHECK(verdicts(M(row.variant, defaults())) == row.expect);
  }
}

TEST_CASE("inflight: the fixed variants still hold on larger spaces") {
  const Params big = params(2, 2, 2, 2, -1, 1, 2);
  auto v = verdicts(M(M::LegacyAtomic, big));
  CHECK(v == std::vector<Verdict>{H, H, H, H, H, H, H});
  v = verdicts(M(M::B0d97557, big));
  CHECK(v == std::vector<Verdict>{H, H, H, H, V, H, H});
  v = verdicts(M(M::Bf0ddaba, big));
  CHECK(v[M::QuiescentExactPart] == H);
  CHECK(v[M::LiveReadBounded] == H);
  CHECK(v[M::QuiescentExactPart0] == V);
  v = verdicts(M(M::Percpu, params(1, 2, 2, 1, -1, 1, 2)));
  CHECK(v == std::vector<Verdict>{H, H, H, V, H, H, H});
}

TEST_CASE("inflight: shortest counterexamples are the stories in the report") {
  // tag-walk-double reading sda1: its part0 half misses sda2 (Bart on 4/4).
  const M d(M::TagWalkDouble, params(2, 2, 1, 1, 1, 0, 2));
  const auto r = explore(d, opts({M::QuiescentExactPart0}));
  REQUIRE(r.props.size() == 1);
  REQUIRE(r.props[0].verdict == Verdict::Violated);
  const auto& cx = *r.props[0].trace;
  REQUIRE(cx.steps.size() == 4);
  CHECK(cx.steps[0] == submit(0, 2));
  CHECK(cx.steps[1] == dispatch(0));
  CHECK(cx.steps[2] == step(2, M::READ, 1));
  CHECK(cx.steps[3] == step(2, M::VISIT, 1));
  // percpu never-negative: 5 steps, the request completes on the CPU read last.
  const M pc(M::Percpu, defaults());
  const auto n = explore(pc, opts({M::NeverNegative}));
  REQUIRE(n.props[0].verdict == Verdict::Violated);
  const auto& nx = *n.props[0].trace;
  REQUIRE(nx.steps.size() == 5);
  CHECK(nx.steps[0].actor == 2);
  CHECK(nx.steps[3] == complete(0, 1));
  CHECK(nx.steps[4] == step(2, M::VISIT, 1));
}

TEST_CASE("inflight: finished() and no deadlock") {
  const M m(M::Percpu, params(1, 1, 1, 1, -1, 0, 1));
  State s = m.initial();
  CHECK_FALSE(m.finished(s));
  s = run_all(m, s, {submit(0, 1), dispatch(0), complete(0), free_rq(0)});
  CHECK_FALSE(m.finished(s));
  s = read_all(m, s, 1);
  CHECK(m.finished(s));
  // Reader done but a submitter not.
  const State t = read_all(m, m.initial(), 0);
  CHECK(m.reader_done(t));
  CHECK_FALSE(m.finished(t));
  // Every reachable state has a successor or is finished, and a finished
  // state stays reachable from every state, in every variant.
  for (int v = 0; v < 7; ++v) {
    const auto r = explore(M(v, defaults()), opts({M::Deadlock, M::Progress}));
    CHECK(r.props[0].verdict == Verdict::Holds);
    CHECK(r.props[1].verdict == Verdict::Holds);
  }
}

TEST_CASE("inflight: footprints") {
  const M pc(M::Percpu, defaults());
  const int r = pc.reader_actor();
  const auto names = pc.variable_names();
  // pc, target, round per submitter; a counter per target and CPU; 13 reader variables.
  REQUIRE(names.size() == 3 * 2 + 6 + 13);
  CHECK(names[0] == "pc[0]");
  CHECK(names[2] == "target[0]");
  CHECK(names.back() == "not_submitted_count");
  const State s0 = pc.initial();
  const Footprint f = pc.footprint(s0, submit(0, 2, 1));
  for (const char* n : {"pc[0]", "target[0]", "round[0]"}) CHECK(f.writes.test(std::size_t(var_index(pc, n))));
  CHECK_FALSE(f.writes.test(std::size_t(var_index(pc, "pc[1]"))));
  CHECK(f.writes.test(std::size_t(var_index(pc, "in_flight[sda2]@cpu1"))));
  CHECK(f.writes.test(std::size_t(var_index(pc, "in_flight[sda]@cpu1"))));
  CHECK_FALSE(f.writes.test(std::size_t(var_index(pc, "in_flight[sda]@cpu0"))));
  CHECK_FALSE(f.writes.test(std::size_t(var_index(pc, "live"))));  // no read in progress
  CHECK(f.writes.count() == 3 + 2);
  // Submissions on different CPUs are independent; on one CPU they share part0's counter.
  CHECK(f.independent_of(pc.footprint(s0, submit(1, 1, 0))));
  CHECK_FALSE(f.independent_of(pc.footprint(s0, submit(1, 1, 1))));
  // During a read every submitter step touches the reader's ghost.
  const State rd = run(pc, s0, step(r, M::READ, 0));
  CHECK(pc.footprint(rd, submit(0, 1, 0)).writes.test(std::size_t(var_index(pc, "live"))));
  CHECK(pc.footprint(rd, submit(0, 1, 0)).writes.test(std::size_t(var_index(pc, "seen"))));
  const Footprint fv = pc.footprint(rd, step(r, M::VISIT, 1));
  CHECK(fv.reads.test(std::size_t(var_index(pc, "in_flight[sda]@cpu1"))));
  CHECK_FALSE(fv.reads.test(std::size_t(var_index(pc, "in_flight[sda]@cpu0"))));
  // tag walks: no counters; a visit reads the tag's submitter.
  const M tw(M::B0d97557, defaults());
  REQUIRE(tw.variable_names().size() == 3 * 2 + 13);
  const Footprint a = tw.footprint(tw.initial(), submit(0, 1));
  const Footprint b = tw.footprint(tw.initial(), submit(1, 1));
  CHECK(a.independent_of(b));
  CHECK_FALSE(a.independent_of(tw.footprint(tw.initial(), step(2, M::READ, 0))));
}

TEST_CASE("inflight: independent steps commute") {
  int total_independent = 0;
  CHECK(rc::check("independent steps commute", [&] {
    const int variant = *rc::gen::inRange(0, 7);
    const M m(variant, params(*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4),
                              *rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3),
                              -1, *rc::gen::inRange(0, 2), *rc::gen::inRange(1, 4)));
    total_independent += walk_checking_commutation(m, 40);
  }));
  // Typically hundreds; the bound leaves room for unlucky random runs.
  CHECK(total_independent > 20);
}

TEST_CASE("inflight: describe, summary, state_json and actor names") {
  const M d(M::TagWalkDouble, defaults());
  CHECK(d.actor_name(0) == "submitter 0");
  CHECK(d.actor_name(2) == "reader");
  State s = run_all(d, d.initial(), {submit(1, 2), dispatch(1)});
  CHECK(d.describe(d.initial(), submit(1, 2)).find("blk_account_io_start") != std::string::npos);
  CHECK(d.describe(run(d, d.initial(), submit(1, 2)), dispatch(1)).find("driver tag 1") !=
        std::string::npos);
  CHECK(d.describe(s, step(2, M::READ, 1)).find("part_in_flight_double(sda1, sda)") !=
        std::string::npos);
  s = run(d, s, step(2, M::READ, 1));
  const std::string end = d.describe(s, step(2, M::VISIT, 1));
  CHECK(end.find("rq->part = sda2") != std::string::npos);
  CHECK(end.find("WRONG part0 count") != std::string::npos);
  const State e = run(d, s, step(2, M::VISIT, 1));
  CHECK(d.summary(e).find("PART0-WRONG") != std::string::npos);
  const auto j = d.state_json(e);
  CHECK(j["reader"]["part0_wrong"] == true);
  CHECK(j["submitters"][1]["pc"] == "complete");
  CHECK(j["submitters"][1]["target"] == "sda2");
  CHECK_FALSE(j.contains("in_flight"));
  const M pc(M::Percpu, defaults());
  const auto pj = pc.state_json(run(pc, pc.initial(), submit(0, 1, 1)));
  CHECK(pj["in_flight"]["sda"][1] == 1);
  CHECK(pj["in_flight"]["sda1"][0] == 0);
  CHECK(pc.describe(pc.initial(), submit(0, 1, 1)).find("in_flight[sda1]@cpu1++") !=
        std::string::npos);
  const M leg(M::LegacyAtomic, defaults());
  CHECK(leg.describe(leg.initial(), submit(0, 2)).find("part_inc_in_flight") != std::string::npos);
  CHECK(leg.summary(run(leg, leg.initial(), submit(0, 2))).find("sda=1 sda1=0 sda2=1") !=
        std::string::npos);
}

TEST_CASE("inflight: the View of inflight_logic.hpp reads and writes every field") {
  const M m(M::Percpu, params(2, 2, 2, 2, -1, 1, 2));
  State s = m.initial();
  M::View v(m, s);
  v.set_pc(1, M::FREE);
  v.set_target(1, 2);
  v.set_round(1, 1);
  v.set_counter(2, 1, -3);
  v.set_rd_pos(1);
  v.set_rd_done(1);
  v.set_rd_target(2);
  v.set_rd_acc(-2);
  v.set_rd_acc0(4);
  v.set_rd_seen(3);
  v.set_rd_seen0(5);
  v.set_live(true);
  v.set_over_bound(true);
  CHECK(m.pc(s, 1) == M::FREE);
  CHECK(m.target(s, 1) == 2);
  CHECK(m.round(s, 1) == 1);
  CHECK(m.counter(s, 2, 1) == -3);
  CHECK(m.counter(s, 2, 0) == 0);
  CHECK(m.rd_pos(s) == 1);
  CHECK(m.rd_done(s) == 1);
  CHECK(m.rd_target(s) == 2);
  CHECK(m.rd_acc(s) == -2);
  CHECK(m.rd_acc0(s) == 4);
  CHECK(m.rd_seen(s) == 3);
  CHECK(m.rd_seen0(s) == 5);
  CHECK(m.rd_flags(s) == (M::kLive | M::kOverBound));
  CHECK(v.live());
  CHECK(v.over_bound());
  CHECK_FALSE(v.negative());
  v.set_live(false);
  CHECK(m.rd_flags(s) == M::kOverBound);
  CHECK(m.violates(M::LiveReadBounded, s));
  CHECK_FALSE(m.violates(M::NeverNegative, s));
}

// A live per-CPU read can report more requests than were ever in flight at
// once, within live-read-bounded (distinct requests during the read): one
// submitter, two rounds. This is device stress's diskstats reading 33 with
// 32 I/Os outstanding (docs/models/inflight.md).
TEST_CASE("inflight: a live per-CPU sum counts a request and its successor") {
  const M m(M::Be835694, params(1, 1, 2, 1, 1, 0, 2));
  const int r = m.reader_actor();
  State s = run_all(m, m.initial(), {submit(0, 1, 0), step(r, M::READ, 1)});  // cpu0 summed: 1
  CHECK(m.rd_acc(s) == 1);
  s = run_all(m, s, {dispatch(0), complete(0, 0), free_rq(0), submit(0, 1, 1)});  // rq 2 on cpu1
  CHECK(m.truth(s, 1) == 1);  // never more than one in flight
  CHECK(m.rd_acc(s) + m.element_value(s, 1, 1).first == 2);  // what the read returns
  s = run(m, s, step(r, M::VISIT, 1));
  CHECK((m.rd_flags(s) & M::kOverBound) == 0);  // two distinct requests during the read
}

// What `device check` compares with the kernel: a quiescent read's value.
TEST_CASE("inflight: quiescent_read sums the reader's elements") {
  const Params p = params(2, 8, 1, 1, -1, 1, 1);
  const M walk(M::B0d97557, p), cnt(M::Be835694, p), old(M::Percpu, p);
  CHECK(cnt.state_bytes() <= State::capacity);
  for (const M* m : {&walk, &cnt, &old}) {
    State s = m->initial();
    // 4 started (p1, p1, D, p2), 4 in the scheduler (p2, D, p1, p1).
    const int tg[8] = {1, 1, 0, 2, 2, 0, 1, 1};
    for (int i = 0; i < 8; ++i) {
      s = run(*m, s, submit(i, tg[i]));
      if (i < 4) s = run(*m, s, dispatch(i));
    }
    const bool is_walk = m == &walk;
    CHECK(m->quiescent_read(s, 0) == (is_walk ? 4 : m == &cnt ? 2 : 8));
    CHECK(m->quiescent_read(s, 1) == (is_walk ? 2 : 4));
    CHECK(m->quiescent_read(s, 2) == (is_walk ? 1 : 2));
  }
}

}  // namespace inflight_steps_test
