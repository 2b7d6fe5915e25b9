// Unit tests for the BFQ model (model/sched/bfq.*): the decision functions
// of bfq_decide.hpp against plain truth tables of the fact sheet's formulas
// (docs/models/bfq-cfq-facts.md A9), and each variant's distinguishing behaviour
// through the public step interface.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/sched/bfq/bfq_decide.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/model_steps.hpp"
#include "tests/sched_test_util.hpp"

namespace bfq_steps_test {

using namespace blkmc;
using namespace blkmc::sched;
using namespace blkmc::testing;

using State = SchedState;
using BM = BfqModel;

struct Tun {
  int workload = 0, clock = 0, low_latency = 0, slice_idle = 2, max_budget = 32, sg = 0,
      hw_tag = 0, hw_samples = 3, hw_thr = 2, timeout = 8, wr_ticks = 12, wr_min_idle = 8,
      seek_dist = 4, shadow = -1;
};

Params params(const Tun& t) {
  return {{"workload", t.workload},       {"clock", t.clock},
          {"wait_cap", 255},              {"fair_window", 4},
          {"low_latency", t.low_latency}, {"slice_idle", t.slice_idle},
          {"max_budget", t.max_budget},   {"strict_guarantees", t.sg},
          {"hw_tag", t.hw_tag},           {"hw_samples", t.hw_samples},
          {"hw_queue_thr", t.hw_thr},     {"timeout", t.timeout},
          {"wr_ticks", t.wr_ticks},       {"wr_min_idle", t.wr_min_idle},
          {"seek_dist", t.seek_dist},     {"shadow", t.shadow}};
}

Workload wl(const std::string& text) { return parse_workload(text, "test"); }

int variant_index(const std::string& name) { return variant_index_of<BfqScheduler>(name); }

bool bit(unsigned m, int i) { return (m >> i) & 1u; }

IdleInputs<bool> inputs(unsigned m) {
  IdleInputs<bool> in{};
  in.sg = bit(m, 0);
  in.si0 = bit(m, 1);
  in.sync = bit(m, 2);
  in.idlec = bit(m, 3);
  in.rot = bit(m, 4);
  in.noq = bit(m, 5);
  in.iob = bit(m, 6);
  in.seeky = bit(m, 7);
  in.flag = bit(m, 8);
  in.wr = bit(m, 9);
  in.wrb = bit(m, 10);
  in.sym = bit(m, 11);
  in.burst = bit(m, 12);
  return in;
}

// The fact sheet's formulas, written out plainly with `if`s.
bool table_v413(const IdleInputs<bool>& i) {
  if (i.sg) return true;
  if (!i.sync) return false;
  bool boosts = false;
  if (i.noq) boosts = true;
  if (i.rot && i.iob && i.flag) boosts = true;
  if (boosts && !i.wrb) return true;
  if ((i.wr || !i.sym) && !i.burst) return true;
  return false;
}
bool table_p1(const IdleInputs<bool>& i) {
  if (i.sg) return true;
  if (i.si0 || !i.sync || i.idlec) return false;
  bool boosts = false;
  if (i.noq) boosts = true;
  if (i.rot && i.iob && i.flag) boosts = true;
  if (boosts && !i.wrb) return true;
  if ((i.wr || !i.sym) && !i.burst) return true;
  return false;
}
bool table_414(const IdleInputs<bool>& i) {
  if (i.sg) return true;
  if (i.si0 || !i.sync || i.idlec) return false;
  bool boosts = false;
  if (i.rot && i.noq) boosts = true;                                     // rot_without_queueing
  if ((i.rot || i.noq) && !i.seeky && i.iob && i.flag) boosts = true;   // seq_IO_bound
  if (boosts && !i.wrb) return true;
  if ((i.wr || !i.sym) && !i.burst) return true;
  return false;
}

// A step helper: the model's actors.
struct Actors {
  int n;
  int disp() const { return n; }
  int dev() const { return n + 1; }
  int clk() const { return n + 2; }
};

bool can(const BM& m, const State& s, int actor, int action, int arg = -1) {
  for (const auto& [st, n] : successors(m, s))
    if (st.actor == actor && st.action == action && (arg < 0 || st.arg == arg)) return true;
  return false;
}

// A symbolic stand-in for z3::expr: no conversion to bool, so a decision
// function that branches on a B (if, ?:, short-circuit tricks) does not
// compile; the expression it builds is printed.
struct Sym {
  std::string e;
};
Sym operator&&(const Sym& a, const Sym& b) { return {"(" + a.e + " & " + b.e + ")"}; }
Sym operator||(const Sym& a, const Sym& b) { return {"(" + a.e + " | " + b.e + ")"}; }
Sym operator!(const Sym& a) { return {"!" + a.e}; }
Sym operator>(const Sym& a, const Sym& b) { return {"(" + a.e + " > " + b.e + ")"}; }
Sym ite(const Sym& c, const Sym& a, const Sym& b) {
  return {"ite(" + c.e + ", " + a.e + ", " + b.e + ")"};
}
Sym bval(const Sym&, bool v) { return {v ? "true" : "false"}; }
Sym ival(const Sym&, int v) { return {std::to_string(v)}; }

TEST_CASE("bfq decide: the decision functions instantiate over a symbolic type") {
  IdleInputs<Sym> in{{"sg"},   {"si0"}, {"sync"}, {"idlec"}, {"rot"}, {"noq"},  {"iob"},
                     {"seeky"}, {"flag"}, {"wr"},   {"wrb"},   {"sym"}, {"burst"},
                     {"asym"},  {"tot1"}, {"wrlt"}, {"drv4"}};
  CHECK(bfq_may_idle_v413(in).e.find("si0") == std::string::npos);
  CHECK(bfq_may_idle_refactor(in).e.find("si0") != std::string::npos);
  CHECK(bfq_may_idle_flash_boost(in).e.find("seeky") != std::string::npos);
  CHECK(bfq_better_to_idle(in).e == bfq_may_idle_flash_boost(in).e);
  // 6.12 idles for the only busy queue and for an asymmetric scenario, and
  // knows neither the symmetric term nor bursts.
  CHECK(bfq_better_to_idle_612(in).e.find("tot1") != std::string::npos);
  CHECK(bfq_better_to_idle_612(in).e.find("asym") != std::string::npos);
  std::string no_asym = bfq_better_to_idle_612(in).e;
  for (auto at = no_asym.find("asym"); at != std::string::npos; at = no_asym.find("asym")) no_asym.erase(at, 4);
  CHECK(no_asym.find("sym") == std::string::npos);
  CHECK(bfq_better_to_idle_612(in).e.find("burst") == std::string::npos);
  CHECK(!bfq_must_idle_v413(Sym{"empty"}, in).e.empty());
  CHECK(!bfq_must_idle_refactor(Sym{"empty"}, in).e.empty());
  CHECK(!bfq_must_idle_flash_boost(Sym{"empty"}, in).e.empty());
  FlagInputs<Sym, Sym> f{{"old"}, {"sync"}, {"idlec"}, {"split"}, {"ref"}, {"si0"},
                         {"hwt"}, {"seeky"}, {"wr"},   {"valid"}, {"mean"}, {"slice"}};
  CHECK(bfq_update_idle_window(f).e.find("hwt") != std::string::npos);
  CHECK(bfq_update_has_short_ttime(f).e.find("hwt") == std::string::npos);
  CHECK(!bfq_completion_action(Sym{"d0"}, Sym{"must"}, Sym{"tmo"}, Sym{"empty"}, Sym{"may"})
             .e.empty());
  CHECK(!bfq_select_action(Sym{"tmo"}, Sym{"wait"}, Sym{"must"}, Sym{"next"}, Sym{"over"},
                           Sym{"disp"}, Sym{"may"})
             .e.empty());
}

TEST_CASE("bfq decide: may_idle per version against the fact sheet's truth tables") {
  int diff_p1 = 0, diff_22 = 0;
  for (unsigned m = 0; m < (1u << 13); ++m) {
    const auto in = inputs(m);
    INFO("inputs mask " << m);
    CHECK(bfq_may_idle_v413(in) == table_v413(in));
    CHECK(bfq_may_idle_refactor(in) == table_p1(in));
    CHECK(bfq_may_idle_flash_boost(in) == table_414(in));
    CHECK(bfq_better_to_idle(in) == table_414(in));
    const bool empty = bit(m, 3) != bit(m, 7);
    CHECK(bfq_must_idle_v413(empty, in) == (empty && !in.si0 && table_v413(in)));
    CHECK(bfq_must_idle_refactor(empty, in) == (empty && table_p1(in)));
    CHECK(bfq_must_idle_flash_boost(empty, in) == (empty && table_414(in)));
    diff_p1 += bfq_may_idle_v413(in) != bfq_may_idle_refactor(in);
    diff_22 += bfq_may_idle_refactor(in) != bfq_may_idle_flash_boost(in);
  }
  // 1/2 is not a pure refactor of the formula: slice_idle == 0 and the idle
  // class (facts C2); 2/2 changes the boost term.
  CHECK(diff_p1 > 0);
  CHECK(diff_22 > 0);
  // On the inputs where ¬SI0 ∧ ¬IDLEC, 1/2 changes nothing.
  for (unsigned m = 0; m < (1u << 13); ++m) {
    const auto in = inputs(m);
    if (in.si0 || in.idlec) continue;
    CHECK(bfq_may_idle_v413(in) == bfq_may_idle_refactor(in));
  }
}

TEST_CASE("bfq decide: where patch 2/2 changes the boost term (device and queue kinds)") {
  // boosts_p1 vs boosts_414 over (rot, noq, seeky, iob, flag).
  for (unsigned m = 0; m < 32; ++m) {
    IdleInputs<bool> in{};
    in.rot = bit(m, 0);
    in.noq = bit(m, 1);
    in.seeky = bit(m, 2);
    in.iob = bit(m, 3);
    in.flag = bit(m, 4);
    const bool before = bfq_idling_boosts_thr_v413(in), after = bfq_idling_boosts_thr_v414(in);
    if (in.rot && in.noq) CHECK(before == after);  // rot without queueing: always true
    if (!in.rot && !in.noq) CHECK((!before && !after));  // flash with queueing: never
    if (!in.rot && in.noq) CHECK(after == (!in.seeky && in.iob && in.flag));  // was true
    if (in.rot && !in.noq) CHECK(after == (before && !in.seeky));
  }
}

TEST_CASE("bfq decide: idle_window and has_short_ttime updates") {
  for (unsigned m = 0; m < (1u << 11); ++m) {
    for (int mean = 0; mean <= 4; ++mean) {
      FlagInputs<bool, int> in{};
      in.old = bit(m, 0);
      in.sync = bit(m, 1);
      in.idlec = bit(m, 2);
      in.split_recent = bit(m, 3);
      in.active_ref = bit(m, 4);
      in.si0 = bit(m, 5);
      in.hwt = bit(m, 6);
      in.seeky = bit(m, 7);
      in.wr = bit(m, 8);
      in.valid = bit(m, 9);
      in.ttime_mean = mean;
      in.slice_idle = 2;
      bool iw = in.old;
      if (in.sync && !in.idlec && !in.split_recent) {
        if (!in.active_ref || in.si0 || (in.hwt && in.seeky && !in.wr))
          iw = false;
        else if (in.valid)
          iw = !(mean > 2 && !in.wr);
      }
      CHECK(bfq_update_idle_window(in) == iw);
      bool st = in.old;
      if (in.sync && !in.idlec && !in.si0 && !in.split_recent)
        st = in.active_ref && !(in.valid && mean > 2);
      CHECK(bfq_update_has_short_ttime(in) == st);
    }
  }
}

TEST_CASE("bfq decide: completion and select_queue actions") {
  for (unsigned m = 0; m < 32; ++m) {
    const bool d0 = bit(m, 0), must = bit(m, 1), tmo = bit(m, 2), empty = bit(m, 3),
               may = bit(m, 4);
    int want = kKeep;
    if (d0 && must)
      want = kArmTimer;
    else if (tmo)
      want = kExpireTimeout;
    else if (empty && (d0 || !may))
      want = kExpireNoMore;
    CHECK(bfq_completion_action(d0, must, tmo, empty, may) == want);
  }
  for (unsigned m = 0; m < 128; ++m) {
    const bool tmo = bit(m, 0), wait = bit(m, 1), must = bit(m, 2), next = bit(m, 3),
               over = bit(m, 4), disp = bit(m, 5), may = bit(m, 6);
    int want;
    if (tmo && !wait && !must)
      want = kSelExpireTimeout;
    else if (next)
      want = over ? kSelExpireExhausted : kServe;
    else if (wait || (disp && may))
      want = kPlug;
    else
      want = kSelExpireNoMore;
    CHECK(bfq_select_action(tmo, wait, must, next, over, disp, may) == want);
  }
}

// Two sync readers on non-queueing flash (hw_tag = 0 known): r1's 2nd and
// 3rd requests are far from the previous ones, so r1 becomes SEEKY (3 of 8
// bits with the initial one; not in better-to-idle, which needs 5). On its completion, with r2 waiting:
// v4.13 and 1/2 arm the idle timer for r1 (NOQ boosts), 2/2 does not
// (seeky on flash), better-to-idle does again (not seeky by its threshold).
TEST_CASE("bfq steps: flash without queueing, a seeky reader: who idles") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=0
proc r1 dir=R sync=1 reqs=0,50,100,150
proc r2 dir=R sync=1 reqs=200
)");
  const Actors a{2};
  for (const char* vname : {"v4.13", "refactor", "flash-boost", "better-to-idle"}) {
    INFO(std::string(vname));
    const BM m(variant_index(vname), params(Tun{}), w);
    State s = m.initial();
    for (int r = 0; r < 2; ++r) {
      s = run(m, s, step(0, BM::SUBMIT, r));
      s = run(m, s, step(a.disp(), BM::DISPATCH, r));
      s = run(m, s, step(a.dev(), BM::COMPLETE, r));
      CHECK(m.sched().wait_request(s));  // not seeky yet: every version idles
    }
    s = run(m, s, step(0, BM::SUBMIT, 2));
    s = run(m, s, step(a.disp(), BM::DISPATCH, 2));
    s = run(m, s, step(1, BM::SUBMIT, 4));
    REQUIRE(m.sched().seeky(s, 0) == (std::string(vname) != "better-to-idle"));
    s = run(m, s, step(a.dev(), BM::COMPLETE, 2));
    const bool idles = std::string(vname) != "flash-boost";
    INFO(m.summary(s));
    CHECK(m.sched().wait_request(s) == idles);
    CHECK((m.sched().in_service(s) == 0) == idles);
    // r2 is dispatched at once only where r1 is not idled on.
    CHECK(can(m, s, a.disp(), BM::DISPATCH, 4) == !idles);
  }
}

