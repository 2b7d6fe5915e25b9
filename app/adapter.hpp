// ModelAdapter<M>: runs searches and replays for one concrete model class and
// turns its counterexamples into traces.
#pragma once

#include <bitset>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/registry.hpp"
#include "app/state_graph.hpp"
#include "explorer/reach.hpp"

namespace blkmc {

template <class M>
Trace make_trace(const M& m, const std::string& variant, const Params& params,
                 const std::string& prop, const std::string& search,
                 const Counterexample<typename M::State>& cx,
                 std::optional<int> value = std::nullopt) {
  Trace t;
  t.model = m.info().name;
  t.variant = variant;
  t.params = params;
  attach_param_files(m.info(), t);
  t.property = prop;
  t.search = search;
  t.initial = m.state_json(cx.states.front());
  for (std::size_t i = 0; i < cx.steps.size(); ++i) {
    const Step& st = cx.steps[i];
    t.steps.push_back({st.actor, m.actor_name(st.actor), m.info().actions.at(st.action), st.arg,
                       m.describe(cx.states[i], st), m.state_json(cx.states[i + 1])});
  }
  if (cx.stuck_at) t.stuck = int(*cx.stuck_at);
  if (cx.loop_start) t.loop = int(*cx.loop_start);
  t.value = value;
  if constexpr (requires { m.source_json(); }) t.source = m.source_json();
  return t;
}

template <class M>
void replay_starvation(const M& m, int prop, const Trace& t,
                       const std::vector<typename M::State>& states, ReplayResult& r);

// Replays a trace in model m; the trace's names are already resolved (prop
// is the index of its property; a maximize trace's bound comes from its
// property field, NAME<=K).
template <class M>
ReplayResult replay_in(const M& m, int prop, const Trace& t) {
  using State = typename M::State;
  const auto& info = m.info();
  const PropKind kind = info.props.at(std::size_t(prop)).kind;
  const std::string& pname = info.props[std::size_t(prop)].name;
  std::optional<int> bound;
  if (kind_info(kind).measured) {
    if constexpr (!HasMeasure<M>)
      throw UsageError(
          fmt::format("model {}: property {} is a maximize property but the model "
                      "has no measure(prop, state)",
                      info.name, pname));
    const PropSpec spec = parse_prop_spec(info, t.property);
    if (spec.index != prop)
      throw UsageError(fmt::format("trace property {} is not {}", t.property, pname));
    bound = spec.bound;
    if (bound && t.value)
      throw UsageError("malformed trace: a bounded maximize trace (NAME<=K) has no 'value'");
    if (!bound && !t.value)
      throw UsageError(
          fmt::format("malformed trace: maximize trace of {} without a bound has no 'value'",
                      pname));
  } else if (t.value) {
    throw UsageError("malformed trace: 'value' belongs to maximize traces only");
  }
  // A lasso (stuck, loop) ends progress and starvation traces only.
  if ((t.stuck || t.loop) && !kind_info(kind).on_graph)
    throw UsageError(fmt::format("malformed trace: '{}' belongs to progress and starvation traces, not to {}",
                                 t.loop ? "loop" : "stuck", pname));
  if (kind == PropKind::Starvation && !HasPending<M>)
    throw UsageError(
        fmt::format("model {}: property {} is a starvation property but the model "
                    "has no pending(prop, state)",
                    info.name, pname));
  ReplayResult r;
  State s = m.initial(), next;
  std::vector<State> states{s};
  if (!t.initial.is_null() && t.initial != m.state_json(s))
    throw TraceMismatch("the trace's initial state is not the model's initial state");
  int i = 0;
  for (const TraceStep& ts : t.steps) {
    ++i;
    int action = -1;
    for (std::size_t a = 0; a < info.actions.size(); ++a)
      if (info.actions[a] == ts.action) action = int(a);
    if (action < 0)
      throw TraceMismatch(fmt::format("step {}: model {} has no action '{}'", i, info.name, ts.action));
    if (ts.actor < 0 || ts.actor > 255 || ts.arg < 0 || ts.arg > 255)
      throw TraceMismatch(fmt::format("step {}: actor {} / arg {} out of range", i, ts.actor, ts.arg));
    const Step st{std::uint8_t(ts.actor), std::uint8_t(action), std::uint8_t(ts.arg)};
    if (!m.apply(s, st, next))
      throw TraceMismatch(fmt::format("step {}: actor {} action {}({}) is not enabled here", i,
                                      ts.actor, ts.action, ts.arg));
    if (!ts.state.is_null() && ts.state != m.state_json(next))
      throw TraceMismatch(fmt::format(
          "step {}: the recorded state differs from the model's: recorded {} vs model {}", i,
          ts.state.dump(), m.state_json(next).dump()));
    r.story.push_back(fmt::format("{:>4}. {:<12} {}", i, m.actor_name(st.actor), m.describe(s, st)));
    r.story.push_back(fmt::format("      {:<12} {}", "", m.summary(next)));
    s = next;
    states.push_back(s);
  }
  if (kind == PropKind::Progress) {
    const std::size_t n = t.steps.size(), k = t.loop ? std::size_t(*t.loop) : n;
    const std::size_t j = t.stuck ? std::size_t(*t.stuck) : k;
    if (std::memcmp(states[k].b.data(), s.b.data(), m.state_bytes()) != 0)
      throw TraceMismatch(fmt::format(
          "the loop does not close: the state after step {} differs from the one after step {}",
          n, k));
    bool any = false;
    m.for_each_successor(states[k], [&](const Step&, const State&) { any = true; });
    // Markers, inserted from the back so the earlier positions stay valid.
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * k),
                   k < n ? fmt::format("      ---- steps {}..{} repeat forever ----", k + 1, n)
                   : any ? std::string("      ---- the trace ends here ----")
                         : std::string("      ---- no step is enabled: deadlock ----"));
    r.story.insert(r.story.begin() + std::ptrdiff_t(2 * j),
                   "      ---- stuck from here: no finished state is reachable ----");
    constexpr std::size_t kReplayBound = std::size_t(1) << 20;
    const std::optional<bool> stuck = stuck_from(m, states[j], kReplayBound);
    if (!stuck)
      r.story.push_back(fmt::format("      (undecided: more than {} states lie beyond the stuck "
                                    "state)",
                                    kReplayBound));
    r.reproduced = stuck.value_or(false);
  } else if (kind == PropKind::Deadlock) {
    bool any = false;
    m.for_each_successor(s, [&](const Step&, const State&) { any = true; });
    r.reproduced = !any && !m.finished(s);
  } else if (kind == PropKind::Maximize) {
    if constexpr (HasMeasure<M>) {
      const int v = m.measure(prop, s);
      if (bound) {
        r.reproduced = v > *bound;
        r.story.push_back(fmt::format("      ---- {} = {} at the end: {} {} ----", pname, v,
                                      r.reproduced ? "above the bound" : "within the bound",
                                      *bound));
        r.verdict_line =
            r.reproduced
                ? fmt::format("{} is violated ({} = {} > {})", t.property, pname, v, *bound)
                : fmt::format("{} holds at the end ({} = {})", t.property, pname, v);
      } else {
        r.reproduced = v == *t.value;
        r.story.push_back(fmt::format(
            "      ---- {} = {} at the end (the recorded maximum: {}) ----", pname, v, *t.value));
        r.verdict_line = r.reproduced
                             ? fmt::format("{} reaches its maximum {}", pname, v)
                             : fmt::format("{} is {} at the end, not the recorded maximum {}",
                                           pname, v, *t.value);
      }
    }
  } else if (kind == PropKind::Starvation) {
    if constexpr (HasPending<M>) replay_starvation(m, prop, t, states, r);
  } else {
    r.reproduced = m.violates(prop, s);
  }
  return r;
}

