// RapidCheck properties: random walks of TagsModel, traces of random paths,
// and the explorer's state counts against brute-force reachability.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/adapter.hpp"
#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "app/registry.hpp"
#include "model/tags/tags.hpp"

namespace properties_test {

using namespace blkmc;

using TState = TagsModel::State;

struct TagParams {
  int variant, ntags, submitters, rounds, pool;
  Params params() const {
    return {{"ntags", ntags}, {"submitters", submitters}, {"rounds", rounds}, {"pool", pool}};
  }
};

// A uniform value in [lo, hi). rc::gen::inRange scales its range with the
// test's size (size 0 gives only lo), which would bias the walks towards the
// first successor; resizing to the nominal size keeps it uniform.
template <class T>
T pick(T lo, T hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}

// Draws parameters in small ranges (upper bounds inclusive).
TagParams gen_params(int variant, int max_tags, int max_sub, int max_rounds, int max_pool) {
  TagParams p;
  p.variant = variant;
  p.ntags = pick(1, max_tags + 1);
  p.submitters = pick(1, max_sub + 1);
  p.rounds = pick(1, max_rounds + 1);
  p.pool = pick(0, max_pool + 1);
  return p;
}

std::vector<std::pair<Step, TState>> successors(const TagsModel& m, const TState& s) {
  std::vector<std::pair<Step, TState>> out;
  m.for_each_successor(s, [&](const Step& st, const TState& n) { out.emplace_back(st, n); });
  return out;
}

// A random path from the initial state: at most max_len steps, or until no
// step is enabled. Each step is a random choice among the successors; a walk
// may also draw a lazy iterator (it then moves with probability 1/4 or 1/16
// while a submitter can move), so that walks also reach the late races
// (tags freed and allocated again before the walk gets there).
Counterexample<TState> random_path(const TagsModel& m, std::size_t max_len) {
  const int lazy = pick(0, 3);
  Counterexample<TState> cx;
  cx.states.push_back(m.initial());
  while (cx.steps.size() < max_len) {
    const auto succ = successors(m, cx.states.back());
    if (succ.empty()) break;
    std::vector<std::size_t> subs;
    for (std::size_t i = 0; i < succ.size(); ++i)
      if (succ[i].first.actor != m.iterator_actor()) subs.push_back(i);
    std::size_t k;
    if (lazy && !subs.empty() && subs.size() < succ.size() && pick(0, 1 << (2 * lazy)) != 0)
      k = subs[pick<std::size_t>(0, subs.size())];
    else
      k = pick<std::size_t>(0, succ.size());
    cx.steps.push_back(succ[k].first);
    cx.states.push_back(succ[k].second);
  }
  return cx;
}

// Every walk ends: submitters take <= 6 steps per round, the iterator ntags.
std::size_t walk_bound(const TagParams& p) {
  return std::size_t(p.submitters * p.rounds * 6 + p.ntags + 1);
}

bool state_eq(const TagsModel& m, const TState& a, const TState& b) {
  return std::memcmp(a.b.data(), b.b.data(), m.state_bytes()) == 0;
}

// Orders byte strings (all of one length here). std::less on vectors of
// bytes trips a GCC 12 -Wstringop-overread false positive.
struct BytesLess {
  bool operator()(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) const {
    if (a.size() != b.size()) return a.size() < b.size();
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return a[i] < b[i];
    return false;
  }
};

std::size_t brute_force_tags(const TagsModel& m) {
  std::set<std::vector<std::uint8_t>, BytesLess> seen;
  std::deque<TState> queue;
  auto key = [&](const TState& s) {
    return std::vector<std::uint8_t>(s.b.begin(), s.b.begin() + long(m.state_bytes()));
  };
  const TState init = m.initial();
  seen.insert(key(init));
  queue.push_back(init);
  while (!queue.empty()) {
    const TState s = queue.front();
    queue.pop_front();
    m.for_each_successor(s, [&](const Step&, const TState& n) {
      if (seen.insert(key(n)).second) queue.push_back(n);
    });
  }
  return seen.size();
}

SearchOptions quiet(bool bfs) {
  SearchOptions o;
  o.bfs = bfs;
  o.progress = false;
  return o;
}

// A random finite transition system over abstract states 0..n-1 (state byte
// 0), with random successor lists (each edge taken by one of three actors), a
// random 'finished' subset, a random 'bad' subset for an invariant, a random
// measure and a random 'pending' subset.
struct RandomGraph {
  using State = ByteState<1>;
  static constexpr int kActors = 3;
  std::vector<std::vector<int>> succ;
  std::vector<std::vector<int>> actor;  // parallel to succ
  std::vector<bool> fin, bad, pend;
  std::vector<int> meas;
  int init = 0;

