// The explicit-state explorer (explorer/search.hpp) on toy models whose state
// spaces are counted by hand, and on the smallest TagsModel configurations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app/adapter.hpp"
#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/tags/tags.hpp"
#include "tests/toy_model.hpp"

namespace explorer_test {

using namespace blkmc;
using namespace blkmc::testing;

// Two independent counters a, b in 0..n-1; each actor increments its own.
// n*n states, 2n(n-1) transitions, finished at (n-1, n-1). Property
// "sum-below-k" is violated when a + b >= k: first at BFS depth exactly k.
struct Counters : ToyBase<Counters, ByteState<2>> {
  using State = ByteState<2>;
  int n, k;
  Counters(int n_, int k_) : n(n_), k(k_) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{"counters",
                                "two counters",
                                {},
                                {{"only", "-", "-", "-"}},
                                {{"sum-below-k", PropKind::Invariant, "a + b < k"},
                                 {"deadlock", PropKind::Deadlock, "no deadlock"}},
                                {"inc"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 2; }
  State initial() const { return State{}; }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    for (int i = 0; i < 2; ++i)
      if (s.b[i] < n - 1) {
        State nx = s;
        nx.b[i] = static_cast<std::uint8_t>(nx.b[i] + 1);
        emit(mkstep(i, 0), nx);
      }
  }
  bool finished(const State& s) const { return s.b[0] == n - 1 && s.b[1] == n - 1; }
  bool violates(int prop, const State& s) const { return prop == 0 && s.b[0] + s.b[1] >= k; }
  nlohmann::json state_json(const State& s) const { return {{"a", s.b[0]}, {"b", s.b[1]}}; }
  std::string summary(const State& s) const { return fmt::format("a={} b={}", s.b[0], s.b[1]); }
};

// Two actors, two locks. Actor 0 takes A then B; actor 1 takes B then A
// (or A then B when ordered); each then releases both and is done.
// pc: 0 wants first, 1 holds first, 2 holds both, 3 done.
// Unordered: 13 states, 14 transitions, deadlock at (1,1) after 2 steps.
// Ordered: 12 states, 12 transitions, no deadlock.
struct Locks : ToyBase<Locks, ByteState<4>> {
  using State = ByteState<4>;  // pc0, pc1, owner of A (0 free, 1+actor), owner of B
  bool ordered;
  explicit Locks(bool ordered_) : ordered(ordered_) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{"locks",
                                "lock order",
                                {},
                                {{"only", "-", "-", "-"}},
                                {{"deadlock", PropKind::Deadlock, "no deadlock"},
                                 {"mutex", PropKind::Invariant, "never both hold both locks"}},
                                {"lock", "unlock"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 4; }
  State initial() const { return State{}; }
  int lock_of(int actor, int which) const {  // which: 0 first, 1 second; 2 = A, 3 = B
    if (actor == 0 || ordered) return which == 0 ? 2 : 3;
    return which == 0 ? 3 : 2;
  }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    for (int a = 0; a < 2; ++a) {
      State nx = s;
      const auto me = static_cast<std::uint8_t>(a + 1);
      switch (s.b[a]) {
        case 0:
        case 1: {
          const int l = lock_of(a, s.b[a]);
          if (s.b[l] != 0) break;
          nx.b[l] = me;
          nx.b[a] = static_cast<std::uint8_t>(s.b[a] + 1);
          emit(mkstep(a, 0, l), nx);
          break;
        }
        case 2:
          nx.b[2] = nx.b[3] = 0;
          nx.b[a] = 3;
          emit(mkstep(a, 1), nx);
          break;
        default:
          break;
      }
    }
  }
  bool finished(const State& s) const { return s.b[0] == 3 && s.b[1] == 3; }
  bool violates(int prop, const State& s) const { return prop == 1 && s.b[0] == 2 && s.b[1] == 2; }
  nlohmann::json state_json(const State& s) const {
    return {{"pc0", s.b[0]}, {"pc1", s.b[1]}, {"A", s.b[2]}, {"B", s.b[3]}};
  }
  std::string summary(const State& s) const { return state_json(s).dump(); }
};

// A chain 0 -> 1 -> ... -> len with a side branch from x == d to a stuck
// state (not finished, no successors): deadlock found after d + 1 steps.
struct Chain : ToyBase<Chain, ByteState<2>> {
  using State = ByteState<2>;  // x, stuck
  int len, d;
  Chain(int len_, int d_) : len(len_), d(d_) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{"chain",
                                "chain",
                                {},
                                {{"only", "-", "-", "-"}},
                                {{"deadlock", PropKind::Deadlock, "no deadlock"}},
                                {"next", "jam"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 2; }
  State initial() const { return State{}; }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    if (s.b[1]) return;
    if (s.b[0] < len) {
      State nx = s;
      nx.b[0] = static_cast<std::uint8_t>(s.b[0] + 1);
      emit(mkstep(0, 0), nx);
    }
    if (s.b[0] == d) {
      State nx = s;
      nx.b[1] = 1;
      emit(mkstep(1, 1), nx);
    }
  }
  bool finished(const State& s) const { return s.b[0] == len && !s.b[1]; }
  bool violates(int, const State&) const { return false; }
  nlohmann::json state_json(const State& s) const { return {{"x", s.b[0]}, {"stuck", s.b[1]}}; }
  std::string summary(const State& s) const { return state_json(s).dump(); }
};

SearchOptions opts(bool bfs) {
  SearchOptions o;
  o.bfs = bfs;
  o.progress = false;
  return o;
}

// Checks that a counterexample is a real path of the model from its initial state.
template <class M>
void check_path(const M& m, const Counterexample<typename M::State>& cx) {
  REQUIRE(cx.states.size() == cx.steps.size() + 1);
  CHECK(std::memcmp(cx.states[0].b.data(), m.initial().b.data(), m.state_bytes()) == 0);
  for (std::size_t i = 0; i < cx.steps.size(); ++i) {
    typename M::State next{};
    REQUIRE(m.apply(cx.states[i], cx.steps[i], next));
    CHECK(std::memcmp(next.b.data(), cx.states[i + 1].b.data(), m.state_bytes()) == 0);
  }
}

template <class R>
const auto& outcome(const R& r, int prop) {
  for (const auto& p : r.props)
    if (p.prop == prop) return p;
  FAIL("property not in the result");
  return r.props.front();
}

Params tparams(int ntags, int submitters, int rounds, int pool) {
  return {{"ntags", ntags}, {"submitters", submitters}, {"rounds", rounds}, {"pool", pool}};
}

// A waiter and a waker (lost wake-up in miniature). The waker either wakes
// the waiter and is done, or takes a buggy path where it spins forever
// (buggy) or gives up (fixed). State: waiter (0 asleep, 1 done), waker
// (0 idle, 1 spinning, 2 done). Buggy: 4 states, (0,1) spins on itself: no
// deadlock, but a progress violation whose lasso is one step to (0,1) and a
// one-step loop. Fixed: (0,1) may still wake, so progress holds.
struct Spinner : ToyBase<Spinner, ByteState<2>> {
  using State = ByteState<2>;
  bool buggy;
  explicit Spinner(bool buggy_) : buggy(buggy_) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{"spinner",
                                "a waker that may spin",
                                {},
                                {{"only", "-", "-", "-"}},
                                {{"deadlock", PropKind::Deadlock, "no deadlock"},
                                 {"progress", PropKind::Progress, "a finished state stays reachable"}},
                                {"wake", "spin", "run"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 2; }
  State initial() const { return State{}; }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    State nx = s;
    if (s.b[1] == 0 || (s.b[1] == 1 && !buggy)) {  // wake: the waker is done
      nx.b[1] = 2;
      emit(mkstep(1, 0), nx);
    }
    if (s.b[1] <= 1) {  // spin (enter or stay in the loop)
      nx = s;
      nx.b[1] = 1;
      emit(mkstep(1, 1), nx);
    }
    if (s.b[0] == 0 && s.b[1] == 2) {  // the woken waiter runs
      nx = s;
      nx.b[0] = 1;
      emit(mkstep(0, 2), nx);
    }
  }
  bool finished(const State& s) const { return s.b[0] == 1 && s.b[1] == 2; }
  bool violates(int, const State&) const { return false; }
  nlohmann::json state_json(const State& s) const { return {{"waiter", s.b[0]}, {"waker", s.b[1]}}; }
  std::string summary(const State& s) const { return fmt::format("waiter={} waker={}", s.b[0], s.b[1]); }
};

TEST_CASE("explorer: two counters give n*n states and 2n(n-1) transitions") {
  for (int n : {1, 2, 3, 7, 16}) {
    for (bool bfs : {true, false}) {
      const Counters m(n, 1000);
      const auto r = explore(m, opts(bfs));
      INFO("n=" << n << " bfs=" << bfs);
      CHECK(r.stop == StopReason::Complete);
      CHECK(r.stats.states == std::uint64_t(n * n));
      CHECK(r.stats.transitions == std::uint64_t(2 * n * (n - 1)));
      REQUIRE(r.props.size() == 2);
      CHECK(r.props[0].verdict == Verdict::Holds);
      CHECK(r.props[1].verdict == Verdict::Holds);
      CHECK_FALSE(r.props[0].trace.has_value());
      if (bfs) CHECK(r.stats.max_depth == std::uint32_t(2 * (n - 1)));
    }
  }
}

TEST_CASE("explorer: an invariant violated at BFS depth k") {
  for (int k : {1, 3, 6}) {
    const Counters m(5, k);
    const auto r = explore(m, opts(true));
    INFO("k=" << k);
    // deadlock holds, so the search runs to the end.
    CHECK(r.stop == StopReason::Complete);
    CHECK(r.stats.states == 25);
    const auto& o = outcome(r, 0);
    REQUIRE(o.verdict == Verdict::Violated);
    REQUIRE(o.trace.has_value());
    CHECK(o.trace->steps.size() == std::size_t(k));
    check_path(m, *o.trace);
    const auto& last = o.trace->states.back();
    CHECK(last.b[0] + last.b[1] == k);
    CHECK(outcome(r, 1).verdict == Verdict::Holds);

    // DFS finds it too, on a path of at least k steps.
    const auto d = explore(m, opts(false));
    const auto& od = outcome(d, 0);
    REQUIRE(od.verdict == Verdict::Violated);
    REQUIRE(od.trace.has_value());
    CHECK(od.trace->steps.size() >= std::size_t(k));
    check_path(m, *od.trace);
    CHECK(m.violates(0, od.trace->states.back()));
    CHECK(d.stats.states == 25);
  }
}

TEST_CASE("explorer: only the selected property, and all violated stops early") {
  const Counters m(50, 3);
  SearchOptions o = opts(true);
  o.props = {0};
  const auto r = explore(m, o);
  CHECK(r.stop == StopReason::AllViolated);
  REQUIRE(r.props.size() == 1);
  CHECK(r.props[0].prop == 0);
  CHECK(r.props[0].verdict == Verdict::Violated);
  CHECK(r.props[0].trace->steps.size() == 3);
  CHECK(r.stats.states < 2500);

  // Violated in the initial state: a trace of no steps.
  const Counters z(4, 0);
  const auto rz = explore(z, o);
  CHECK(rz.stop == StopReason::AllViolated);
  CHECK(rz.stats.states == 1);
  REQUIRE(rz.props[0].trace.has_value());
  CHECK(rz.props[0].trace->steps.empty());
  CHECK(rz.props[0].trace->states.size() == 1);
}

TEST_CASE("explorer: lock-order deadlock, shortest trace under BFS") {
  const Locks m(false);
  const auto r = explore(m, opts(true));
  CHECK(r.stop == StopReason::Complete);  // mutex holds, search goes on
  CHECK(r.stats.states == 13);
  CHECK(r.stats.transitions == 14);
  const auto& dl = outcome(r, 0);
  REQUIRE(dl.verdict == Verdict::Violated);
  REQUIRE(dl.trace.has_value());
  CHECK(dl.trace->steps.size() == 2);
  check_path(m, *dl.trace);
  const auto& last = dl.trace->states.back();
  CHECK(last.b[0] == 1);
  CHECK(last.b[1] == 1);
  CHECK(outcome(r, 1).verdict == Verdict::Holds);

  const auto d = explore(m, opts(false));
  CHECK(d.stats.states == 13);
  CHECK(d.stats.transitions == 14);
  REQUIRE(outcome(d, 0).verdict == Verdict::Violated);
  check_path(m, *outcome(d, 0).trace);
  CHECK(outcome(d, 0).trace->states.back().b[0] == 1);
  CHECK(outcome(d, 0).trace->states.back().b[1] == 1);

  // Only the deadlock property: stops as soon as it is found.
  SearchOptions o = opts(true);
  o.props = {0};
  const auto r1 = explore(m, o);
  CHECK(r1.stop == StopReason::AllViolated);
  CHECK(r1.props.size() == 1);
}

TEST_CASE("explorer: ordered locking has no deadlock") {
  const Locks m(true);
  for (bool bfs : {true, false}) {
    const auto r = explore(m, opts(bfs));
    CHECK(r.stop == StopReason::Complete);
    CHECK(r.stats.states == 12);
    CHECK(r.stats.transitions == 12);
    CHECK(outcome(r, 0).verdict == Verdict::Holds);
    CHECK_FALSE(outcome(r, 0).trace.has_value());
    CHECK(outcome(r, 1).verdict == Verdict::Holds);
  }
}

TEST_CASE("explorer: deadlock on a side branch, finished terminal states are not deadlocks") {
  for (int d : {0, 4, 9}) {
    const Chain m(10, d);
    const auto r = explore(m, opts(true));
    INFO("d=" << d);
    // The only property is found: the search stops after expanding the stuck
    // state, which BFS reaches right after x = d + 1 (or 10).
    CHECK(r.stop == StopReason::AllViolated);
    CHECK(r.stats.states == std::uint64_t(std::min(d + 4, 12)));
    REQUIRE(r.props[0].verdict == Verdict::Violated);
    CHECK(r.props[0].trace->steps.size() == std::size_t(d + 1));
    check_path(m, *r.props[0].trace);
    CHECK(r.props[0].trace->states.back().b[1] == 1);
    const auto rd = explore(m, opts(false));
    REQUIRE(rd.props[0].verdict == Verdict::Violated);
    CHECK(rd.props[0].trace->steps.size() == std::size_t(d + 1));
  }
  // No side branch (d out of range): the final state is finished, no deadlock.
  const Chain none(10, 200);
  const auto r = explore(none, opts(true));
  CHECK(r.stop == StopReason::Complete);
  CHECK(r.stats.states == 11);
  CHECK(r.props[0].verdict == Verdict::Holds);
}

TEST_CASE("explorer: max_states stops with MaxStates and Incomplete verdicts") {
  const Counters m(10, 1000);
  for (bool bfs : {true, false}) {
    SearchOptions o = opts(bfs);
    o.limits.max_states = 10;
    const auto r = explore(m, o);
    INFO("bfs=" << bfs);
    CHECK(r.stop == StopReason::MaxStates);
    CHECK(r.stats.states == 10);
    CHECK(outcome(r, 0).verdict == Verdict::Incomplete);
    CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  }
  // A violation found before the limit is still reported as violated.
  const Counters v(10, 1);
  SearchOptions o = opts(true);
  o.limits.max_states = 5;
  const auto r = explore(v, o);
  CHECK(r.stop == StopReason::MaxStates);
  CHECK(outcome(r, 0).verdict == Verdict::Violated);
  CHECK(outcome(r, 0).trace->steps.size() == 1);
  CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  // A limit above the state count does not truncate.
  SearchOptions big = opts(true);
  big.limits.max_states = 101;
  const auto rb = explore(m, big);
  CHECK(rb.stop == StopReason::Complete);
  CHECK(rb.stats.states == 100);
  CHECK(outcome(rb, 1).verdict == Verdict::Holds);
}

TEST_CASE("explorer: max_depth truncation gives Incomplete") {
  const Counters m(5, 1000);
  for (bool bfs : {true, false}) {
    SearchOptions o = opts(bfs);
    o.limits.max_depth = 3;
    const auto r = explore(m, o);
    INFO("bfs=" << bfs);
    CHECK(r.stop == StopReason::MaxDepth);
    CHECK(r.stats.states == 10);  // a + b <= 3
    CHECK(r.stats.max_depth == 3);
    CHECK(outcome(r, 0).verdict == Verdict::Incomplete);
    CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  }
  // A depth bound at the diameter truncates nothing.
  for (bool bfs : {true, false}) {
    SearchOptions o = opts(bfs);
    o.limits.max_depth = 8;
    const auto r = explore(m, o);
    CHECK(r.stop == StopReason::Complete);
    CHECK(r.stats.states == 25);
    CHECK(outcome(r, 1).verdict == Verdict::Holds);
  }
  // Violations within the bound are still found.
  const Counters v(5, 2);
  SearchOptions o = opts(false);
  o.limits.max_depth = 3;
  const auto r = explore(v, o);
  CHECK(outcome(r, 0).verdict == Verdict::Violated);
  check_path(v, *outcome(r, 0).trace);
  CHECK(outcome(r, 0).trace->steps.size() <= 3);
}

TEST_CASE("explorer: BFS and DFS visit the same states on complete runs") {
  const Counters c(9, 1000);
  CHECK(explore(c, opts(true)).stats.states == explore(c, opts(false)).stats.states);
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, tparams(2, 2, 1, 0));
    const auto b = explore(m, opts(true));
    const auto d = explore(m, opts(false));
    INFO("variant " << v);
    CHECK(b.stats.states == d.stats.states);
    CHECK(b.stats.transitions == d.stats.transitions);
    CHECK(b.stats.states > 50);
  }
}

