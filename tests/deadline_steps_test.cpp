// Unit tests for the scheduler models (model/sched/): the workload format,
// every step of SchedModel, mq-deadline's decisions in each variant, and the
// explorer's verdicts; the Maximize and Starvation properties are computed
// here by a breadth-first search and a fair-cycle search of their own until
// the explorer decides them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/model_steps.hpp"
#include "tests/sched_test_util.hpp"

namespace deadline_steps_test {

using namespace blkmc;
using namespace blkmc::sched;
using namespace blkmc::testing;

using State = SchedState;
using DM = DeadlineModel;

struct Tun {
  int fb = 16, ws = 2, re = 2, we = 20, age = 40, clock = 0, cap = 255, workload = 0, window = 4,
      shadow = -1;
};

Params params(const Tun& t) {
  return {{"workload", t.workload}, {"clock", t.clock},          {"wait_cap", t.cap},
          {"fifo_batch", t.fb},     {"writes_starved", t.ws},    {"read_expire", t.re},
          {"write_expire", t.we},   {"prio_aging_expire", t.age}, {"fair_window", t.window},
          {"shadow", t.shadow}};
}

Params none_params(int workload = 0, int clock = 0) {
  return {{"workload", workload}, {"clock", clock}, {"wait_cap", 255}, {"fair_window", 4}};
}

Workload wl(const std::string& text) { return parse_workload(text, "test"); }

template <class M>
std::string key(const M& m, const typename M::State& s) {
  return std::string(reinterpret_cast<const char*>(s.b.data()), m.state_bytes());
}

// All reachable states (breadth first), with the edges between them.
template <class M>
struct Graph {
  std::vector<typename M::State> states;
  std::vector<std::vector<std::pair<Step, int>>> succ;
};

template <class M>
Graph<M> reach(const M& m, std::size_t limit = 2'000'000) {
  Graph<M> g;
  std::unordered_map<std::string, int> id;
  g.states.push_back(m.initial());
  id[key(m, g.states[0])] = 0;
  for (std::size_t i = 0; i < g.states.size(); ++i) {
    REQUIRE(g.states.size() < limit);
    g.succ.emplace_back();
    const auto s = g.states[i];
    m.for_each_successor(s, [&](const Step& st, const typename M::State& n) {
      auto [it, fresh] = id.emplace(key(m, n), static_cast<int>(g.states.size()));
      if (fresh) g.states.push_back(n);
      g.succ[i].push_back({st, it->second});
    });
  }
  return g;
}

// The maximum of measure(prop) over the reachable states.
template <class M>
int bfs_max(const M& m, int prop, std::size_t* nstates = nullptr) {
  const auto g = reach(m);
  int best = 0;
  for (const auto& s : g.states) best = std::max(best, m.measure(prop, s));
  if (nstates) *nstates = g.states.size();
  return best;
}

// Whether a reachable cycle of pending states is weakly fair: some strongly
// connected component of the pending subgraph in which every actor that is
// enabled in all its states takes a step inside it (then one cycle through
// all its edges is fair; if an actor is always enabled and never steps, no
// cycle inside it is).
template <class M>
bool fair_pending_cycle(const M& m, int prop) {
  const auto g = reach(m);
  const int n = static_cast<int>(g.states.size());
  std::vector<char> pend(std::size_t(n), 0);
  for (int i = 0; i < n; ++i) pend[std::size_t(i)] = m.pending(prop, g.states[std::size_t(i)]);
  // Tarjan on the pending subgraph.
  std::vector<int> idx(std::size_t(n), -1), low(std::size_t(n), 0), comp(std::size_t(n), -1), stack;
  std::vector<char> on(std::size_t(n), 0);
  int counter = 0, ncomp = 0;
  std::function<void(int)> dfs = [&](int v) {
    idx[std::size_t(v)] = low[std::size_t(v)] = counter++;
    stack.push_back(v);
    on[std::size_t(v)] = 1;
    for (const auto& [st, w] : g.succ[std::size_t(v)]) {
      if (!pend[std::size_t(w)]) continue;
      if (idx[std::size_t(w)] < 0) {
        dfs(w);
        low[std::size_t(v)] = std::min(low[std::size_t(v)], low[std::size_t(w)]);
      } else if (on[std::size_t(w)]) {
        low[std::size_t(v)] = std::min(low[std::size_t(v)], idx[std::size_t(w)]);
      }
    }
    if (low[std::size_t(v)] == idx[std::size_t(v)]) {
      int w;
      do {
        w = stack.back();
        stack.pop_back();
        on[std::size_t(w)] = 0;
        comp[std::size_t(w)] = ncomp;
      } while (w != v);
      ++ncomp;
    }
  };
  for (int v = 0; v < n; ++v)
    if (pend[std::size_t(v)] && idx[std::size_t(v)] < 0) dfs(v);
  for (int c = 0; c < ncomp; ++c) {
    std::map<int, bool> always, steps;  // actor -> enabled everywhere / steps inside
    bool first = true, has_edge = false;
    for (int v = 0; v < n; ++v) {
      if (comp[std::size_t(v)] != c) continue;
      std::map<int, bool> here;
      for (const auto& [st, w] : g.succ[std::size_t(v)]) {
        here[st.actor] = true;
        if (comp[std::size_t(w)] == c) {
          steps[st.actor] = true;
          has_edge = true;
        }
      }
      if (first) {
        always = here;
        first = false;
      } else {
        for (auto& [a, on_all] : always) on_all = on_all && here.count(a);
      }
    }
    if (!has_edge) continue;
    bool fair = true;
    for (const auto& [a, on_all] : always)
      if (on_all && !steps.count(a)) fair = false;
    if (fair) return true;
  }
  return false;
}

// Runs the first enabled step of `actor` with `action` (any argument).
template <class M>
State run_any(const M& m, const State& s, int actor, int action) {
  for (const auto& [st, n] : successors(m, s))
    if (st.actor == actor && st.action == action) return n;
  INFO("no step " << actor << "/" << action << " from " << m.summary(s));
  FAIL("step not enabled");
  return s;
}

template <class M>
bool enabled(const M& m, const State& s, int actor, int action, int arg = -1) {
  for (const auto& [st, n] : successors(m, s))
    if (st.actor == actor && st.action == action && (arg < 0 || st.arg == arg)) return true;
  return false;
}

const char* const kTwoReaders = R"(
device depth=1 slot=1 spindles=1
proc a dir=R sync=0 reqs=5,6,7
proc w dir=W sync=0 reqs=50
)";

// ---------------------------------------------------------------- workloads

TEST_CASE("deadline: workload parser reads processes, streams, gate and track") {
  const Workload w = wl(R"(# first line of the summary
# second line
device depth=3 slot=0 spindles=2 rotational=1 service=2 seek=3 requeue=1
proc blk dir=W reqs=200,W201:4
gate
proc rd dir=R sync=1 prio=idle:7 think=2 delay=1 stream=3 start=10 stride=5 size=2
proc mix prio=rt reqs=R1,W2:8   # a comment
proc pt head=1 reqs=0
proc fl bypass=1 reqs=0
track rd:2
)");
  CHECK(w.summary == "first line of the summary second line");
  CHECK(w.dev.depth == 3);
  CHECK_FALSE(w.dev.slot);
  CHECK(w.dev.spindles == 2);
  CHECK(w.dev.rotational);
  CHECK(w.dev.service == 2);
  CHECK(w.dev.seek == 3);
  CHECK(w.dev.requeue == 1);
  CHECK(w.dev.service_ticks(10, 10) == 2);
  CHECK(w.dev.service_ticks(10, 11) == 3);
  CHECK(w.dev.service_ticks(10, 20) == 5);
  CHECK(w.dev.service_ticks(20, 10) == 5);
  REQUIRE(w.procs.size() == 5);
  CHECK(w.gate);
  CHECK(w.procs[0].pre_gate);
  CHECK_FALSE(w.procs[1].pre_gate);
  CHECK(w.procs[0].count == 2);
  CHECK(w.rqs[1].size == 4);
  CHECK(w.rqs[1].dir == WRITE);
  const WlProc& rd = w.procs[1];
  CHECK(rd.sync);
  CHECK(rd.prio == IDLE);
  CHECK(rd.level == 7);
  CHECK(rd.think == 2);
  CHECK(rd.delay == 1);
  CHECK(rd.first == 2);
  CHECK(rd.count == 3);
  CHECK(w.rqs[4].sector == 20);
  CHECK(w.rqs[4].size == 2);
  CHECK(w.rqs[4].index == 2);
  CHECK(w.procs[2].prio == RT);
  CHECK_FALSE(w.procs[2].cyclic);
  CHECK(w.rqs[5].dir == READ);
  CHECK(w.rqs[6].dir == WRITE);
  CHECK(w.rqs[6].size == 8);
  CHECK(w.procs[3].head);
  CHECK(w.procs[4].bypass);
  CHECK(w.procs[4].prio == BE);  // default class
  CHECK(w.track == 4);
  CHECK_FALSE(w.any_cyclic());
  CHECK(wl("proc c cyclic=1 reqs=1\n").any_cyclic());
  CHECK(wl("proc c reqs=1\n").track == -1);
}

