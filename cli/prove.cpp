#include "cli/prove.hpp"

#include <charconv>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/options.hpp"

#include "app/registry.hpp"
#include "props/verdict.hpp"

namespace blkmc {

std::vector<ParamInfo> prove_params(const std::string& model) {
  return prove_driver(model).params();
}

std::vector<ProveOutcome> prove(const ProveRequest& req) { return prove_driver(req.model).run(req); }

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

// prove's parameter ranges, per model that offers it ("tags ntags 1..1024, ...").
static std::string prove_ranges() {
  std::vector<std::string> out;
  for (const ModelHandle* m : all_models())
    if (m->offers().prove) {
      std::vector<std::string> ps;
      for (const auto& p : prove_params(m->info().name)) ps.push_back(fmt::format("{} {}..{}", p.name, p.min, p.max));
      out.push_back(fmt::format("{} {}", m->info().name, fmt::join(ps, ", ")));
    }
  return fmt::format("{}", fmt::join(out, "; "));
}

CLI::App* add_prove_command(CLI::App& app, ProveArgs& a) {
  auto* provec = app.add_subcommand(
      "prove", "prove invariants by k-induction with Z3 for parameters beyond explicit reach "
               "(the model's steps instantiated on z3::expr): proved, violated (a real path) "
               "or incomplete (a counterexample to induction)");
  provec->add_option("model", a.req.model,
                     "model name (" + model_names([](const ModelHandle& h) { return h.offers().prove != nullptr; }) + ")")
      ->required();
  provec->add_option("--variant,-v", a.req.variant, "variant")->required();
  provec->add_option("--param,-p", a.req.params,
                     "parameter name=value (repeatable; prove's own ranges: " + prove_ranges() + ")");
  provec->add_option("--prop", a.req.props, "invariant property (repeatable; default: all)");
  provec->add_option("--k-max", a.req.k_max, "largest k tried (default 10)");
  provec->add_option("--time", a.req.seconds, "time limit per property, seconds")->check(finite_range(0.001, 1e7));
  provec->add_flag("--no-lemmas", a.no_lemmas, "induction without the model's strengthening lemmas");
  provec->add_option("--trace-out", a.req.trace_out, "write a violation's path as a trace file (-PROP is added when several)");
  provec->add_flag("--json", a.as_json, "print the outcome as JSON");
  return provec;
}

int run_prove(ProveArgs& a) {
  no_repeats(a.req.props, "--prop");
  a.req.lemmas = !a.no_lemmas;
  return run_prove(a.req, a.as_json);
}

int run_prove(const ProveRequest& req, bool as_json) {
  // --time bounds a proof; Ctrl-C or SIGTERM end it with exit 3
  // ("interrupted"; nothing partial is kept): the interrupt handler stops
  // the running z3 check (props/z3_interrupt.hpp).
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
