// ModelAdapter<M>: runs searches and replays for one concrete model class and
// turns its counterexamples into traces.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "model/registry.hpp"

namespace blkmc {

template <class M>
Trace make_trace(const M& m, const std::string& variant, const Params& params,
                 const std::string& prop, const std::string& search,
                 const Counterexample<typename M::State>& cx) {
  Trace t;
  t.model = m.info().name;
  t.variant = variant;
  t.params = params;
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
  return t;
}

// Whether no finished() state is reachable from s (a progress violation):
// a breadth-first search of what lies beyond s, bounded by max_states
// (nothing when that is not enough to decide).
template <class M>
std::optional<bool> stuck_from(const M& m, const typename M::State& s0, std::size_t max_states) {
  using State = typename M::State;
  const std::size_t n = m.state_bytes();
  auto key = [n](const State& s) { return std::string(reinterpret_cast<const char*>(s.b.data()), n); };
  std::unordered_set<std::string> seen{key(s0)};
  std::vector<State> queue{s0};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const State s = queue[head];
    if (m.finished(s)) return false;
    m.for_each_successor(s, [&](const Step&, const State& next) {
      if (seen.size() <= max_states && seen.insert(key(next)).second) queue.push_back(next);
    });
    if (seen.size() > max_states) return std::nullopt;
  }
  return true;
}

// Replays a trace in model m; the trace's names are already resolved.
template <class M>
ReplayResult replay_in(const M& m, int prop, const Trace& t) {
  using State = typename M::State;
  const auto& info = m.info();
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
  if (info.props[prop].kind == PropKind::Progress) {
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
  } else if (info.props[prop].kind == PropKind::Deadlock) {
    bool any = false;
    m.for_each_successor(s, [&](const Step&, const State&) { any = true; });
    r.reproduced = !any && !m.finished(s);
  } else {
    r.reproduced = m.violates(prop, s);
  }
  return r;
}

template <class M>
class ModelAdapter final : public ModelHandle {
 public:
  const ModelInfo& info() const override { return M::static_info(); }

  CheckOutcome check(const std::string& variant, const Params& params,
                     const std::vector<std::string>& props,
                     const SearchOptions& opt_in) const override {
    const auto& inf = info();
    const int vi = find_variant_index(inf, variant);
    const Params p = resolve_params(inf, params);
    SearchOptions opt = opt_in;
    opt.props.clear();
    for (const auto& name : props) opt.props.push_back(find_prop(inf, name));
    const M m(vi, p);
    auto res = explore(m, opt);
    CheckOutcome out;
    out.model = inf.name;
    out.variant = variant;
    out.params = p;
    out.search = opt.bfs ? "bfs" : "dfs";
    out.stop = res.stop;
    out.stats = res.stats;
    for (auto& po : res.props) {
      CheckOutcome::Prop pr{inf.props[po.prop].name, po.verdict, std::nullopt};
      if (po.trace) pr.trace = make_trace(m, variant, p, pr.name, out.search, *po.trace);
      out.props.push_back(std::move(pr));
    }
    return out;
  }

  ReplayResult replay(const Trace& t) const override {
    const auto& inf = info();
    const int vi = find_variant_index(inf, t.variant);
    const Params p = resolve_params(inf, t.params);
    const int prop = find_prop(inf, t.property);
    const M m(vi, p);
    return replay_in(m, prop, t);
  }
};

}  // namespace blkmc