  static const ModelInfo& static_info() {
    static const ModelInfo info{
        "random-graph",
        "a random transition system",
        {},
        {{"only", "-", "-", "-"}},
        {{"not-bad", PropKind::Invariant, "no bad state"},
         {"deadlock", PropKind::Deadlock, "no deadlock"},
         {"progress", PropKind::Progress, "a finished node stays reachable"},
         {"max-measure", PropKind::Maximize, "the node's measure"},
         {"starvation", PropKind::Starvation, "no fair pending cycle"}},
        {"go"}};
    return info;
  }
  const ModelInfo& info() const { return static_info(); }
  std::size_t state_bytes() const { return 1; }
  State initial() const {
    State s{};
    s.b[0] = std::uint8_t(init);
    return s;
  }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    const auto& out = succ[s.b[0]];
    for (std::size_t k = 0; k < out.size(); ++k) {
      State n{};
      n.b[0] = std::uint8_t(out[k]);
      emit(Step{std::uint8_t(actor[s.b[0]][k]), 0, std::uint8_t(k)}, n);
    }
  }
  bool apply(const State& s, const Step& st, State& next) const {
    const auto& out = succ[s.b[0]];
    if (st.action != 0 || std::size_t(st.arg) >= out.size() || st.actor != actor[s.b[0]][st.arg])
      return false;
    next = State{};
    next.b[0] = std::uint8_t(out[st.arg]);
    return true;
  }
  bool finished(const State& s) const { return fin[s.b[0]]; }
  bool violates(int prop, const State& s) const { return prop == 0 && bad[s.b[0]]; }
  int measure(int, const State& s) const { return meas[s.b[0]]; }
  bool pending(int, const State& s) const { return pend[s.b[0]]; }
  std::string describe(const State&, const Step& st) const {
    return fmt::format("edge {}", int(st.arg));
  }
  std::string actor_name(int a) const { return fmt::format("walker {}", a); }
  Footprint footprint(const State&, const Step&) const {
    Footprint f;
    f.reads.set(0);
    f.writes.set(0);
    return f;
  }
  nlohmann::json state_json(const State& s) const { return {{"node", s.b[0]}}; }
  std::string summary(const State& s) const { return fmt::format("node {}", s.b[0]); }
};

RandomGraph gen_graph() {
  RandomGraph g;
  const int n = pick(1, 41);
  g.succ.resize(std::size_t(n));
  g.actor.resize(std::size_t(n));
  for (std::size_t u = 0; u < g.succ.size(); ++u) {
    const int deg = pick(0, 5);
    for (int k = 0; k < deg; ++k) {
      g.succ[u].push_back(pick(0, n));
      g.actor[u].push_back(pick(0, RandomGraph::kActors));
    }
  }
  // Mostly pending nodes, so that pending cycles (fair or not) are common.
  for (int i = 0; i < n; ++i) {
    g.fin.push_back(pick(0, 4) == 0);
    g.bad.push_back(pick(0, 8) == 0);
    g.pend.push_back(pick(0, 4) != 0);
    g.meas.push_back(pick(0, 10));
  }
  g.init = pick(0, n);
  return g;
}