TEST_CASE("deadline: workload parser rejects bad input with one-line usage errors") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"proc a reqs=1\nbogus x=1\n", "line 2: unknown keyword 'bogus'"},
      {"proc a reqs=1\nproc a reqs=2\n", "line 2: process 'a' defined twice"},
      {"proc a dir=X reqs=1\n", "line 1: dir: 'X' is not R or W"},
      {"proc a reqs=1 stream=2\n", "exactly one of reqs= and stream="},
      {"proc a\n", "exactly one of reqs= and stream="},
      {"proc a reqs=300\n", "sector=300 is out of range"},
      {"proc a reqs=1,,2\n", "empty entry"},
      {"proc a reqs=0,50,20,90,\n", "empty entry"},
      {"proc a reqs=,1\n", "empty entry"},
      {"proc a reqs=1 prio=xx\n", "prio: 'xx'"},
      {"proc a reqs=1 sync=2\n", "sync=2 is out of range"},
      {"proc a reqs=1 colour=red\n", "unknown option 'colour'"},
      {"proc a reqs=1 sync=1 sync=0\n", "sync given twice"},
      {"proc a reqs=1 head=1 bypass=1\n", "exclude each other"},
      {"device depth=2 spindles=3\nproc a reqs=1\n", "spindles must not exceed depth"},
      {"device depth=0\nproc a reqs=1\n", "depth=0 is out of range"},
      {"device depth=1\ndevice depth=2\nproc a reqs=1\n", "device given twice"},
      {"gate\nproc a reqs=1\n", "gate needs processes above it"},
      {"proc a reqs=1\ngate\n", "gate needs processes below it"},
      {"proc a reqs=1\ngate\nproc b cyclic=1 reqs=2\n", "cannot have cyclic"},
      {"proc a reqs=1\ntrack b\n", "line 2: track: no process named 'b'"},
      {"proc a reqs=1\ntrack a:1\n", "has 1 request(s)"},
      {"proc a bypass=1 reqs=1\ntrack a\n", "bypass request never enters"},
      {"proc a stream=40 start=250\n", "a request at sector 256 of 1 sectors reaches sector 256 (max 255)"},
      {"proc a reqs=250:10\n", "a request at sector 250 of 10 sectors reaches sector 259 (max 255)"},
      {"proc a stream=2 start=250 size=6\n", "sector 251 of 6 sectors reaches sector 256"},
      {"proc a stream=65\n", "stream=65 is out of range"},
      {"# only a comment\n", "no processes"},
      {"proc a reqs=1 think\n", "not of the form key=value"},
      {"proc a reqs=1\nfair a\n", "line 2: fair takes two process names"},
      {"proc a reqs=1\nfair a a\n", "two different processes"},
      {"proc a reqs=1\nfair a b\n", "fair: no process named 'b'"},
      {"proc a reqs=1\nproc b reqs=2\nfair a b\nfair b a\n", "line 4: fair given twice"},
      {"proc a reqs=1\nproc b bypass=1 reqs=2\nfair a b\n", "bypass process never goes"},
  };
  for (const auto& [text, msg] : bad) {
    INFO(text);
    try {
      parse_workload(text, "t");
      FAIL("accepted");
    } catch (const UsageError& e) {
      const std::string what = e.what();
      CHECK(what.find(msg) != std::string::npos);
      CHECK(what.rfind("workload t", 0) == 0);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  // More than 64 requests in all.
  std::string many;
  for (int p = 0; p < 3; ++p) many += "proc p" + std::to_string(p) + " stream=30\n";
  CHECK_THROWS_AS(parse_workload(many, "t"), UsageError);
}

TEST_CASE("deadline: every shipped workload parses and fits the state") {
  const auto& all = shipped_workloads();
  REQUIRE(all.size() >= 11);
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    const Workload& w = shipped_workload(static_cast<int>(i));
    CHECK(w.name == all[i].name);
    CHECK_FALSE(w.summary.empty());
    Tun t;
    t.workload = static_cast<int>(i);
    const DM m(0, params(t));
    CHECK(m.state_bytes() <= State::capacity);
    const NoneModel n(0, none_params(static_cast<int>(i)));
    CHECK(n.state_bytes() == m.state_bytes() - 12);
  }
  CHECK_THROWS_AS(shipped_workload(99), UsageError);
  CHECK(shipped("gated-write") == 0);
  // The workload parameter's help names them all.
  const auto& p = DM::static_info().params[0];
  CHECK(p.name == "workload");
  CHECK(p.max == static_cast<int>(all.size()) - 1);
  CHECK(p.help.find("0=gated-write") != std::string::npos);
}

TEST_CASE("deadline: a user's workload is numbered after the shipped ones and runs as they do") {
  const int shipped = static_cast<int>(shipped_workloads().size());
  const std::string text = "# mine\nproc w dir=W reqs=100\nproc r stream=3\ntrack w:0\n";
  const int n = add_workload("mine.wl", text, "mine.wl");
  CHECK(n >= shipped);
  CHECK(workload_added(n));
  CHECK_FALSE(workload_added(0));
  CHECK(workload_at(n).name == "mine.wl");
  CHECK(workload_text(n) == text);
  // The same text keeps its number; a shipped text is the shipped workload.
  CHECK(add_workload("again.wl", text, "again.wl") == n);
  CHECK(add_workload("copy.wl", shipped_workloads()[3].text, "copy.wl") == 3);
  // A bad line names where it came from; nothing is added.
  const int before = workload_count();
  try {
    add_workload("bad.wl", "proc a dir=Q\n", "dir/bad.wl");
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == "workload dir/bad.wl line 1: dir: 'Q' is not R or W");
  }
  CHECK(workload_count() == before);
  // The parameter takes the added number, by number or by its name, and
  // names it back; beyond the registry it is out of range.
  const ModelInfo& info = DM::static_info();
  const ParamInfo& wp = info.params[0];
  REQUIRE(wp.open != nullptr);
  CHECK(resolve_params(info, std::vector<std::string>{"workload=" + std::to_string(n)}).at("workload") == n);
  CHECK(resolve_params(info, std::vector<std::string>{"workload=mine.wl"}).at("workload") == n);
  CHECK(param_value_name(wp, n) == "mine.wl");
  CHECK_THROWS_AS(resolve_params(info, Params{{"workload", workload_count()}}), UsageError);
  CHECK(find_workload("gated-write") == 0);
  CHECK(find_workload(std::to_string(n)) == n);
  CHECK_THROWS_AS(find_workload("/nonexistent/x.wl"), UsageError);
  // The model built on it has the user's processes.
  Tun t;
  t.workload = n;
  const DM m(0, params(t));
  CHECK(m.workload().procs.size() == 2);
  CHECK(m.workload().procs[1].name == "r");
}

// ------------------------------------------------------------- the framework