// slice_idle = 0: 4.13 still plugs an empty in-service queue with a request
// in flight (may_idle by NOQ); patch 1/2 expires it (facts C2, D1).
TEST_CASE("bfq steps: slice_idle=0 in-flight plugging (4.13 only)") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=0
proc r1 dir=R sync=1 reqs=0
proc r2 dir=R sync=1 reqs=200
)");
  const Actors a{2};
  Tun t;
  t.slice_idle = 0;
  for (const char* vname : {"v4.13", "refactor", "flash-boost", "better-to-idle"}) {
    INFO(std::string(vname));
    const BM m(variant_index(vname), params(t), w);
    State s = m.initial();
    s = run(m, s, step(0, BM::SUBMIT, 0));
    s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
    s = run(m, s, step(1, BM::SUBMIT, 1));
    // r2's request waits; r1 is in service, empty, its request in the driver.
    const bool plugs = std::string(vname) == "v4.13";
    CHECK(can(m, s, a.disp(), BM::DISPATCH, 1) == !plugs);
  }
}

// An IDLE-class reader alone on a rotational disk: 4.13 idles on it (its
// idle_window is set at creation), 1/2 and later never (facts C2, D2).
TEST_CASE("bfq steps: idle class idling (4.13 only)") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=1
proc idler dir=R sync=1 prio=idle reqs=0,1
)");
  const Actors a{1};
  for (const char* vname : {"v4.13", "refactor", "flash-boost", "better-to-idle"}) {
    INFO(std::string(vname));
    Tun t;
    t.hw_tag = -1;
    const BM m(variant_index(vname), params(t), w);
    State s = m.initial();
    s = run(m, s, step(0, BM::SUBMIT, 0));
    s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
    s = run(m, s, step(a.dev(), BM::COMPLETE, 0));
    CHECK(m.sched().wait_request(s) == (std::string(vname) == "v4.13"));
  }
}

