// Path measures (model/path_measure.hpp, explorer/path_measure.hpp): along
// random walks the scheduler models' counters move as their hooks say; the
// gain analysis on graphs whose answers are known by hand; and the search
// in two passes finds the maximum, its trace and the verdicts of the search
// without it, with fewer states, on any number of threads.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "app/adapter.hpp"
#include "app/instances.hpp"
#include "explorer/path_gains.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/model_cases.hpp"
#include "tests/reduction_checks.hpp"
#include "tests/sched_test_util.hpp"

namespace blkmc::testing {
namespace path_measure_test {

using namespace blkmc::sched;

// Workloads with a tracked request or a fair pair.
const char* const kWorkloads[] = {"fair-read-write", "fair-sync-reader", "stream-write",  "requeue-idle",
                                  "rt-be-cyclic",    "gated-write",      "bfq-reader-writer", "seed002-expiry"};

template <class M>
typename M::State cleared(const M& m, int prop, typename M::State s) {
  switch (prop) {
    case kSchedMaxWait:
      m.set_wait(s, 0);
      break;
    case kSchedMaxWaitTicks:
      m.set_wait_ticks(s, 0);
      break;
    case kSchedMaxExpiredWait:
      m.set_expired_wait(s, 0);
      break;
    default:
      m.set_fair_svc(s, 0, 0);
      m.set_fair_svc(s, 1, 0);
  }
  return s;
}

template <class M>
void random_model(std::optional<M>& m) {
  const ModelInfo& inf = M::static_info();
  Params p = small_params(inf);
  p["workload"] = shipped(*rc::gen::elementOf(std::vector<std::string>(std::begin(kWorkloads), std::end(kWorkloads))));
  p["clock"] = *rc::gen::inRange(0, 2);
  p["wait_cap"] = *rc::gen::element(1, 3, 255);
  try {
    m.emplace(*rc::gen::inRange(0, int(inf.variants.size())), p);
  } catch (const UsageError&) {
  }
}

// The properties the model declares as path measures.
template <class M>
std::vector<int> path_props(const M& m) {
  std::vector<int> out;
  for (int p = 0; p < int(M::static_info().props.size()); ++p)
    if (m.path_measure(p).counters > 0) out.push_back(p);
  return out;
}

// Every step: counters(s') = min(cap, (reset ? 0 : counters(s)) + gain),
// gain and reset read from the same step with the counters cleared, and
// the measure is path_value of the counters and within path_bound.
template <class M>
void counters_move_as_declared() {
  check_property<M>(40, [] {
    std::optional<M> m;
    random_model(m);
    if (!m) RC_DISCARD("variant refuses the parameters");
    const std::vector<int> props = path_props(*m);
    RC_ASSERT(!props.empty());
    typename M::State s = m->initial();
    for (int i = 0; i < 60; ++i) {
      for (int prop : props) {
        const PathMeasure pm = m->path_measure(prop);
        const auto full = successors(*m, s), zero = successors(*m, cleared(*m, prop, s));
        RC_ASSERT(full.size() == zero.size());
        int g[kMaxPathCounters] = {}, gain[kMaxPathCounters] = {}, next[kMaxPathCounters] = {};
        m->path_counters(prop, s, g);
        for (std::size_t j = 0; j < full.size(); ++j) {
          const bool reset = m->path_reset(prop, cleared(*m, prop, s), zero[j].second);
          RC_ASSERT(reset == m->path_reset(prop, s, full[j].second));
          m->path_counters(prop, zero[j].second, gain);
          m->path_counters(prop, full[j].second, next);
          for (int c = 0; c < pm.counters; ++c) RC_ASSERT(next[c] == std::min(pm.cap, (reset ? 0 : g[c]) + gain[c]));
          RC_ASSERT(m->measure(prop, full[j].second) == m->path_value(prop, next));
          int lo[kMaxPathCounters] = {}, hi[kMaxPathCounters] = {};
          for (int c = 0; c < pm.counters; ++c) {
            lo[c] = *rc::gen::inRange(0, next[c] + 1);
            hi[c] = *rc::gen::inRange(next[c], pm.cap + 1);
          }
          RC_ASSERT(m->path_bound(prop, lo, hi) >= m->path_value(prop, next));
        }
      }
      bool stuck = false;
      s = random_step(*m, s, stuck);
      if (stuck) break;
    }
  });
}

TEST_CASE("path measure: the scheduler models' counters move as declared") {
  counters_move_as_declared<DeadlineModel>();
  counters_move_as_declared<BfqModel>();
  counters_move_as_declared<CfqModel>();
  counters_move_as_declared<NoneModel>();
}

// A graph by hand: edges {from, to, gain0, gain1, reset}.
struct E {
  std::uint32_t from, to;
  int a, b;
  bool reset;
};
GainGraph graph(int nodes, int counters, std::vector<E> edges, int cap = 255) {
  GainGraph g;
  g.counters = counters;
  g.cap = cap;
  std::stable_sort(edges.begin(), edges.end(), [](const E& x, const E& y) { return x.from < y.from; });
  std::size_t e = 0;
  for (int u = 0; u < nodes; ++u) {
    for (; e < edges.size() && edges[e].from == std::uint32_t(u); ++e) {
      const int add[2] = {edges[e].a, edges[e].b};
      g.add_edge(edges[e].to, add, edges[e].reset);
    }
    g.end_node();
  }
  return g;
}

TEST_CASE("path measure: gains ahead and reached, on graphs known by hand") {
  const int zero[2] = {0, 0};
  // 0 -> 1 -> 3 adds 2 + 3; 0 -> 2 -> 3 adds 4 + 0; 3 -> 4 adds 1.
  {
    const GainGraph g = graph(5, 1, {{0, 1, 2, 0, false}, {1, 3, 3, 0, false}, {0, 2, 4, 0, false},
                                     {2, 3, 0, 0, false}, {3, 4, 1, 0, false}});
    const GainAnalysis a = analyze_gains(g, zero, {{1, 0}});
    REQUIRE(!a.cyclic_gain);
    CHECK(a.ahead == std::vector<std::uint8_t>{6, 4, 1, 1, 0});
    CHECK(a.reached == std::vector<std::uint8_t>{0, 2, 4, 5, 6});
  }
  // A reset on the way: 0 -> 1 adds 5, 1 -> 2 resets and adds 1, 2 -> 3 adds 1.
  {
    const GainGraph g = graph(4, 1, {{0, 1, 5, 0, false}, {1, 2, 1, 0, true}, {2, 3, 1, 0, false}});
    const GainAnalysis a = analyze_gains(g, zero, {{1, 0}});
    CHECK(a.reached == std::vector<std::uint8_t>{0, 5, 1, 2});
    CHECK(a.ahead == std::vector<std::uint8_t>{5, 0, 1, 0});  // up to the reset
    CHECK(a.resets_ahead == std::vector<std::uint8_t>{1, 1, 0, 0});
    CHECK(a.after_reset == std::vector<std::uint8_t>{2, 2, 0, 0});
  }
  // A cycle through a reset (0 -> 1 -> 2 -> 0) adds nothing past the reset:
  // the bounds stay exact.
  {
    const GainGraph g = graph(3, 1, {{0, 1, 2, 0, false}, {1, 2, 3, 0, false}, {2, 0, 0, 0, true}});
    const GainAnalysis a = analyze_gains(g, zero, {{1, 0}});
    CHECK(!a.cyclic_gain);
    CHECK(a.components == 1);
    CHECK(a.ahead == std::vector<std::uint8_t>{5, 3, 0});
    CHECK(a.after_reset == std::vector<std::uint8_t>{5, 5, 5});
    CHECK(a.reached == std::vector<std::uint8_t>{0, 2, 5});
    const auto bound = [](const int*, const int* hi) { return hi[0]; };
    const int at1[1] = {2};
    CHECK(bound_ahead(a, 1, 1, g.cap, at1, bound) == 5);
  }
  // A cycle that adds nothing (1 <-> 2), one edge out of it adding 3; and
  // the cap.
  {
    const GainGraph g = graph(4, 1, {{0, 1, 2, 0, false}, {1, 2, 0, 0, false}, {2, 1, 0, 0, false}, {2, 3, 3, 0, false}}, 4);
    const GainAnalysis a = analyze_gains(g, zero, {{1, 0}});
    REQUIRE(!a.cyclic_gain);
    CHECK(a.components == 3);
    CHECK(a.ahead == std::vector<std::uint8_t>{4, 3, 3, 0});
    CHECK(a.reached == std::vector<std::uint8_t>{0, 2, 2, 4});
  }
  // A cycle that adds (1 <-> 2, +1 a round): the counter climbs to the cap
  // on it; the edge out resets and adds 2.
  {
    const GainGraph g = graph(4, 1, {{0, 1, 0, 0, false}, {1, 2, 1, 0, false}, {2, 1, 0, 0, false}, {2, 3, 2, 0, true}}, 10);
    const GainAnalysis a = analyze_gains(g, zero, {{1, 0}});
    CHECK(a.cyclic_gain);
    CHECK(a.components == 3);
    CHECK(a.ahead == std::vector<std::uint8_t>{10, 10, 10, 0});
    CHECK(a.after_reset == std::vector<std::uint8_t>{2, 2, 2, 0});
    CHECK(a.reached == std::vector<std::uint8_t>{0, 10, 10, 2});
  }
  // Two counters, the cycle adding to the second only: the first's bound
  // stays exact, and a - b finds the path that leaves at once.
  {
    const GainGraph g = graph(3, 2, {{0, 1, 3, 0, false}, {1, 1, 0, 1, false}, {1, 2, 1, 0, false}}, 255);
    const GainAnalysis a = analyze_gains(g, zero, {{1, -1}, {0, 1}});
    const std::size_t n = 3;
    CHECK(a.cyclic_gain);
    CHECK(a.ahead == std::vector<std::uint8_t>{4, 255, 1, 255, 0, 0});
    CHECK(a.reached[(0 * n + 2) * 2 + 0] == 4);
    CHECK(a.reached[(0 * n + 2) * 2 + 1] == 0);
    CHECK(a.reached[(1 * n + 2) * 2 + 0] == 4);
    CHECK(a.reached[(1 * n + 2) * 2 + 1] == 255);
  }
  // Two counters: the objective a - b prefers 0 -> 1 (3, 0) over 0 -> 2
  // (5, 4); b alone prefers 0 -> 2; both end in 3 via an edge adding (1, 1).
  {
    const GainGraph g =
        graph(4, 2, {{0, 1, 3, 0, false}, {0, 2, 5, 4, false}, {1, 3, 1, 1, false}, {2, 3, 1, 1, false}});
    const GainAnalysis a = analyze_gains(g, zero, {{1, -1}, {0, 1}});
    const std::size_t n = 4;
    CHECK(a.reached[(0 * n + 3) * 2 + 0] == 4);
    CHECK(a.reached[(0 * n + 3) * 2 + 1] == 1);
    CHECK(a.reached[(1 * n + 3) * 2 + 0] == 6);
    CHECK(a.reached[(1 * n + 3) * 2 + 1] == 5);
    CHECK(a.ahead == std::vector<std::uint8_t>{6, 5, 1, 1, 1, 1, 0, 0});
  }
}

// The search with path measures against the search without them, one
// maximize property selected, bounded or not: the same verdict, maximum and exactness, the same
// trace byte for byte breadth-first; the product never stores more than
// the search without the layer; and the same on one thread and two.
template <class M>
void same_as_without() {
  check_property<M>(15, [] {
    std::optional<M> m;
    random_model(m);
    if (!m) RC_DISCARD("variant refuses the parameters");
    const std::vector<int> props = path_props(*m);
    SearchOptions opt;
    opt.progress = false;
    opt.props = {*rc::gen::elementOf(props)};
    // NAME<=K too: the product keeps whatever can rise above K.
    if (*rc::gen::arbitrary<bool>()) opt.bounds = {*rc::gen::inRange(0, 12)};
    opt.limits.max_states = 100'000;
    opt.reduce = ReduceOptions::all();
    opt.reduce.lift = false;
    const auto without = explore(*m, opt);
    if (without.stop != StopReason::Complete) RC_DISCARD("too large");
    opt.reduce.lift = true;
    opt.threads = *rc::gen::inRange(1u, 3u);
    const auto with = explore(*m, opt);
    RC_ASSERT(with.stats.states <= without.stats.states + control_states(with.stats.reduction));
    const auto &a = without.props[0], &b = with.props[0];
    RC_ASSERT(a.verdict == b.verdict);
    RC_ASSERT(a.value == b.value);
    RC_ASSERT(a.value_exact == b.value_exact);
    RC_ASSERT(bool(a.trace) == bool(b.trace));
    if (a.trace) {
      RC_ASSERT(a.trace->states.size() == b.trace->states.size());
      for (std::size_t i = 0; i < a.trace->states.size(); ++i)
        RC_ASSERT(same_bytes(*m, a.trace->states[i], b.trace->states[i]));
    }
    opt.threads = 3 - opt.threads;
    const auto other = explore(*m, opt);
    RC_ASSERT(other.stats.states == with.stats.states);
    RC_ASSERT(other.props[0].value == b.value);
  });
}

TEST_CASE("path measure: the same maximum and trace as the search without it") {
  same_as_without<DeadlineModel>();
  same_as_without<BfqModel>();
  same_as_without<CfqModel>();
  same_as_without<NoneModel>();
}

TEST_CASE("path measure: check names it, also where a cycle adds") {
  const auto model = [](std::optional<DeadlineModel>& m, const std::string& variant, const std::string& wl, int wait_cap) {
    Params p;
    for (const auto& pi : DeadlineModel::static_info().params) p[pi.name] = pi.def;
    p["workload"] = shipped(wl);
    p["wait_cap"] = wait_cap;
    m.emplace(variant_index_of<DeadlineScheduler>(variant), p);
  };
  const auto run = [](const DeadlineModel& m, int prop, bool lift) {
    SearchOptions opt;
    opt.progress = false;
    opt.props = {prop};
    opt.reduce = ReduceOptions::all();
    opt.reduce.lift = lift;
    return explore(m, opt);
  };
  std::optional<DeadlineModel> m;
  model(m, "v6.18", "fair-read-write", 255);
  const auto fair = run(*m, kSchedFairRatio, true);
  CHECK(fair.props[0].value == 800);
  CHECK(fair.stats.reduction.find("path measure (fair-ratio without 2 counter(s)") != std::string::npos);
  // prio-5.16 starves the cyclic workload's tracked reader: a cycle passes
  // it again and again, so its wait climbs to the cap there; the layer
  // still answers, with the plain search's maximum and trace.
  model(m, "prio-5.16", "rt-be-cyclic", 3);
  const auto with = run(*m, kSchedMaxWait, true);
  const auto without = run(*m, kSchedMaxWait, false);
  CHECK(with.props[0].value == 3);
  CHECK(without.props[0].value == 3);
  CHECK(with.stats.reduction.find("cycles that add") != std::string::npos);
  // The cap is both a path's value and the bound: the product stops at
  // its first state.
  CHECK(with.stats.reduction.find("3 (the most it can be: to its first state)") != std::string::npos);
  CHECK(with.stop == StopReason::Complete);
  CHECK(with.props[0].verdict == Verdict::Holds);
  CHECK(with.props[0].value_exact);
  CHECK(!with.props[0].bound);
  REQUIRE(with.props[0].trace);
  REQUIRE(without.props[0].trace);
  REQUIRE(with.props[0].trace->states.size() == without.props[0].trace->states.size());
  for (std::size_t i = 0; i < with.props[0].trace->states.size(); ++i)
    CHECK(same_bytes(*m, with.props[0].trace->states[i], without.props[0].trace->states[i]));
}

// A known maximum whose product stops at a limit first: the path the gain
// pass found answers, exact, with a trace that follows the model to it.
TEST_CASE("path measure: a known maximum past a limit comes with a path to it") {
  Params p;
  for (const auto& pi : DeadlineModel::static_info().params) p[pi.name] = pi.def;
  p["workload"] = shipped("stream-write");
  const DeadlineModel m(variant_index_of<DeadlineScheduler>("v6.18"), p);
  SearchOptions opt;
  opt.progress = false;
  opt.props = {kSchedMaxWait};
  opt.reduce = ReduceOptions::all();
  const auto full = explore(m, opt);
  REQUIRE(full.props[0].value_exact);
  REQUIRE(full.props[0].trace);
  const std::uint64_t control = control_states(full.stats.reduction);
  REQUIRE(control > 0);
  opt.limits.max_states = control + 50;
  const auto cut = explore(m, opt);
  CHECK(cut.stop == StopReason::MaxStates);
  const auto& o = cut.props[0];
  CHECK(o.verdict == Verdict::Holds);
  CHECK(o.value == full.props[0].value);
  CHECK(o.value_exact);
  CHECK(cut.stats.reduction.find("not the shortest") != std::string::npos);
  REQUIRE(o.trace);
  CHECK(o.trace->steps.size() >= full.props[0].trace->steps.size());
  CHECK(m.measure(kSchedMaxWait, o.trace->states.back()) == *o.value);
  // Each step of the trace is one the model takes.
  for (std::size_t i = 0; i < o.trace->steps.size(); ++i) {
    bool found = false;
    m.for_each_successor(o.trace->states[i], [&](const Step&, const DeadlineModel::State& n) {
      found = found || same_bytes(m, n, o.trace->states[i + 1]);
    });
    CHECK(found);
  }
}

// fair-ratio's long-run share (explorer/long_run_share.hpp) on a cyclic
// pair: each side's cycle followed on the model (long_run throws where it
// does not follow), the same on one thread and two, and refused with a
// reason where symmetry renames processes.
// Two cyclic readers, a with two requests and b with one, as the fair pair.
int share_pair() {
  static const int wl = add_workload("share-pair.wl",
                                     "device depth=1 slot=1 spindles=1\n"
                                     "proc a dir=R sync=1 cyclic=1 reqs=0,8\n"
                                     "proc b dir=R sync=1 cyclic=1 reqs=100\n"
                                     "fair a b\n",
                                     "share-pair.wl");
  return wl;
}

// A scheduler model's defaults (mq-deadline's unless named) on workload
// wl, and fair-ratio's search.
template <class Model = DeadlineModel>
Params share_params(int wl) {
  Params p;
  for (const auto& pi : Model::static_info().params) p[pi.name] = pi.def;
  p["workload"] = wl;
  return p;
}
SearchOptions share_search(unsigned threads) {
  SearchOptions opt;
  opt.progress = false;
  opt.props = {kSchedFairRatio};
  opt.reduce = ReduceOptions::all();
  opt.threads = threads;
  return opt;
}

TEST_CASE("path measure: fair-ratio's long-run share on a cyclic pair") {
  const int pair = share_pair();
  const int twins = add_workload("share-twins.wl",
                                 "device depth=1 slot=1 spindles=1\n"
                                 "proc a dir=R sync=1 cyclic=1 reqs=0\n"
                                 "proc b dir=R sync=1 cyclic=1 reqs=100\n"
                                 "proc c dir=R sync=1 cyclic=1 reqs=200\n"
                                 "proc d dir=R sync=1 cyclic=1 reqs=200\n"
                                 "fair a b\n",
                                 "share-twins.wl");
  const auto run = [](int wl, unsigned threads) {
    const DeadlineModel m(variant_index_of<DeadlineScheduler>("v6.18"), share_params(wl));
    return explore(m, share_search(threads));
  };
  const auto one = run(pair, 1), two = run(pair, 2);
  const auto& shares = one.props[0].shares;
  CHECK(one.props[0].shares_note.empty());
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].name == "a");
  CHECK(shares[0].other == "b");
  CHECK(shares[1].name == "b");
  for (const ShareFigure& f : shares) {
    REQUIRE(f.found);
    CHECK(f.theirs > 0);
    CHECK(f.steps > 0);
    // The two are served in turn at best: neither share is above 1 by both sides.
  }
  CHECK(shares[0].mine * shares[1].mine <= shares[0].theirs * shares[1].theirs);
  REQUIRE(two.props[0].shares.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(two.props[0].shares[i].mine == shares[i].mine);
    CHECK(two.props[0].shares[i].theirs == shares[i].theirs);
    CHECK(two.props[0].shares[i].prefix == shares[i].prefix);
    CHECK(two.props[0].shares[i].steps == shares[i].steps);
  }
  const auto sym = run(twins, 1);
  CHECK(sym.props[0].shares.empty());
  CHECK(sym.props[0].shares_note.find("symmetry") != std::string::npos);
}

