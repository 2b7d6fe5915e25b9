// Unit tests for every step of TagsModel (model/tags/tags.hpp), checked through the
// model's state accessors.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "model/tags/tags.hpp"
#include "tests/model_steps.hpp"

namespace tags_steps_test {

using namespace blkmc;
using namespace blkmc::testing;

using State = TagsModel::State;

Params params(int ntags, int submitters, int rounds, int pool) {
  return {{"ntags", ntags}, {"submitters", submitters}, {"rounds", rounds}, {"pool", pool}};
}

// The steps of one full round of submitter `sub` on tag t (pool = 0).
std::vector<Step> full_round(int sub, int t) {
  return {step(sub, TagsModel::ALLOC, t), step(sub, TagsModel::ASSIGN),
          step(sub, TagsModel::START), step(sub, TagsModel::COMPLETE), step(sub, TagsModel::FREE)};
}

TEST_CASE("tags: initial state") {
  const TagsModel m(TagsModel::V4_11, params(2, 2, 1, 0));
  const State s = m.initial();
  CHECK(m.bits(s) == 0);
  for (int sub = 0; sub < 2; ++sub) {
    CHECK(m.pc(s, sub) == TagsModel::ALLOC);
    CHECK(m.round(s, sub) == 0);
  }
  CHECK(m.iter_pos(s) == 0);
  CHECK(m.iter_count(s) == 0);
  CHECK(m.iter_flags(s) == 0);
  CHECK(m.iterator_actor() == 2);
  CHECK_FALSE(m.finished(s));

  const TagsModel mp(TagsModel::V4_11, params(2, 2, 1, 1));
  const State sp = mp.initial();
  CHECK(mp.pc(sp, 0) == TagsModel::GET);
  CHECK(mp.pc(sp, 1) == TagsModel::GET);
  // Initial successors: pool=0: each submitter allocates one of 2 tags, plus the iterator.
  CHECK(successors(m, s).size() == 5);
  // pool=1: each submitter takes the one object, plus the iterator.
  CHECK(successors(mp, sp).size() == 3);
}

TEST_CASE("tags: GET takes a free pool object and blocks when the pool is empty") {
  const TagsModel m(TagsModel::Refcount, params(1, 2, 1, 1));
  const State s0 = m.initial();
  auto gets = successors_of(m, s0, 0);
  REQUIRE(gets.size() == 1);
  CHECK(gets[0].first == step(0, TagsModel::GET, 1));
  const State s1 = run(m, s0, step(0, TagsModel::GET, 1));
  CHECK(m.obj(s1, 0) == 1);
  CHECK(m.pc(s1, 0) == TagsModel::ALLOC);
  CHECK(m.request_id(s1, 0) == 1);
  CHECK(m.holder(s1, 1) == 0);
  // A pool object is live from the moment it is taken.
  CHECK(m.rq_alive(s1, 1));
  CHECK(m.rq_tag(s1, 1) == -1);
  // Submitter 1 blocks: the only object is taken.
  CHECK(successors_of(m, s1, 1).empty());
  State dummy{};
  CHECK_FALSE(m.apply(s1, step(1, TagsModel::GET, 1), dummy));
  // GET of an object outside the pool is never enabled.
  CHECK_FALSE(m.apply(s0, step(0, TagsModel::GET, 2), dummy));
  CHECK_FALSE(m.apply(s0, step(0, TagsModel::GET, 0), dummy));

  // With pool = 2, GET has one successor per free object.
  const TagsModel m2(TagsModel::Refcount, params(1, 2, 1, 2));
  const State t0 = m2.initial();
  auto g2 = successors_of(m2, t0, 0);
  REQUIRE(g2.size() == 2);
  CHECK(g2[0].first == step(0, TagsModel::GET, 1));
  CHECK(g2[1].first == step(0, TagsModel::GET, 2));
  const State t1 = run(m2, t0, step(0, TagsModel::GET, 2));
  auto g3 = successors_of(m2, t1, 1);
  REQUIRE(g3.size() == 1);
  CHECK(g3[0].first == step(1, TagsModel::GET, 1));
}

TEST_CASE("tags: ALLOC has one successor per clear bit and sets bit, owner and tag") {
  const TagsModel m(TagsModel::V4_11, params(3, 2, 1, 0));
  const State s0 = m.initial();
  auto allocs = successors_of(m, s0, 0);
  REQUIRE(allocs.size() == 3);
  for (int t = 0; t < 3; ++t) {
    CHECK(allocs[t].first == step(0, TagsModel::ALLOC, t));
    const State& n = allocs[t].second;
    CHECK(m.bits(n) == (1u << t));
    CHECK(m.owner(n, t) == 1);  // request id of submitter 0, round 0
    CHECK(m.tag(n, 0) == t);
    CHECK(m.pc(n, 0) == TagsModel::ASSIGN);
    for (int u = 0; u < 3; ++u) CHECK(m.rqs(n, u) == 0);  // rqs[] unchanged
    CHECK(m.rq_tag(n, 1) == t);
  }
  // Submitter 1 (request id 2) after submitter 0 took tag 1: only tags 0 and 2.
  const State s1 = run(m, s0, step(0, TagsModel::ALLOC, 1));
  auto a1 = successors_of(m, s1, 1);
  REQUIRE(a1.size() == 2);
  CHECK(a1[0].first == step(1, TagsModel::ALLOC, 0));
  CHECK(a1[1].first == step(1, TagsModel::ALLOC, 2));
  CHECK(m.owner(a1[1].second, 2) == 2);
  CHECK(m.bits(a1[1].second) == 0b110);
  State dummy{};
  CHECK_FALSE(m.apply(s1, step(1, TagsModel::ALLOC, 1), dummy));

  // rqs[] keeps its stale entry when the tag is allocated again.
  const TagsModel m1(TagsModel::V4_11, params(1, 1, 2, 0));
  State r = run_all(m1, m1.initial(), full_round(0, 0));
  REQUIRE(m1.rqs(r, 0) == 1);
  r = run(m1, r, step(0, TagsModel::ALLOC, 0));
  CHECK(m1.rqs(r, 0) == 1);
  CHECK(m1.owner(r, 0) == 2);
}

TEST_CASE("tags: ALLOC blocks when no tag is free") {
  const TagsModel m(TagsModel::V4_11, params(1, 2, 1, 0));
  const State s = run(m, m.initial(), step(0, TagsModel::ALLOC, 0));
  CHECK(successors_of(m, s, 1).empty());
  State dummy{};
  CHECK_FALSE(m.apply(s, step(1, TagsModel::ALLOC, 0), dummy));
  // Out-of-range tag is never enabled.
  CHECK_FALSE(m.apply(m.initial(), step(0, TagsModel::ALLOC, 1), dummy));
  // Once submitter 0 frees the tag, submitter 1 can allocate it.
  State f = run_all(m, s,
                    {step(0, TagsModel::ASSIGN), step(0, TagsModel::START),
                     step(0, TagsModel::COMPLETE), step(0, TagsModel::FREE)});
  auto a = successors_of(m, f, 1);
  REQUIRE(a.size() == 1);
  CHECK(a[0].first == step(1, TagsModel::ALLOC, 0));
}

TEST_CASE("tags: ASSIGN publishes rqs[tag] = request id") {
  const TagsModel m(TagsModel::V4_11, params(2, 2, 1, 0));
  State s = run(m, m.initial(), step(1, TagsModel::ALLOC, 1));
  auto a = successors_of(m, s, 1);
  REQUIRE(a.size() == 1);
  CHECK(a[0].first == step(1, TagsModel::ASSIGN, 0));
  s = run(m, s, step(1, TagsModel::ASSIGN));
  CHECK(m.rqs(s, 1) == 2);  // submitter 1, round 0 -> id 2
  CHECK(m.rqs(s, 0) == 0);
  CHECK(m.pc(s, 1) == TagsModel::START);
  CHECK(m.bits(s) == 0b10);
  // A fresh request is live from its assignment on, not in flight yet.
  CHECK(m.rq_alive(s, 2));
  CHECK_FALSE(m.rq_in_flight(s, 2));

  // pool: rqs[tag] = the object id.
  const TagsModel mp(TagsModel::V4_11, params(2, 1, 1, 2));
  State p = run_all(mp, mp.initial(),
                    {step(0, TagsModel::GET, 2), step(0, TagsModel::ALLOC, 0),
                     step(0, TagsModel::ASSIGN)});
  CHECK(mp.rqs(p, 0) == 2);
  CHECK(mp.owner(p, 0) == 2);
}

TEST_CASE("tags: START and COMPLETE bracket in-flight") {
  const TagsModel m(TagsModel::V4_11, params(1, 1, 1, 0));
  State s = run_all(m, m.initial(), {step(0, TagsModel::ALLOC, 0), step(0, TagsModel::ASSIGN)});
  CHECK_FALSE(m.rq_in_flight(s, 1));
  s = run(m, s, step(0, TagsModel::START));
  CHECK(m.pc(s, 0) == TagsModel::COMPLETE);
  CHECK(m.rq_in_flight(s, 1));
  CHECK(m.rq_alive(s, 1));
  s = run(m, s, step(0, TagsModel::COMPLETE));
  CHECK(m.pc(s, 0) == TagsModel::FREE);
  CHECK_FALSE(m.rq_in_flight(s, 1));
  CHECK(m.rq_alive(s, 1));
  CHECK(m.rq_tag(s, 1) == 0);
  // Other ids are never in flight.
  CHECK_FALSE(m.rq_in_flight(s, 0));
  CHECK_FALSE(m.rq_in_flight(s, 2));
}

TEST_CASE("tags: FREE clears bit and owner, keeps rqs[], moves to the next round or DONE") {
  const TagsModel m(TagsModel::V4_11, params(2, 1, 2, 0));
  State s = run_all(m, m.initial(), full_round(0, 1));
  CHECK(m.bits(s) == 0);
  CHECK(m.owner(s, 1) == 0);
  CHECK(m.rqs(s, 1) == 1);  // stale pointer left behind
  CHECK(m.round(s, 0) == 1);
  CHECK(m.pc(s, 0) == TagsModel::ALLOC);
  CHECK_FALSE(m.rq_alive(s, 1));
  CHECK(m.holder(s, 1) == -1);
  CHECK(m.request_id(s, 0) == 2);
  CHECK_FALSE(m.finished(s));
  s = run_all(m, s, full_round(0, 0));
  CHECK(m.pc(s, 0) == TagsModel::DONE);
  CHECK(m.round(s, 0) == 2);
  CHECK(m.rqs(s, 0) == 2);
  CHECK(m.rqs(s, 1) == 1);
  CHECK(m.bits(s) == 0);
  CHECK(successors_of(m, s, 0).empty());
  CHECK_FALSE(m.finished(s));  // the iterator has not walked yet

  // pool: FREE also returns the object, and the submitter goes back to GET.
  const TagsModel mp(TagsModel::V4_11, params(1, 1, 2, 1));
  State p = run_all(mp, mp.initial(),
                    {step(0, TagsModel::GET, 1), step(0, TagsModel::ALLOC, 0),
                     step(0, TagsModel::ASSIGN), step(0, TagsModel::START),
                     step(0, TagsModel::COMPLETE), step(0, TagsModel::FREE)});
  CHECK(mp.obj(p, 0) == 0);
  CHECK(mp.pc(p, 0) == TagsModel::GET);
  CHECK(mp.rqs(p, 0) == 1);
  CHECK(m.bits(p) == 0);
  CHECK_FALSE(mp.rq_alive(p, 1));
}

TEST_CASE("tags: iterator skips a clear bit and advances") {
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, params(2, 1, 1, 0));
    const int it = m.iterator_actor();
    State s = m.initial();
    auto its = successors_of(m, s, it);
    REQUIRE(its.size() == 1);
    CHECK(its[0].first == step(it, TagsModel::VISIT, 0));
    State dummy{};
    CHECK_FALSE(m.apply(s, step(it, TagsModel::VISIT, 1), dummy));  // not at pos 1 yet
    s = run(m, s, step(it, TagsModel::VISIT, 0));
    CHECK(m.iter_pos(s) == 1);
    CHECK(m.iter_flags(s) == 0);
    CHECK(m.iter_count(s) == 0);
    CHECK_FALSE(m.iterator_done(s));
    s = run(m, s, step(it, TagsModel::VISIT, 1));
    CHECK(m.iter_pos(s) == 2);
    CHECK(m.iterator_done(s));
    CHECK(successors_of(m, s, it).empty());
  }
}