TEST_CASE("deadline: initial state, layout and constructor checks") {
  const DM m(DeadlineScheduler::V6_18, params({}));
  const State s = m.initial();
  const auto& dd = m.sched();
  CHECK(dd.last_dir(s) == WRITE);
  CHECK(dd.batching(s) == 0);
  CHECK(dd.starved(s) == 0);
  for (int p = RT; p <= IDLE; ++p) {
    CHECK(dd.pos(s, p, READ) == 0);
    CHECK(dd.pos(s, p, WRITE) == 0);
    CHECK(dd.dd_queued(s, p) == 0);
  }
  for (int r = 0; r < m.rqs().size(); ++r) CHECK(m.rqs().status(s, r) == St::Idle);
  CHECK(m.nprocs() == 3);
  CHECK(m.dispatcher() == 3);
  CHECK(m.device() == 4);
  CHECK(m.clock_actor() == 5);
  CHECK(m.tracked() == 5);  // writer.0 after the five blockers
  // 54 requests x 3 bytes (status and flags packed in one, seq, age) + 3
  // processes x 2 + device 2 + ghost 3 + mq-deadline 12, then the ghost error
  // flag's bit.
  CHECK(m.state_bytes() == 54 * 3 + 6 + 2 + 3 + 12 + 1);
  CHECK_FALSE(m.finished(s));
  for (std::size_t i = m.state_bytes(); i < State::capacity; ++i) CHECK(s.b[i] == 0);
  CHECK_THROWS_AS(DM(5, params({})), UsageError);
  CHECK_THROWS_AS(DM(-1, params({})), UsageError);
  CHECK_THROWS_AS(NoneModel(1, none_params()), UsageError);
  // Requeue budget and process delays start in the initial state.
  const DM r(0, params({}), wl("device requeue=2\nproc a delay=3 reqs=1\n"));
  CHECK(r.requeues_left(r.initial()) == 2);
  CHECK(r.think(r.initial(), 0) == 0);  // no clock: no delay
  Tun c;
  c.clock = 1;
  const DM rc(0, params(c), wl("device requeue=2\nproc a delay=3 reqs=1\n"));
  CHECK(rc.think(rc.initial(), 0) == 3);
}

TEST_CASE(
    "deadline: SUBMIT inserts into sort and fifo lists, at head, or bypasses to hctx->dispatch") {
  const DM m(DeadlineScheduler::V6_18, params({}),
             wl("proc a reqs=3\nproc h head=1 reqs=4\nproc f bypass=1 dir=W reqs=5\n"));
  const auto& t = m.rqs();
  State s = m.initial();
  REQUIRE(enabled(m, s, 0, DM::SUBMIT, 0));
  s = run(m, s, step(0, DM::SUBMIT, 0));
  CHECK(t.status(s, 0) == St::Sched);
  CHECK(t.flag(s, 0, kInserted));
  CHECK(t.age(s, 0) == 0);
  CHECK(m.sched().dd_queued(s, BE) == 1);
  CHECK(m.pc(s, 0) == 1);
  CHECK(m.proc_done(s, 0));
  CHECK_FALSE(enabled(m, s, 0, DM::SUBMIT));
  s = run(m, s, step(1, DM::SUBMIT, 1));
  CHECK(t.status(s, 1) == St::SchedHead);
  CHECK(m.sched().dd_queued(s, BE) == 2);
  s = run(m, s, step(2, DM::SUBMIT, 2));
  CHECK(t.status(s, 2) == St::Hctx);
  CHECK_FALSE(t.flag(s, 2, kInserted));
  CHECK(m.sched().dd_queued(s, BE) == 2);  // bypass: not in the books
  CHECK(m.hctx_head(s) == 2);
  // The request slot must be free: a non-cyclic process never resubmits.
  CHECK_FALSE(m.can_submit(s, 0));
}

TEST_CASE(
    "deadline: sync processes wait for their completion, async ones do not, cyclic ones restart") {
  const DM m(DeadlineScheduler::V6_18, params({}),
             wl("device depth=2\nproc s sync=1 reqs=1,2\nproc a reqs=10,11\nproc c sync=1 cyclic=1 "
                "reqs=20\n"));
  State s = m.initial();
  s = run(m, s, step(0, DM::SUBMIT, 0));
  CHECK_FALSE(m.can_submit(s, 0));  // waits for s.0
  s = run(m, s, step(1, DM::SUBMIT, 2));
  CHECK(m.can_submit(s, 1));  // async: keeps going
  s = run(m, s, step(1, DM::SUBMIT, 3));
  s = run(m, s, step(2, DM::SUBMIT, 4));
  CHECK(m.pc(s, 2) == 0);  // cyclic: back to the first entry
  CHECK_FALSE(m.can_submit(s, 2));
  // Dispatch s.0 (lowest sector from latest_pos 0 after a new batch) and complete it.
  s = run_any(m, s, m.dispatcher(), DM::DISPATCH);
  CHECK(m.rqs().status(s, 0) == St::Driver);
  s = run(m, s, step(m.device(), DM::COMPLETE, 0));
  CHECK(m.rqs().status(s, 0) == St::Done);
  CHECK(m.can_submit(s, 0));
  // The cyclic process's request goes back to idle when it completes.
  const DM cy(DeadlineScheduler::V6_18, params({}), wl("proc c sync=1 cyclic=1 reqs=20\n"));
  State c = run(cy, cy.initial(), step(0, DM::SUBMIT, 0));
  c = run(cy, c, step(cy.dispatcher(), DM::DISPATCH, 0));
  c = run(cy, c, step(cy.device(), DM::COMPLETE, 0));
  CHECK(cy.rqs().status(c, 0) == St::Idle);
  CHECK(cy.can_submit(c, 0));
  CHECK_FALSE(cy.finished(c));  // a cyclic process never finishes
}

TEST_CASE("deadline: DISPATCH issues to the driver, or parks one request on hctx->dispatch") {
  const DM m(DeadlineScheduler::V6_18, params({}), wl(kTwoReaders));
  const auto& t = m.rqs();
  State s = m.initial();
  for (int r = 0; r < 3; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  REQUIRE(enabled(m, s, m.dispatcher(), DM::DISPATCH, 0));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(t.status(s, 0) == St::Driver);
  CHECK(m.free_tags(s) == 0);
  CHECK(m.sched().pos(s, BE, READ) == 5);
  // No tag: the next request is pulled onto hctx->dispatch, once.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  CHECK(t.status(s, 1) == St::Hctx);
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::DISPATCH));
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::ISSUE));
  // With slot=0 blk-mq does not call the scheduler without a free tag.
  const DM m0(DeadlineScheduler::V6_18, params({}), wl("device depth=1 slot=0\nproc a reqs=5,6\n"));
  State z = run_all(m0, m0.initial(), {step(0, DM::SUBMIT, 0), step(0, DM::SUBMIT, 1)});
  z = run(m0, z, step(m0.dispatcher(), DM::DISPATCH, 0));
  CHECK_FALSE(enabled(m0, z, m0.dispatcher(), DM::DISPATCH));
}

TEST_CASE("deadline: ISSUE moves the parked request to the driver when a tag frees") {
  const DM m(DeadlineScheduler::V6_18, params({}), wl(kTwoReaders));
  State s = m.initial();
  for (int r = 0; r < 2; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  s = run(m, s, step(m.device(), DM::COMPLETE, 0));
  REQUIRE(enabled(m, s, m.dispatcher(), DM::ISSUE, 1));
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::DISPATCH));  // hctx->dispatch first
  s = run(m, s, step(m.dispatcher(), DM::ISSUE, 1));
  CHECK(m.rqs().status(s, 1) == St::Driver);
  CHECK(m.hctx_head(s) == -1);
}