// The explorer's state ids under BFS: nodes in order of discovery, each
// node's successors in list order (the store's insertion order).
struct BfsOrder {
  std::vector<int> order;  // id -> node
  std::vector<int> dist;   // node -> depth, -1 when unreachable
};
BfsOrder bfs_order(const RandomGraph& g) {
  BfsOrder b;
  b.dist.assign(g.succ.size(), -1);
  b.dist[std::size_t(g.init)] = 0;
  b.order.push_back(g.init);
  for (std::size_t head = 0; head < b.order.size(); ++head) {
    const int u = b.order[head];
    for (int v : g.succ[std::size_t(u)])
      if (b.dist[std::size_t(v)] < 0) {
        b.dist[std::size_t(v)] = b.dist[std::size_t(u)] + 1;
        b.order.push_back(v);
      }
  }
  return b;
}

// Brute-force starvation: the reachable pending nodes, their transitive
// closure (paths of >= 1 edge among pending nodes), components as mutual
// reachability, and the fairness condition per component. Returns the
// entries (lowest BFS id) of the fair components, in BFS id order.
std::vector<int> brute_fair_entries(const RandomGraph& g, const BfsOrder& b) {
  const std::size_t n = g.succ.size();
  auto in = [&](int v) { return b.dist[std::size_t(v)] >= 0 && g.pend[std::size_t(v)]; };
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::size_t u = 0; u < n; ++u)
    if (in(int(u)))
      for (int v : g.succ[u])
        if (in(v)) reach[u][std::size_t(v)] = true;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      if (reach[i][k])
        for (std::size_t j = 0; j < n; ++j)
          if (reach[k][j]) reach[i][j] = true;
  auto enabled = [&](int u) {
    std::vector<bool> en(RandomGraph::kActors, false);
    for (int a : g.actor[std::size_t(u)]) en[std::size_t(a)] = true;
    return en;
  };
  std::vector<int> entries;
  for (int u : b.order) {  // BFS id order: the first member found is the entry
    if (!in(u) || !reach[std::size_t(u)][std::size_t(u)]) continue;  // trivial
    bool first = true;
    std::vector<int> comp;
    for (int v : b.order)
      if (in(v) && (v == u || (reach[std::size_t(u)][std::size_t(v)] &&
                               reach[std::size_t(v)][std::size_t(u)]))) {
        if (comp.empty() && v != u) first = false;
        comp.push_back(v);
      }
    if (!first) continue;  // u is not the component's entry
    std::vector<bool> all(RandomGraph::kActors, true), moved(RandomGraph::kActors, false);
    for (int v : comp) {
      const auto en = enabled(v);
      for (int a = 0; a < RandomGraph::kActors; ++a)
        all[std::size_t(a)] = all[std::size_t(a)] && en[std::size_t(a)];
      for (std::size_t k = 0; k < g.succ[std::size_t(v)].size(); ++k)
        if (std::find(comp.begin(), comp.end(), g.succ[std::size_t(v)][k]) != comp.end())
          moved[std::size_t(g.actor[std::size_t(v)][k])] = true;
    }
    bool fair = true;
    for (int a = 0; a < RandomGraph::kActors; ++a)
      fair = fair && (!all[std::size_t(a)] || moved[std::size_t(a)]);
    if (fair) entries.push_back(u);
  }
  return entries;
}

template <class R>
const auto& outcome(const R& r, int prop) {
  for (const auto& p : r.props)
    if (p.prop == prop) return p;
  RC_FAIL("property missing from the search result");
  return r.props.front();
}

TEST_CASE("properties: random walks in tag-match never violate its properties") {
  // Ten walks per test case (walks are cheap, and the races need luck).
  CHECK(rc::check("tag-match walks: no NULL deref, fn sees the owner, no deadlock", [] {
    for (int walk = 0; walk < 10; ++walk) {
      const TagParams p = gen_params(TagsModel::TagMatch, 3, 3, 3, 2);
      const TagsModel m(p.variant, p.params());
      const auto cx = random_path(m, walk_bound(p));
      for (const TState& s : cx.states) {
        RC_ASSERT_FALSE(m.violates(TagsModel::NoNullDeref, s));
        RC_ASSERT_FALSE(m.violates(TagsModel::FnSeesOwner, s));
      }
      // The walk ran to the end: no step is enabled, and that is only allowed
      // when everything has finished (no deadlock).
      RC_ASSERT(cx.steps.size() < walk_bound(p));
      RC_ASSERT(successors(m, cx.states.back()).empty());
      RC_ASSERT(m.finished(cx.states.back()));
      // Each submitter ran every round: 5 steps per round plus GET with a pool.
      const std::size_t per_round = p.pool ? 6 : 5;
      RC_ASSERT(cx.steps.size() == std::size_t(p.submitters * p.rounds) * per_round +
                                       std::size_t(p.ntags));
    }
  }));
}