// The idle timer fires after slice_idle ticks (clock=1) and expires the
// queue TOO_IDLE; a request arriving first ends the wait instead.
TEST_CASE("bfq steps: the idle timer ends idling") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=1
proc r1 dir=R sync=1 think=5 reqs=0,1
proc r2 dir=R sync=1 delay=1 reqs=100
)");
  const Actors a{2};
  Tun t;
  t.clock = 1;
  const BM m(variant_index("refactor"), params(t), w);
  State s = m.initial();
  s = run(m, s, step(0, BM::SUBMIT, 0));
  s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
  s = run(m, s, step(a.clk(), BM::TICK));
  s = run(m, s, step(1, BM::SUBMIT, 2));
  s = run(m, s, step(a.dev(), BM::COMPLETE, 0));
  REQUIRE(m.sched().wait_request(s));
  CHECK(m.sched().idle_timer(s) == 2);
  CHECK_FALSE(can(m, s, a.disp(), BM::DISPATCH));  // plugged: r2 waits
  s = run(m, s, step(a.clk(), BM::TICK));
  CHECK(m.sched().wait_request(s));
  s = run(m, s, step(a.clk(), BM::TICK));
  CHECK_FALSE(m.sched().wait_request(s));  // TOO_IDLE
  CHECK(m.sched().in_service(s) == -1);
  CHECK(can(m, s, a.disp(), BM::DISPATCH, 2));
}