TEST_CASE("tags: v4.11 iterator oopses on a set bit with NULL rqs[]") {
  const TagsModel m(TagsModel::V4_11, params(2, 1, 1, 0));
  const int it = m.iterator_actor();
  const State s = run(m, m.initial(), step(0, TagsModel::ALLOC, 0));
  const State o = run(m, s, step(it, TagsModel::VISIT, 0));
  CHECK((m.iter_flags(o) & TagsModel::kOops) != 0);
  CHECK(m.iter_pos(o) == 0);  // not advanced
  CHECK(m.iter_count(o) == 0);
  CHECK(m.iterator_done(o));
  CHECK(successors_of(m, o, it).empty());
  CHECK(m.violates(TagsModel::NoNullDeref, o));
  CHECK_FALSE(m.violates(TagsModel::FnSeesOwner, o));
  // The submitter keeps going.
  CHECK(successors_of(m, o, 0).size() == 1);
  // Once every submitter is done, the oopsed walk counts as finished.
  State f = run_all(m, o,
                    {step(0, TagsModel::ASSIGN), step(0, TagsModel::START),
                     step(0, TagsModel::COMPLETE), step(0, TagsModel::FREE)});
  CHECK(m.finished(f));
  CHECK(successors(m, f).empty());
}

TEST_CASE("tags: checked variants skip a NULL rqs[] entry") {
  for (int v : {TagsModel::NullCheck, TagsModel::Refcount, TagsModel::TagMatch}) {
    const TagsModel m(v, params(1, 1, 1, 0));
    const int it = m.iterator_actor();
    const State s = run(m, m.initial(), step(0, TagsModel::ALLOC, 0));
    const State n = run(m, s, step(it, TagsModel::VISIT, 0));
    CHECK(m.iter_flags(n) == 0);
    CHECK(m.iter_pos(n) == 1);
    CHECK(m.iter_count(n) == 0);
    CHECK(m.iterator_done(n));
    CHECK_FALSE(m.violates(TagsModel::NoNullDeref, n));
  }
}