TEST_CASE("properties: random walks in refcount with pool=0 keep fn on the owner") {
  CHECK(rc::check("refcount pool=0 walks: fn sees the owner, no NULL deref", [] {
    for (int walk = 0; walk < 10; ++walk) {
      const TagParams p = gen_params(TagsModel::Refcount, 3, 3, 3, 0);
      const TagsModel m(p.variant, p.params());
      const auto cx = random_path(m, walk_bound(p));
      for (const TState& s : cx.states) {
        RC_ASSERT_FALSE(m.violates(TagsModel::FnSeesOwner, s));
        RC_ASSERT_FALSE(m.violates(TagsModel::NoNullDeref, s));
      }
      RC_ASSERT(m.finished(cx.states.back()));
    }
  }));
}

TEST_CASE("properties: random paths become traces that replay to the same state") {
  CHECK(rc::check("make_trace + replay_in + JSON round trip end in the walk's state", [] {
    const int variant = pick(0, 4);
    const TagParams p = gen_params(variant, 3, 3, 2, 2);
    const TagsModel m(p.variant, p.params());
    const auto& info = m.info();
    const auto max_len = pick<std::size_t>(0, walk_bound(p) + 1);
    const auto cx = random_path(m, max_len);
    const int prop = pick(0, int(info.props.size()));
    const Trace t = make_trace(m, info.variants[std::size_t(p.variant)].name, p.params(),
                               info.props[std::size_t(prop)].name, "dfs", cx);
    RC_ASSERT(t.steps.size() == cx.steps.size());
    const TState& last = cx.states.back();
    const nlohmann::json last_json = m.state_json(last);
    RC_ASSERT((t.steps.empty() ? t.initial : t.steps.back().state) == last_json);

    // Replays without a mismatch, and reproduces exactly when the final state
    // violates the property.
    const bool expect = info.props[std::size_t(prop)].kind == PropKind::Deadlock
                            ? successors(m, last).empty() && !m.finished(last)
                            : m.violates(prop, last);
    const ReplayResult r = replay_in(m, prop, t);
    RC_ASSERT(r.reproduced == expect);
    RC_ASSERT(r.story.size() == 2 * t.steps.size());

    // Re-execute the trace's steps by name: the same final state.
    auto rerun = [&](const Trace& tr) {
      TState s = m.initial(), next{};
      for (const TraceStep& ts : tr.steps) {
        int action = -1;
        for (std::size_t a = 0; a < info.actions.size(); ++a)
          if (info.actions[a] == ts.action) action = int(a);
        RC_ASSERT(action >= 0);
        const Step st{std::uint8_t(ts.actor), std::uint8_t(action), std::uint8_t(ts.arg)};
        RC_ASSERT(m.apply(s, st, next));
        s = next;
      }
      return s;
    };
    const TState end1 = rerun(t);
    RC_ASSERT(state_eq(m, end1, last));
    RC_ASSERT(m.state_json(end1) == last_json);

    // Through JSON and back, and through the registry's handle.
    const Trace t2 = trace_from_json(nlohmann::json::parse(trace_to_json(t).dump()));
    RC_ASSERT(trace_to_json(t2) == trace_to_json(t));
    const TState end2 = rerun(t2);
    RC_ASSERT(m.state_json(end2) == last_json);
    RC_ASSERT(replay_in(m, prop, t2).reproduced == expect);
    RC_ASSERT(find_model("tags").replay(t2).reproduced == expect);
  }));
}