// hw_tag starts unknown and is detected 0 on a depth-1 device after the
// scaled number of qualifying samples.
TEST_CASE("bfq steps: hw_tag detection") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=0
proc a dir=R sync=0 reqs=0,1,2,3,4,5
)");
  const Actors a{1};
  Tun t;
  t.hw_tag = -1;
  t.hw_samples = 2;
  const BM m(variant_index("flash-boost"), params(t), w);
  State s = m.initial();
  for (int r = 0; r < 6; ++r) s = run(m, s, step(0, BM::SUBMIT, r));
  for (int r = 0; r < 3; ++r) {
    CHECK(m.sched().hw_tag(s) == -1);
    s = run(m, s, step(a.disp(), BM::DISPATCH, r));
    s = run(m, s, step(a.dev(), BM::COMPLETE, r));
  }
  CHECK(m.sched().hw_tag(s) == 0);  // 3rd qualifying sample decides (2 + 1)
}

// Weight raising: with low_latency a new sync queue is interactive; the
// raised reader preempts an in-service writer.
TEST_CASE("bfq steps: low_latency raises a new reader, which preempts a writer") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=1
proc writer dir=W sync=0 reqs=100,101,102
proc reader dir=R sync=1 reqs=0
)");
  const Actors a{2};
  for (int ll : {0, 1}) {
    Tun t;
    t.low_latency = ll;
    const BM m(variant_index("flash-boost"), params(t), w);
    State s = m.initial();
    for (int r = 0; r < 3; ++r) s = run(m, s, step(0, BM::SUBMIT, r));
    s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
    CHECK(m.sched().in_service(s) == 0);
    s = run(m, s, step(1, BM::SUBMIT, 3));
    CHECK(m.sched().raised(s, 1) == (ll == 1));
    CHECK((m.sched().in_service(s) == -1) == (ll == 1));  // PREEMPTED
  }
}