// Hand count for ntags=1, submitters=1, pool=0: the submitter runs a straight
// line of locations (ALLOC, ASSIGN, START, COMPLETE, FREE per round, then
// DONE: 5*rounds+1 of them). The iterator visits its one tag once, at some
// location, and the result (count, flags, pos) then stays while the submitter
// moves on. States = (locations, iterator not yet visited)
//   + for each distinct visit result r: the locations from the first one that
//     yields r to DONE.
// rounds = 1 (L0..L5): results: clear/skip/not-in-flight -> R0 at L0 (6
// states); in flight -> R1 at L3 (3); v4.11 oops on NULL rqs at L1 (5).
// v4.11: 6 + 6 + 3 + 5 = 20; the rest 6 + 6 + 3 = 15.
// Transitions: every state with a submitter step (not DONE) plus the iterator
// step in unvisited states: v4.11 (6+5) + 5 + 2 + 4 = 22, others 11+5+2 = 18.
TEST_CASE("explorer: TagsModel ntags=1 submitters=1 rounds=1 pool=0 by hand") {
  const int states[] = {20, 15, 15, 15};
  const int trans[] = {22, 18, 18, 18};
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, tparams(1, 1, 1, 0));
    for (bool bfs : {true, false}) {
      const auto r = explore(m, opts(bfs));
      INFO("variant " << v << " bfs " << bfs);
      CHECK(r.stop == StopReason::Complete);
      CHECK(r.stats.states == std::uint64_t(states[v]));
      CHECK(r.stats.transitions == std::uint64_t(trans[v]));
      REQUIRE(r.props.size() == 5);
      CHECK(outcome(r, TagsModel::NoNullDeref).verdict ==
            (v == TagsModel::V4_11 ? Verdict::Violated : Verdict::Holds));
      CHECK(outcome(r, TagsModel::FnSeesOwner).verdict == Verdict::Holds);
      CHECK(outcome(r, TagsModel::CountOwnerOnly).verdict == Verdict::Holds);
      CHECK(outcome(r, TagsModel::WalkCountBounded).verdict == Verdict::Holds);
      CHECK(outcome(r, TagsModel::Deadlock).verdict == Verdict::Holds);
      if (bfs) CHECK(r.stats.max_depth == 6);
      if (v == TagsModel::V4_11 && bfs) {
        const auto& cx = *outcome(r, TagsModel::NoNullDeref).trace;
        REQUIRE(cx.steps.size() == 2);  // ALLOC, then the walk hits the NULL slot
        CHECK(cx.steps[0] == mkstep(0, TagsModel::ALLOC, 0));
        CHECK(cx.steps[1] == mkstep(m.iterator_actor(), TagsModel::VISIT, 0));
        check_path(m, cx);
      }
    }
  }
}