TEST_CASE("properties: explorer matches brute-force reachability on random graphs") {
  CHECK(rc::check("explore() == std::set reachability", [] {
    const RandomGraph g = gen_graph();
    // Brute force: BFS with distances.
    std::map<int, int> dist;
    std::deque<int> queue{g.init};
    dist[g.init] = 0;
    std::uint64_t transitions = 0;
    while (!queue.empty()) {
      const int s = queue.front();
      queue.pop_front();
      transitions += g.succ[std::size_t(s)].size();
      for (int n : g.succ[std::size_t(s)])
        if (dist.emplace(n, dist[s] + 1).second) queue.push_back(n);
    }
    bool deadlock = false;
    int bad_dist = -1;
    for (const auto& [s, d] : dist) {
      if (g.succ[std::size_t(s)].empty() && !g.fin[std::size_t(s)]) deadlock = true;
      if (g.bad[std::size_t(s)] && (bad_dist < 0 || d < bad_dist)) bad_dist = d;
    }
    int max_dist = 0;
    for (const auto& [s, d] : dist) max_dist = std::max(max_dist, d);

    // Full counts: the invariant alone on a copy without bad states never
    // fails, so the search always runs to the end.
    RandomGraph clean = g;
    clean.bad.assign(clean.bad.size(), false);
    for (bool bfs : {true, false}) {
      SearchOptions o = quiet(bfs);
      o.props = {0};
      const auto r = explore(clean, o);
      RC_ASSERT(r.stop == StopReason::Complete);
      RC_ASSERT(r.stats.states == dist.size());
      RC_ASSERT(r.stats.transitions == transitions);
      if (bfs) RC_ASSERT(r.stats.max_depth == std::uint32_t(max_dist));
      RC_ASSERT(r.props[0].verdict == Verdict::Holds);
    }
    // Deadlock alone, in both orders.
    for (bool bfs : {true, false}) {
      SearchOptions o = quiet(bfs);
      o.props = {1};
      const auto r = explore(g, o);
      RC_ASSERT(r.stop == (deadlock ? StopReason::AllViolated : StopReason::Complete));
      RC_ASSERT((r.props[0].verdict == Verdict::Violated) == deadlock);
      if (!deadlock) RC_ASSERT(r.stats.states == dist.size());
    }
    // Both properties: a full count unless both fail.
    const auto r = explore(g, quiet(true));
    const auto& inv = outcome(r, 0);
    const auto& dl = outcome(r, 1);
    RC_ASSERT((inv.verdict == Verdict::Violated) == (bad_dist >= 0));
    RC_ASSERT((dl.verdict == Verdict::Violated) == deadlock);
    if (bad_dist >= 0) {
      RC_ASSERT(inv.trace->steps.size() == std::size_t(bad_dist));  // shortest under BFS
      RC_ASSERT(g.bad[inv.trace->states.back().b[0]]);
    }
    if (deadlock) {
      const int end = dl.trace->states.back().b[0];
      RC_ASSERT(g.succ[std::size_t(end)].empty());
      RC_ASSERT(!g.fin[std::size_t(end)]);
    }
    if (bad_dist < 0 || !deadlock) RC_ASSERT(r.stats.states == dist.size());
    // Both orders give a valid path for each trace.
    for (const auto& po : r.props)
      if (po.trace) {
        const auto& cx = *po.trace;
        RC_ASSERT(cx.states.size() == cx.steps.size() + 1);
        RC_ASSERT(int(cx.states[0].b[0]) == g.init);
        for (std::size_t i = 0; i < cx.steps.size(); ++i) {
          RandomGraph::State n{};
          RC_ASSERT(g.apply(cx.states[i], cx.steps[i], n));
          RC_ASSERT(n.b[0] == cx.states[i + 1].b[0]);
        }
      }
  }));
}

