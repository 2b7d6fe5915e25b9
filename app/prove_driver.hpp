// app/prove_driver: a ProveDriver for any family with a Proof trait (see
// model/tags/tags_symbolic.hpp): k-induction on the symbolic system, the
// solver's paths replayed in the explicit model, counterexamples to induction
// searched for in the explorer where the parameters fit it.
#pragma once

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "counterexamples/trace.hpp"
#include "app/adapter.hpp"
#include "app/prove.hpp"
#include "explorer/reach.hpp"
#include "model/params.hpp"
#include "props/verdict.hpp"

namespace blkmc {

namespace prove_detail {





// Whether the explicit model can hold these parameters.
template <class P>
bool fits_explorer(const Params& p) {
  for (const auto& info : P::Model::static_info().params)
    if (p.at(info.name) < info.min || p.at(info.name) > info.max) return false;
  return P::fits_ids(p);
}

// A breadth-first search of the explicit model for `target` (the CTI's
// first state): its shortest path, nothing when unreachable.
template <class M>
std::optional<Counterexample<typename M::State>> cti_path(const M& m, const typename M::State& target) {
  bool complete = false;
  auto path = find_path(m, target, 20000000, &complete);
  if (!path && !complete) throw UsageError("prove: too many states to search for the CTI");
  return path;
}

// The symbolic path replayed in the explicit model: every step must be
// enabled there and lead to the recorded state (the two semantics agree).
template <class P>
Counterexample<typename P::Model::State> replay_path(const typename P::Model& m,
                                                     const TargetResult& r) {
  using State = typename P::Model::State;
  const auto acts = P::actions(m.config());
  Counterexample<State> cx;
  cx.states.push_back(m.initial());
  for (std::size_t i = 0; i < r.actions.size(); ++i) {
    const auto& a = acts.at(std::size_t(r.actions[i]));
    State next;
    if (!m.apply(cx.states.back(), a.step, next))
      throw std::logic_error(fmt::format("prove: step {} of the solver's path ({}) is not "
                                         "enabled in the explorer (the two semantics disagree)",
                                         i + 1, P::action_text(m.config(), a)));
    const auto want = P::concrete_state(m, r.states[i + 1]);
    if (!want || std::memcmp(want->b.data(), next.b.data(), m.state_bytes()) != 0)
      throw std::logic_error(fmt::format("prove: state {} of the solver's path differs from the "
                                         "explorer's (the two semantics disagree)",
                                         i + 1));
    cx.steps.push_back(a.step);
    cx.states.push_back(next);
  }
  return cx;
}

void tell_trace(const Trace& t, std::vector<std::string>& story) {
  for (std::size_t i = 0; i < t.steps.size(); ++i)
    story.push_back(fmt::format("  {:>2}. {}: {}", i + 1, t.steps[i].actor_name, t.steps[i].text));
}

template <class P>
std::vector<ProveOutcome> prove_model(const ProveRequest& req) {
  using Model = typename P::Model;
  const ModelInfo& info = Model::static_info();
  const int variant = find_variant_index(info, req.variant);
  ModelInfo prove_info = info;  // the model, with prove's parameter ranges
  prove_info.params = P::params();
  const Params p = resolve_params(prove_info, req.params);
  if (req.k_max < 0 || req.k_max > 50) throw UsageError("prove: --k-max must be in 0..50");
  std::vector<int> props;
  for (const auto& name : req.props) {
    const int i = find_prop(info, name);
    if (info.props[std::size_t(i)].kind != PropKind::Invariant)
      throw UsageError(fmt::format("prove: {} is not an invariant property", name));
    props.push_back(i);
  }
  if (props.empty())
    for (std::size_t i = 0; i < info.props.size(); ++i)
      if (info.props[i].kind == PropKind::Invariant) props.push_back(static_cast<int>(i));
  const typename P::Config c = P::config(variant, p);
  std::optional<Model> m;
  if (fits_explorer<P>(p)) m.emplace(variant, p);
  const auto acts = P::actions(c);

  std::vector<ProveOutcome> out;
  for (int prop : props) {
    ProveOutcome o;
    o.model = req.model;
    o.property = info.props[std::size_t(prop)].name;
    o.variant = info.variants[std::size_t(variant)].name;
    o.params = params_string(p);
    // Deleting a Z3 context that held a big unrolling takes far longer than
    // the proof (70 s after a 2 s proof with 1024 tags), so one context
    // lives as long as the process.
    static z3::context& ctx = *new z3::context;
    const TransitionSystem ts = P::system(c, prop, req.lemmas);
    for (const auto& l : ts.lemmas) o.lemma_names.push_back(l.name);
    InductionOptions opt;
    opt.k_max = req.k_max;
    opt.seconds = req.seconds;
    o.result = prove_by_induction(ctx, ts, opt);
    const TargetResult& r = o.result.prop;
    if (r.verdict == ProofVerdict::Violated) {
      if (m) {
        const auto cx = replay_path<P>(*m, r);
        if (!m->violates(prop, cx.states.back()))
          throw std::logic_error("prove: the solver's path does not violate the property in the "
                                 "explorer (the two semantics disagree)");
        const Trace t = make_trace(*m, o.variant, p, o.property, "bfs", cx);
        tell_trace(t, o.story);
        if (!req.trace_out.empty()) {
          std::string path = req.trace_out;
          if (props.size() > 1) {
            const auto dot = path.rfind('.');
            path = dot == std::string::npos ? path + "-" + o.property
                                            : path.substr(0, dot) + "-" + o.property + path.substr(dot);
          }
          write_trace_file(t, path);
          o.trace_written = path;
        }
      } else {
        for (std::size_t i = 0; i < r.actions.size(); ++i)
          o.story.push_back(fmt::format("  {:>2}. {}", i + 1,
                                        P::action_text(c, acts.at(std::size_t(r.actions[i])))));
      }
    } else if (r.verdict == ProofVerdict::Incomplete && !r.states.empty()) {
      for (std::size_t i = 0; i < r.states.size(); ++i) {
        o.story.push_back(fmt::format("  s{}: {}", i, P::state_text(c, r.states[i])));
        if (i < r.actions.size())
          o.story.push_back(
              fmt::format("      -> {}", P::action_text(c, acts.at(std::size_t(r.actions[i])))));
      }
      if (m) {
        const auto s0 = P::concrete_state(*m, r.states[0]);
        std::optional<Counterexample<typename Model::State>> path;
        if (s0) path = cti_path(*m, *s0);
        o.cti_reachable = path.has_value();
        if (path) {
          o.story.push_back("  s0 is reachable in the explorer:");
          tell_trace(make_trace(*m, o.variant, p, o.property, "bfs", *path), o.story);
        }
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace prove_detail

template <class P>
class ProveDriverFor final : public ProveDriver {
 public:
  const std::vector<ParamInfo>& params() const override { return P::params(); }
  std::vector<ProveOutcome> run(const ProveRequest& req) const override {
    return prove_detail::prove_model<P>(req);
  }
};

}  // namespace blkmc
