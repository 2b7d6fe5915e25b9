// Unit tests for the CFQ model (model/sched/cfq.*): each decision template
// of cfq_decide.hpp against a plain truth table of the fact sheet's formula
// per version, and each variant's distinguishing behaviour through the
// public step interface (it fails on the other variants), plus explorer
// verdicts on small workloads.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/sched/cfq/cfq_decide.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/model_steps.hpp"
#include "tests/sched_test_util.hpp"

namespace cfq_steps_test {

using namespace blkmc;
using namespace blkmc::sched;
using namespace blkmc::testing;

using CM = CfqModel;
using State = SchedState;
const char* const kVariants[] = {"2.6.33", "seeky-rework", "3.1-rc5", "deep-fix-v1", "deep-fix-v2"};

Params cfq_params(std::vector<std::pair<std::string, int>> over = {}) {
  Params p;
  for (const auto& pi : CM::static_info().params) p[pi.name] = pi.def;
  for (const auto& [k, v] : over) p[k] = v;
  return p;
}

int variant_index(const std::string& name) { return variant_index_of<CfqScheduler>(name); }

// Applies the first enabled step of `actor` with `action` (any arg).
State take(const CM& m, const State& s, int actor, int action) {
  for (const auto& [st, n] : successors(m, s))
    if (st.actor == actor && st.action == action) return n;
  INFO("no step actor=" << actor << " action=" << action << " from " << m.summary(s));
  FAIL("step not enabled");
  return s;
}
bool can(const CM& m, const State& s, int actor, int action) {
  for (const auto& [st, n] : successors(m, s))
    if (st.actor == actor && st.action == action) return true;
  return false;
}

// --- plain truth tables (the fact sheet's formulas, written with if) ---

bool tt_idle_window(bool old_idle, bool task, int slice_idle, bool deep, bool seeky, bool tt_valid,
                    int tt_mean) {
  if (!task || slice_idle == 0 || (!deep && seeky)) return false;
  if (tt_valid) return tt_mean <= slice_idle;
  return old_idle;
}

bool tt_should_idle(bool v31, int slice_idle, bool idle_class, bool iw, bool nonrot, bool hwq,
                    int count, bool sync, bool tt_big) {
  if (v31 && slice_idle == 0) return false;
  if (idle_class) return false;
  if (iw && !(nonrot && hwq)) return true;
  if (count == 1 && sync) {
    if (v31 && tt_big) return false;
    return true;
  }
  return false;
}

TEST_CASE("cfq: decision templates match the fact sheet's formulas") {
  using namespace blkmc::sched::cfq;
  // 2.6.33: seek_mean > thr, only with valid samples.
  for (bool valid : {false, true})
    for (int mean : {0, 8, 9, 200})
      CHECK(seeky_mean_v2633<bool, int>(valid, mean, 8) == (valid && mean > 8));
  // 3.1: non-rot by size, rotational by distance.
  for (bool nonrot : {false, true})
    for (int size : {1, 2, 3})
      for (int dist : {0, 8, 9}) {
        bool want;
        if (nonrot)
          want = size < 2;
        else
          want = dist > 8;
        CHECK(seek_bit_v31<bool, int>(nonrot, size, dist, 2, 8) == want);
      }
  for (int pc = 0; pc <= 8; ++pc) {
    CHECK(seeky_hist_v31<bool, int>(pc, 1) == (pc > 1));
    CHECK(strict_seeky<bool, int>(pc, 8) == (pc == 8));
  }
  // deep: >= 4 queued, and (seed 000) only while not fast.
  for (bool rule : {false, true})
    for (int q = 0; q <= 5; ++q)
      for (bool fast : {false, true}) {
        bool want = q >= 4;
        if (rule && fast) want = false;
        CHECK(marks_deep<bool, int>(rule, q, fast) == want);
      }
  for (int bits = 0; bits < 128; ++bits)
    for (int si : {0, 2})
      for (int mean : {0, 2, 3}) {
        const bool o = bits & 1, task = bits & 2, deep = bits & 4, sk = bits & 8, v = bits & 16;
        CHECK(idle_window_next<bool, int>(o, task, si, deep, sk, v, mean) ==
              tt_idle_window(o, task, si, deep, sk, v, mean));
      }
  for (int bits = 0; bits < 128; ++bits)
    for (int si : {0, 2})
      for (int count : {1, 2}) {
        const bool v31 = bits & 1, ic = bits & 2, iw = bits & 4, nr = bits & 8, hw = bits & 16,
                   sync = bits & 32, big = bits & 64;
        CHECK(should_idle<bool, int>(v31, si, ic, iw, nr, hw, count, sync, big) ==
              tt_should_idle(v31, si, ic, iw, nr, hw, count, sync, big));
      }
  // 3.1 un-deepening: seeky, idle window, more than half the slice left.
  for (int bits = 0; bits < 8; ++bits)
    for (int left : {0, 2, 3})
      for (int el : {0, 2, 3}) {
        const bool sk = bits & 1, iw = bits & 2, sn = bits & 4;
        bool want = false;
        if (sk && iw) want = sn || left > el;
        CHECK(undeepen_v31<bool, int>(sk, iw, sn, left, el) == want);
      }
  // hw_tag: a sample needs > min queued or in driver, not while CFQ limits depth.
  for (int queued = 0; queued <= 6; queued += 3)
    for (int drv = 0; drv <= 6; drv += 3)
      for (bool aiw : {false, true})
        for (int load : {0, 5}) {
          bool want = true;
          if (queued <= 5 && drv <= 5) want = false;
          if (aiw && load < 5 && drv < 5) want = false;
          CHECK(hw_tag_sample<bool, int>(queued, drv, aiw, load, 5) == want);
        }
  CHECK(hw_tag_value<bool, int>(5, 5));
  CHECK_FALSE(hw_tag_value<bool, int>(4, 5));
  // Seed 000 v2: (now - start) / count == 0 in unsigned division.
  for (int el = 0; el <= 9; ++el)
    for (int c = 1; c <= 8; ++c) CHECK(fast_sample<bool, int>(el, c) == (el / c == 0));
  CHECK(device_fast<bool, int>(81, 81));
  CHECK_FALSE(device_fast<bool, int>(80, 81));
}

TEST_CASE("cfq: registered with the issue's variants, every shipped cfq workload fits") {
  const auto& v = CfqScheduler::variants();
  REQUIRE(v.size() == 5);
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(v[i].name == kVariants[i]);
  for (const char* w : {"cfq-aio-disk", "cfq-aio-raid", "cfq-deep-stale", "cfq-fast-stale",
                        "cfq-mmap-disk", "cfq-mmap-raid"})
    for (int var = 0; var < 5; ++var) {
      const CM m(var, cfq_params({{"workload", shipped(w)}, {"clock", 1}}));
      CHECK(m.state_bytes() <= SchedState::capacity);
      const State s = m.initial();
      CHECK(m.sched().hw_tag(s) == -1);
      CHECK(m.sched().accounting_ok(s));
    }
}

// 2.6.33 judges seekiness by the mean distance; the rework by the history
// (one long seek in four requests is not seeky) and, on a non-rotational
// device, by request size.
TEST_CASE("cfq: 2.6.33 seek mean vs seeky-rework seek history") {
  const Workload rot = parse_workload(
      "device depth=4 slot=1 spindles=1 rotational=1\nproc a dir=R sync=0 reqs=0,200,201,202\n",
      "t");
  const Workload ssd = parse_workload(
      "device depth=4 slot=1 spindles=1 rotational=0\nproc a dir=R sync=0 reqs=0,1,2,3\n", "t");
  for (const char* v : kVariants) {
    const int var = variant_index(v);
    const bool hist = var != 0;
    for (int dev = 0; dev < 2; ++dev) {
      const CM m(var, cfq_params(), dev == 0 ? rot : ssd);
      State s = m.initial();
      for (int i = 0; i < 4; ++i) s = take(m, s, 0, CM::SUBMIT);
      INFO(std::string(v) << (dev ? " ssd" : " rot") << ": " << m.summary(s));
      if (dev == 0) {
        // distances 0, 199, 0, 0: mean 46 > 8 (valid after 3 samples); one bit of 4.
        CHECK(m.sched().seeky(s, 0) == !hist);
        if (!hist) CHECK(m.sched().seek_mean(s, 0) == 46);
      } else {
        // contiguous small requests: distance 0; size 1 < CFQQ_SECT_THR_NONROT.
        CHECK(m.sched().seeky(s, 0) == hist);
      }
    }
  }
}

// 3.1-rc5's un-deepening block: a seeky deep queue with an idle window that
// is found empty with more than half its slice left loses deep and
// idle_window; 2.6.33 has no such block, seed 000's patches delete it.
TEST_CASE("cfq: only 3.1-rc5 un-deepens a seeky queue found empty early in its slice") {
  const Workload wl = parse_workload(
      "device depth=4 slot=1 spindles=4 rotational=1 service=1\n"
      "proc a dir=R sync=0 reqs=0,16,32,48\n"
      "proc b dir=R sync=1 delay=1 reqs=100\n",
      "t");
  for (const char* v : kVariants) {
    const int var = variant_index(v);
    // 2.6.33's mean needs 3 valid samples: its threshold is the same here.
    const CM m(var, cfq_params({{"clock", 1}}), wl);
    State s = m.initial();
    for (int i = 0; i < 4; ++i) s = take(m, s, 0, CM::SUBMIT);
    INFO(std::string(v) << ": " << m.summary(s));
    REQUIRE(m.sched().qflag(s, 0, CfqScheduler::kDeep));
    REQUIRE(m.sched().qflag(s, 0, CfqScheduler::kIdleWindow));
    for (int i = 0; i < 4; ++i) s = take(m, s, m.dispatcher(), CM::DISPATCH);
    REQUIRE(m.sched().active(s) == 0);
    s = take(m, s, m.clock_actor(), CM::TICK);  // b's delay passes; a's requests finish
    s = take(m, s, 1, CM::SUBMIT);              // b queues: the dispatcher runs again
    // A NULL dispatch is a step only if it changed CFQ's state.
    if (can(m, s, m.dispatcher(), CM::DISPATCH)) s = take(m, s, m.dispatcher(), CM::DISPATCH);
    INFO("after " << m.summary(s));
    const bool undeepened = var == CfqScheduler::V31rc5;
    CHECK(m.sched().qflag(s, 0, CfqScheduler::kDeep) == !undeepened);
    CHECK(m.sched().qflag(s, 0, CfqScheduler::kIdleWindow) == !undeepened);
  }
}

// Seed 000: v2 divides the batch's drain time by the requests dispatched
// in it; the v1 reconstruction measures one request (count stays 1).
TEST_CASE("cfq: deep-fix-v2 counts the batch, deep-fix-v1 a single request") {
  const Workload wl = parse_workload(
      "device depth=4 slot=1 spindles=4 rotational=1 service=1\n"
      "proc a dir=R sync=0 reqs=0,16,32,48,64\n",
      "t");
  for (const char* v : {"deep-fix-v1", "deep-fix-v2", "3.1-rc5"}) {
    const int var = variant_index(v);
    const CM m(var, cfq_params({{"clock", 1}, {"seek_window", 4}, {"fast_valid", 1}}), wl);
    State s = m.initial();
    for (int i = 0; i < 5; ++i) s = take(m, s, 0, CM::SUBMIT);
    REQUIRE(m.sched().strict_seeky(s, 0));
    while (can(m, s, m.dispatcher(), CM::DISPATCH) || can(m, s, m.dispatcher(), CM::ISSUE) ||
           can(m, s, m.device(), CM::COMPLETE) || can(m, s, m.clock_actor(), CM::TICK)) {
      if (m.finished(s)) break;
      if (can(m, s, m.dispatcher(), CM::DISPATCH))
        s = take(m, s, m.dispatcher(), CM::DISPATCH);
      else if (can(m, s, m.dispatcher(), CM::ISSUE))
        s = take(m, s, m.dispatcher(), CM::ISSUE);
      else if (can(m, s, m.device(), CM::COMPLETE))
        s = take(m, s, m.device(), CM::COMPLETE);
      else
        s = take(m, s, m.clock_actor(), CM::TICK);
    }
    INFO(std::string(v) << ": " << m.summary(s));
    REQUIRE(m.finished(s));
    // 5 requests drained in 2 ticks: 2 / 5 == 0 (fast); one request: 2 / 1 != 0.
    CHECK(m.sched().fast_samples(s) == (var == CfqScheduler::DeepFixV2 ? 1 : 0));
    CHECK(m.sched().device_fast(s) == (var == CfqScheduler::DeepFixV2));
  }
}

// Seed 000 v2: once the device is judged fast, a queue holding 4 requests is
// no longer marked deep (3.1-rc5 marks it).
TEST_CASE("cfq: deep-fix-v2 marks no new deep queue once the device is fast") {
  const int w = shipped("cfq-deep-stale");
  for (const char* v : {"3.1-rc5", "deep-fix-v2"}) {
    const int var = variant_index(v);
    const CM m(var,
               cfq_params({{"workload", w}, {"clock", 1}, {"seek_window", 4}, {"fast_valid", 1}}));
    // One schedule: completions first, then blk-mq, then submissions, then
    // the clock; run until late0 has queued 4 requests.
    State s = m.initial();
    bool seen = false;
    for (int step = 0; step < 2000 && !seen; ++step) {
      const auto succ = successors(m, s);
      REQUIRE(!succ.empty());
      auto rank = [&](const Step& st) {
        if (st.actor == m.device()) return 0;
        if (st.actor == m.dispatcher()) return 1;
        if (st.actor < m.nprocs()) return 2;
        return 3;
      };
      std::size_t best = 0;
      for (std::size_t i = 1; i < succ.size(); ++i)
        if (rank(succ[i].first) < rank(succ[best].first)) best = i;
      s = succ[best].second;
      seen = m.sched().queued(s, 1) >= 4;
    }
    REQUIRE(seen);
    INFO(std::string(v) << ": " << m.summary(s));
    REQUIRE(m.sched().device_fast(s) == (var == CfqScheduler::DeepFixV2));
    CHECK(m.sched().qflag(s, 1, CfqScheduler::kDeep) == (var != CfqScheduler::DeepFixV2));
  }
}

TEST_CASE("cfq: explorer verdicts on small workloads") {
  const Workload wl = parse_workload(
      "device depth=2 slot=1 spindles=1 rotational=1 service=1 seek=2\n"
      "proc r dir=R sync=1 reqs=0,40,80\n"
      "proc w dir=W sync=0 reqs=200,201\n",
      "t");
  for (int var = 0; var < 5; ++var)
    for (int clock : {0, 1}) {
      const CM m(var, cfq_params({{"clock", clock}}), wl);
      for (const char* prop : {"conservation", "deadlock", "progress"}) {
        // Without the clock a pending idle timer fires at the next queue
        // run, so an idling CFQ always resumes.
        const bool holds = true;
        int idx = -1;
        const auto& props = CM::static_info().props;
        for (std::size_t i = 0; i < props.size(); ++i)
          if (props[i].name == prop) idx = static_cast<int>(i);
        SearchOptions opt;
        opt.progress = false;
        opt.props = {idx};
        const auto r = explore(m, opt);
        INFO(std::string(kVariants[var]) << " clock=" << clock << " " << prop);
        REQUIRE(r.stop != StopReason::MaxStates);
        CHECK((r.props[0].verdict == Verdict::Holds) == holds);
      }
    }
  // Seed 004 concern 2: fast samples never expire (deep-fix-v2), shortest trace.
  const CM m(variant_index("deep-fix-v2"), cfq_params({{"workload", shipped("cfq-fast-stale")},
                                                       {"clock", 1},
                                                       {"wait_cap", 1},
                                                       {"seek_window", 4},
                                                       {"fast_valid", 1},
                                                       {"ghost_check", 2},
                                                       {"ghost_ticks", 2}}));
  const auto& all = CM::static_info().props;
  const int stale_fast = CM::FairRatio + 2;
  REQUIRE(all[std::size_t(stale_fast)].name == "stale-fast");
  REQUIRE(all[std::size_t(stale_fast - 1)].name == "stale-deep");
  SearchOptions opt;
  opt.progress = false;
  opt.props = {stale_fast, CM::Conservation};
  const auto r = explore(m, opt);
  CHECK(r.props[0].verdict == Verdict::Violated);
  CHECK(r.props[1].verdict == Verdict::Holds);  // a stale judgement loses no request
}

// cfq_may_dispatch: 2.6.33 (and the seed 001 rework on it) stops a queue at
// cfq_quantum (4) in flight while another queue is busy; 3.1 promotes the
// only busy sync queue past its quantum/2 limit.
TEST_CASE("cfq: 2.6.33-based variants stop at the quantum, 3.1 promotes the sole sync queue") {
  const Workload wl = parse_workload(
      "device depth=8 slot=1 spindles=8 rotational=1 service=1\n"
      "proc r dir=R sync=0 reqs=0,16,32,48,64,80\n"
      "proc w dir=W sync=0 reqs=200\n",
      "t");
  for (const char* v : kVariants) {
    const int var = variant_index(v);
    const CM m(var, cfq_params({{"clock", 1}}), wl);
    State s = m.initial();
    for (int i = 0; i < 6; ++i) s = take(m, s, 0, CM::SUBMIT);
    s = take(m, s, 1, CM::SUBMIT);
    for (int i = 0; i < 4; ++i) s = take(m, s, m.dispatcher(), CM::DISPATCH);
    INFO(std::string(v) << ": " << m.summary(s));
    REQUIRE(m.sched().active(s) == 0);
    REQUIRE(m.sched().dispatched(s, 0) == 4);
    CHECK(can(m, s, m.dispatcher(), CM::DISPATCH) == m.sched().v31());
  }
}

// same-decisions (shadow=V): seed 000's fast_sample class `elapsed >= 1 &
// elapsed < batch` on a concrete run: 5 strictly seeky requests drained in
// 2 ticks are a fast sample for v2 (2 < 5) and not for v1 (2 < 1 fails),
// in either direction; a shadow of the model's own variant never differs.
TEST_CASE("cfq: same-decisions flags seed 000's fast_sample class and nothing for its own variant") {
  const Workload wl = parse_workload(
      "device depth=4 slot=1 spindles=4 rotational=1 service=1\n"
      "proc a dir=R sync=0 reqs=0,16,32,48,64\n",
      "t");
  const int v1 = CfqScheduler::DeepFixV1, v2 = CfqScheduler::DeepFixV2;
  struct Case {
    int var, shadow, expect;
  };
  for (const Case& c : {Case{v2, v1, CfqScheduler::kFastSample},
                        Case{v1, v2, CfqScheduler::kFastSample}, Case{v1, v1, 0}, Case{v2, v2, 0}}) {
    const CM m(c.var,
               cfq_params({{"clock", 1}, {"seek_window", 4}, {"fast_valid", 1}, {"shadow", c.shadow}}),
               wl);
    State s = m.initial();
    for (int i = 0; i < 5; ++i) s = take(m, s, 0, CM::SUBMIT);
    while (!m.finished(s)) {
      if (can(m, s, m.dispatcher(), CM::DISPATCH))
        s = take(m, s, m.dispatcher(), CM::DISPATCH);
      else if (can(m, s, m.dispatcher(), CM::ISSUE))
        s = take(m, s, m.dispatcher(), CM::ISSUE);
      else if (can(m, s, m.device(), CM::COMPLETE))
        s = take(m, s, m.device(), CM::COMPLETE);
      else
        s = take(m, s, m.clock_actor(), CM::TICK);
    }
    INFO(kVariants[c.var] << " shadow " << kVariants[c.shadow] << ": " << m.summary(s));
    // The variant's own behaviour is unchanged by the shadow.
    CHECK(m.sched().fast_samples(s) == (c.var == v2 ? 1 : 0));
    CHECK(m.sched().differed(s) == c.expect);
    CHECK(m.violates(CM::FairRatio + 3, s) == (c.expect != 0));
  }
}

TEST_CASE("cfq: same-decisions in the explorer, and shadow=-1 keeps the state as it was") {
  const auto& props = CM::static_info().props;
  const int same = CM::FairRatio + 3;
  REQUIRE(props[std::size_t(same)].name == "same-decisions");
  const Workload wl = parse_workload(
      "device depth=4 slot=1 spindles=4 rotational=1 service=1\n"
      "proc a dir=R sync=0 reqs=0,16,32,48,64\n",
      "t");
  auto verdict = [&](int var, std::vector<std::pair<std::string, int>> over) {
    over.push_back({"clock", 1});
    over.push_back({"seek_window", 4});
    over.push_back({"fast_valid", 1});
    const CM m(var, cfq_params(over), wl);
    SearchOptions opt;
    opt.progress = false;
    opt.bfs = true;
    opt.props = {same};
    const auto r = explore(m, opt);
    REQUIRE(r.stop != StopReason::MaxStates);
    return r.props[0].verdict;
  };
  const int v1 = CfqScheduler::DeepFixV1, v2 = CfqScheduler::DeepFixV2;
  CHECK(verdict(v2, {{"shadow", v1}}) == Verdict::Violated);
  CHECK(verdict(v2, {{"shadow", v1}, {"shadow_fn", CfqScheduler::kFastSample}}) ==
        Verdict::Violated);
  // v1 and v2 mark deep alike (blkmc diff proves it): only fast_sample differs.
  CHECK(verdict(v2, {{"shadow", v1}, {"shadow_fn", CfqScheduler::kMarkDeep}}) == Verdict::Holds);
  CHECK(verdict(v2, {{"shadow", v2}}) == Verdict::Holds);
  CHECK(verdict(v2, {}) == Verdict::Holds);  // no shadow: vacuous
  for (int var = 0; var < 5; ++var) {
    const CM off(var, cfq_params({{"clock", 1}}), wl);
    CHECK_THROWS_AS(off.schema().find("shadow_differed"), std::logic_error);
    const CM on(var, cfq_params({{"clock", 1}, {"shadow", var == 0 ? 1 : 0}}), wl);
    // The decision byte, and the shadow's seek state where 2.6.33 is one side.
    CHECK(on.schema().find("shadow_differed") >= 0);
    CHECK(on.state_bytes() == off.state_bytes() + 1 + (var == 0 ? 1 : 3));
  }
}

// seed 001: 2.6.33's mean and the rework's history disagree on a queue that
// seeks once in four requests on a disk; the shadow keeps the other seek
// state and flags the seeky decision of cfq_update_idle_window.
TEST_CASE("cfq: same-decisions flags seed 001's seeky difference both ways") {
  const Workload rot = parse_workload(
      "device depth=4 slot=1 spindles=1 rotational=1\nproc a dir=R sync=1 reqs=0,200,201,202\n",
      "t");
  for (const auto& [var, shadow] : {std::pair{0, 1}, std::pair{1, 0}}) {
    const CM m(var, cfq_params({{"shadow", shadow}}), rot);
    State s = m.initial();
    bool done = false;
    for (int step = 0; step < 200 && !done && !m.finished(s); ++step) {
      const auto succ = successors(m, s);
      REQUIRE(!succ.empty());
      s = succ[0].second;
      done = m.sched().differed(s) != 0;
    }
    INFO(kVariants[var] << " shadow " << kVariants[shadow] << ": " << m.summary(s));
    CHECK(m.sched().differed(s) == CfqScheduler::kSeeky);
    CHECK(m.sched().seeky(s, 0) == (var == 0));
    CHECK(m.sched().shadow_seeky(s, 0) == (shadow == 0));
  }
}

}  // namespace cfq_steps_test