TEST_CASE("properties: progress verdicts and lassos match brute force on random graphs") {
  CHECK(rc::check("progress == some reachable node cannot reach a finished node", [] {
    const RandomGraph g = gen_graph();
    const int n = int(g.succ.size());
    auto reach = [&](int from) {
      std::vector<bool> seen(std::size_t(n), false);
      std::deque<int> q{from};
      seen[std::size_t(from)] = true;
      std::vector<int> dist(std::size_t(n), -1);
      dist[std::size_t(from)] = 0;
      while (!q.empty()) {
        const int s = q.front();
        q.pop_front();
        for (int t : g.succ[std::size_t(s)])
          if (!seen[std::size_t(t)]) {
            seen[std::size_t(t)] = true;
            dist[std::size_t(t)] = dist[std::size_t(s)] + 1;
            q.push_back(t);
          }
      }
      return dist;
    };
    auto stuck = [&](int s) {
      const auto d = reach(s);
      for (int t = 0; t < n; ++t)
        if (d[std::size_t(t)] >= 0 && g.fin[std::size_t(t)]) return false;
      return true;
    };
    const auto from_init = reach(g.init);
    int stuck_dist = -1;
    for (int s = 0; s < n; ++s)
      if (from_init[std::size_t(s)] >= 0 && stuck(s) &&
          (stuck_dist < 0 || from_init[std::size_t(s)] < stuck_dist))
        stuck_dist = from_init[std::size_t(s)];
    for (bool bfs : {true, false}) {
      SearchOptions o = quiet(bfs);
      o.props = {2};
      const auto r = explore(g, o);
      RC_ASSERT(r.stop == StopReason::Complete);
      const auto& po = r.props[0];
      RC_ASSERT((po.verdict == Verdict::Violated) == (stuck_dist >= 0));
      if (stuck_dist < 0) continue;
      const auto& cx = *po.trace;
      RC_ASSERT(cx.loop_start.has_value());
      const std::size_t k = *cx.loop_start;
      RC_ASSERT(k < cx.states.size());
      RC_ASSERT(int(cx.states[0].b[0]) == g.init);
      for (std::size_t i = 0; i < cx.steps.size(); ++i) {
        RandomGraph::State nx{};
        RC_ASSERT(g.apply(cx.states[i], cx.steps[i], nx));
        RC_ASSERT(nx.b[0] == cx.states[i + 1].b[0]);
      }
      RC_ASSERT(stuck(cx.states[k].b[0]));
      // The trace names the first stuck state on its path: the shallowest
      // stuck node under BFS, reached by a shortest path.
      RC_ASSERT(cx.stuck_at.has_value());
      const std::size_t j = *cx.stuck_at;
      RC_ASSERT(j <= k);
      RC_ASSERT(stuck(cx.states[j].b[0]));
      for (std::size_t i = 0; i < j; ++i) RC_ASSERT(!stuck(cx.states[i].b[0]));
      if (bfs) {
        RC_ASSERT(int(j) == stuck_dist);
      }
      if (k + 1 == cx.states.size()) RC_ASSERT(g.succ[cx.states.back().b[0]].empty());
      else RC_ASSERT(cx.states.back().b[0] == cx.states[k].b[0]);
      // Through a trace and replay: reproduced, the loop closes.
      const Trace t = make_trace(g, "only", {}, "progress", bfs ? "bfs" : "dfs", cx);
      const Trace t2 = trace_from_json(nlohmann::json::parse(trace_to_json(t).dump()));
      RC_ASSERT(t2.loop == std::optional<int>(int(k)));
      RC_ASSERT(t2.stuck == std::optional<int>(int(j)));
      RC_ASSERT(replay_in(g, 2, t2).reproduced);
    }
  }));
}

TEST_CASE("properties: TagsModel state counts match brute-force reachability") {
  CHECK(rc::check("explore(TagsModel) == std::set reachability", [] {
    const int variant = pick(0, 4);
    const TagParams p = gen_params(variant, 2, 2, 2, 1);
    const TagsModel m(p.variant, p.params());
    const std::size_t expect = brute_force_tags(m);
    SearchOptions o = quiet(pick(0, 2) == 1);
    o.props = {TagsModel::Deadlock};  // never violated: a full search
    const auto r = explore(m, o);
    RC_ASSERT(r.stop == StopReason::Complete);
    RC_ASSERT(r.stats.states == expect);
    RC_ASSERT(r.props[0].verdict == Verdict::Holds);
  }));
}