TEST_CASE("deadline: COMPLETE in any order among the requests in service") {
  const DM m(DeadlineScheduler::V6_18, params({}),
             wl("device depth=3 spindles=2\nproc a reqs=1,2,3\n"));
  State s = m.initial();
  for (int r = 0; r < 3; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  for (int r = 0; r < 3; ++r) s = run(m, s, step(m.dispatcher(), DM::DISPATCH, r));
  CHECK(m.in_service(s, 0));
  CHECK(m.in_service(s, 1));
  CHECK_FALSE(m.in_service(s, 2));  // two spindles, issued third
  CHECK(enabled(m, s, m.device(), DM::COMPLETE, 0));
  CHECK(enabled(m, s, m.device(), DM::COMPLETE, 1));
  CHECK_FALSE(enabled(m, s, m.device(), DM::COMPLETE, 2));
  s = run(m, s, step(m.device(), DM::COMPLETE, 1));
  CHECK(m.in_service(s, 2));
  CHECK(m.sched().dd_queued(s, BE) == 2);
  CHECK_FALSE(m.rqs().flag(s, 1, kInserted));  // freed
  s = run(m, s, step(m.device(), DM::COMPLETE, 2));
  s = run(m, s, step(m.device(), DM::COMPLETE, 0));
  CHECK(m.finished(s));
  CHECK(successors(m, s).empty());
}

TEST_CASE(
    "deadline: REQUEUE reinserts at head (blk_mq_requeue_request), counted once in 6.1 and 6.18, "
    "twice in 5.14 and 5.16") {
  const char* text = "device depth=1 requeue=1\nproc a reqs=1,2\n";
  for (int v : {DeadlineScheduler::V6_18, DeadlineScheduler::V6_1, DeadlineScheduler::Prio5_14,
                DeadlineScheduler::Prio5_16}) {
    INFO("variant " << v);
    const DM m(v, params({}), wl(text));
    State s = run_all(m, m.initial(), {step(0, DM::SUBMIT, 0), step(0, DM::SUBMIT, 1)});
    s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
    REQUIRE(enabled(m, s, m.device(), DM::REQUEUE, 0));
    s = run(m, s, step(m.device(), DM::REQUEUE, 0));
    CHECK(m.requeues_left(s) == 0);
    CHECK_FALSE(enabled(m, s, m.device(), DM::REQUEUE));
    CHECK(m.rqs().status(s, 0) == St::SchedHead);
    CHECK_FALSE(m.rqs().flag(s, 0, kNoFifoTime));  // a requeued request keeps its first fifo_time
    if (v == DeadlineScheduler::V6_18 || v == DeadlineScheduler::V6_1) {
      CHECK(m.sched().dd_queued(s, BE) == 2);
      CHECK(m.sched().accounting_ok(s));
    } else {
      CHECK(m.sched().dd_queued(s, BE) == 3);
      CHECK_FALSE(m.sched().accounting_ok(s));
      CHECK(m.violates(DM::Conservation, s));
    }
  }
}

TEST_CASE(
    "deadline: TICK ages queued requests, counts down service and think, only when nothing else "
    "can happen") {
  Tun c;
  c.clock = 1;
  const DM m(DeadlineScheduler::V6_18, params(c),
             wl("device depth=1 slot=0 service=2 rotational=1 seek=1\nproc a think=1 "
                "reqs=4,9\ntrack a:1\n"));
  const auto& t = m.rqs();
  State s = m.initial();
  CHECK_FALSE(enabled(m, s, m.clock_actor(), DM::TICK));  // a submission is possible
  s = run(m, s, step(0, DM::SUBMIT, 0));
  CHECK(m.think(s, 0) == 1);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(t.age(s, 0) == 3);  // service 2 + a seek from sector 0 to 4
  CHECK(m.head_pos(s) == 5);
  CHECK_FALSE(enabled(m, s, m.device(), DM::COMPLETE));
  REQUIRE(enabled(m, s, m.clock_actor(), DM::TICK));
  s = run(m, s, step(m.clock_actor(), DM::TICK));
  CHECK(t.age(s, 0) == 2);
  CHECK(m.think(s, 0) == 0);
  s = run(m, s, step(0, DM::SUBMIT, 1));  // a.1 queued, tracked
  CHECK(m.tracked_queued(s));
  s = run(m, s, step(m.clock_actor(), DM::TICK));
  CHECK(t.age(s, 1) == 1);
  CHECK(t.age(s, 0) == 1);
  CHECK(m.wait_ticks(s) == 1);
  s = run(m, s, step(m.clock_actor(), DM::TICK));
  CHECK(t.age(s, 1) == 2);
  CHECK(m.tracked_expired(s));  // read_expire = 2
  REQUIRE(enabled(m, s, m.device(), DM::COMPLETE, 0));
  CHECK_FALSE(enabled(m, s, m.clock_actor(), DM::TICK));
  // Ages saturate at max(read_expire, write_expire, prio_aging_expire).
  CHECK(m.sched().age_cap() == 40);
  State sat = s;
  t.set_age(sat, 1, 40);
  sat = run(m, sat, step(m.device(), DM::COMPLETE, 0));
  REQUIRE(enabled(m, sat, m.dispatcher(), DM::DISPATCH, 1));
  // No clock: no TICK ever.
  const DM m0(DeadlineScheduler::V6_18, params({}), wl("proc a reqs=1\n"));
  CHECK_FALSE(enabled(m0, m0.initial(), m0.clock_actor(), DM::TICK));
}

TEST_CASE(
    "deadline: gate phases: first group dispatched, then the gated submit, then the device thaws") {
  const DM m(DeadlineScheduler::V6_18, params({}),
             wl("device depth=1\nproc b dir=W reqs=200,201\ngate\nproc w dir=W reqs=100\nproc r "
                "stream=2\n"));
  State s = m.initial();
  CHECK(m.gate_phase(s) == 0);
  CHECK_FALSE(m.can_submit(s, 1));
  s = run(m, s, step(0, DM::SUBMIT, 0));
  s = run(m, s, step(0, DM::SUBMIT, 1));
  CHECK(m.gate_phase(s) == 0);  // still in the scheduler
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));  // parked: no tag
  CHECK(m.gate_phase(s) == 1);
  CHECK_FALSE(enabled(m, s, m.device(), DM::COMPLETE));  // frozen
  CHECK(m.can_submit(s, 1));
  s = run_all(m, s, {step(1, DM::SUBMIT, 2), step(2, DM::SUBMIT, 3)});
  CHECK(m.gate_phase(s) == 1);
  s = run(m, s, step(2, DM::SUBMIT, 4));
  CHECK(m.gate_phase(s) == 2);
  CHECK(enabled(m, s, m.device(), DM::COMPLETE, 0));
  // Nothing is dispatched from the scheduler while the park holds hctx->dispatch.
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::DISPATCH));
}

// ------------------------------------------------------------- mq-deadline

TEST_CASE("deadline: a batch continues from latest_pos for fifo_batch requests") {
  Tun t4;
  t4.fb = 2;
  const DM m(DeadlineScheduler::V6_18, params(t4), wl("device depth=4\nproc a reqs=5,1,9,3\n"));
  State s = m.initial();
  for (int r = 0; r < 4; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  // New batch: READ, next at/after latest_pos 0 in sector order: sector 1.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  CHECK(m.sched().last_dir(s) == READ);
  CHECK(m.sched().batching(s) == 1);
  CHECK(m.sched().pos(s, BE, READ) == 1);
  CHECK(m.sched().deadline_next_request(s, BE, READ) == 3);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 3));
  CHECK(m.sched().batching(s) == 2);
  // Batch over (fifo_batch 2): a new batch; nothing expired, next in sector order.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(m.sched().batching(s) == 1);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 2));
  CHECK(m.sched().pos(s, BE, READ) == 9);
  CHECK_FALSE(m.sched().has_work(s));
}