TEST_CASE("bfq steps (v6.12): close cooperators merge on a rotational device") {
  const Workload w = wl(R"(
device depth=2 slot=1 spindles=1 rotational=1
proc reader0 dir=R sync=1 reqs=10
proc reader1 dir=R sync=1 reqs=20
proc writer dir=W sync=1 reqs=15
)");
  const BM m(variant_index("v6.12"), params(Tun{}), w);
  // No queue in service: the writer's request at 15 lies between the
  // readers' next requests; bfqq_find_close looks first at the node where
  // the rq_pos_tree search ends, the one inserted later (deeper), and
  // takes it as it is close. So the writer joins whichever reader came second.
  for (int second : {0, 1}) {
    State s = m.initial();
    s = run(m, s, step(1 - second, BM::SUBMIT, 1 - second));
    s = run(m, s, step(second, BM::SUBMIT, second));
    CHECK(m.sched().queue_of_proc(s, 1) == 1);  // rotational: the stable merge waits 600 ms
    s = run(m, s, step(2, BM::SUBMIT, 2));
    CHECK(m.sched().queue_of_proc(s, 2) == second);
    CHECK(m.sched().qof(s, 2) == second);
  }
  // With reader0 in service (its request dispatched, ending at sector 11),
  // the writer's request at 15 is close to where it ended: it joins reader0.
  const Actors a{3};
  State s = m.initial();
  s = run(m, s, step(0, BM::SUBMIT, 0));
  s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
  s = run(m, s, step(1, BM::SUBMIT, 1));
  CHECK(m.sched().in_service(s) == 0);
  s = run(m, s, step(2, BM::SUBMIT, 2));
  CHECK(m.sched().queue_of_proc(s, 2) == 0);
}