TEST_CASE("properties: maximize values and shortest traces match brute force on random graphs") {
  CHECK(rc::check("max-measure == max over reachable nodes; NAME<=K == first node above K", [] {
    const RandomGraph g = gen_graph();
    const BfsOrder b = bfs_order(g);
    int max = -1, first_max = -1;
    for (int u : b.order)
      if (g.meas[std::size_t(u)] > max) {
        max = g.meas[std::size_t(u)];
        first_max = u;
      }
    const int k = pick(0, 11);
    int first_above = -1;
    for (int u : b.order)
      if (first_above < 0 && g.meas[std::size_t(u)] > k) first_above = u;
    auto valid_path = [&](const Counterexample<RandomGraph::State>& cx) {
      RC_ASSERT(cx.states.size() == cx.steps.size() + 1);
      RC_ASSERT(int(cx.states[0].b[0]) == g.init);
      for (std::size_t i = 0; i < cx.steps.size(); ++i) {
        RandomGraph::State nx{};
        RC_ASSERT(g.apply(cx.states[i], cx.steps[i], nx));
        RC_ASSERT(nx.b[0] == cx.states[i + 1].b[0]);
      }
    };
    for (bool bfs : {true, false}) {
      SearchOptions o = quiet(bfs);
      o.props = {3, 3};
      o.bounds = {std::nullopt, k};
      const auto r = explore(g, o);
      RC_ASSERT(r.stop == StopReason::Complete);
      const auto& u = r.props[0];
      RC_ASSERT(u.verdict == Verdict::Holds);
      RC_ASSERT(u.value == std::optional<int>(max));
      RC_ASSERT(u.value_exact);
      RC_ASSERT(u.trace.has_value());
      valid_path(*u.trace);
      const int end = u.trace->states.back().b[0];
      RC_ASSERT(g.meas[std::size_t(end)] == max);
      if (bfs) {
        RC_ASSERT(end == first_max);
        RC_ASSERT(int(u.trace->steps.size()) == b.dist[std::size_t(first_max)]);
      }
      const Trace t =
          make_trace(g, "only", {}, "max-measure", bfs ? "bfs" : "dfs", *u.trace, u.value);
      const Trace t2 = trace_from_json(nlohmann::json::parse(trace_to_json(t).dump()));
      RC_ASSERT(t2.value == std::optional<int>(max));
      RC_ASSERT(replay_in(g, 3, t2).reproduced);

      const auto& bd = r.props[1];
      RC_ASSERT(bd.bound == std::optional<int>(k));
      RC_ASSERT((bd.verdict == Verdict::Violated) == (first_above >= 0));
      if (first_above < 0) {
        RC_ASSERT(bd.verdict == Verdict::Holds);
        RC_ASSERT(bd.value == std::optional<int>(max));
        RC_ASSERT(!bd.trace.has_value());
        continue;
      }
      valid_path(*bd.trace);
      const int last = bd.trace->states.back().b[0];
      RC_ASSERT(g.meas[std::size_t(last)] > k);
      RC_ASSERT(bd.value == std::optional<int>(g.meas[std::size_t(last)]));
      if (bfs) {
        RC_ASSERT(last == first_above);
        RC_ASSERT(int(bd.trace->steps.size()) == b.dist[std::size_t(first_above)]);
      }
      const Trace tb =
          make_trace(g, "only", {}, fmt::format("max-measure<={}", k), "bfs", *bd.trace);
      RC_ASSERT(replay_in(g, 3, trace_from_json(nlohmann::json::parse(trace_to_json(tb).dump())))
                    .reproduced);
      // The same path under the bound max does not reproduce.
      const Trace tm =
          make_trace(g, "only", {}, fmt::format("max-measure<={}", max), "bfs", *bd.trace);
      RC_ASSERT(!replay_in(g, 3, tm).reproduced);
    }
  }));
}

