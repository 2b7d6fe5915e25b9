// blkmc prove: the symbolic semantics of the tags model (the templates of
// model/tags/tags_logic.hpp on z3::expr) against the explorer's (the same
// templates on the ByteState), and k-induction's verdicts against explore().
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>

#include "app/instances.hpp"
#include "cli/prove.hpp"
#include "app/registry.hpp"
#include "model/tags/tags.hpp"
#include "model/inflight/inflight.hpp"
#include "model/inflight/inflight_symbolic.hpp"
#include "model/tags/tags_symbolic.hpp"

namespace prove_test {

using namespace blkmc;

using State = TagsModel::State;

Params tags_params(int ntags, int nsub, int rounds, int pool) {
  return {{"ntags", ntags}, {"submitters", nsub}, {"rounds", rounds}, {"pool", pool}};
}

// A reachable state: a random walk of up to `steps` steps.
State random_walk(const TagsModel& m, int steps, std::mt19937& rng) {
  State s = m.initial();
  for (int i = 0; i < steps; ++i) {
    std::vector<State> next;
    m.for_each_successor(s, [&](const Step&, const State& n) { next.push_back(n); });
    if (next.empty()) break;
    s = next[std::uniform_int_distribution<std::size_t>(0, next.size() - 1)(rng)];
  }
  return s;
}

Frame fresh_frame(z3::context& c, const TransitionSystem& ts, const std::string& tag) {
  Frame f;
  for (const auto& v : ts.vars) {
    const std::string n = v.name + tag;
    f.push_back(v.is_bool        ? c.bool_const(n.c_str())
                : ts.bv_width ? c.bv_const(n.c_str(), unsigned(ts.bv_width))
                               : c.int_const(n.c_str()));
  }
  return f;
}

z3::expr fix(const TransitionSystem& ts, const Frame& f, const std::vector<int>& v) {
  z3::expr_vector e(f[0].ctx());
  for (std::size_t i = 0; i < f.size(); ++i)
    e.push_back(ts.vars[i].is_bool ? (v[i] ? f[i] : !f[i]) : f[i] == v[i]);
  return z3::mk_and(e);
}

int value(const z3::expr& v) {
  if (v.is_bool()) return v.is_true() ? 1 : 0;
  if (!v.is_bv()) return v.get_numeral_int();
  const unsigned w = v.get_sort().bv_size();
  const auto u = static_cast<long long>(v.get_numeral_uint64());
  return static_cast<int>(u >= (1LL << (w - 1)) ? u - (1LL << w) : u);
}

std::string key(const TagsModel& m, const State& s) {
  return std::string(reinterpret_cast<const char*>(s.b.data()), m.state_bytes());
}

// The state as numerals: formulas over it simplify to true or false.
Frame numerals(z3::context& c, const TransitionSystem& ts, const std::vector<int>& v) {
  Frame f;
  for (std::size_t i = 0; i < v.size(); ++i)
    f.push_back(ts.vars[i].is_bool ? c.bool_val(v[i] != 0)
                : ts.bv_width       ? c.bv_val(v[i], unsigned(ts.bv_width))
                                    : c.int_val(v[i]));
  return f;
}

// Every s' with trans(s, act, s'), by enumeration.
std::set<std::string> symbolic_successors(z3::context& c, const TagsModel& m,
                                          const TransitionSystem& ts, const State& s) {
  const Frame s0 = numerals(c, ts, tags::frame_values(m, s)), s1 = fresh_frame(c, ts, "@1");
  z3::solver sol(c);
  sol.add(ts.trans(s0, c.bv_const("act", 32), s1));
  std::set<std::string> out;
  while (sol.check() == z3::sat) {
    const z3::model mod = sol.get_model();
    std::vector<int> v;
    for (const auto& e : s1) v.push_back(value(mod.eval(e, true)));
    const auto cs = tags::concrete_state(m, v);
    REQUIRE(cs.has_value());
    out.insert(key(m, *cs));
    sol.add(!fix(ts, s1, v));
    REQUIRE(out.size() < 1000);
  }
  return out;
}

bool holds_at(z3::context& c, const TransitionSystem& ts,
              const std::function<z3::expr(const Frame&)>& f, const TagsModel& m, const State& s) {
  const z3::expr e = f(numerals(c, ts, tags::frame_values(m, s))).simplify();
  REQUIRE((e.is_true() || e.is_false()));
  return e.is_true();
}

TEST_CASE("prove: symbolic trans(s, s') equals the explorer's successors (RapidCheck)") {
  const bool ok = rc::check("tags: z3 successors == for_each_successor", [] {
    const int variant = *rc::gen::inRange(0, 4);
    const int ntags = *rc::gen::inRange(1, 4), nsub = *rc::gen::inRange(1, 4);
    const int rounds = *rc::gen::inRange(1, 3), pool = *rc::gen::inRange(0, 3);
    const int steps = *rc::gen::inRange(0, 16);
    const auto seed = *rc::gen::arbitrary<unsigned>();
    const TagsModel m(variant, tags_params(ntags, nsub, rounds, pool));
    std::mt19937 rng(seed);
    const State s = random_walk(m, steps, rng);
    std::set<std::string> concrete;
    m.for_each_successor(s, [&](const Step&, const State& n) { concrete.insert(key(m, n)); });
    z3::context c;
    for (int prop = 0; prop < TagsModel::Deadlock; ++prop) {
      const TransitionSystem ts = tags::transition_system(m.config(), prop);
      if (prop == 0) RC_ASSERT(symbolic_successors(c, m, ts, s) == concrete);
      // The symbolic property agrees with violates(); every lemma holds in
      // the reachable state (where it is meant to).
      RC_ASSERT(holds_at(c, ts, ts.prop.holds, m, s) == !m.violates(prop, s));
      // walk-count is an invariant with one round only (tags_logic.hpp); with
      // more, prove tries it and reports it NOT proved, never assumed.
      for (const auto& l : ts.lemmas)
        if (l.name != "walk-count" || rounds == 1) RC_ASSERT(holds_at(c, ts, l.holds, m, s));
    }
  });
  CHECK(ok);
}

TEST_CASE("prove: init is the explorer's initial state, and only it") {
  const TagsModel m(TagsModel::Refcount, tags_params(3, 2, 2, 2));
  const TransitionSystem ts = tags::transition_system(m.config(), TagsModel::FnSeesOwner);
  z3::context c;
  const Frame f = fresh_frame(c, ts, "");
  z3::solver sol(c);
  sol.add(ts.init(f));
  REQUIRE(sol.check() == z3::sat);
  std::vector<int> v;
  for (const auto& e : f) v.push_back(value(sol.get_model().eval(e, true)));
  CHECK(key(m, *tags::concrete_state(m, v)) == key(m, m.initial()));
  sol.add(!fix(ts, f, v));
  CHECK(sol.check() == z3::unsat);
}

TEST_CASE("prove: verdicts agree with explore() on small parameters") {
  const ModelHandle& mh = find_model("tags");
  struct Case {
    int ntags, nsub, rounds, pool;
  };
  // (Pool rows, where refcount's stale-slot bug needs 10 steps, are in the
  // suite: model/tags/tags.suite's proofs section.)
  for (const Case cs : {Case{2, 2, 1, 0}}) {
    const Params p = tags_params(cs.ntags, cs.nsub, cs.rounds, cs.pool);
    for (const auto& v : mh.info().variants)
      for (const auto& pr : mh.info().props) {
        if (pr.kind != PropKind::Invariant) continue;
        CAPTURE(v.name);
        CAPTURE(pr.name);
        CAPTURE(params_string(p));
        SearchOptions opt;
        opt.bfs = true;
        opt.progress = false;
        const CheckOutcome o = mh.check(v.name, p, {pr.name}, opt);
        ProveRequest req;
        req.model = "tags";
        req.variant = v.name;
        for (const auto& [k, x] : p) req.params.push_back(fmt::format("{}={}", k, x));
        req.props = {pr.name};
        req.k_max = 8;
        const auto r = prove(req).at(0).result.prop;
        if (o.props[0].verdict == Verdict::Holds) {
          CHECK(r.verdict == ProofVerdict::Proved);
        } else {
          REQUIRE(o.props[0].verdict == Verdict::Violated);
          CHECK(r.verdict == ProofVerdict::Violated);
          // BMC deepens one step at a time: its path is a shortest one.
          CHECK(r.k == static_cast<int>(o.props[0].trace->steps.size()));
        }
      }
  }
}

TEST_CASE("prove: v4.11's NULL dereference comes back violated, and its trace replays") {
  const std::string path = "prove_test_v4.11.json";
  ProveRequest req;
  req.model = "tags";
  req.variant = "v4.11";
  req.props = {"no-null-deref"};
  req.trace_out = path;
  const auto v = prove(req);
  REQUIRE(v.size() == 1);
  CHECK(v[0].result.prop.verdict == ProofVerdict::Violated);
  CHECK(v[0].result.prop.k == 2);
  CHECK(prove_exit_code(v) == 1);
  const Trace t = read_trace_file(path);
  CHECK(t.steps.size() == 2);
  CHECK(find_model("tags").replay(t).reproduced);
  std::remove(path.c_str());
}

TEST_CASE("prove: big parameters, and a proof without lemmas shows its CTI") {
  ProveRequest req;
  req.model = "tags";
  req.variant = "tag-match";
  req.params = {"ntags=64", "submitters=4"};
  req.props = {"no-null-deref"};
  auto v = prove(req);
  CHECK(v[0].result.prop.verdict == ProofVerdict::Proved);
  CHECK(v[0].result.prop.k == 1);
  CHECK(v[0].result.lemmas.empty());  // plain induction suffices
  // fn-sees-owner needs the lemmas: without them, a CTI the explorer
  // cannot reach.
  req.params = {"ntags=2", "submitters=2"};
  req.props = {"fn-sees-owner"};
  req.lemmas = false;
  req.k_max = 2;
  v = prove(req);
  CHECK(v[0].result.prop.verdict == ProofVerdict::Incomplete);
  CHECK(v[0].result.prop.states.size() == 3);
  REQUIRE(v[0].cti_reachable.has_value());
  CHECK_FALSE(*v[0].cti_reachable);
  CHECK(prove_exit_code(v) == 3);
  req.lemmas = true;
  v = prove(req);
  CHECK(v[0].result.prop.verdict == ProofVerdict::Proved);
  for (const auto& l : v[0].result.lemmas) CHECK(l.verdict == ProofVerdict::Proved);
}

TEST_CASE("prove: a lemma that is false is reported and not assumed") {
  // walk-count holds with one round only; with two it fails, and so does
  // the property (a real path).
  ProveRequest req;
  req.model = "tags";
  req.variant = "tag-match";
  req.params = {"ntags=2", "submitters=1", "rounds=2"};
  req.props = {"walk-count-bounded"};
  const auto v = prove(req);
  // The walk-count lemma is reported false, with its own short path...
  const auto& lemmas = v[0].result.lemmas;
  const auto wc = std::find_if(lemmas.begin(), lemmas.end(),
                               [](const TargetResult& l) { return l.name == "walk-count"; });
  REQUIRE(wc != lemmas.end());
  CHECK(wc->verdict == ProofVerdict::Violated);
  CHECK(wc->k < v[0].result.prop.k);
  // ...the lemmas before it are proved...
  for (auto l = lemmas.begin(); l != wc; ++l) CHECK(l->verdict == ProofVerdict::Proved);
  // ...and it is not assumed: assumed, it would let the step case prove the
  // property at a small k; instead the property is violated by a real path
  // longer than the lemma's.
  CHECK(v[0].result.prop.verdict == ProofVerdict::Violated);
  CHECK(v[0].result.prop.k == 10);
}

TEST_CASE("prove: bad input is a usage error") {
  auto bad = [](ProveRequest r) { CHECK_THROWS_AS(prove(r), UsageError); };
  ProveRequest ok;
  ok.model = "tags";
  ok.variant = "refcount";
  ProveRequest r = ok;
  r.model = "deadline";
  bad(r);
  r = ok;
  r.variant = "v9";
  bad(r);
  r = ok;
  r.params = {"ntags=2048"};
  bad(r);
  r = ok;
  r.params = {"frobs=1"};
  bad(r);
  r = ok;
  r.k_max = 1000;
  bad(r);
  r = ok;
  r.props = {"deadlock"};
  bad(r);
}

TEST_CASE("prove: inflight symbolic trans(s, s') equals the explorer's successors (RapidCheck)") {
  const bool ok = rc::check("inflight: z3 successors == for_each_successor", [] {
    using IM = InflightModel;
    const int variant = *rc::gen::inRange(0, IM::Be835694 + 1);
    const int parts = *rc::gen::inRange(1, 3), nsub = *rc::gen::inRange(1, 4);
    const int rounds = *rc::gen::inRange(1, 3), reads = *rc::gen::inRange(1, 3);
    const int target = *rc::gen::inRange(-1, parts + 1), whole = *rc::gen::inRange(0, 2);
    const int cpus = *rc::gen::inRange(1, 3), steps = *rc::gen::inRange(0, 16);
    const auto seed = *rc::gen::arbitrary<unsigned>();
    const IM m(variant, {{"parts", parts}, {"submitters", nsub}, {"rounds", rounds}, {"reads", reads},
                         {"target", target}, {"whole", whole}, {"cpus", cpus}});
    std::mt19937 rng(seed);
    IM::State s = m.initial();
    for (int i = 0; i < steps; ++i) {
      std::vector<IM::State> next;
      m.for_each_successor(s, [&](const Step&, const IM::State& n) { next.push_back(n); });
      if (next.empty()) break;
      s = next[std::uniform_int_distribution<std::size_t>(0, next.size() - 1)(rng)];
    }
    std::set<std::vector<int>> concrete;
    m.for_each_successor(s, [&](const Step&, const IM::State& n) {
      concrete.insert(inflight::frame_values(m, n));
    });
    z3::context c;
    for (int prop = 0; prop < IM::Deadlock; ++prop) {
      const TransitionSystem ts = inflight::transition_system(m.config(), prop);
      const Frame s0 = numerals(c, ts, inflight::frame_values(m, s));
      // The symbolic property agrees with violates().
      const z3::expr holds = ts.prop.holds(s0).simplify();
      RC_ASSERT((holds.is_true() || holds.is_false()));
      RC_ASSERT(holds.is_true() == !m.violates(prop, s));
      if (prop != 0) continue;
      const Frame s1 = fresh_frame(c, ts, "@1");
      z3::solver sol(c);
      sol.add(ts.trans(s0, ts.bv_width ? c.bv_const("act", 32) : c.int_const("act"), s1));
      std::set<std::vector<int>> symbolic;
      while (sol.check() == z3::sat) {
        const z3::model mod = sol.get_model();
        std::vector<int> v;
        for (const auto& e : s1) v.push_back(value(mod.eval(e, true)));
        symbolic.insert(v);
        sol.add(!fix(ts, s1, v));
        RC_ASSERT(symbolic.size() < 1000u);
      }
      RC_ASSERT(symbolic == concrete);
    }
  });
  CHECK(ok);
}

TEST_CASE("prove: inflight verdicts agree with explore() on small parameters") {
  // With the lemmas: a property the explorer finds holding is proved; a
  // violated one comes back violated with a shortest path (BMC deepens one
  // step at a time).
  const ModelHandle& mh = find_model("inflight");
  const Params p{{"parts", 1}, {"submitters", 2}, {"rounds", 1}, {"reads", 1},
                 {"target", -1}, {"whole", 1},    {"cpus", 2}};
  int violated = 0, proved = 0;
  for (int vi = 0; vi < static_cast<int>(mh.info().variants.size()); ++vi)
    for (int pi = 0; pi < static_cast<int>(mh.info().props.size()); ++pi) {
      const auto& v = mh.info().variants[std::size_t(vi)];
      const auto& pr = mh.info().props[std::size_t(pi)];
      if (pr.kind != PropKind::Invariant) continue;
      CAPTURE(v.name);
      CAPTURE(pr.name);
      SearchOptions opt;
      opt.bfs = true;
      opt.progress = false;
      const CheckOutcome o = mh.check(v.name, p, {pr.name}, opt);
      const InflightModel m(vi, p);
      z3::context c;
      InductionOptions io;
      io.k_max = 8;
      io.seconds = 20;
      const auto res = prove_by_induction(c, inflight::transition_system(m.config(), pi), io);
      const auto& r = res.prop;
      if (o.props[0].verdict == Verdict::Holds) {
        CHECK(r.verdict == ProofVerdict::Proved);
        ++proved;
      } else {
        REQUIRE(o.props[0].verdict == Verdict::Violated);
        CHECK(r.verdict == ProofVerdict::Violated);
        CHECK(r.k == static_cast<int>(o.props[0].trace->steps.size()));
        ++violated;
      }
    }
  CHECK(violated > 0);
  CHECK(proved > 0);
}

TEST_CASE("prove: inflight lemmas hold in every state the explorer reaches") {
  // The lemmas are invariants of the model, not just of the proof: checked
  // concretely (the same templates on the explorer's view) over whole spaces.
  using IM = InflightModel;
  for (int vi = 0; vi <= IM::Be835694; ++vi)
    for (const Params& p : {Params{{"parts", 2}, {"submitters", 2}, {"rounds", 2}, {"reads", 2},
                                   {"target", -1}, {"whole", 1}, {"cpus", 2}},
                            Params{{"parts", 1}, {"submitters", 3}, {"rounds", 1}, {"reads", 1},
                                   {"target", 1}, {"whole", 0}, {"cpus", 3}}}) {
      const IM m(vi, p);
      const auto& c = m.config();
      CAPTURE(vi);
      std::set<std::string> seen;
      std::vector<IM::State> todo{m.initial()};
      int checked = 0;
      while (!todo.empty()) {
        const IM::State s = todo.back();
        todo.pop_back();
        if (!seen.insert(std::string(reinterpret_cast<const char*>(s.b.data()), m.state_bytes())).second)
          continue;
        const auto v = m.view(s);
        CHECK(inflight::lemma_well_formed(c, v));
        CHECK(inflight::lemma_counters_sum(c, v));
        CHECK(inflight::lemma_quiescent_sum(c, v));
        // read-bounded is the live read's bound: it fails exactly where
        // live-read-bounded does (the double walk and v1 count freed tags).
        if (vi != IM::TagWalkV1 && vi != IM::TagWalkDouble) CHECK(inflight::lemma_read_bounded(c, v));
        ++checked;
        m.for_each_successor(s, [&](const Step&, const IM::State& n) { todo.push_back(n); });
      }
      CHECK(checked > 100);
    }
}

TEST_CASE("prove: the per-action step case gives the monolithic one's verdicts") {
  // Without a successor function the engine asks the whole relation at
  // k = 1; both must prove and refute the same targets.
  using IM = InflightModel;
  const Params p{{"parts", 2}, {"submitters", 2}, {"rounds", 1}, {"reads", 1},
                 {"target", -1}, {"whole", 0},    {"cpus", 2}};
  for (int vi : {int(IM::LegacyAtomic), int(IM::Percpu), int(IM::Bf0ddaba), int(IM::TagWalkV1)})
    for (int pi = 0; pi < IM::Deadlock; ++pi) {
      CAPTURE(vi);
      CAPTURE(pi);
      const IM m(vi, p);
      TransitionSystem split = inflight::transition_system(m.config(), pi);
      TransitionSystem whole = split;
      whole.successor = nullptr;
      z3::context c;
      InductionOptions io;
      io.k_max = 6;
      const auto a = prove_by_induction(c, split, io), b = prove_by_induction(c, whole, io);
      CHECK(a.prop.verdict == b.prop.verdict);
      CHECK(a.prop.k == b.prop.k);
      REQUIRE(a.lemmas.size() == b.lemmas.size());
      for (std::size_t i = 0; i < a.lemmas.size(); ++i) CHECK(a.lemmas[i].verdict == b.lemmas[i].verdict);
    }
}

}  // namespace prove_test
