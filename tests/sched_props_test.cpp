// Maximize and starvation properties (model/model.hpp): the explorer's
// verdicts, values and lassos on toy models counted by hand, NAME<=K parsing,
// trace round trips and replay, the check outcome's text/JSON, and suite rows
// with an integer EXPECTED.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app/instances.hpp"
#include "cli/compare.hpp"
#include "cli/suite.hpp"
#include "counterexamples/render.hpp"
#include "app/adapter.hpp"
#include "app/report.hpp"
#include "explorer/checks.hpp"
#include "tests/toy_model.hpp"

namespace sched_props_test {

using namespace blkmc;
using namespace blkmc::testing;

// The tracked request R waits in a FIFO behind n other requests; at most a
// more may arrive. Actors: 0 the dispatcher (dispatches another request; while
// R is queued its wait grows by one), 1 R's own dispatch (any time while
// queued), 2 arrivals. State: others, arrivals left, R's wait, R dispatched.
// max-wait: n + a, first reached after a arrivals and n + a dispatches (BFS:
// n + 2a steps); a state with wait > K (K < n + a) first needs K + 1
// dispatches and max(0, K + 1 - n) arrivals. max-queue: n + a after the a
// arrivals alone. r-served (starvation): there is no cycle at all: holds.
// Variant no-arrivals: a is 0 whatever the parameter says.
struct Wait : ToyBase<Wait, ByteState<4>> {
  using State = ByteState<4>;
  enum Prop { MaxWait, MaxQueue, Bounded, RServed };
  enum Action { DISPATCH, DISPATCH_R, ARRIVE };
  int n, a;
  Wait(int n_, int a_) : n(n_), a(a_) {}
  Wait(int variant, const Params& p) : n(p.at("n")), a(variant == 1 ? 0 : p.at("a")) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{
        "wait",
        "a request waiting behind others",
        {{"n", 2, 0, 6, "requests ahead of R"}, {"a", 1, 0, 3, "arrivals"}},
        {{"only", "-", "-", "-"}, {"no-arrivals", "-", "-", "-"}},
        {{"max-wait", PropKind::Maximize, "dispatches R waits"},
         {"max-queue", PropKind::Maximize, "queue length"},
         {"queue-bounded", PropKind::Invariant, "never more than 100 queued"},
         {"r-served", PropKind::Starvation, "R is not starved"}},
        {"dispatch", "dispatch-r", "arrive"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 4; }
  State initial() const {
    State s{};
    s.b[0] = std::uint8_t(n);
    s.b[1] = std::uint8_t(a);
    return s;
  }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    if (s.b[0] > 0) {
      State nx = s;
      --nx.b[0];
      if (!s.b[3]) ++nx.b[2];
      emit(mkstep(0, DISPATCH), nx);
    }
    if (!s.b[3]) {
      State nx = s;
      nx.b[3] = 1;
      emit(mkstep(1, DISPATCH_R), nx);
    }
    if (s.b[1] > 0) {
      State nx = s;
      --nx.b[1];
      ++nx.b[0];
      emit(mkstep(2, ARRIVE), nx);
    }
  }
  bool finished(const State& s) const { return s.b[0] == 0 && s.b[1] == 0 && s.b[3]; }
  bool violates(int prop, const State& s) const { return prop == Bounded && s.b[0] > 100; }
  int measure(int prop, const State& s) const { return prop == MaxWait ? s.b[2] : s.b[0]; }
  bool pending(int, const State& s) const { return !s.b[3]; }
  nlohmann::json state_json(const State& s) const {
    return {{"others", s.b[0]}, {"arrivals", s.b[1]}, {"wait", s.b[2]}, {"done", s.b[3]}};
  }
  std::string summary(const State& s) const { return state_json(s).dump(); }
};

// R (actor `streams`) is submitted, then waits for dispatch; `streams` other
// actors each toggle their own busy bit forever. any: R may be dispatched at
// any time, so every cycle that keeps it queued leaves R's actor enabled and
// idle: unfair, starvation holds. idle: R may only be dispatched while every
// bit is clear, so a cycle through a busy state is weakly fair: violated.
// State: R (0 not submitted, 1 queued, 2 dispatched), then the bits.
struct Bypass : ToyBase<Bypass, ByteState<4>> {
  using State = ByteState<4>;
  enum Action { TOGGLE, SUBMIT, DISPATCH };
  int streams;
  bool idle_only;
  Bypass(int streams_, bool idle_only_) : streams(streams_), idle_only(idle_only_) {}
  Bypass(int variant, const Params& p) : streams(p.at("streams")), idle_only(variant == 1) {}
  static const ModelInfo& static_info() {
    static const ModelInfo info{"bypass",
                                "a request bypassed by other traffic",
                                {{"streams", 1, 1, 3, "other actors"}},
                                {{"any", "-", "-", "-"}, {"idle", "-", "-", "-"}},
                                {{"starve", PropKind::Starvation, "R is not starved"},
                                 {"deadlock", PropKind::Deadlock, "no deadlock"}},
                                {"toggle", "submit", "dispatch"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return std::size_t(1 + streams); }
  State initial() const { return State{}; }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    bool busy = false;
    for (int i = 0; i < streams; ++i) {
      State nx = s;
      nx.b.at(std::size_t(1 + i)) ^= 1;  // at(): streams <= 3 < capacity
      busy = busy || s.b[std::size_t(1 + i)];
      emit(mkstep(i, TOGGLE), nx);
    }
    State nx = s;
    if (s.b[0] == 0) {
      nx.b[0] = 1;
      emit(mkstep(streams, SUBMIT), nx);
    } else if (s.b[0] == 1 && (!idle_only || !busy)) {
      nx.b[0] = 2;
      emit(mkstep(streams, DISPATCH), nx);
    }
  }
  bool finished(const State&) const { return false; }
  bool violates(int, const State&) const { return false; }
  bool pending(int, const State& s) const { return s.b[0] == 1; }
  nlohmann::json state_json(const State& s) const {
    nlohmann::json j{{"r", s.b[0]}};
    for (int i = 0; i < streams; ++i) j["busy"].push_back(s.b[std::size_t(1 + i)]);
    return j;
  }
  std::string summary(const State& s) const { return state_json(s).dump(); }
};

// Maximize and starvation properties but neither hook.
struct Hookless : ToyBase<Hookless, ByteState<1>> {
  using State = ByteState<1>;
  static const ModelInfo& static_info() {
    static const ModelInfo info{"hookless",
                                "no hooks",
                                {},
                                {{"only", "-", "-", "-"}},
                                {{"inv", PropKind::Invariant, "-"},
                                 {"max", PropKind::Maximize, "-"},
                                 {"starve", PropKind::Starvation, "-"}},
                                {"go"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 1; }
  State initial() const { return State{}; }
  template <class F>
  void for_each_successor(const State&, F&&) const {}
  bool finished(const State&) const { return true; }
  bool violates(int, const State&) const { return false; }
  nlohmann::json state_json(const State&) const { return nlohmann::json::object(); }
  std::string summary(const State&) const { return "-"; }
};

SearchOptions opts(bool bfs, std::vector<int> props = {},
                   std::vector<std::optional<int>> bounds = {}) {
  SearchOptions o;
  o.bfs = bfs;
  o.progress = false;
  o.props = std::move(props);
  o.bounds = std::move(bounds);
  return o;
}

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

std::string story_of(const ReplayResult& r) { return fmt::format("{}", fmt::join(r.story, "\n")); }

// Runs f with std::cout captured; returns what it printed.
template <class F>
std::string capture_cout(F&& f) {
  std::ostringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  try {
    f();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return out.str();
}

const ModelAdapter<Wait> kWaitHandle;
const ModelAdapter<Bypass> kBypassHandle;

const ModelHandle& toy_lookup(const std::string& name) {
  if (name == "wait") return kWaitHandle;
  if (name == "bypass") return kBypassHandle;
  return find_model(name);
}

TEST_CASE("sched props: NAME<=K parses for maximize properties, one-line errors otherwise") {
  const ModelInfo& info = Wait::static_info();
  CHECK(parse_prop_spec(info, "max-wait") == PropSpec{0, std::nullopt});
  CHECK(parse_prop_spec(info, "max-wait<=0") == PropSpec{0, 0});
  CHECK(parse_prop_spec(info, "max-queue<=17") == PropSpec{1, 17});
  CHECK(parse_prop_spec(info, "max-wait<=2147483647") == PropSpec{0, 2147483647});
  CHECK(parse_prop_spec(info, "max-wait<=007") == PropSpec{0, 7});
  CHECK(prop_spec_string(info, {0, 7}) == "max-wait<=7");
  CHECK(prop_spec_string(info, {3, std::nullopt}) == "r-served");
  CHECK(parse_prop_spec(info, "r-served") == PropSpec{3, std::nullopt});
  for (const char* bad :
       {"max-wait<=", "max-wait<=-1", "max-wait<=+1", "max-wait<= 1", "max-wait<=1 ",
        "max-wait<=1a", "max-wait<=2147483648", "max-wait<=99999999999", "max-wait<=1<=2",
        "max-wait<=0x3", "<=3", "nope<=3", "r-served<=3", "queue-bounded<=0", "max-wait<3",
        "max-wait=<3", "max-wait<=1.5"}) {
    INFO(bad);
    try {
      parse_prop_spec(info, bad);
      FAIL("no UsageError");
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      CHECK(msg.find('\n') == std::string::npos);
      CHECK(!msg.empty());
    }
  }
  try {
    parse_prop_spec(info, "r-served<=3");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("only to maximize properties") != std::string::npos);
    CHECK(std::string(e.what()).find("starvation") != std::string::npos);
  }
  try {
    parse_prop_spec(info, "max-wait<=x");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("'x'") != std::string::npos);
  }
  CHECK(to_string(PropKind::Maximize) == "maximize");
  CHECK(to_string(PropKind::Starvation) == "starvation");
}

TEST_CASE("sched props: the maximum and a shortest trace to it, by hand") {
  for (int n : {0, 1, 2, 4}) {
    for (int a : {0, 1, 3}) {
      const Wait m(n, a);
      INFO("n=" << n << " a=" << a);
      const auto r = explore(m, opts(true, {Wait::MaxWait, Wait::MaxQueue}));
      REQUIRE(r.stop == StopReason::Complete);
      REQUIRE(r.props.size() == 2);
      const auto& w = r.props[0];
      CHECK(w.verdict == Verdict::Holds);
      REQUIRE(w.value.has_value());
      CHECK(*w.value == n + a);
      CHECK(w.value_exact);
      CHECK_FALSE(w.bound.has_value());
      REQUIRE(w.trace.has_value());
      check_path(m, *w.trace);
      CHECK(w.trace->steps.size() == std::size_t(n + 2 * a));
      CHECK(m.measure(Wait::MaxWait, w.trace->states.back()) == n + a);
      const auto& q = r.props[1];
      CHECK(q.verdict == Verdict::Holds);
      CHECK(*q.value == n + a);
      REQUIRE(q.trace.has_value());
      CHECK(q.trace->steps.size() == std::size_t(a));
      for (const Step& st : q.trace->steps) CHECK(st == mkstep(2, Wait::ARRIVE));

      // DFS: the same maximum, a trace that reaches it.
      const auto d = explore(m, opts(false, {Wait::MaxWait}));
      CHECK(*d.props[0].value == n + a);
      check_path(m, *d.props[0].trace);
      CHECK(m.measure(Wait::MaxWait, d.props[0].trace->states.back()) == n + a);
      CHECK(d.stats.states == r.stats.states);
    }
  }
}

TEST_CASE("sched props: bounded maximize: the first state above K under BFS") {
  const int n = 2, a = 2;  // max-wait 4
  const Wait m(n, a);
  for (int k = 0; k <= 6; ++k) {
    INFO("K=" << k);
    const auto r = explore(m, opts(true, {Wait::MaxWait}, {k}));
    const auto& o = r.props[0];
    CHECK(o.bound == std::optional<int>(k));
    if (k < n + a) {
      CHECK(r.stop == StopReason::AllViolated);
      REQUIRE(o.verdict == Verdict::Violated);
      REQUIRE(o.trace.has_value());
      check_path(m, *o.trace);
      CHECK(o.trace->steps.size() == std::size_t(k + 1 + std::max(0, k + 1 - n)));
      CHECK(*o.value == k + 1);  // the measure of the first state above K
      CHECK(m.measure(Wait::MaxWait, o.trace->states.back()) == k + 1);
      CHECK_FALSE(o.value_exact);
      // No earlier state on the trace is above K.
      for (std::size_t i = 0; i + 1 < o.trace->states.size(); ++i)
        CHECK(m.measure(Wait::MaxWait, o.trace->states[i]) <= k);
    } else {
      CHECK(r.stop == StopReason::Complete);
      CHECK(o.verdict == Verdict::Holds);
      CHECK_FALSE(o.trace.has_value());
      CHECK(*o.value == n + a);
      CHECK(o.value_exact);
    }
  }
  // A bounded and an unbounded slot of the same property, and another
  // property: a violated bound does not stop the search while the unbounded
  // maximum is still wanted.
  const auto r = explore(m, opts(true, {Wait::MaxWait, Wait::MaxWait, Wait::MaxQueue},
                                 {1, std::nullopt, std::nullopt}));
  CHECK(r.stop == StopReason::Complete);
  CHECK(r.props[0].verdict == Verdict::Violated);
  CHECK(r.props[0].trace->steps.size() == 2);
  CHECK(*r.props[1].value == 4);
  CHECK(r.props[1].trace->steps.size() == 6);
  CHECK(*r.props[2].value == 4);
}

TEST_CASE("sched props: maximize under limits is incomplete with the maximum so far") {
  const Wait m(4, 3);
  SearchOptions o = opts(true, {Wait::MaxWait, Wait::MaxWait}, {std::nullopt, 1});
  o.limits.max_states = 6;
  const auto r = explore(m, o);
  CHECK(r.stop == StopReason::MaxStates);
  const auto& u = r.props[0];
  CHECK(u.verdict == Verdict::Incomplete);
  CHECK_FALSE(u.value_exact);
  REQUIRE(u.value.has_value());
  CHECK(*u.value >= 1);
  CHECK(*u.value < 7);
  REQUIRE(u.trace.has_value());
  CHECK(m.measure(Wait::MaxWait, u.trace->states.back()) == *u.value);
  // The bound 1 is exceeded within 6 BFS states (two dispatches): violated.
  CHECK(r.props[1].verdict == Verdict::Violated);
  SearchOptions tight = opts(true, {Wait::MaxWait}, {5});
  tight.limits.max_states = 6;
  const auto rt = explore(m, tight);
  CHECK(rt.props[0].verdict == Verdict::Incomplete);
  CHECK_FALSE(rt.props[0].trace.has_value());
  CHECK_FALSE(rt.props[0].value_exact);
}

TEST_CASE("sched props: a property without its hook, a bound on another kind: UsageError") {
  const Hookless h;
  CHECK_NOTHROW(explore(h, opts(true, {0})));
  CHECK_THROWS_AS(explore(h, opts(true, {1})), UsageError);
  CHECK_THROWS_AS(explore(h, opts(true, {2})), UsageError);
  CHECK_THROWS_AS(explore(h, opts(true)), UsageError);  // all properties
  const Wait m(1, 1);
  CHECK_THROWS_AS(explore(m, opts(true, {Wait::RServed}, {3})), UsageError);
  CHECK_THROWS_AS(explore(m, opts(true, {Wait::MaxWait}, {-1})), UsageError);
  // Replay of a hookless maximize trace: the same error.
  Trace t;
  t.model = "hookless";
  t.variant = "only";
  t.property = "max";
  t.value = 0;
  CHECK_THROWS_AS(replay_in(h, 1, t), UsageError);
  t.property = "starve";
  t.value.reset();
  CHECK_THROWS_AS(replay_in(h, 2, t), UsageError);
}

TEST_CASE("sched props: maximize traces round-trip and replay") {
  const Wait m(2, 1);
  const auto r = explore(m, opts(true, {Wait::MaxWait, Wait::MaxWait}, {std::nullopt, 1}));
  // Unbounded: the trace records the maximum.
  const Trace t = make_trace(m, "only", {{"n", 2}, {"a", 1}}, "max-wait", "bfs", *r.props[0].trace,
                             r.props[0].value);
  CHECK(t.value == std::optional<int>(3));
  const nlohmann::json j = trace_to_json(t);
  CHECK(j.at("value") == 3);
  const Trace t2 = trace_from_json(nlohmann::json::parse(j.dump()));
  CHECK(trace_to_json(t2) == j);
  const ReplayResult rr = replay_in(m, Wait::MaxWait, t2);
  CHECK(rr.reproduced);
  CHECK(rr.verdict_line == "max-wait reaches its maximum 3");
  CHECK(story_of(rr).find("max-wait = 3 at the end") != std::string::npos);
  // A different recorded value, or a shorter path: not reproduced.
  Trace wrong = t2;
  wrong.value = 2;
  CHECK_FALSE(replay_in(m, Wait::MaxWait, wrong).reproduced);
  CHECK(replay_in(m, Wait::MaxWait, wrong).verdict_line ==
        "max-wait is 3 at the end, not the recorded maximum 2");
  Trace shorter = t2;
  shorter.steps.pop_back();
  CHECK_FALSE(replay_in(m, Wait::MaxWait, shorter).reproduced);
  // Malformed: no value, a negative or fractional value, a value on a
  // bounded or non-maximize trace.
  Trace novalue = t2;
  novalue.value.reset();
  CHECK_THROWS_AS(replay_in(m, Wait::MaxWait, novalue), UsageError);
  for (const nlohmann::json& v : {nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json("3"),
                                  nlohmann::json(4294967296LL)}) {
    nlohmann::json bad = j;
    bad["value"] = v;
    CHECK_THROWS_AS(trace_from_json(bad), UsageError);
  }

  // Bounded: the property field carries NAME<=K, no value.
  const Trace b =
      make_trace(m, "only", {{"n", 2}, {"a", 1}}, "max-wait<=1", "bfs", *r.props[1].trace);
  CHECK_FALSE(b.value.has_value());
  const Trace b2 = trace_from_json(nlohmann::json::parse(trace_to_json(b).dump()));
  CHECK(b2.property == "max-wait<=1");
  const ReplayResult rb = replay_in(m, Wait::MaxWait, b2);
  CHECK(rb.reproduced);
  CHECK(rb.verdict_line == "max-wait<=1 is violated (max-wait = 2 > 1)");
  Trace looser = b2;
  looser.property = "max-wait<=2";
  CHECK_FALSE(replay_in(m, Wait::MaxWait, looser).reproduced);
  CHECK(replay_in(m, Wait::MaxWait, looser).verdict_line ==
        "max-wait<=2 holds at the end (max-wait = 2)");
  Trace both = b2;
  both.value = 2;
  CHECK_THROWS_AS(replay_in(m, Wait::MaxWait, both), UsageError);
  Trace badk = b2;
  badk.property = "max-wait<=x";
  CHECK_THROWS_AS(replay_in(m, Wait::MaxWait, badk), UsageError);
  Trace other = b2;
  other.property = "max-queue<=1";  // not the property replayed
  CHECK_THROWS_AS(replay_in(m, Wait::MaxWait, other), UsageError);
  // A value on an invariant trace is malformed.
  Trace inv = b2;
  inv.property = "queue-bounded";
  inv.value = 1;
  CHECK_THROWS_AS(replay_in(m, Wait::Bounded, inv), UsageError);
}

TEST_CASE("sched props: a request bypassed only unfairly is not starved") {
  for (int streams : {1, 2, 3}) {
    const Bypass m(streams, false);
    for (bool bfs : {true, false}) {
      INFO("streams=" << streams << " bfs=" << bfs);
      const auto r = explore(m, opts(bfs, {0}));
      CHECK(r.stop == StopReason::Complete);
      CHECK(r.stats.states == std::uint64_t(3) << streams);
      CHECK(r.props[0].verdict == Verdict::Holds);
      CHECK_FALSE(r.props[0].trace.has_value());
    }
  }
}

TEST_CASE("sched props: a weakly fair bypass cycle starves the request: the exact lasso") {
  {
    // ids: 0 (0,0); 1 (0,1); 2 (1,0); 3 (1,1); ... The pending states 2, 3
    // form the component; from 2 the toggler moves to 3, where R cannot be
    // dispatched (so R need not move), and back.
    const Bypass m(1, true);
    const auto r = explore(m, opts(true, {0}));
    CHECK(r.stop == StopReason::Complete);
    REQUIRE(r.props[0].verdict == Verdict::Violated);
    const auto& cx = *r.props[0].trace;
    check_path(m, cx);
    REQUIRE(cx.steps.size() == 3);
    CHECK(cx.steps[0] == mkstep(1, Bypass::SUBMIT));
    CHECK(cx.steps[1] == mkstep(0, Bypass::TOGGLE));
    CHECK(cx.steps[2] == mkstep(0, Bypass::TOGGLE));
    CHECK(cx.stuck_at == std::optional<std::size_t>(1));
    CHECK(cx.loop_start == std::optional<std::size_t>(1));
  }
  {
    // Two togglers: both are enabled everywhere, so both must move in the
    // loop. From (1,00): toggler 0 to (1,10), where R is disabled; toggler 1
    // to (1,11); then the shortest way back: (1,01), (1,00).
    const Bypass m(2, true);
    const auto r = explore(m, opts(true, {0}));
    REQUIRE(r.props[0].verdict == Verdict::Violated);
    const auto& cx = *r.props[0].trace;
    check_path(m, cx);
    REQUIRE(cx.steps.size() == 5);
    CHECK(cx.steps[0] == mkstep(2, Bypass::SUBMIT));
    CHECK(cx.steps[1] == mkstep(0, Bypass::TOGGLE));
    CHECK(cx.steps[2] == mkstep(1, Bypass::TOGGLE));
    CHECK(cx.steps[3] == mkstep(0, Bypass::TOGGLE));
    CHECK(cx.steps[4] == mkstep(1, Bypass::TOGGLE));
    CHECK(cx.states[3].b[1] == 1);
    CHECK(cx.states[3].b[2] == 1);
    CHECK(*cx.stuck_at == 1);
    CHECK(*cx.loop_start == 1);
    // DFS: a valid fair lasso too.
    const auto d = explore(m, opts(false, {0}));
    REQUIRE(d.props[0].verdict == Verdict::Violated);
    check_path(m, *d.props[0].trace);
    const Trace t = make_trace(m, "idle", {{"streams", 2}}, "starve", "dfs", *d.props[0].trace);
    CHECK(replay_in(m, 0, t).reproduced);
  }
}

TEST_CASE("sched props: starvation is incomplete under limits, and needs no deadlock") {
  const Bypass m(2, true);
  SearchOptions o = opts(true, {0, 1});
  o.limits.max_states = 5;
  const auto r = explore(m, o);
  CHECK(r.stop == StopReason::MaxStates);
  CHECK(r.props[0].verdict == Verdict::Incomplete);
  CHECK_FALSE(r.props[0].trace.has_value());
  SearchOptions d = opts(true, {0});
  d.limits.max_depth = 2;
  CHECK(explore(m, d).props[0].verdict == Verdict::Incomplete);
  // Selected twice: one decision, the same lasso.
  const auto r2 = explore(m, opts(true, {0, 1, 0}));
  REQUIRE(r2.props.size() == 3);
  CHECK(r2.props[0].verdict == Verdict::Violated);
  CHECK(r2.props[2].verdict == Verdict::Violated);
  CHECK(r2.props[2].trace->steps == r2.props[0].trace->steps);
  // No cycles at all: holds.
  const Wait w(2, 1);
  CHECK(explore(w, opts(true, {Wait::RServed})).props[0].verdict == Verdict::Holds);
}

TEST_CASE("sched props: starvation traces round-trip; replay checks loop, pending, fairness") {
  const Bypass m(2, true);
  const auto r = explore(m, opts(true, {0}));
  const Trace t = make_trace(m, "idle", {{"streams", 2}}, "starve", "bfs", *r.props[0].trace);
  CHECK(t.stuck == std::optional<int>(1));
  CHECK(t.loop == std::optional<int>(1));
  const Trace t2 = trace_from_json(nlohmann::json::parse(trace_to_json(t).dump()));
  CHECK(trace_to_json(t2) == trace_to_json(t));
  const ReplayResult rr = replay_in(m, 0, t2);
  CHECK(rr.reproduced);
  CHECK(rr.verdict_line == "starve is violated: a weakly fair cycle keeps it pending forever");
  const std::string story = story_of(rr);
  CHECK(story.find("starve is pending from here on") != std::string::npos);
  CHECK(story.find("steps 2..5 repeat forever; enabled throughout: actor 0, actor 1; each of "
                   "them steps in the loop (weakly fair)") != std::string::npos);
  CHECK(rr.story.size() == 2 * t.steps.size() + 2);
  CHECK(kBypassHandle.replay(t2).reproduced);

  // No loop, an empty loop, a loop that does not close: mismatches.
  Trace noloop = t2;
  noloop.loop.reset();
  noloop.stuck.reset();
  CHECK_THROWS_AS(replay_in(m, 0, noloop), TraceMismatch);
  Trace empty = t2;
  empty.loop = 5;
  empty.stuck = 5;
  CHECK_THROWS_AS(replay_in(m, 0, empty), TraceMismatch);
  Trace late = t2;
  late.stuck = 2;  // after the loop start (trace_from_json refuses it too)
  CHECK_THROWS_AS(replay_in(m, 0, late), TraceMismatch);
  Trace open = t2;
  open.steps.pop_back();
  CHECK_THROWS_AS(replay_in(m, 0, open), TraceMismatch);
  // Pending claimed from the initial state (R not yet submitted): not reproduced.
  Trace early = t2;
  early.stuck = 0;
  const ReplayResult re = replay_in(m, 0, early);
  CHECK_FALSE(re.reproduced);
  CHECK(re.verdict_line == "starve: the state at the start is not pending");
  // A loop that only toggler 0 drives: toggler 1 is enabled throughout and
  // never steps: not weakly fair.
  Trace unfair = t2;
  unfair.steps = {t2.steps[0], t2.steps[1], t2.steps[1]};
  unfair.steps[2].state = t2.steps[0].state;
  const ReplayResult ru = replay_in(m, 0, unfair);
  CHECK_FALSE(ru.reproduced);
  CHECK(ru.verdict_line ==
        "starve: the loop is not weakly fair (actor 1 enabled throughout, never steps)");
  CHECK(story_of(ru).find("never stepping: actor 1") != std::string::npos);
  // The unfair bypass in the "any" variant: the same toggling loop is unfair
  // to R (enabled throughout).
  const Bypass any(1, false);
  Trace t1;
  t1.model = "bypass";
  t1.variant = "any";
  t1.property = "starve";
  t1.steps = {
      {1, "", "submit", 0, "", {}}, {0, "", "toggle", 0, "", {}}, {0, "", "toggle", 0, "", {}}};
  t1.stuck = 1;
  t1.loop = 1;
  CHECK_FALSE(replay_in(any, 0, t1).reproduced);
  const Bypass idle(1, true);
  CHECK(replay_in(idle, 0, t1).reproduced);
  // A value on a starvation trace is malformed.
  t1.value = 1;
  CHECK_THROWS_AS(replay_in(idle, 0, t1), UsageError);
}

TEST_CASE("sched props: check outcomes: names, values, text and JSON") {
  SearchOptions o = opts(true);
  const CheckOutcome out = kWaitHandle.check(
      "only", {{"n", 2}, {"a", 1}}, {"max-wait", "max-wait<=1", "max-wait<=3", "r-served"}, o);
  REQUIRE(out.props.size() == 4);
  CHECK(out.props[0].name == "max-wait");
  CHECK(out.props[0].value == std::optional<int>(3));
  CHECK(out.props[0].value_exact);
  REQUIRE(out.props[0].trace.has_value());
  CHECK(out.props[0].trace->value == std::optional<int>(3));
  CHECK(out.props[0].trace->property == "max-wait");
  CHECK(out.props[1].name == "max-wait<=1");
  CHECK(out.props[1].verdict == Verdict::Violated);
  CHECK(out.props[1].trace->property == "max-wait<=1");
  CHECK_FALSE(out.props[1].trace->value.has_value());
  CHECK(out.props[2].verdict == Verdict::Holds);
  CHECK(out.props[3].verdict == Verdict::Holds);
  CHECK(kWaitHandle.replay(*out.props[0].trace).reproduced);
  CHECK(kWaitHandle.replay(*out.props[1].trace).reproduced);

  const std::string text = outcome_text(out);
  CHECK(text.find("  max-wait               max = 3 (trace 4 steps)\n") != std::string::npos);
  CHECK(text.find("  max-wait<=1            violated  (2 > 1; 2 steps)\n") != std::string::npos);
  CHECK(text.find("  max-wait<=3            holds  (max = 3)\n") != std::string::npos);
  CHECK(text.find("  r-served               holds\n") != std::string::npos);
  CHECK(exit_code(out) == kExitViolated);
  const nlohmann::json j = outcome_json(out);
  CHECK(j["properties"][0]["value"] == 3);
  CHECK(j["properties"][0]["value_exact"] == true);
  CHECK_FALSE(j["properties"][0].contains("bound"));
  CHECK(j["properties"][1]["bound"] == 1);
  CHECK(j["properties"][1]["value"] == 2);
  CHECK(j["properties"][2]["value"] == 3);
  CHECK_FALSE(j["properties"][3].contains("value"));

  // Incomplete: "max at least".
  SearchOptions lim = opts(true);
  lim.limits.max_states = 3;
  const CheckOutcome part =
      kWaitHandle.check("only", {{"n", 2}, {"a", 1}}, {"max-wait", "max-wait<=5"}, lim);
  CHECK(part.props[0].verdict == Verdict::Incomplete);
  CHECK(outcome_text(part).find(
            "max-wait               max at least 1 (search incomplete; trace 1 steps)") !=
        std::string::npos);
  CHECK(outcome_text(part).find("max-wait<=5            incomplete  (max at least 1 so far)") !=
        std::string::npos);
  CHECK(exit_code(part) == kExitIncomplete);
  // Only maximize without a bound, complete: exit 0.
  CHECK(exit_code(kWaitHandle.check("only", {}, {"max-wait"}, o)) == kExitHolds);
  // Bad bounds through the handle.
  CHECK_THROWS_AS(kWaitHandle.check("only", {}, {"max-wait<=-2"}, o), UsageError);
  CHECK_THROWS_AS(kWaitHandle.check("only", {}, {"r-served<=2"}, o), UsageError);
  CHECK_THROWS_AS(kWaitHandle.replay([&] {
    Trace t = *out.props[1].trace;
    t.property = "max-wait<=";
    return t;
  }()),
                  UsageError);
}

TEST_CASE("sched props: suite rows with an integer EXPECTED, bounded rows, starvation rows") {
  const std::string good =
      "check wait only n=2,a=1 max-wait 3\n"
      "check wait only n=2,a=1 max-queue 3\n"
      "check wait only n=2,a=1 max-wait<=2 violated\n"
      "check wait only n=2,a=1 max-wait<=3 holds\n"
      "check wait only n=4,a=0 max-wait 4\n"
      "check bypass idle streams=2 starve violated\n"
      "check bypass any streams=2 starve holds\n";
  int rc = -1;
  std::string out = capture_cout([&] {
    std::istringstream in(good);
    rc = run_suite(in, "toy", 60, false, toy_lookup);
  });
  CHECK(rc == 0);
  CHECK(out.find("7 rows, 7 passed, 0 failed") != std::string::npos);
  CHECK(out.find("max-wait    3          3") != std::string::npos);

  // A wrong maximum fails the row, so does an incomplete search.
  out = capture_cout([&] {
    std::istringstream in(
        "check wait only n=2,a=1 max-wait 4\ncheck wait only n=2,a=1 max-wait<=2 holds\n");
    rc = run_suite(in, "toy", 60, false, toy_lookup);
  });
  CHECK(rc == 1);
  CHECK(out.find("2 rows, 0 passed, 2 failed") != std::string::npos);

  // Bad rows: one-line usage errors naming the line.
  for (const char* bad :
       {"check wait only - max-wait<=2 3\n", "check wait only - r-served 0\n",
        "check wait only - queue-bounded 1\n", "check wait only - max-wait 3x\n",
        "check wait only - max-wait 99999999999\n", "check wait only - max-wait -1\n",
        "check wait only - max-wait<=x holds\n", "check wait only - nope 1\n"}) {
    INFO(bad);
    std::istringstream in(bad);
    try {
      capture_cout([&] { run_suite(in, "toy", 60, false, toy_lookup); });
      FAIL("no UsageError");
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      CHECK(msg.find('\n') == std::string::npos);
      if (msg.find("no property") == std::string::npos && msg.find("<=") == std::string::npos)
        CHECK(msg.find("toy:1:") == 0);
    }
  }
}

TEST_CASE("sched props: compare shows both maxima and marks the changed ones") {
  SearchOptions o = opts(true);
  const std::vector<std::string> props{"max-wait", "max-queue", "max-wait<=2", "r-served"};
  const Params p{{"n", 2}, {"a", 1}};
  const CheckOutcome before = kWaitHandle.check("only", p, props, o);
  const CheckOutcome after = kWaitHandle.check("no-arrivals", p, props, o);
  int rc = -1;
  const std::string text = capture_cout([&] { rc = print_comparison(before, after, "", false); });
  // The bound 2 is exceeded only with the arrival: FIXED, not a regression.
  CHECK(rc == 0);
  CHECK(text.find("  max-wait               max=3       max=2       CHANGED (max=3 -> max=2)\n") !=
        std::string::npos);
  CHECK(text.find("  max-queue              max=3       max=2       CHANGED (max=3 -> max=2)\n") !=
        std::string::npos);
  CHECK(text.find("  max-wait<=2            violated    holds       FIXED\n") != std::string::npos);
  CHECK(text.find("  r-served               holds       holds       \n") != std::string::npos);
  CHECK(text.find("1 verdict(s) changed, 2 maximum(s) changed") != std::string::npos);
  // The other way round: a regression; JSON rows carry both values.
  const std::string js = capture_cout([&] { rc = print_comparison(after, before, "", true); });
  CHECK(rc == 1);
  const nlohmann::json j = nlohmann::json::parse(js);
  CHECK(j["regressions"] == 1);
  CHECK(j["values_changed"] == 2);
  CHECK(j["properties"][0]["value_before"] == 2);
  CHECK(j["properties"][0]["value_after"] == 3);
  CHECK(j["properties"][0]["value_changed"] == true);
  CHECK_FALSE(j["properties"][2].contains("value_before"));
  CHECK(j["properties"][2]["after"] == "violated");
  // Same variant: nothing changed.
  const std::string same = capture_cout([&] { rc = print_comparison(before, before, "", false); });
  CHECK(rc == 0);
  CHECK(same.find("CHANGED") == std::string::npos);
  CHECK(same.find("0 verdict(s) changed (") != std::string::npos);
  // --trace-out: the trace of each change (the new maximum; the violated side).
  const auto dir =
      std::filesystem::temp_directory_path() / ("blkmc_sched_props_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "cmp").string();
  const std::string noted = capture_cout([&] { print_comparison(before, after, prefix, false); });
  for (const char* f : {"cmp-no-arrivals-max-wait.json", "cmp-no-arrivals-max-queue.json",
                        "cmp-only-max-wait-le2.json"}) {
    INFO(f);
    CHECK(std::filesystem::exists(dir / f));
    CHECK(noted.find(std::string("trace: ") + (dir / f).string()) != std::string::npos);
  }
  const Trace tw = read_trace_file((dir / "cmp-no-arrivals-max-wait.json").string());
  CHECK(tw.value == std::optional<int>(2));
  CHECK(kWaitHandle.replay(tw).reproduced);
  const Trace tb = read_trace_file((dir / "cmp-only-max-wait-le2.json").string());
  CHECK(tb.property == "max-wait<=2");
  CHECK(kWaitHandle.replay(tb).reproduced);
  std::filesystem::remove_all(dir);
  CHECK(prop_file_name("max-wait<=2") == "max-wait-le2");
  CHECK(prop_file_name("max-wait") == "max-wait");
}

TEST_CASE("sched props: message-sequence charts mark pending lassos and maxima") {
  const Bypass m(1, true);
  const auto r = explore(m, opts(true, {0}));
  const Trace t = make_trace(m, "idle", {{"streams", 1}}, "starve", "bfs", *r.props[0].trace);
  const std::string chart = render_msc(t, 20, PropKind::Starvation);
  CHECK(chart.find("==== starve is pending from here on\n") != std::string::npos);
  CHECK(chart.find("==== the steps below repeat forever (a weakly fair cycle)\n") !=
        std::string::npos);
  CHECK(chart.find("stuck from here") == std::string::npos);
  const Wait w(2, 1);
  const auto rw = explore(w, opts(true, {Wait::MaxWait, Wait::MaxWait}, {std::nullopt, 1}));
  const Trace tw = make_trace(w, "only", {{"n", 2}, {"a", 1}}, "max-wait", "bfs",
                              *rw.props[0].trace, rw.props[0].value);
  CHECK(render_msc(tw, 20, PropKind::Maximize).find("==== max-wait = 3 here: the maximum\n") !=
        std::string::npos);
  const Trace tb =
      make_trace(w, "only", {{"n", 2}, {"a", 1}}, "max-wait<=1", "bfs", *rw.props[1].trace);
  CHECK(render_msc(tb, 20, PropKind::Maximize).find("==== max-wait<=1 is exceeded here\n") !=
        std::string::npos);
}

}  // namespace sched_props_test