// rounds = 2: 11 locations (M0..M10). Visit results: R0 from M0 (11 states),
// R1 (in flight) from M3 (8), oops (v4.11) from M1 (10), and at M6 (round 1
// tag allocated again, rqs[0] still holds the freed rq 1): v4.11 and
// null-check call fn on the stale rq (stale flag, count 0) -> 5 states;
// refcount and tag-match skip it (R0).
// v4.11 11+11+8+10+5 = 45, null-check 35, refcount / tag-match 30.
// Transitions: unvisited 10+11, then (states - 1) per visited group:
// v4.11 21+10+7+9+4 = 51, null-check 42, refcount / tag-match 38.
TEST_CASE("explorer: TagsModel ntags=1 submitters=1 rounds=2 pool=0 by hand") {
  const int states[] = {45, 35, 30, 30};
  const int trans[] = {51, 42, 38, 38};
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, tparams(1, 1, 2, 0));
    const auto r = explore(m, opts(true));
    INFO("variant " << v);
    CHECK(r.stop == StopReason::Complete);
    CHECK(r.stats.states == std::uint64_t(states[v]));
    CHECK(r.stats.transitions == std::uint64_t(trans[v]));
    CHECK(r.stats.max_depth == 11);
    const bool stale = v == TagsModel::V4_11 || v == TagsModel::NullCheck;
    const auto& fso = outcome(r, TagsModel::FnSeesOwner);
    CHECK(fso.verdict == (stale ? Verdict::Violated : Verdict::Holds));
    if (stale) {
      // A full round (5 steps), ALLOC of the same tag, then the visit.
      REQUIRE(fso.trace.has_value());
      CHECK(fso.trace->steps.size() == 7);
      check_path(m, *fso.trace);
    }
    CHECK(outcome(r, TagsModel::NoNullDeref).verdict ==
          (v == TagsModel::V4_11 ? Verdict::Violated : Verdict::Holds));
    CHECK(outcome(r, TagsModel::Deadlock).verdict == Verdict::Holds);
    CHECK(outcome(r, TagsModel::WalkCountBounded).verdict == Verdict::Holds);
    CHECK(explore(m, opts(false)).stats.states == std::uint64_t(states[v]));
  }
}