TEST_CASE("deadline: writes_starved decides the direction of a new batch") {
  Tun t;
  t.fb = 1;
  t.ws = 2;
  const DM m(DeadlineScheduler::V6_18, params(t),
             wl("device depth=8\nproc r reqs=1,2,3,4\nproc w dir=W reqs=9\n"));
  const auto& dd = m.sched();
  State s = m.initial();
  for (int r = 0; r < 4; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  s = run(m, s, step(1, DM::SUBMIT, 4));
  // last_dir = WRITE, latest_pos 0: the write is at/after it, batching 0 < 1: it goes first.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 4));
  CHECK(dd.last_dir(s) == WRITE);
  CHECK(dd.starved(s) == 0);
  // With the write left below latest_pos[WRITE], reads starve it twice.
  const DM m2(
      DeadlineScheduler::V6_18, params(t),
      wl("device depth=8\nproc b dir=W reqs=50\ngate\nproc r reqs=1,2,3,4\nproc w dir=W reqs=9\n"
         "track w\n"));
  State g = m2.initial();
  g = run(m2, g, step(0, DM::SUBMIT, 0));
  g = run(m2, g, step(m2.dispatcher(), DM::DISPATCH, 0));
  for (int r = 1; r <= 4; ++r) g = run(m2, g, step(1, DM::SUBMIT, r));
  g = run(m2, g, step(2, DM::SUBMIT, 5));
  g = run(m2, g, step(m2.dispatcher(), DM::DISPATCH, 1));
  CHECK(m2.sched().starved(g) == 1);
  CHECK(m2.sched().last_dir(g) == READ);
  g = run(m2, g, step(m2.dispatcher(), DM::DISPATCH, 2));
  CHECK(m2.sched().starved(g) == 2);
  g = run(m2, g, step(m2.dispatcher(), DM::DISPATCH, 5));  // starved 2 >= 2: WRITE
  CHECK(m2.sched().starved(g) == 0);
  CHECK(m2.sched().last_dir(g) == WRITE);
  CHECK(m2.wait(g) == 2);
}

TEST_CASE("deadline: an expired fifo head starts the batch; expiry is only checked then") {
  Tun t;
  t.fb = 2;
  t.re = 0;  // every read is expired at once
  const DM m(DeadlineScheduler::V6_18, params(t), wl("device depth=8\nproc a reqs=9,1,5\n"));
  State s = m.initial();
  for (int r = 0; r < 3; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  CHECK(m.sched().deadline_check_fifo(s, BE, READ));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));  // fifo head, sector 9
  // The batch continues at/after latest_pos 9: nothing there, so a new batch: fifo head again.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  // Now latest_pos 1: the batch continues to sector 5 although it is expired too.
  CHECK(m.sched().batching(s) == 1);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 2));
  CHECK(m.sched().batching(s) == 2);
}

TEST_CASE(
    "deadline: nothing at/after latest_pos restarts at the fifo head (v6.18) or the lowest sector "
    "(head-request)") {
  Tun t;
  t.fb = 1;
  const char* text = "device depth=8\nproc a reqs=6\ngate\nproc b reqs=5,1\n";
  for (int v : {DeadlineScheduler::V6_18, DeadlineScheduler::HeadRequest}) {
    const DM m(v, params(t), wl(text));
    State s = m.initial();
    s = run(m, s, step(0, DM::SUBMIT, 0));
    s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));  // latest_pos[READ] = 6
    s = run_all(m, s, {step(1, DM::SUBMIT, 1), step(1, DM::SUBMIT, 2)});
    CHECK(m.sched().deadline_next_request(s, BE, READ) == -1);
    CHECK(m.sched().deadline_fifo_request(s, BE, READ) == 1);
    CHECK(m.sched().deadline_head_request(s, BE, READ) == 2);
    const int want = v == DeadlineScheduler::V6_18 ? 1 : 2;
    CHECK(enabled(m, s, m.dispatcher(), DM::DISPATCH, want));
    const std::string d = m.describe(s, step(m.dispatcher(), DM::DISPATCH, want));
    CHECK(d.find(v == DeadlineScheduler::V6_18 ? "fifo head" : "head request") !=
          std::string::npos);
  }
  // An expired head is still taken first by head-request.
  Tun e = t;
  e.re = 0;
  const DM h(DeadlineScheduler::HeadRequest, params(e), wl(text));
  State s = run(h, h.initial(), step(0, DM::SUBMIT, 0));
  s = run(h, s, step(h.dispatcher(), DM::DISPATCH, 0));
  s = run_all(h, s, {step(1, DM::SUBMIT, 1), step(1, DM::SUBMIT, 2)});
  CHECK(enabled(h, s, h.dispatcher(), DM::DISPATCH, 1));
}

TEST_CASE("deadline: the dispatch list is served first, newest first") {
  const DM m(DeadlineScheduler::V6_18, params({}),
             wl("device depth=8\nproc a reqs=1\nproc h head=1 reqs=7,8\n"));
  State s = m.initial();
  s = run_all(m, s, {step(0, DM::SUBMIT, 0), step(1, DM::SUBMIT, 1), step(1, DM::SUBMIT, 2)});
  CHECK(m.sched().dispatch_list_head(s, -1) == 2);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 2));
  CHECK(m.sched().pos(s, BE, READ) == 8);  // dd_start_request
  CHECK(m.sched().batching(s) == 0);       // no batch bookkeeping
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  // The sorted request is left: from latest_pos 7 nothing, so fifo head.
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
}

TEST_CASE(
    "deadline: priority order; dd_queued counts requests in flight; the aged pass needs two "
    "levels") {
  Tun t;
  t.clock = 1;
  t.age = 3;
  const DM m(DeadlineScheduler::V6_18, params(t),
             wl("device depth=2 service=5\nproc rt prio=rt reqs=5\nproc be reqs=1\n"));
  State s = run_all(m, m.initial(), {step(1, DM::SUBMIT, 1), step(0, DM::SUBMIT, 0)});
  // RT first although BE arrived first.
  CHECK(enabled(m, s, m.dispatcher(), DM::DISPATCH, 0));
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::DISPATCH, 1));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  // RT in flight: dd_queued(RT) = 1, BE waits (a free tag notwithstanding).
  CHECK(m.sched().dd_queued(s, RT) == 1);
  CHECK_FALSE(enabled(m, s, m.dispatcher(), DM::DISPATCH, 1));
  // Until the BE request is older than prio_aging_expire: the aged pass takes it.
  for (int k = 0; k < 3; ++k) {
    REQUIRE(enabled(m, s, m.clock_actor(), DM::TICK));
    s = run(m, s, step(m.clock_actor(), DM::TICK));
  }
  CHECK(m.rqs().age(s, 1) == 3);
  CHECK(enabled(m, s, m.dispatcher(), DM::DISPATCH, 1));
  CHECK(m.describe(s, step(m.dispatcher(), DM::DISPATCH, 1)).find("aged pass") !=
        std::string::npos);
  // With a single level the aged pass is skipped (prio_cnt < 2) in 6.18 but not in 5.14.
  const DM one(DeadlineScheduler::V6_18, params(t), wl("proc be reqs=1\n"));
  const DM one14(DeadlineScheduler::Prio5_14, params(t), wl("proc be reqs=1\n"));
  const State a = run(one, one.initial(), step(0, DM::SUBMIT, 0));
  const State b = run(one14, one14.initial(), step(0, DM::SUBMIT, 0));
  CHECK(one.describe(a, step(one.dispatcher(), DM::DISPATCH, 0)).find("aged pass") ==
        std::string::npos);
  CHECK(one14.describe(b, step(one14.dispatcher(), DM::DISPATCH, 0)).find("aged pass") !=
        std::string::npos);
}

TEST_CASE(
    "deadline: with two levels the aged pass's discarded decision starves a write below latest_pos "
    "(v6.18)") {
  // An IDLE read keeps prio_cnt at 2. The aged pass decides WRITE (starved
  // reset, last_dir = WRITE), finds the write too young and returns NULL;
  // the normal pass sees nothing at/after latest_pos[WRITE] and decides
  // READ again. Only prio_aging_expire lets the write through.
  Tun t;
  t.fb = 1;
  t.ws = 1;
  const char* text =
      "device depth=8\nproc b dir=W reqs=50\ngate\nproc i prio=idle reqs=100\nproc r "
      "reqs=1,2,3,4,5,6\n"
      "proc w dir=W reqs=9\ntrack w\n";
  const DM two(DeadlineScheduler::V6_18, params(t), wl(text));
  size_t n = 0;
  CHECK(bfs_max(two, DM::MaxWait, &n) == 6);  // every read first
  const char* one_level =
      "device depth=8\nproc b dir=W reqs=50\ngate\nproc r reqs=1,2,3,4,5,6\nproc w dir=W "
      "reqs=9\ntrack w\n";
  const DM one(DeadlineScheduler::V6_18, params(t), wl(one_level));
  CHECK(bfs_max(one, DM::MaxWait) == 1);  // fifo_batch x writes_starved
}