TEST_CASE("tags: null-check calls fn on a stale request") {
  // Round 0 on tag 0 leaves rqs[0] = rq 1; round 1 re-allocates tag 0 for
  // rq 2 but has not assigned rqs[0] yet.
  const std::vector<Step> prefix = [] {
    auto p = full_round(0, 0);
    p.push_back(step(0, TagsModel::ALLOC, 0));
    return p;
  }();
  const TagsModel nc(TagsModel::NullCheck, params(1, 1, 2, 0));
  const int it = nc.iterator_actor();
  State s = run_all(nc, nc.initial(), prefix);
  REQUIRE(nc.owner(s, 0) == 2);
  REQUIRE(nc.rqs(s, 0) == 1);
  const State n = run(nc, s, step(it, TagsModel::VISIT, 0));
  CHECK_FALSE(same(nc, n, s));
  CHECK((nc.iter_flags(n) & TagsModel::kStaleFn) != 0);
  CHECK((nc.iter_flags(n) & TagsModel::kOops) == 0);
  CHECK(nc.iter_count(n) == 0);  // the stale rq 1 is not in flight
  CHECK(nc.iter_pos(n) == 1);
  CHECK(nc.violates(TagsModel::FnSeesOwner, n));
  CHECK_FALSE(nc.violates(TagsModel::NoNullDeref, n));

  // v4.11 does the same (the pointer is not NULL).
  const TagsModel v4(TagsModel::V4_11, params(1, 1, 2, 0));
  const State n4 = run(v4, run_all(v4, v4.initial(), prefix), step(it, TagsModel::VISIT, 0));
  CHECK(v4.violates(TagsModel::FnSeesOwner, n4));

  // refcount and tag-match skip the dead stale request.
  for (int v : {TagsModel::Refcount, TagsModel::TagMatch}) {
    const TagsModel m(v, params(1, 1, 2, 0));
    const State r = run(m, run_all(m, m.initial(), prefix), step(it, TagsModel::VISIT, 0));
    CHECK(m.iter_flags(r) == 0);
    CHECK(m.iter_pos(r) == 1);
    CHECK(m.iter_count(r) == 0);
    CHECK_FALSE(m.violates(TagsModel::FnSeesOwner, r));
  }
}