TEST_CASE("bfq explorer: conservation, deadlock, no orphan idling and the shadow comparison") {
  const int fr = shipped("bfq-flash-readers");
  const int same_decisions = BM::FairRatio + 1, no_orphan = BM::FairRatio + 2;
  REQUIRE(BM::static_info().props[std::size_t(same_decisions)].name == "same-decisions");
  REQUIRE(BM::static_info().props[std::size_t(no_orphan)].name == "no-orphan-idling");
  for (int v = 0; v < 4; ++v) {
    Tun t;
    t.workload = fr;
    const BM m(v, params(t), shipped_workload(fr));
    CHECK(verdict(m, BM::Conservation) == kHolds);
    CHECK(verdict(m, BM::Deadlock) == kHolds);
    CHECK(verdict(m, no_orphan) == kHolds);
    CHECK(verdict(m, same_decisions) == kHolds);  // no shadow: nothing to compare
    // An armed idle timer with no queue in service is what the check catches.
    State bad = m.initial();
    m.schema().set_value(bad, m.schema().find("idle_timer"), 0, 2);
    CHECK(m.violates(no_orphan, bad));
    CHECK_FALSE(m.violates(BM::Conservation, bad));
  }
  // flash-boost against refactor's decisions, on a known non-queueing device.
  Tun t;
  t.workload = fr;
  t.shadow = variant_index("refactor");
  const BM m(variant_index("flash-boost"), params(t), shipped_workload(fr));
  CHECK(verdict(m, same_decisions) == kViolated);
  CHECK(verdict(m, BM::Conservation) == kHolds);  // a different decision loses nothing
  // refactor against itself: never differs.
  t.shadow = variant_index("refactor");
  const BM same(variant_index("refactor"), params(t), shipped_workload(fr));
  CHECK(verdict(same, same_decisions) == kHolds);
}

// bfq_serv_to_charge: an async request costs 10x its sectors in 4.13/4.14,
// 3x in 4.19 (better-to-idle); a sync one its sectors.
TEST_CASE("bfq steps: async charge factor per version") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=1
proc writer dir=W sync=0 reqs=100:2,102:2
)");
  const Actors a{1};
  for (const char* vname : {"v4.13", "refactor", "flash-boost", "better-to-idle"}) {
    INFO(std::string(vname));
    const BM m(variant_index(vname), params(Tun{}), w);
    State s = m.initial();
    s = run(m, s, step(0, BM::SUBMIT, 0));
    s = run(m, s, step(0, BM::SUBMIT, 1));
    s = run(m, s, step(a.disp(), BM::DISPATCH, 0));
    const auto j = m.sched().json(s);
    CHECK(j["queues"][0]["service"] == (std::string(vname) == "better-to-idle" ? 6 : 20));
  }
}

// bfq_bfqq_charge_time (clock=1): a seeky sync queue that held the device
// for a short time is charged max_budget * elapsed / timeout, more than it
// was served; a raised queue is not.
TEST_CASE("bfq steps: a slow queue is charged for its time") {
  const Workload w = wl(R"(
device depth=1 slot=1 spindles=1 rotational=1 service=2 seek=0
proc rnd dir=R sync=1 think=3 reqs=0,50,100,150,200,250
proc seq dir=R sync=1 delay=1 reqs=20,21,22,23
)");
  for (int ll : {0, 1}) {
    Tun t;
    t.clock = 1;
    t.low_latency = ll;
    t.wr_ticks = 200;  // raised for the whole run
    const BM m(variant_index("refactor"), params(t), w);
    // Run the first-step schedule until rnd's third request is expired.
    State s = m.initial();
    int charged = -1;
    for (int i = 0; i < 200 && charged < 0; ++i) {
      const auto succ = successors(m, s);
      if (succ.empty()) break;
      const std::string story = m.describe(s, succ[0].first);
      if (story.find("bfq_bfqq_charge_time") != std::string::npos) charged = i;
      s = succ[0].second;
    }
    CHECK((charged >= 0) == (ll == 0));
  }
}

}  // namespace bfq_steps_test