TEST_CASE("deadline: prio-5.14 keeps next_rq pointers and runs the aged pass on every dispatch") {
  Tun t;
  t.fb = 4;
  const DM m(DeadlineScheduler::Prio5_14, params(t),
             wl("device depth=8\nproc a reqs=5,1,9\nproc w dir=W reqs=3\n"));
  State s = m.initial();
  for (int r = 0; r < 3; ++r) s = run(m, s, step(0, DM::SUBMIT, r));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));  // no next_rq: fifo head (sector 5)
  CHECK(m.sched().pos(s, BE, READ) == 3);                // next_rq = a.2 (sector 9) + 1
  CHECK(m.sched().deadline_next_request(s, BE, READ) == 2);
  s = run(m, s, step(1, DM::SUBMIT, 3));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 2));
  CHECK(m.sched().pos(s, BE, READ) == 0);  // nothing after sector 9
  // A dispatch clears the other direction's pointer.
  CHECK(m.sched().pos(s, BE, WRITE) == 0);
  // The gated setup: the aged pass's WRITE decision is undone by the normal
  // pass (next_rq[WRITE] is NULL), so the write waits for every read.
  Tun g;
  g.fb = 4;
  g.ws = 2;
  const DM gated(DeadlineScheduler::Prio5_14, params(g));
  CHECK(bfs_max(gated, DM::MaxWait) == 48);
}

TEST_CASE(
    "deadline: prio-5.16 leaves fifo_time of at-head requests unset, which blocks their level") {
  const int w = shipped("passthrough-head");
  Tun t;
  t.workload = w;
  const DM m(DeadlineScheduler::Prio5_16, params(t));
  State s = run_all(m, m.initial(), {step(0, DM::SUBMIT, 0), step(1, DM::SUBMIT, 2)});
  CHECK(m.rqs().status(s, 2) == St::SchedHead);
  CHECK(m.rqs().flag(s, 2, kNoFifoTime));
  CHECK(m.sched().started_after(s, 2, 0));
  // dd_dispatch_request returns NULL (BE's dispatch list head "started in the
  // future") and stops at BE (dd_queued(BE) = 2): nothing can move.
  CHECK(successors(m, s).empty());
  CHECK_FALSE(m.finished(s));
  CHECK(verdict(m, DM::Deadlock) == kViolated);
  CHECK(verdict(m, DM::Progress) == kViolated);
  for (int v :
       {DeadlineScheduler::V6_18, DeadlineScheduler::HeadRequest, DeadlineScheduler::Prio5_14}) {
    const DM ok(v, params(t));
    CHECK(verdict(ok, DM::Progress) == kHolds);
    CHECK_FALSE(ok.rqs().flag(run_all(ok, ok.initial(), {step(1, DM::SUBMIT, 2)}), 2, kNoFifoTime));
  }
}

TEST_CASE("deadline: the books per variant: a bypassed flush (5.14) and a requeue (5.14, 5.16)") {
  Tun t;
  t.workload = shipped("bypass-flush-idle");
  for (int v = 0; v < 4; ++v) {
    const DM m(v, params(t));
    State s = run(m, m.initial(), step(0, DM::SUBMIT, 0));  // the flush, onto hctx->dispatch
    s = run(m, s, step(m.dispatcher(), DM::ISSUE, 0));
    s = run(m, s, step(m.device(), DM::COMPLETE, 0));
    CHECK(m.sched().dd_queued(s, BE) == (v == DeadlineScheduler::Prio5_14 ? -1 : 0));
    CHECK(m.rqs().status(s, 0) == St::Done);
    CHECK(m.violates(DM::Conservation, s) == (v == DeadlineScheduler::Prio5_14));
    CHECK(verdict(m, DM::Conservation) == (v == DeadlineScheduler::Prio5_14 ? kViolated : kHolds));
    // The IDLE reader then waits for ever behind the "queued" BE level.
    CHECK(verdict(m, DM::Progress) == (v == DeadlineScheduler::Prio5_14 ? kViolated : kHolds));
  }
  Tun r;
  r.workload = shipped("requeue-idle");
  for (int v = 0; v < 4; ++v) {
    const DM m(v, params(r));
    const bool leaks = v == DeadlineScheduler::Prio5_14 || v == DeadlineScheduler::Prio5_16;
    CHECK(verdict(m, DM::Conservation) == (leaks ? kViolated : kHolds));
    CHECK(verdict(m, DM::Deadlock) == (leaks ? kViolated : kHolds));
  }
  // With time, the leak costs the IDLE request prio_aging_expire ticks instead.
  Tun rc = r;
  rc.clock = 1;
  rc.age = 5;
  const DM leak(DeadlineScheduler::Prio5_16, params(rc));
  CHECK(verdict(leak, DM::Progress) == kHolds);
  CHECK(bfs_max(leak, DM::MaxWaitTicks) >= 5);
}

TEST_CASE("deadline: conservation reads the ghost flag and the books") {
  const DM m(DeadlineScheduler::V6_18, params({}), wl("proc a reqs=1\n"));
  State s = run(m, m.initial(), step(0, DM::SUBMIT, 0));
  CHECK_FALSE(m.violates(DM::Conservation, s));
  State bad = s;
  m.set_ghost_err(bad, DM::kErrNotQueued);
  CHECK(m.violates(DM::Conservation, bad));
  State books = s;
  m.rqs().set_flag(books, 0, kInserted, false);  // outstanding count 0, dd_queued 1
  CHECK(m.violates(DM::Conservation, books));
  for (int p : {DM::Deadlock, DM::Progress, DM::MaxWait, DM::Starvation})
    CHECK_FALSE(m.violates(p, bad));
  const auto& props = m.info().props;
  REQUIRE(props.size() == 9);
  CHECK(props[DM::FairRatio].name == "fair-ratio");
  CHECK(props[DM::FairRatio + 1].name == "same-choice");
  CHECK(props[DM::FairRatio].kind == PropKind::Maximize);
  CHECK(props[DM::Conservation].name == "conservation");
  CHECK(props[DM::MaxWait].name == "max-wait");
  CHECK(props[DM::MaxWait].kind == PropKind::Maximize);
  CHECK(props[DM::MaxWaitTicks].kind == PropKind::Maximize);
  CHECK(props[DM::MaxExpiredWait].name == "max-expired-wait");
  CHECK(props[DM::Starvation].kind == PropKind::Starvation);
  CHECK(props[DM::Progress].kind == PropKind::Progress);
}

TEST_CASE("deadline: measure and pending follow the tracked request") {
  Tun t;
  t.fb = 1;
  const DM m(DeadlineScheduler::V6_18, params(t),
             wl("device depth=8\nproc a reqs=1,2\nproc w dir=W reqs=0\ntrack a:1\n"));
  State s = run_all(m, m.initial(), {step(0, DM::SUBMIT, 0), step(0, DM::SUBMIT, 1)});
  CHECK(m.pending(DM::Starvation, s));
  CHECK_FALSE(m.pending(DM::MaxWait, s));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(m.measure(DM::MaxWait, s) == 1);
  CHECK(m.measure(DM::MaxExpiredWait, s) == 0);
  CHECK(m.measure(DM::Conservation, s) == 0);
  s = run(m, s, step(1, DM::SUBMIT, 2));
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  CHECK_FALSE(m.pending(DM::Starvation, s));
  CHECK(m.measure(DM::MaxWait, s) == 1);  // frozen once dispatched
  // wait_cap saturates the counters.
  Tun c = t;
  c.cap = 1;
  const DM capped(DeadlineScheduler::V6_18, params(c),
                  wl("device depth=8\nproc a reqs=1,2,3\ntrack a:2\n"));
  CHECK(bfs_max(capped, DM::MaxWait) == 1);
  const DM uncapped(DeadlineScheduler::V6_18, params(t),
                    wl("device depth=8\nproc a reqs=1,2,3\ntrack a:2\n"));
  CHECK(bfs_max(uncapped, DM::MaxWait) == 2);
  // No tracked request: nothing measured, nothing pending.
  const DM none(DeadlineScheduler::V6_18, params(t), wl("proc a reqs=1\n"));
  CHECK(none.tracked() == -1);
  CHECK(bfs_max(none, DM::MaxWait) == 0);
}