TEST_CASE("tags: refcount calls fn on a live object through a stale slot, tag-match skips it") {
  // pool = 2, one tag. Submitter 0 runs object 1 on tag 0 and frees it (rqs[0]
  // stays 1); submitter 1 takes object 1 again (live, no tag yet); submitter 0
  // takes object 2 and allocates tag 0: bit set, owner 2, rqs[0] = 1.
  const std::vector<Step> prefix = {
      step(0, TagsModel::GET, 1),   step(0, TagsModel::ALLOC, 0),    step(0, TagsModel::ASSIGN),
      step(0, TagsModel::START),    step(0, TagsModel::COMPLETE),    step(0, TagsModel::FREE),
      step(1, TagsModel::GET, 1),   step(0, TagsModel::GET, 2),      step(0, TagsModel::ALLOC, 0)};
  const Params p = params(1, 2, 2, 2);
  const TagsModel rc(TagsModel::Refcount, p);
  const int it = rc.iterator_actor();
  const State s = run_all(rc, rc.initial(), prefix);
  REQUIRE(rc.test_bit(s, 0));
  REQUIRE(rc.owner(s, 0) == 2);
  REQUIRE(rc.rqs(s, 0) == 1);
  REQUIRE(rc.rq_alive(s, 1));
  CHECK(rc.rq_tag(s, 1) == -1);
  const State n = run(rc, s, step(it, TagsModel::VISIT, 0));
  CHECK((rc.iter_flags(n) & TagsModel::kStaleFn) != 0);
  CHECK(rc.violates(TagsModel::FnSeesOwner, n));
  CHECK(rc.iter_pos(n) == 1);

  const TagsModel tm(TagsModel::TagMatch, p);
  const State t = run(tm, run_all(tm, tm.initial(), prefix), step(it, TagsModel::VISIT, 0));
  CHECK(tm.iter_flags(t) == 0);
  CHECK_FALSE(tm.violates(TagsModel::FnSeesOwner, t));
  CHECK(tm.iter_pos(t) == 1);

  // The same with the live object holding another tag (rq->tag = 1 != 0).
  const Params p2 = params(2, 2, 2, 2);
  const std::vector<Step> prefix2 = {
      step(0, TagsModel::GET, 1),   step(0, TagsModel::ALLOC, 0),    step(0, TagsModel::ASSIGN),
      step(0, TagsModel::START),    step(0, TagsModel::COMPLETE),    step(0, TagsModel::FREE),
      step(1, TagsModel::GET, 1),   step(1, TagsModel::ALLOC, 1),    step(1, TagsModel::ASSIGN),
      step(1, TagsModel::START),    step(0, TagsModel::GET, 2),      step(0, TagsModel::ALLOC, 0)};
  const TagsModel rc2(TagsModel::Refcount, p2);
  const TagsModel tm2(TagsModel::TagMatch, p2);
  const int it2 = rc2.iterator_actor();
  const State a = run_all(rc2, rc2.initial(), prefix2);
  REQUIRE(rc2.rq_tag(a, 1) == 1);
  REQUIRE(rc2.rq_in_flight(a, 1));
  const State a1 = run(rc2, a, step(it2, TagsModel::VISIT, 0));
  CHECK(rc2.violates(TagsModel::FnSeesOwner, a1));
  CHECK(rc2.iter_count(a1) == 1);  // counts rq 1 via the stale slot
  CHECK(rc2.violates(TagsModel::CountOwnerOnly, a1));  // 67f3b2f822b7's double count
  const State a2 = run(rc2, a1, step(it2, TagsModel::VISIT, 1));
  CHECK(rc2.iter_count(a2) == 2);  // ... and again via its own tag
  const State b = run_all(tm2, tm2.initial(), prefix2);
  const State b1 = run(tm2, b, step(it2, TagsModel::VISIT, 0));
  CHECK_FALSE(tm2.violates(TagsModel::FnSeesOwner, b1));
  CHECK(tm2.iter_count(b1) == 0);
  const State b2 = run(tm2, b1, step(it2, TagsModel::VISIT, 1));
  CHECK(tm2.iter_count(b2) == 1);
  CHECK(tm2.iter_flags(b2) == 0);
  CHECK_FALSE(tm2.violates(TagsModel::CountOwnerOnly, b2));
}