// Each share's cycle as check writes it (a lasso trace, app/share_replay.hpp):
// it replays through JSON, and a claim the cycle does not give fails.
TEST_CASE("path measure: each long-run share's cycle replays as a lasso") {
  const Params p = share_params(share_pair());
  const DeadlineModel m(variant_index_of<DeadlineScheduler>("v6.18"), p);
  const auto res = explore(m, share_search(1));
  REQUIRE(res.props[0].shares.size() == 2);
  for (const ShareFigure& f : res.props[0].shares) {
    REQUIRE(f.found);
    CHECK(f.path.size() == f.prefix + f.steps);
    const Trace t = trace_from_json(trace_to_json(share_trace(m, "v6.18", p, "fair-ratio", "bfs", f)));
    REQUIRE(t.loop);
    CHECK(*t.loop == int(f.prefix));
    CHECK(t.share.at("of") == f.name);
    const ReplayResult r = replay_in(m, kSchedFairRatio, t);
    CHECK(r.reproduced);
    CHECK(r.verdict_line.find("going round steps") != std::string::npos);
    Trace more = t;
    more.share["mine"] = f.mine + 1;
    const ReplayResult rm = replay_in(m, kSchedFairRatio, more);
    CHECK(!rm.reproduced);
    CHECK(rm.verdict_line.find("not the recorded") != std::string::npos);
    Trace other = t;
    other.share["of"] = "nobody";
    CHECK_THROWS_AS(replay_in(m, kSchedFairRatio, other), TraceMismatch);
    // The share's fields are the format's: a share without its loop, or
    // with no sectors for the other, is malformed.
    nlohmann::json j = trace_to_json(t);
    j.erase("loop");
    CHECK_THROWS_AS(trace_from_json(j), UsageError);
    j = trace_to_json(t);
    j["share"]["theirs"] = 0;
    CHECK_THROWS_AS(trace_from_json(j), UsageError);
    j = trace_to_json(t);
    j["share"].erase("fair_alone");
    CHECK_THROWS_AS(trace_from_json(j), UsageError);
  }
  // A share is fair-ratio's: on another property's trace it is refused.
  Trace wrong = share_trace(m, "v6.18", p, "fair-ratio", "bfs", res.props[0].shares[0]);
  wrong.property = "conservation";
  CHECK_THROWS_AS(replay_in(m, kSchedConservation, wrong), UsageError);
}