TEST_CASE("deadline: fair-ratio counts a dispatch only while the other process has one queued") {
  Tun t;
  t.fb = 1;
  t.window = 2;
  const Workload w = wl(
      "device depth=8\nproc a reqs=1,2,3\nproc b dir=W reqs=10:2\nproc c reqs=20\nfair b a\n");
  CHECK(w.fair[0] == 1);
  CHECK(w.fair[1] == 0);
  const DM m(DeadlineScheduler::V6_18, params(t), w);
  // a alone: its dispatch says nothing about fairness.
  State s = run_all(m, m.initial(), {step(0, DM::SUBMIT, 0), step(m.dispatcher(), DM::DISPATCH, 0)});
  CHECK(m.fair_svc(s, 0) == 0);
  CHECK(m.fair_svc(s, 1) == 0);
  // b's 2-sector write queued with a's read: the read wins the new batch
  // (READ is preferred), a gets 1 while b waits; then b gets 2 while a waits.
  s = run_all(m, s, {step(1, DM::SUBMIT, 3), step(0, DM::SUBMIT, 1), step(0, DM::SUBMIT, 2)});
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 1));
  CHECK(m.fair_svc(s, 1) == 1);
  CHECK(m.measure(DM::FairRatio, s) == 0);  // below fair_window
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 2));
  CHECK(m.fair_svc(s, 1) == 2);
  CHECK(m.measure(DM::FairRatio, s) == 200);  // 2 : 0 counts as 2 : 1
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 3));
  CHECK(m.fair_svc(s, 0) == 0);  // nothing of a's left queued: b's write was not contested
  // c is not in the pair: never counted.
  const DM m2(DeadlineScheduler::V6_18, params(t), w);
  State u = run_all(m2, m2.initial(),
                    {step(2, DM::SUBMIT, 4), step(0, DM::SUBMIT, 0), step(m2.dispatcher(), DM::DISPATCH, 0)});
  CHECK(m2.fair_svc(u, 0) + m2.fair_svc(u, 1) == 0);
  u = run(m2, u, step(1, DM::SUBMIT, 3));
  u = run(m2, u, step(m2.dispatcher(), DM::DISPATCH, 4));
  CHECK(m2.fair_svc(u, 0) + m2.fair_svc(u, 1) == 0);
  CHECK(m2.summary(u).find("fair b 0 : a 0 sector(s)") != std::string::npos);
  CHECK(m2.state_json(u)["ghost"]["fair"] == nlohmann::json::array({0, 0}));
  // The explorer's maximum equals a brute-force search's.
  SearchOptions opt;
  opt.progress = false;
  opt.props = {DM::FairRatio};
  const auto r = explore(m, opt);
  CHECK(r.props[0].value == bfs_max(m, DM::FairRatio));
  CHECK(r.props[0].value_exact);
  // Without a fair pair: no ghost bytes, nothing measured.
  const DM plain(DeadlineScheduler::V6_18, params(t), wl("proc a reqs=1,2\nproc b reqs=3\n"));
  CHECK(plain.state_bytes() + 2 == DM(DeadlineScheduler::V6_18, params(t),
                                      wl("proc a reqs=1,2\nproc b reqs=3\nfair a b\n"))
                                       .state_bytes());
  CHECK(bfs_max(plain, DM::FairRatio) == 0);
}

// ------------------------------------------------- the checks of issue 4

TEST_CASE(
    "deadline: gated setup: the write waits fifo_batch x writes_starved reads (the kernel's six "
    "runs)") {
  const int pairs[][2] = {{16, 2}, {1, 2}, {4, 2}, {8, 1}, {4, 3}, {1, 0}};
  for (const auto& fw : pairs) {
    Tun t;
    t.fb = fw[0];
    t.ws = fw[1];
    const DM m(DeadlineScheduler::V6_18, params(t));
    INFO("fifo_batch " << t.fb << " writes_starved " << t.ws);
    CHECK(bfs_max(m, DM::MaxWait) == t.fb * t.ws);
    CHECK(verdict(m, DM::Conservation) == kHolds);
    CHECK(verdict(m, DM::Progress) == kHolds);
  }
}

TEST_CASE(
    "deadline: gated setup: the whole dispatch order is fixed (reads by sector, the write after "
    "32)") {
  // real-devices.md: the 49-request order was identical in 29/30 runs. In
  // the model every reachable state has dispatched a prefix of one order.
  const DM m(DeadlineScheduler::V6_18, params({}));
  const auto& t = m.rqs();
  std::vector<int> order;
  for (int r = 6; r < 6 + 32; ++r) order.push_back(r);  // reader.0 .. reader.31
  order.push_back(5);                                   // writer.0
  for (int r = 6 + 32; r < 6 + 48; ++r) order.push_back(r);
  const auto g = reach(m);
  int complete = 0;
  for (const auto& s : g.states) {
    if (m.gate_phase(s) != 2) continue;
    std::size_t k = 0;
    while (k < order.size() && !t.queued(s, order[k])) ++k;
    for (std::size_t i = k; i < order.size(); ++i) CHECK(t.queued(s, order[i]));
    complete += k == order.size();
  }
  CHECK(complete > 0);
  // With one IDLE read queued as well, the write goes last.
  Tun i;
  i.workload = shipped("gated-write-idle");
  CHECK(bfs_max(DM(DeadlineScheduler::V6_18, params(i)), DM::MaxWait) == 48);
}

TEST_CASE(
    "deadline: a write arriving at any moment of a read stream waits fifo_batch x (writes_starved "
    "+ 1) - 1") {
  // Enough reads for the worst case: fifo_batch x (writes_starved + 1).
  const int pairs[][2] = {{1, 2}, {4, 2}, {2, 1}, {3, 2}, {1, 0}, {4, 0}};
  for (const auto& fw : pairs) {
    Tun t;
    t.fb = fw[0];
    t.ws = fw[1];
    const int n = t.fb * (t.ws + 1);
    const DM m(DeadlineScheduler::V6_18, params(t),
               wl("device depth=1\nproc r stream=" + std::to_string(n) +
                  "\nproc w dir=W reqs=100\ntrack w\n"));
    INFO("fifo_batch " << t.fb << " writes_starved " << t.ws);
    CHECK(bfs_max(m, DM::MaxWait) == t.fb * (t.ws + 1) - 1);
  }
  // The shipped stream-write workload (48 reads) with 1x2: still the formula.
  Tun s;
  s.workload = shipped("stream-write");
  s.fb = 1;
  CHECK(bfs_max(DM(DeadlineScheduler::V6_18, params(s)), DM::MaxWait) == 2);
}

TEST_CASE(
    "deadline: seed 002 regression: head-request lets an old read expire and wait past its "
    "deadline") {
  Tun t;
  t.workload = shipped("seed002-expiry");
  t.clock = 1;
  t.re = 4;
  for (int fb : {1, 16}) {
    t.fb = fb;
    const DM v618(DeadlineScheduler::V6_18, params(t));
    const DM head(DeadlineScheduler::HeadRequest, params(t));
    INFO("fifo_batch " << fb);
    CHECK(bfs_max(v618, DM::MaxWait) == 1);
    CHECK(bfs_max(v618, DM::MaxWaitTicks) == 1);
    CHECK(bfs_max(v618, DM::MaxExpiredWait) == 0);
    CHECK(bfs_max(head, DM::MaxWait) == (fb == 1 ? 4 : 7));
    CHECK(bfs_max(head, DM::MaxWaitTicks) == (fb == 1 ? 4 : 7));
    CHECK(bfs_max(head, DM::MaxExpiredWait) == (fb == 1 ? 0 : 3));
  }
}

TEST_CASE("deadline: starvation: an RT reader starves a BE write without time, aging ends it") {
  Tun t;
  t.workload = shipped("rt-be-cyclic");
  t.cap = 1;
  for (int v = 0; v < 4; ++v) {
    INFO("variant " << v);
    CHECK(fair_pending_cycle(DM(v, params(t)), DM::Starvation));
  }
  Tun c = t;
  c.clock = 1;
  c.age = 4;
  for (int v = 0; v < 4; ++v) {
    INFO("variant " << v);
    CHECK_FALSE(fair_pending_cycle(DM(v, params(c)), DM::Starvation));
  }
  // The BE write's wait in ticks is prio_aging_expire.
  c.cap = 255;
  const DM aged(DeadlineScheduler::V6_18, params(c));
  CHECK(bfs_max(aged, DM::MaxWaitTicks) == 4);
}