TEST_CASE("tags: the count only grows for in-flight requests") {
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, params(1, 1, 1, 0));
    const int it = m.iterator_actor();
    // Visit at each location after ASSIGN: START (live, not started),
    // COMPLETE (in flight), FREE (completed).
    State s = run_all(m, m.initial(), {step(0, TagsModel::ALLOC, 0), step(0, TagsModel::ASSIGN)});
    const int expect[] = {0, 1, 0};
    for (int k = 0; k < 3; ++k) {
      const State n = run(m, s, step(it, TagsModel::VISIT, 0));
      INFO("variant " << v << " location " << k);
      CHECK(m.iter_count(n) == expect[k]);
      CHECK(m.iter_flags(n) == 0);
      CHECK(m.iter_pos(n) == 1);
      const Step next = k == 0 ? step(0, TagsModel::START) : step(0, TagsModel::COMPLETE);
      if (k < 2) s = run(m, s, next);
    }
  }
}

TEST_CASE("tags: finished()") {
  const TagsModel m(TagsModel::TagMatch, params(1, 2, 1, 0));
  const int it = m.iterator_actor();
  State s = m.initial();
  CHECK_FALSE(m.finished(s));
  s = run_all(m, s, full_round(0, 0));
  CHECK_FALSE(m.finished(s));
  s = run_all(m, s, full_round(1, 0));
  CHECK(m.pc(s, 0) == TagsModel::DONE);
  CHECK(m.pc(s, 1) == TagsModel::DONE);
  CHECK_FALSE(m.finished(s));  // iterator at pos 0
  s = run(m, s, step(it, TagsModel::VISIT, 0));
  CHECK(m.finished(s));
  CHECK(successors(m, s).empty());
  // Iterator done but a submitter is not.
  State t = run(m, m.initial(), step(it, TagsModel::VISIT, 0));
  CHECK(m.iterator_done(t));
  CHECK_FALSE(m.finished(t));
}