// pool = 1, rounds = 1: 7 locations (GET, ALLOC, ASSIGN, START, COMPLETE,
// FREE, DONE). R0 from GET (7), R1 from COMPLETE (3), oops from ASSIGN (5).
// v4.11: 7+7+3+5 = 22 states, (6+7)+6+2+4 = 25 transitions; others 17, 21.
TEST_CASE("explorer: TagsModel ntags=1 submitters=1 rounds=1 pool=1 by hand") {
  const int states[] = {22, 17, 17, 17};
  const int trans[] = {25, 21, 21, 21};
  for (int v = TagsModel::V4_11; v <= TagsModel::TagMatch; ++v) {
    const TagsModel m(v, tparams(1, 1, 1, 1));
    const auto r = explore(m, opts(true));
    INFO("variant " << v);
    CHECK(r.stats.states == std::uint64_t(states[v]));
    CHECK(r.stats.transitions == std::uint64_t(trans[v]));
    CHECK(r.stats.max_depth == 7);
    CHECK(outcome(r, TagsModel::FnSeesOwner).verdict == Verdict::Holds);
  }
}
TEST_CASE("explorer: time, memory and interrupt limits stop with Incomplete verdicts") {
  const Counters m(120, 1000);  // 14400 states: more than 256 expansions
  {
    SearchOptions o = opts(true);
    o.limits.seconds = 1e-9;
    const auto r = explore(m, o);
    CHECK(r.stop == StopReason::Time);
    CHECK(r.stats.states < 14400);
    CHECK(outcome(r, 0).verdict == Verdict::Incomplete);
    CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  }
  {
    SearchOptions o = opts(false);
    o.limits.memory_bytes = 1;  // the empty store is already bigger
    const auto r = explore(m, o);
    CHECK(r.stop == StopReason::Memory);
    CHECK(r.stats.states == 1);
    CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  }
  {
    g_interrupted = 1;
    const auto r = explore(m, opts(true));
    g_interrupted = 0;
    CHECK(r.stop == StopReason::Interrupted);
    CHECK(r.stats.states < 14400);
    CHECK(outcome(r, 1).verdict == Verdict::Incomplete);
  }
  // Generous limits change nothing.
  SearchOptions o = opts(true);
  o.limits.seconds = 1e6;
  o.limits.memory_bytes = std::uint64_t(1) << 34;
  const auto r = explore(m, o);
  CHECK(r.stop == StopReason::Complete);
  CHECK(r.stats.states == 14400);
}