// The checks of a starvation lasso (see replay_in): the loop closes and has
// a step, every state from "stuck" on is pending, and the loop is weakly
// fair: every actor enabled in all of its states steps in it.
template <class M>
void replay_starvation(const M& m, int prop, const Trace& t,
                       const std::vector<typename M::State>& states, ReplayResult& r) {
  using State = typename M::State;
  const std::string& pname = m.info().props[std::size_t(prop)].name;
  const std::size_t n = t.steps.size();
  if (!t.loop) throw TraceMismatch("a starvation trace needs a loop");
  const std::size_t k = std::size_t(*t.loop), j = t.stuck ? std::size_t(*t.stuck) : k;
  if (k >= n) throw TraceMismatch("the loop of a starvation trace needs at least one step");
  if (j > k) throw TraceMismatch("a starvation trace's stuck index lies after its loop start");
  if (std::memcmp(states[k].b.data(), states[n].b.data(), m.state_bytes()) != 0)
    throw TraceMismatch(fmt::format(
        "the loop does not close: the state after step {} differs from the one after step {}", n,
        k));
  std::optional<std::size_t> not_pending;
  for (std::size_t i = j; i <= n && !not_pending; ++i)
    if (!m.pending(prop, states[i])) not_pending = i;
  std::bitset<256> enabled_all, moved;
  enabled_all.set();
  for (std::size_t i = k; i < n; ++i) {
    std::bitset<256> en;
    m.for_each_successor(states[i], [&](const Step& st, const State&) { en.set(st.actor); });
    enabled_all &= en;
    moved.set(std::size_t(t.steps[i].actor));
  }
  std::vector<std::string> always, starved;
  for (std::size_t a = 0; a < 256; ++a)
    if (enabled_all[a]) {
      always.push_back(m.actor_name(int(a)));
      if (!moved[a]) starved.push_back(m.actor_name(int(a)));
    }
  r.story.insert(
      r.story.begin() + std::ptrdiff_t(2 * k),
      fmt::format("      ---- steps {}..{} repeat forever; enabled throughout: {}; {} ----",
                  k + 1, n, always.empty() ? "none" : fmt::format("{}", fmt::join(always, ", ")),
                  starved.empty()
                      ? "each of them steps in the loop (weakly fair)"
                      : "never stepping: " + fmt::format("{}", fmt::join(starved, ", "))));
  r.story.insert(r.story.begin() + std::ptrdiff_t(2 * j),
                 fmt::format("      ---- {} is pending from here on ----", pname));
  if (not_pending) {
    r.verdict_line = fmt::format(
        "{}: the state {} is not pending", pname,
        *not_pending ? fmt::format("after step {}", *not_pending) : std::string("at the start"));
  } else if (!starved.empty()) {
    r.verdict_line =
        fmt::format("{}: the loop is not weakly fair ({} enabled throughout, never steps)", pname,
                    fmt::format("{}", fmt::join(starved, ", ")));
  } else {
    r.reproduced = true;
    r.verdict_line =
        fmt::format("{} is violated: a weakly fair cycle keeps it pending forever", pname);
  }
}