TEST_CASE("deadline: explorer verdicts on the shipped workloads") {
  Tun t;
  t.workload = shipped("seed002-readers-writer");
  for (int v = 0; v < 4; ++v) {
    const DM m(v, params(t));
    CHECK(verdict(m, DM::Conservation) == kHolds);
    CHECK(verdict(m, DM::Deadlock) == kHolds);
    CHECK(verdict(m, DM::Progress) == kHolds);
  }
  // Shortest counterexamples (BFS): the unset fifo_time blocks after 2 steps.
  Tun p;
  p.workload = shipped("passthrough-head");
  SearchOptions opt;
  opt.progress = false;
  opt.props = {DM::Deadlock};
  const DM m(DeadlineScheduler::Prio5_16, params(p));
  const auto r = explore(m, opt);
  REQUIRE(r.props[0].trace);
  CHECK(r.props[0].trace->steps.size() == 2);
}

// ------------------------------------------------------------------- none

TEST_CASE("deadline: the none scheduler dispatches in arrival order, at-head requests first") {
  const NoneModel m(0, none_params(),
                    wl("device depth=8\nproc a reqs=9,1\nproc h head=1 reqs=5\n"));
  State s = run_all(m, m.initial(), {step(0, NoneModel::SUBMIT, 0), step(0, NoneModel::SUBMIT, 1)});
  CHECK(enabled(m, s, m.dispatcher(), NoneModel::DISPATCH, 0));
  s = run(m, s, step(1, NoneModel::SUBMIT, 2));
  CHECK(enabled(m, s, m.dispatcher(), NoneModel::DISPATCH, 2));
  s = run(m, s, step(m.dispatcher(), NoneModel::DISPATCH, 2));
  s = run(m, s, step(m.dispatcher(), NoneModel::DISPATCH, 0));
  s = run(m, s, step(m.dispatcher(), NoneModel::DISPATCH, 1));
  CHECK(m.info().name == "none");
  CHECK(m.summary(s).find("none") != std::string::npos);
  const NoneModel gated(0, none_params(0));
  CHECK(bfs_max(gated, NoneModel::MaxWait) == 48);  // every read inserted before the write
  CHECK(verdict(gated, NoneModel::Conservation) == kHolds);
  const NoneModel stream(0, none_params(shipped("passthrough-head")));
  CHECK(verdict(stream, NoneModel::Progress) == kHolds);
}

// ------------------------------------------------ footprints and stories

TEST_CASE("deadline: footprints are conservative") {
  const DM m(DeadlineScheduler::V6_18, params({}), wl("proc a reqs=1\nproc b reqs=2\n"));
  const auto names = m.variable_names();
  // The schema's flat list: 2 requests x 5, 2 processes x 2, device 2,
  // ghost 4, mq-deadline 3 + 3 priorities x 3.
  REQUIRE(names.size() == 2 * 5 + 2 * 2 + 2 + 4 + 3 + 3 * 3);
  CHECK(names[0] == "rq_status[0]");
  CHECK(names[10] == "pc[0]");
  CHECK(names.back() == "latest_pos_write[2]");
  const State s = m.initial();
  const Footprint a = m.footprint(s, step(0, DM::SUBMIT, 0));
  const Footprint b = m.footprint(s, step(1, DM::SUBMIT, 1));
  CHECK(a.writes.test(std::size_t(var_index(m, "rq_status[0]"))));
  CHECK(a.writes.test(std::size_t(var_index(m, "rq_seq[1]"))));  // renumbering
  CHECK(a.writes.test(std::size_t(var_index(m, "pc[0]"))));
  CHECK_FALSE(a.writes.test(std::size_t(var_index(m, "pc[1]"))));
  CHECK_FALSE(a.writes.test(std::size_t(var_index(m, "head"))));
  CHECK(a.writes.test(std::size_t(var_index(m, "last_dir"))));
  CHECK(a.writes.test(std::size_t(var_index(m, "dd_queued[1]"))));
  CHECK_FALSE(a.independent_of(b));  // both insert into the scheduler
  const Footprint d = m.footprint(s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(d.writes.test(std::size_t(var_index(m, "head"))));
  const Footprint tick = m.footprint(s, step(m.clock_actor(), DM::TICK));
  CHECK(tick.writes.test(std::size_t(var_index(m, "think[1]"))));
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(d.reads.test(i));
  // Past Footprint::kMaxVars flat variables (64 requests x 5 alone), every
  // step reads and writes everything: sound, nothing independent.
  std::string big = "proc a reqs=";
  for (int i = 0; i < 60; ++i) {
    if (i) big += ',';
    big += std::to_string(i);
  }
  const DM huge(DeadlineScheduler::V6_18, params({}), wl(big + "\nproc b reqs=1\n"));
  REQUIRE(std::size_t(huge.schema().size()) > Footprint::kMaxVars);
  const Footprint h = huge.footprint(huge.initial(), step(0, DM::SUBMIT, 0));
  CHECK(h.writes.all());
  CHECK(h.reads.all());
}

TEST_CASE("deadline: describe, summary, state_json and actor names") {
  Tun t;
  t.fb = 1;
  const DM m(DeadlineScheduler::V6_18, params(t));  // gated-write
  CHECK(m.actor_name(0) == "blocker");
  CHECK(m.actor_name(1) == "writer");
  CHECK(m.actor_name(m.dispatcher()) == "blk-mq");
  CHECK(m.actor_name(m.device()) == "device");
  CHECK(m.actor_name(m.clock_actor()) == "clock");
  State s = m.initial();
  const std::string sub = m.describe(s, step(0, DM::SUBMIT, 0));
  CHECK(sub.find("blk_mq_submit_bio: blocker.0 (write, sector 200, BE)") != std::string::npos);
  CHECK(sub.find("dd_insert_request") != std::string::npos);
  s = run(m, s, step(0, DM::SUBMIT, 0));
  const std::string dis = m.describe(s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(dis.find("dd_dispatch_request") != std::string::npos);
  CHECK(dis.find("batch continues in WRITE") != std::string::npos);
  CHECK(dis.find("issued to the driver") != std::string::npos);
  s = run(m, s, step(m.dispatcher(), DM::DISPATCH, 0));
  CHECK(m.summary(s).find("driver[blocker.0]") != std::string::npos);
  CHECK(m.summary(s).find("dd last_dir=WRITE batching=1") != std::string::npos);
  const auto j = m.state_json(s);
  CHECK(j["requests"][0] == "blocker.0:driver:0:0:ins");
  CHECK(j["sched"]["last_dir"] == "WRITE");
  CHECK(j["sched"]["BE"]["latest_pos_write"] == 200);
  CHECK(j["procs"][0]["pc"] == 1);
  CHECK(m.info().actions.at(DM::REQUEUE) == "requeue");
  CHECK(m.info().actions.at(DM::TICK) == "tick");
  CHECK(m.describe(s, step(m.device(), DM::COMPLETE, 0)).find("dd_finish_request") !=
        std::string::npos);
  const DM p(DeadlineScheduler::Prio5_14, params(t));
  const State ps = run(p, p.initial(), step(0, DM::SUBMIT, 0));
  CHECK(p.state_json(ps)["sched"]["BE"]["next_rq_read"] == -1);
  CHECK(p.summary(run(p, ps, step(p.dispatcher(), DM::DISPATCH, 0))).find("next_rq") !=
        std::string::npos);
}

TEST_CASE("deadline: same-choice finds where head-request's choice differs from v6.18's") {
  Tun t;
  t.workload = shipped("seed002-expiry");
  t.shadow = DeadlineScheduler::HeadRequest;
  const DM m(DeadlineScheduler::V6_18, params(t));
  const int same = DM::FairRatio + 1;  // the first scheduler-specific property
  CHECK(verdict(m, same) == kViolated);
  // 5.16's choice is 6.18's (blkmc diff proves it for every input).
  t.shadow = DeadlineScheduler::Prio5_16;
  CHECK(verdict(DM(DeadlineScheduler::V6_18, params(t)), same) == kHolds);
  // Without a shadow the property is vacuous and the state has no ghost bit.
  t.shadow = -1;
  const DM off(DeadlineScheduler::V6_18, params(t));
  CHECK(verdict(off, same) == kHolds);
  CHECK_THROWS_AS(off.schema().find("dd_differed"), std::logic_error);
  CHECK(m.schema().var(m.schema().find("dd_differed")).kind == VarKind::Bit);
}

}  // namespace deadline_steps_test