// Regression: the max_states check used to run before the successor was
// looked up, so a space of exactly max_states states ended Incomplete.
TEST_CASE("explorer: max_states equal to the state count completes") {
  const Counters m(10, 1000);
  for (bool bfs : {true, false}) {
    SearchOptions o = opts(bfs);
    o.limits.max_states = 100;
    const auto r = explore(m, o);
    INFO("bfs=" << bfs);
    CHECK(r.stats.states == 100);
    CHECK(r.stop == StopReason::Complete);
    CHECK(outcome(r, 1).verdict == Verdict::Holds);
  }
}

// Regression: selecting the deadlock property twice used to give Holds for
// the first selection and Violated for the second.
TEST_CASE("explorer: a property selected twice gets one verdict") {
  const Locks m(false);
  SearchOptions o = opts(true);
  o.props = {0, 0};
  const auto r = explore(m, o);
  REQUIRE(r.props.size() == 2);
  CHECK(r.props[0].verdict == Verdict::Violated);
  CHECK(r.props[1].verdict == Verdict::Violated);
}

TEST_CASE("explorer: a spinning waker violates progress, not deadlock, with a lasso") {
  const Spinner m(true);
  for (bool bfs : {true, false}) {
    SearchOptions o;
    o.bfs = bfs;
    o.progress = false;
    const auto r = explore(m, o);
    REQUIRE(r.stop == StopReason::Complete);
    CHECK(r.stats.states == 4);
    CHECK(r.props[0].verdict == Verdict::Holds);
    REQUIRE(r.props[1].verdict == Verdict::Violated);
    const auto& cx = *r.props[1].trace;
    if (bfs) {
      // (0,0) -spin-> (0,1) stuck, then spin -> (0,1): the loop.
      REQUIRE(cx.steps.size() == 2);
      CHECK(cx.steps[0] == mkstep(1, 1));
      CHECK(cx.steps[1] == mkstep(1, 1));
      CHECK(*cx.stuck_at == 1);
      CHECK(*cx.loop_start == 1);
    }
    CHECK(cx.states.back().b[1] == 1);
    const Trace t = make_trace(m, "only", {}, "progress", bfs ? "bfs" : "dfs", cx);
    const ReplayResult rr = replay_in(m, 1, t);
    CHECK(rr.reproduced);
    const std::string story = fmt::format("{}", fmt::join(rr.story, "\n"));
    CHECK(story.find("stuck from here") != std::string::npos);
    CHECK(story.find("repeat forever") != std::string::npos);
  }
}

