#include "cli/prove.hpp"

#include <charconv>
#include <csignal>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "counterexamples/trace.hpp"
#include "explorer/adapter.hpp"
#include "model/params.hpp"
#include "model/inflight.hpp"
#include "model/inflight_symbolic.hpp"
#include "model/tags.hpp"
#include "model/tags_symbolic.hpp"
#include "props/verdict.hpp"

namespace blkmc {

namespace {

// What prove needs of a model with symbolic semantics: its prove-sized
// parameters (far beyond the explorer's ranges: the symbolic state is sized
// by them), whether the explicit model can hold them, its Config, and the
// symbolic system with the text of states and actions.
struct TagsProof {
  using Model = TagsModel;
  using Config = tags::Config;
  static const std::vector<ParamInfo>& params() {
    static const std::vector<ParamInfo> p{
        {"ntags", 2, 1, 1024, "driver tags in the bitmap"},
        {"submitters", 2, 1, 64, "concurrent submitting contexts"},
        {"rounds", 1, 1, 15, "requests each submitter issues, one after another"},
        {"pool", 0, 0, 8, "0: a fresh request per round; N: N reusable request objects"},
    };
    return p;
  }
  static Config config(int variant, const Params& p) {
    return {variant, p.at("ntags"), p.at("submitters"), p.at("rounds"), p.at("pool")};
  }
  // Request ids must fit the explorer's bytes.
  static bool fits_ids(const Params& p) {
    return p.at("pool") > 0 || p.at("submitters") * p.at("rounds") <= 250;
  }
  static TransitionSystem system(const Config& c, int prop, bool lemmas) {
    return tags::transition_system(c, prop, lemmas);
  }
  static auto actions(const Config& c) { return tags::actions(c); }
  static std::string action_text(const Config& c, const tags::SymAction& a) {
    return tags::action_text(c, a);
  }
  static std::string state_text(const Config& c, const std::vector<int>& v) {
    return tags::state_text(c, v);
  }
  static auto concrete_state(const Model& m, const std::vector<int>& v) {
    return tags::concrete_state(m, v);
  }
};

struct InflightProof {
  using Model = InflightModel;
  using Config = inflight::Config;
  static const std::vector<ParamInfo>& params() {
    static const std::vector<ParamInfo> p{
        {"parts", 2, 1, 8, "partitions sda1..sdaN besides part0 (the whole disk sda)"},
        {"submitters", 2, 1, 128, "concurrent submitters (one driver tag each)"},
        {"rounds", 1, 1, 15, "requests each submitter issues, one after another"},
        {"reads", 1, 1, 15, "reads the reader performs, one after another"},
        {"target", -1, -1, 8, "the partition the reader reads (-1: any, 0: the whole disk)"},
        {"whole", 0, 0, 1, "1: submitters may also issue to the whole disk (rq->part == part0)"},
        {"cpus", 2, 1, 64, "CPUs holding per-CPU counters (percpu, 7be835694dae only)"},
    };
    return p;
  }
  static Config config(int variant, const Params& p) {
    if (p.at("target") > p.at("parts"))
      throw UsageError(fmt::format("prove: target {} but only {} partitions", p.at("target"),
                                   p.at("parts")));
    return {variant,         p.at("parts"),  p.at("submitters"), p.at("rounds"),
            p.at("reads"),   p.at("target"), p.at("whole"),      p.at("cpus")};
  }
  static bool fits_ids(const Params&) { return true; }
  static TransitionSystem system(const Config& c, int prop, bool lemmas) {
    return inflight::transition_system(c, prop, lemmas);
  }
  static auto actions(const Config& c) { return inflight::actions(c); }
  static std::string action_text(const Config& c, const inflight::SymAction& a) {
    return inflight::action_text(c, a);
  }
  static std::string state_text(const Config& c, const std::vector<int>& v) {
    return inflight::state_text(c, v);
  }
  static auto concrete_state(const Model& m, const std::vector<int>& v) {
    return inflight::concrete_state(m, v);
  }
};

Params parse_params(const std::vector<ParamInfo>& infos, const std::vector<std::string>& kvs) {
  Params out;
  for (const auto& p : infos) out[p.name] = p.def;
  for (const auto& kv : kvs) {
    const auto eq = kv.find('=');
    const std::string k = kv.substr(0, eq);
    const ParamInfo* info = nullptr;
    for (const auto& p : infos)
      if (p.name == k) info = &p;
    if (eq == std::string::npos || !info)
      throw UsageError(fmt::format("prove: unknown parameter '{}'", kv));
    int v = 0;
    const std::string val = kv.substr(eq + 1);
    const auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc() || ptr != val.data() + val.size() || v < info->min || v > info->max)
      throw UsageError(fmt::format("prove: parameter {} must be an integer in {}..{} (got '{}')",
                                   k, info->min, info->max, val));
    out[k] = v;
  }
  return out;
}

// Whether the explicit model can hold these parameters.
template <class P>
bool fits_explorer(const Params& p) {
  for (const auto& info : P::Model::static_info().params)
    if (p.at(info.name) < info.min || p.at(info.name) > info.max) return false;
  return P::fits_ids(p);
}

// A breadth-first search of the explicit model for `target`: its shortest
// path, nothing when unreachable (throws when the space is too large).
template <class M>
std::optional<Counterexample<typename M::State>> find_path(const M& m,
                                                           const typename M::State& target) {
  using State = typename M::State;
  const std::size_t n = m.state_bytes();
  auto key = [n](const State& s) { return std::string(reinterpret_cast<const char*>(s.b.data()), n); };
  std::unordered_map<std::string, std::pair<std::size_t, Step>> parent;  // key -> (index, step)
  std::vector<State> states{m.initial()};
  parent.emplace(key(states[0]), std::make_pair(std::size_t(-1), Step{}));
  const std::string goal = key(target);
  for (std::size_t head = 0; head < states.size(); ++head) {
    if (key(states[head]) == goal) {
      Counterexample<State> cx;
      for (std::size_t i = head; i != std::size_t(-1);) {
        cx.states.insert(cx.states.begin(), states[i]);
        const auto& [p, st] = parent.at(key(states[i]));
        if (p != std::size_t(-1)) cx.steps.insert(cx.steps.begin(), st);
        i = p;
      }
      return cx;
    }
    const State s = states[head];
    m.for_each_successor(s, [&](const Step& st, const State& next) {
      if (parent.emplace(key(next), std::make_pair(head, st)).second) states.push_back(next);
    });
    if (states.size() > 20000000) throw UsageError("prove: too many states to search for the CTI");
  }
  return std::nullopt;
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
  const Params p = parse_params(P::params(), req.params);
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
        if (s0) path = find_path(*m, *s0);
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

}  // namespace

std::vector<ParamInfo> prove_params(const std::string& model) {
  if (model == "tags") return TagsProof::params();
  if (model == "inflight") return InflightProof::params();
  throw UsageError(
      fmt::format("prove: model '{}' has no symbolic semantics (provable: tags, inflight)", model));
}

std::vector<ProveOutcome> prove(const ProveRequest& req) {
  prove_params(req.model);  // rejects a model without symbolic semantics
  return req.model == "tags" ? prove_model<TagsProof>(req) : prove_model<InflightProof>(req);
}

std::string prove_text(const ProveOutcome& o) {
  const ProveResult& res = o.result;
  const TargetResult& r = res.prop;
  std::string s =
      fmt::format("{} --variant {} ({}), property {}: ", o.model, o.variant, o.params, o.property);
  std::string lemmas;
  for (const auto& l : res.lemmas)
    if (l.verdict == ProofVerdict::Proved) lemmas += (lemmas.empty() ? "" : ", ") + l.name;
  switch (r.verdict) {
    case ProofVerdict::Proved:
      s += fmt::format("proved by k-induction with k = {}, lemmas {}, z3 {:.3f} s\n", r.k,
                       lemmas.empty() ? "none" : lemmas, res.seconds);
      break;
    case ProofVerdict::Violated:
      s += fmt::format("VIOLATED: a path of {} steps from the initial state (z3 {:.3f} s)\n", r.k,
                       res.seconds);
      break;
    default:
      s += fmt::format("incomplete: {} (lemmas {}, z3 {:.3f} s)\n", r.note,
                       lemmas.empty() ? "none" : lemmas, res.seconds);
      if (!r.states.empty()) s += "  counterexample to induction:\n";
  }
  for (const auto& l : res.lemmas)
    s += fmt::format("  lemma {:<14} {}{} ({:.3f} s){}\n", l.name, to_string(l.verdict),
                     l.verdict == ProofVerdict::Proved || l.verdict == ProofVerdict::Violated
                         ? fmt::format(", k = {}", l.k)
                         : "",
                     l.seconds,
                     l.verdict == ProofVerdict::Proved ? "" : ": NOT assumed");
  for (const auto& line : o.story) s += line + "\n";
  if (o.cti_reachable && !*o.cti_reachable)
    s += "  s0 is NOT reachable in the explorer (a stronger lemma would rule it out)\n";
  if (!o.trace_written.empty()) s += fmt::format("  trace written to {}\n", o.trace_written);
  return s;
}

nlohmann::json prove_json(const ProveOutcome& o) {
  const TargetResult& r = o.result.prop;
  nlohmann::json j{{"model", o.model},
                   {"variant", o.variant},
                   {"params", o.params},
                   {"property", o.property},
                   {"verdict", to_string(r.verdict)},
                   {"k", r.k},
                   {"seconds", o.result.seconds},
                   {"story", o.story}};
  j["lemmas"] = nlohmann::json::array();
  for (const auto& l : o.result.lemmas)
    j["lemmas"].push_back(
        {{"name", l.name}, {"verdict", to_string(l.verdict)}, {"k", l.k}, {"seconds", l.seconds}});
  if (!r.note.empty()) j["note"] = r.note;
  if (o.cti_reachable) j["cti_reachable"] = *o.cti_reachable;
  if (!o.trace_written.empty()) j["trace_written"] = o.trace_written;
  return j;
}

int prove_exit_code(const std::vector<ProveOutcome>& v) {
  bool incomplete = false;
  for (const auto& o : v) {
    if (o.result.prop.verdict == ProofVerdict::Violated) return kExitViolated;
    incomplete = incomplete || o.result.prop.verdict == ProofVerdict::Incomplete;
  }
  return incomplete ? kExitIncomplete : kExitHolds;
}

int run_prove(const ProveRequest& req, bool as_json) {
  // z3 does not poll the explorer's interrupt flag; --time bounds a proof,
  // and Ctrl-C or SIGTERM end it at once (nothing partial is kept).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  const auto v = prove(req);
  if (as_json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& o : v) j.push_back(prove_json(o));
    std::cout << j.dump(2) << '\n';
  } else {
    for (const auto& o : v) std::cout << prove_text(o);
  }
  return prove_exit_code(v);
}

}  // namespace blkmc
