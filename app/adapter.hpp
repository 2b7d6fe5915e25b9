// ModelAdapter<M>: runs searches and replays for one concrete model class and
// turns its counterexamples into traces.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/registry.hpp"
#include "app/share_replay.hpp"
#include "app/state_graph.hpp"

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

// A long-run share's lasso (Trace::share): f's path followed on the model
// from the start, the cycle after its prefix.
template <class M>
Trace share_trace(const M& m, const std::string& variant, const Params& params, const std::string& prop,
                  const std::string& search, const ShareFigure& f) {
  Counterexample<typename M::State> cx;
  cx.states.push_back(m.initial());
  for (const Step& st : f.path) {
    typename M::State next;
    if (!m.apply(cx.states.back(), st, next)) throw std::logic_error("share_trace: the cycle's path does not follow");
    cx.steps.push_back(st);
    cx.states.push_back(next);
  }
  cx.loop_start = f.prefix;
  Trace t = make_trace(m, variant, params, prop, search, cx);
  t.share = {{"of", f.name}, {"other", f.other}, {"mine", f.mine}, {"theirs", f.theirs}, {"fair_alone", f.fair_alone}};
  if (!f.within.empty()) t.share["within"] = f.within;
  return t;
}

// Replays a trace in model m; the trace's names are already resolved (prop
// is the index of its property; a maximize trace's bound comes from its
// property field, NAME<=K).
template <class M>
ReplayResult replay_in(const M& m, int prop, const Trace& t) {
  using State = typename M::State;
  const auto& info = m.info();
  const PropKind kind = info.props.at(std::size_t(prop)).kind;
  const std::string& pname = info.props[std::size_t(prop)].name;
  checks::with_kind<M>(kind, [&]<class K>(std::type_identity<K>) { K::usable(m, prop); });
  std::optional<int> bound;
  const bool share = !t.share.is_null();  // a long-run share's lasso (app/share_replay.hpp)
  if (share && (!kind_info(kind).measured || t.property != pname))
    throw UsageError(fmt::format("malformed trace: a long-run share trace names a share measure (fair-ratio), not {}",
                                 t.property));
  if (share) {
    // No bound and no value: the claim is the share's.
  } else if (kind_info(kind).measured) {
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
  if ((t.stuck || t.loop) && !kind_info(kind).on_graph && !share)
    throw UsageError(fmt::format("malformed trace: '{}' belongs to progress and starvation traces, not to {}",
                                 t.loop ? "loop" : "stuck", pname));
  ReplayResult r;
  State s = m.initial(), next;
  std::vector<State> states{s};
  std::vector<Step> taken;
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
    taken.push_back(st);
  }
  if (share) {
    replay_share(m, prop, t, states, taken, r);
    return r;
  }
  checks::with_kind<M>(kind, [&]<class K>(std::type_identity<K>) {
    K::judge(checks::Replayed<M>{m, prop, pname, t, bound, states}, r);
  });
  return r;
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
    out.census = std::move(res.census);
    for (auto& po : res.props) {
      CheckOutcome::Prop pr;
      pr.name = prop_spec_string(inf, {po.prop, po.bound});
      pr.verdict = po.verdict;
      pr.bound = po.bound;
      pr.value = po.value;
      pr.value_exact = po.value_exact;
      pr.shares = po.shares;
      pr.shares_note = po.shares_note;
      for (const ShareFigure& f : po.shares)
        if (f.found && !f.path.empty())
          pr.share_traces.push_back(
              share_trace(m, variant, p, inf.props[std::size_t(po.prop)].name, out.search, f));
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

// Instantiated once per model class (app/instances.hpp).
template <class M>
std::unique_ptr<ModelHandle> make_adapter(Offers offers) {
  return std::make_unique<ModelAdapter<M>>(std::move(offers));
}

}  // namespace blkmc