TEST_CASE("properties: starvation verdicts and fair lassos match brute force on random graphs") {
  CHECK(rc::check("starvation == some reachable pending component is weakly fair", [] {
    const RandomGraph g = gen_graph();
    const BfsOrder b = bfs_order(g);
    const std::vector<int> entries = brute_fair_entries(g, b);
    RC_TAG(entries.empty() ? "holds" : "violated");
    for (bool bfs : {true, false}) {
      SearchOptions o = quiet(bfs);
      o.props = {4};
      const auto r = explore(g, o);
      RC_ASSERT(r.stop == StopReason::Complete);
      const auto& po = r.props[0];
      RC_ASSERT((po.verdict == Verdict::Violated) == !entries.empty());
      if (entries.empty()) {
        RC_ASSERT(po.verdict == Verdict::Holds);
        continue;
      }
      const auto& cx = *po.trace;
      RC_ASSERT(cx.states.size() == cx.steps.size() + 1);
      RC_ASSERT(int(cx.states[0].b[0]) == g.init);
      for (std::size_t i = 0; i < cx.steps.size(); ++i) {
        RandomGraph::State nx{};
        RC_ASSERT(g.apply(cx.states[i], cx.steps[i], nx));
        RC_ASSERT(nx.b[0] == cx.states[i + 1].b[0]);
      }
      RC_ASSERT(cx.loop_start.has_value() && cx.stuck_at.has_value());
      const std::size_t k = *cx.loop_start, j = *cx.stuck_at, n = cx.steps.size();
      RC_ASSERT(j <= k);
      RC_ASSERT(k < n);
      RC_ASSERT(cx.states[k].b[0] == cx.states[n].b[0]);
      for (std::size_t i = j; i <= n; ++i) RC_ASSERT(g.pend[cx.states[i].b[0]]);
      // (Not RC_ASSERT(j == 0 || ...): its operands are captured, so both sides
      // would be evaluated.)
      if (j > 0) RC_ASSERT(!g.pend[cx.states[j - 1].b[0]]);
      // Weak fairness along the loop.
      for (int a = 0; a < RandomGraph::kActors; ++a) {
        bool always = true, steps = false;
        for (std::size_t i = k; i < n; ++i) {
          const auto& acts = g.actor[cx.states[i].b[0]];
          always = always && std::find(acts.begin(), acts.end(), a) != acts.end();
          steps = steps || cx.steps[i].actor == a;
        }
        RC_ASSERT(!always || steps);
      }
      if (bfs) {
        RC_ASSERT(int(cx.states[k].b[0]) == entries.front());
        RC_ASSERT(int(k) == b.dist[std::size_t(entries.front())]);
      }
      const Trace t = make_trace(g, "only", {}, "starvation", bfs ? "bfs" : "dfs", cx);
      const Trace t2 = trace_from_json(nlohmann::json::parse(trace_to_json(t).dump()));
      RC_ASSERT(t2.loop == std::optional<int>(int(k)));
      RC_ASSERT(t2.stuck == std::optional<int>(int(j)));
      RC_ASSERT(replay_in(g, 4, t2).reproduced);
    }
  }));
}

// kind_info() is what the reductions, replay and the pages go by: each row
// must say what the kind's check does.
TEST_CASE("properties: each kind's row in kind_info says what its check does") {
  RandomGraph g;
  g.succ = {{0}};
  g.actor = {{0}};
  g.fin = {true};
  g.bad = {false};
  g.pend = {false};
  g.meas = {0};
  const auto& props = g.info().props;
  for (std::size_t p = 0; p < props.size(); ++p) {
    const PropKindInfo& k = kind_info(props[p].kind);
    CAPTURE(k.name);
    CHECK(to_string(props[p].kind) == k.name);
    SearchOptions opt;
    opt.props = {int(p)};
    CHECK(PropertyChecks<RandomGraph>(g, opt).wants_edges() == k.on_graph);
    opt.bounds = {3};
    if (k.measured) CHECK_NOTHROW(PropertyChecks<RandomGraph>(g, opt));
    else CHECK_THROWS_AS(PropertyChecks<RandomGraph>(g, opt), UsageError);
    const ModelInfo& info = g.info();
    if (k.measured) CHECK(parse_prop_spec(info, props[p].name + "<=3").bound == 3);
    else CHECK_THROWS_AS(parse_prop_spec(info, props[p].name + "<=3"), UsageError);
  }
}

}  // namespace properties_test