TEST_CASE("explorer: progress holds when every loop can be left") {
  const Spinner m(false);
  SearchOptions o;
  o.progress = false;
  const auto r = explore(m, o);
  CHECK(r.props[0].verdict == Verdict::Holds);
  CHECK(r.props[1].verdict == Verdict::Holds);
  CHECK(!r.props[1].trace);
}

TEST_CASE("explorer: progress is incomplete under a limit") {
  const Spinner m(true);
  SearchOptions o;
  o.progress = false;
  o.limits.max_states = 2;
  CHECK(explore(m, o).props[1].verdict == Verdict::Incomplete);
}

TEST_CASE("explorer: progress traces that do not close their loop do not replay") {
  const Spinner m(true);
  SearchOptions o;
  o.progress = false;
  const auto r = explore(m, o);
  Trace t = make_trace(m, "only", {}, "progress", "bfs", *r.props[1].trace);
  t.loop = 0;  // the initial state is not the final one
  CHECK_THROWS_AS(replay_in(m, 1, t), TraceMismatch);
  // Stuck claimed at a state that can still finish: not reproduced.
  Trace t2 = make_trace(m, "only", {}, "progress", "bfs", *r.props[1].trace);
  t2.stuck = 0;
  t2.loop = 0;
  t2.steps.clear();
  CHECK_FALSE(replay_in(m, 1, t2).reproduced);
  // A loop index past the steps is malformed.
  nlohmann::json j = trace_to_json(make_trace(m, "only", {}, "progress", "bfs", *r.props[1].trace));
  j["loop"] = 3;
  CHECK_THROWS_AS(trace_from_json(j), UsageError);
  j["loop"] = 1;
  j["stuck"] = 2;  // the loop may not start before the stuck state
  CHECK_THROWS_AS(trace_from_json(j), UsageError);
}

// Every property kind has its check class (explorer/check_kinds.hpp), and
// the class says of itself what kind_info says of the kind: whether it is
// decided on the graph.
TEST_CASE("explorer: each property kind's check agrees with its kind_info row") {
  using blkmc::PropKind;
  for (const PropKind k : {PropKind::Invariant, PropKind::Deadlock, PropKind::Progress, PropKind::Maximize,
                           PropKind::Starvation}) {
    CAPTURE(to_string(k));
    int found = 0;
    blkmc::checks::with_kind<Counters>(k, [&]<class K>(std::type_identity<K>) {
      ++found;
      CHECK(K::kKind == k);
      CHECK(K::kOnGraph == blkmc::kind_info(k).on_graph);
    });
    CHECK(found == 1);
  }
}

}  // namespace explorer_test