template <ReportedModel M>
class ModelAdapter final : public ModelHandle {
 public:
  using ModelHandle::ModelHandle;
  const ModelInfo& info() const override { return M::static_info(); }

  CheckOutcome check(const std::string& variant, const Params& params,
                     const std::vector<std::string>& props,
                     const SearchOptions& opt_in) const override {
    const auto& inf = info();
    const int vi = find_variant_index(inf, variant);
    const Params p = resolve_params(inf, params);
    SearchOptions opt = opt_in;
    opt.props.clear();
    opt.bounds.clear();
    for (const auto& name : props) {
      const PropSpec spec = parse_prop_spec(inf, name);
      opt.props.push_back(spec.index);
      opt.bounds.push_back(spec.bound);
    }
    const M m(vi, p);
    auto res = explore(m, opt);
    CheckOutcome out;
    out.model = inf.name;
    out.variant = variant;
    out.params = p;
    out.params_shown = params_string(inf, p);
    out.search = opt.bfs ? "bfs" : "dfs";
    out.stop = res.stop;
    out.stats = res.stats;
    for (auto& po : res.props) {
      CheckOutcome::Prop pr;
      pr.name = prop_spec_string(inf, {po.prop, po.bound});
      pr.verdict = po.verdict;
      pr.bound = po.bound;
      pr.value = po.value;
      pr.value_exact = po.value_exact;
      // An unbounded maximize trace records the maximum it reaches.
      const std::optional<int> value = po.value && !po.bound ? po.value : std::nullopt;
      if (po.trace) pr.trace = make_trace(m, variant, p, pr.name, out.search, *po.trace, value);
      out.props.push_back(std::move(pr));
    }
    return out;
  }

  std::string state_graph(const std::string& variant, const Params& params, const CheckOutcome& marks,
                          std::size_t limit, std::size_t& states, std::size_t& edges) const override {
    using State = typename M::State;
    const M m(find_variant_index(info(), variant), resolve_params(info(), params));
    // The outcome's traces, followed again from the initial state step by
    // step (a check's traces start there).
    std::vector<std::pair<std::string, Counterexample<State>>> traces;
    for (const auto& pr : marks.props) {
      if (!pr.trace) continue;
      Counterexample<State> cx;
      cx.states.push_back(m.initial());
      for (const TraceStep& ts : pr.trace->steps) {
        bool found = false;
        State to{};
        m.for_each_successor(cx.states.back(), [&](const Step& st, const State& n) {
          if (!found && st.actor == ts.actor && st.arg == ts.arg && m.info().actions.at(st.action) == ts.action) {
            to = n;
            found = true;
          }
        });
        if (!found) break;
        cx.states.push_back(to);
      }
      if (pr.trace->stuck) cx.stuck_at = std::size_t(*pr.trace->stuck);
      if (pr.trace->loop) cx.loop_start = std::size_t(*pr.trace->loop);
      traces.emplace_back(pr.name, std::move(cx));
    }
    return state_graph_dot(m, SearchOptions{}, traces, limit, &states, &edges);
  }

  ReplayResult replay(const Trace& t) const override {
    const auto& inf = info();
    const int vi = find_variant_index(inf, t.variant);
    const Params p = trace_params(inf, t);
    const int prop = parse_prop_spec(inf, t.property).index;
    const M m(vi, p);
    return replay_in(m, prop, t);
  }

  SimOutcome simulate(const std::string& variant, const Params& params,
                      const SimOptions& opt) const override {
    const auto& inf = info();
    const int vi = find_variant_index(inf, variant);
    const Params p = resolve_params(inf, params);
    const M m(vi, p);
    SimOutcome out = blkmc::simulate(m, opt);
    out.variant = variant;
    out.params = p;
    return out;
  }
};

}  // namespace blkmc