TEST_CASE("tags: violates() reads the ghost flags and the count") {
  const TagsModel m(TagsModel::NullCheck, params(2, 2, 1, 0));
  State s = m.initial();
  for (int p = 0; p < 4; ++p) CHECK_FALSE(m.violates(p, s));
  State o = s;
  TagsModel::View(m, o).set_oops(true);
  CHECK(m.violates(TagsModel::NoNullDeref, o));
  CHECK_FALSE(m.violates(TagsModel::FnSeesOwner, o));
  CHECK_FALSE(m.violates(TagsModel::WalkCountBounded, o));
  State f = s;
  TagsModel::View(m, f).set_stale_fn(true);
  CHECK_FALSE(m.violates(TagsModel::NoNullDeref, f));
  CHECK(m.violates(TagsModel::FnSeesOwner, f));
  State c = s;
  TagsModel::View(m, c).set_count(2);  // == submitters: fine
  CHECK_FALSE(m.violates(TagsModel::WalkCountBounded, c));
  TagsModel::View(m, c).set_count(3);  // > submitters
  CHECK(m.violates(TagsModel::WalkCountBounded, c));
  CHECK_FALSE(m.violates(TagsModel::NoNullDeref, c));
  // Deadlock is not an invariant: violates() never reports it.
  State all = s;
  CHECK_FALSE(m.violates(TagsModel::CountOwnerOnly, all));
  TagsModel::View va(m, all);
  va.set_oops(true), va.set_stale_fn(true), va.set_stale_count(true), va.set_count(9);
  CHECK(m.violates(TagsModel::NoNullDeref, all));
  CHECK(m.violates(TagsModel::FnSeesOwner, all));
  CHECK(m.violates(TagsModel::CountOwnerOnly, all));
  CHECK(m.violates(TagsModel::WalkCountBounded, all));
  CHECK_FALSE(m.violates(TagsModel::Deadlock, all));
  // The property indices match the names in info().
  const auto& props = m.info().props;
  REQUIRE(props.size() == 5);
  CHECK(props[TagsModel::NoNullDeref].name == "no-null-deref");
  CHECK(props[TagsModel::FnSeesOwner].name == "fn-sees-owner");
  CHECK(props[TagsModel::CountOwnerOnly].name == "count-owner-only");
  CHECK(props[TagsModel::WalkCountBounded].name == "walk-count-bounded");
  CHECK(props[TagsModel::Deadlock].name == "deadlock");
  CHECK(props[TagsModel::Deadlock].kind == PropKind::Deadlock);
  CHECK(props[TagsModel::NoNullDeref].kind == PropKind::Invariant);
}