// CFQ's share_while_deep: the long-run share over the runs on which the
// first of the fair pair keeps its deep flag. Queue a holds four requests
// (CFQ marks it deep) on a one-request device, b one. The cycle found is
// deep at every state, as the model's own flag says; the share is no lower
// than over every run; the lasso replays only where the model is
// restricted the same way.
TEST_CASE("path measure: a long-run share restricted to CFQ's deep flag") {
  const int wl = add_workload("share-deep.wl",
                              "device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=0\n"
                              "proc b dir=R sync=0 cyclic=1 reqs=0\n"
                              "proc a dir=R sync=0 cyclic=1 reqs=96,112,128,144\n"
                              "fair a b\n",
                              "share-deep.wl");
  const auto params = [&](int deep) {
    Params p = share_params<CfqModel>(wl);
    p["clock"] = 1;
    p["share_while_deep"] = deep;
    return p;
  };
  const int v2 = variant_index_of<CfqScheduler>("deep-fix-v2");
  const CfqModel all(v2, params(0)), deep(v2, params(1));
  CHECK(all.path_measure(kSchedFairRatio).within.empty());
  CHECK(deep.path_measure(kSchedFairRatio).within == "while a keeps its deep flag");
  const auto ra = explore(all, share_search(1)), rd = explore(deep, share_search(1));
  REQUIRE(ra.props[0].shares.size() == 2);
  REQUIRE(rd.props[0].shares.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const ShareFigure &fa = ra.props[0].shares[i], &fd = rd.props[0].shares[i];
    CHECK(fa.within.empty());
    CHECK(fd.within == "while a keeps its deep flag");
    REQUIRE(fa.found);
    REQUIRE(fd.found);
    CHECK(fd.mine * fa.theirs >= fa.mine * fd.theirs);  // fewer runs: a least share no lower
    // Follow the cycle on the model: queue a (process 1) is deep all round.
    CfqModel::State s = deep.initial(), next;
    for (std::size_t k = 0; k < fd.path.size(); ++k) {
      if (k >= fd.prefix) CHECK(deep.sched().qflag(s, 1, CfqScheduler::kDeep));
      REQUIRE(deep.apply(s, fd.path[k], next));
      s = next;
    }
    const Trace t = trace_from_json(trace_to_json(share_trace(deep, "deep-fix-v2", params(1), "fair-ratio", "bfs", fd)));
    CHECK(t.share.at("within") == "while a keeps its deep flag");
    const ReplayResult r = replay_in(deep, kSchedFairRatio, t);
    CHECK(r.reproduced);
    CHECK(r.verdict_line.find(", while a keeps its deep flag at every step of it") != std::string::npos);
    // The same lasso against a model that restricts nothing: a mismatch.
    CHECK_THROWS_AS(replay_in(all, kSchedFairRatio, t), TraceMismatch);
  }
}

// A state limit that stops the control search on two workers mid-level:
// the store may hold successors past the states counted, and the gain pass
// leaves them out, as it does states never stored; the run ends at the
// limit with the value some path reaches.
TEST_CASE("path measure: a state limit on two threads stops cleanly") {
  Params p;
  for (const auto& pi : DeadlineModel::static_info().params) p[pi.name] = pi.def;
  p["workload"] = shipped("stream-write");
  const DeadlineModel m(variant_index_of<DeadlineScheduler>("v6.18"), p);
  for (const std::uint64_t limit : {50u, 5000u, 70000u}) {
    SearchOptions opt;
    opt.progress = false;
    opt.props = {kSchedMaxWait};
    opt.reduce = ReduceOptions::all();
    opt.threads = 2;
    opt.limits.max_states = limit;
    const auto r = explore(m, opt);
    CHECK(r.stop == StopReason::MaxStates);
    CHECK_FALSE(r.props[0].value_exact);
  }
}

}  // namespace path_measure_test
}  // namespace blkmc::testing