TEST_CASE("tags: state_bytes() follows the parameters") {
  // The schema's layout: owner[] + rqs[] + 3 (or 4 with a pool) bytes per
  // submitter + the iterator's pos and count, then the bitmap and the
  // iterator's three flags packed in bits.
  CHECK(TagsModel(0, params(1, 1, 1, 0)).state_bytes() == 2 + 3 + 2 + 1);
  CHECK(TagsModel(0, params(2, 2, 1, 0)).state_bytes() == 4 + 6 + 2 + 1);
  CHECK(TagsModel(0, params(2, 2, 1, 1)).state_bytes() == 4 + 8 + 2 + 1);
  CHECK(TagsModel(0, params(4, 3, 5, 2)).state_bytes() == 8 + 12 + 2 + 1);
  CHECK(TagsModel(3, params(16, 8, 15, 8)).state_bytes() == 32 + 32 + 2 + 3);
  CHECK(TagsModel(3, params(16, 8, 15, 8)).state_bytes() <= TagsModel::State::capacity);
  // Bytes beyond state_bytes() stay zero along a run.
  const TagsModel m(TagsModel::V4_11, params(1, 1, 1, 0));
  State s = run_all(m, m.initial(), full_round(0, 0));
  for (std::size_t i = m.state_bytes(); i < TagsModel::State::capacity; ++i) CHECK(s.b[i] == 0);
}

TEST_CASE("tags: constructor rejects bad variants") {
  CHECK_THROWS_AS(TagsModel(4, params(1, 1, 1, 0)), UsageError);
  CHECK_THROWS_AS(TagsModel(-1, params(1, 1, 1, 0)), UsageError);
}

TEST_CASE("tags: footprints") {
  const TagsModel m(TagsModel::V4_11, params(3, 2, 1, 0));
  const int it = m.iterator_actor();
  const auto names = m.variable_names();
  // Per tag bit, owner, rqs; per submitter pc, round, tag; the iterator's five.
  REQUIRE(names.size() == 3 * 3 + 2 * 3 + 5);
  const State s0 = m.initial();

  const Footprint fa = m.footprint(s0, step(0, TagsModel::ALLOC, 1));
  CHECK(fa.writes.test(var_index(m, "bit[1]")));
  CHECK(fa.writes.test(var_index(m, "owner[1]")));
  CHECK(fa.writes.test(var_index(m, "pc[0]")));
  CHECK_FALSE(fa.writes.test(var_index(m, "bit[0]")));
  CHECK_FALSE(fa.writes.test(var_index(m, "owner[0]")));
  CHECK_FALSE(fa.writes.test(var_index(m, "rqs[1]")));
  CHECK_FALSE(fa.writes.test(var_index(m, "pc[1]")));
  CHECK_FALSE(fa.writes.test(var_index(m, "pos")));
  CHECK(fa.writes.count() == 2 + 3);  // the tag's bit and owner, the submitter's pc, round, tag
  for (int t = 0; t < 3; ++t) CHECK(fa.reads.test(var_index(m, "bit[" + std::to_string(t) + "]")));

  State s1 = run(m, s0, step(0, TagsModel::ALLOC, 2));
  const Footprint fi = m.footprint(s1, step(it, TagsModel::VISIT, 0));
  CHECK(fi.reads.test(var_index(m, "bit[0]")));
  CHECK(fi.reads.test(var_index(m, "rqs[0]")));
  CHECK(fi.reads.test(var_index(m, "owner[0]")));
  CHECK(fi.reads.test(var_index(m, "pos")));
  CHECK_FALSE(fi.reads.test(var_index(m, "bit[1]")));
  CHECK_FALSE(fi.reads.test(var_index(m, "rqs[2]")));
  CHECK(fi.writes.test(var_index(m, "count")));
  CHECK(fi.writes.count() == 5);  // pos, count and the three flags

  const Footprint fas = m.footprint(s1, step(0, TagsModel::ASSIGN));
  CHECK(fas.writes.test(var_index(m, "rqs[2]")));
  CHECK_FALSE(fas.writes.test(var_index(m, "rqs[0]")));

  // START of two different submitters: independent.
  State s2 = run_all(m, s0,
                     {step(0, TagsModel::ALLOC, 0), step(0, TagsModel::ASSIGN),
                      step(1, TagsModel::ALLOC, 1), step(1, TagsModel::ASSIGN)});
  const Footprint st0 = m.footprint(s2, step(0, TagsModel::START));
  const Footprint st1 = m.footprint(s2, step(1, TagsModel::START));
  CHECK(st0.independent_of(st1));
  CHECK(st1.independent_of(st0));
  // The same submitter's steps conflict; two ALLOCs race on the bitmap; the
  // iterator reads every submitter, so it depends on their steps too.
  CHECK_FALSE(st0.independent_of(m.footprint(s2, step(0, TagsModel::COMPLETE))));
  const Footprint al0 = m.footprint(s0, step(0, TagsModel::ALLOC, 0));
  const Footprint al1 = m.footprint(s0, step(1, TagsModel::ALLOC, 1));
  CHECK_FALSE(al0.independent_of(al1));
  CHECK_FALSE(fi.independent_of(m.footprint(s1, step(0, TagsModel::FREE))));
  const State s3 = run(m, s0, step(0, TagsModel::ALLOC, 0));
  const Footprint as0 = m.footprint(s3, step(0, TagsModel::ASSIGN));
  CHECK_FALSE(as0.independent_of(m.footprint(s3, step(it, TagsModel::VISIT, 0))));
  CHECK_FALSE(m.footprint(s2, step(it, TagsModel::VISIT, 0)).independent_of(st1));
}

TEST_CASE("tags: describe, summary, state_json and actor names") {
  const TagsModel m(TagsModel::V4_11, params(1, 1, 1, 0));
  const int it = m.iterator_actor();
  CHECK(m.actor_name(0) == "submitter 0");
  CHECK(m.actor_name(it) == "iterator");
  const State s = run(m, m.initial(), step(0, TagsModel::ALLOC, 0));
  const std::string d = m.describe(s, step(it, TagsModel::VISIT, 0));
  CHECK(d.find("NULL pointer dereference") != std::string::npos);
  const State o = run(m, s, step(it, TagsModel::VISIT, 0));
  CHECK(m.summary(o).find("OOPS") != std::string::npos);
  const auto j = m.state_json(o);
  CHECK(j["iterator"]["oops"] == true);
  CHECK(j["tags"][0]["bit"] == 1);
  CHECK(j["tags"][0]["owner"] == 1);
  CHECK(j["submitters"][0]["pc"] == "assign");
  CHECK(m.info().actions.at(TagsModel::VISIT) == "visit");
  CHECK(m.info().actions.at(TagsModel::ALLOC) == "alloc");
}

}  // namespace tags_steps_test
