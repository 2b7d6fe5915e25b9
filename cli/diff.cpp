#include "cli/diff.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/options.hpp"
#include "counterexamples/trace.hpp"
#include "explorer/limits.hpp"
#include "model/params.hpp"
#include "app/registry.hpp"
#include "props/diff.hpp"
#include "app/trace_report.hpp"
#include "model/sched/workload.hpp"
#include "app/registry.hpp"
#include "props/verdict.hpp"

namespace blkmc {

namespace {

int variant_of(const DecisionFn& f, const std::string& name) {
  for (std::size_t i = 0; i < f.variants.size(); ++i)
    if (f.variants[i] == name) return static_cast<int>(i);
  std::string valid;
  for (const auto& v : f.variants) valid += (valid.empty() ? "" : ", ") + v;
  throw UsageError(fmt::format("diff: {} has no variant '{}' (valid: {})", f.name, name, valid));
}

const ParamInfo* param_of(const ModelInfo& inf, const std::string& name) {
  for (const auto& p : inf.params)
    if (p.name == name) return &p;
  return nullptr;
}

// What --reach did: found (a trace), not found within the bounds, or not run.
struct Reach {
  bool run = false, found = false, interrupted = false;
  std::string why_not;  // when not run
  std::string property, shadow;
  int shadow_index = -1, shadow_fn = 0;
  struct Searched {
    std::string workload;
    std::uint64_t states = 0;
    StopReason stop = StopReason::Complete;
    std::string skipped;  // the model does not take this workload (why)
  };
  std::vector<Searched> searched;
  std::uint64_t states = 0;
  double seconds = 0;
  std::optional<Trace> trace;
  std::string workload;
  int workload_index = -1;
  Params params;                   // of the last search (the trace's when found)
  std::vector<std::string> story;  // the replayed trace, one line per step
  std::string written;             // --trace-out
  std::string report_written;      // --report
};

// The shadow property of a model: same-decisions (bfq, cfq) or same-choice
// (deadline), with the `shadow` parameter that turns it on.
std::string shadow_property(const ModelInfo& inf) {
  if (!param_of(inf, "shadow") || !param_of(inf, "workload")) return "";
  for (const auto& p : inf.props)
    if (p.name == "same-decisions" || p.name == "same-choice") return p.name;
  return "";
}

Reach run_reach(const std::string& model, const std::string& from, const std::string& to,
                const std::string& function, const DiffReachOptions& opt) {
  Reach r;
  const ModelHandle& mh = find_model(model);
  const ModelInfo& inf = mh.info();
  r.property = shadow_property(inf);
  if (r.property.empty()) {
    r.why_not = fmt::format("model {} has no shadow property", model);
    return r;
  }
  for (std::size_t i = 0; i < inf.variants.size(); ++i)
    if (inf.variants[i].name == from) r.shadow_index = static_cast<int>(i);
  if (r.shadow_index < 0)
    throw UsageError(fmt::format("diff --reach: model {} has no variant '{}'", model, from));
  r.shadow = from;
  // A model that can compare one decision only (cfq's shadow_fn) does so for
  // --function; its numbering is the order of the decision functions.
  if (!function.empty() && param_of(inf, "shadow_fn")) {
    const auto& fns = decision_functions(model);
    for (std::size_t i = 0; i < fns.size(); ++i)
      if (fns[i].name == function) r.shadow_fn = static_cast<int>(i) + 1;
  }
  // The shipped workloads the model's `workload` parameter can name,
  // smallest first (requests, then processes, then index).
  const ParamInfo& wp = *param_of(inf, "workload");
  // -p: the model's parameters for the search (shadow is --from's); a
  // workload given there is the only one searched.
  const Params given = resolve_params(inf, opt.params);
  bool one_workload = false;
  for (const auto& kv : opt.params) {
    const std::string k = kv.substr(0, kv.find('='));
    if (k == "shadow") throw UsageError("diff --reach: shadow is set from --from");
    one_workload = one_workload || k == "workload";
  }
  // Every shipped workload, or the one given (shipped or a user's file).
  std::vector<int> order;
  if (one_workload)
    order.push_back(given.at("workload"));
  else
    for (int w = wp.min; w <= wp.max; ++w) order.push_back(w);
  auto size = [](int w) {
    const sched::Workload& wl = sched::workload_at(w);
    return std::make_tuple(wl.rqs.size(), wl.procs.size(), w);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return size(a) < size(b); });
  // The explorer polls its interrupt flag: Ctrl-C ends the search cleanly.
  install_interrupt_handler();
  r.run = true;
  for (int w : order) {
    Params p = given;
    p["shadow"] = r.shadow_index;
    p["workload"] = w;
    if (r.shadow_fn) p["shadow_fn"] = r.shadow_fn;
    r.params = p;
    SearchOptions so;
    so.bfs = true;
    so.threads = default_threads();
    so.progress = false;
    so.limits.max_states = opt.max_states;
    so.limits.memory_bytes = default_memory_limit();
    so.reduce = ReduceOptions::all();
    const std::string name = sched::workload_at(w).name;
    CheckOutcome o;
    try {
      o = mh.check(to, p, {r.property}, so);
    } catch (const UsageError& e) {  // e.g. more processes than the model has queues
      r.searched.push_back({name, 0, StopReason::Complete, e.what()});
      continue;
    }
    r.searched.push_back({name, o.stats.states, o.stop, ""});
    r.states += o.stats.states;
    r.seconds += o.stats.seconds;
    if (!o.props.empty() && o.props[0].trace) {
      r.found = true;
      r.trace = *o.props[0].trace;
      r.workload = name;
      r.workload_index = w;
      const ReplayResult rr = mh.replay(*r.trace);
      if (!rr.reproduced)
        throw std::logic_error("diff --reach: the trace found does not replay");
      r.story = rr.story;
      if (!opt.trace_out.empty()) {
        write_trace_file(*r.trace, opt.trace_out);
        r.written = opt.trace_out;
      }
      break;
    }
    if (o.stop == StopReason::Interrupted || g_interrupted) {
      r.interrupted = true;
      break;
    }
  }
  return r;
}

std::size_t searched_count(const Reach& r) {
  return std::size_t(std::count_if(r.searched.begin(), r.searched.end(),
                                   [](const Reach::Searched& w) { return w.skipped.empty(); }));
}

std::string searched_list(const Reach& r) {
  std::string s;
  int skipped = 0;
  for (const auto& w : r.searched) {
    if (!w.skipped.empty()) {
      ++skipped;
      continue;
    }
    s += fmt::format("{}{} ({}{})", s.empty() ? "" : ", ", w.workload, w.states,
                     w.stop == StopReason::Complete ? ", all" : "");
  }
  if (skipped) s += fmt::format("; {} workload(s) the model does not take", skipped);
  return s;
}

// The check that reproduces the search: the parameters that are not the
// model's defaults, shadow and workload always.
std::string reach_command(const std::string& model, const std::string& to, const Reach& r) {
  const ModelInfo& inf = find_model(model).info();
  std::string ps;
  for (const auto& [k, v] : r.params) {
    const ParamInfo* pi = param_of(inf, k);
    if (k == "shadow" || k == "workload" || !pi || pi->def != v)
      ps += fmt::format(" -p {}={}", k, pi ? param_value_name(*pi, v) : std::to_string(v));
  }
  return fmt::format("blkmc check {} -v {}{} --prop {} --bfs", model, to, ps, r.property);
}

std::string reach_text(const std::string& model, const std::string& to, const Reach& r,
                       const DiffReachOptions& opt) {
  if (!r.run) return fmt::format("reach: not run ({})\n", r.why_not);
  const std::string what =
      fmt::format("{} -v {} with shadow={} ({}){}, property {}", model, to, r.shadow,
                  r.shadow_index,
                  r.shadow_fn ? fmt::format(", shadow_fn={}", r.shadow_fn) : std::string(),
                  r.property);
  if (!r.found) {
    return fmt::format(
        "reach: {}: no difference reached{} in {} workload(s), at most {} states each, {} states "
        "in all ({:.2f} s): {}\n",
        what, r.interrupted ? " (interrupted)" : "", searched_count(r), opt.max_states, r.states,
        r.seconds, searched_list(r));
  }
  std::string s = fmt::format(
      "reach: {}: workload {} ({}) reaches a difference in {} steps (breadth-first, shortest for "
      "this workload; {} states in {} workload(s), {:.2f} s)\n",
      what, r.workload, r.workload_index, r.trace->steps.size(), r.states, searched_count(r),
      r.seconds);
  s += fmt::format("  rerun: {}\n", reach_command(model, to, r));
  for (const auto& line : r.story) s += "  " + line + "\n";
  if (!r.trace->steps.empty())
    s += fmt::format("  the decision that differed (last step): {}\n", r.trace->steps.back().text);
  if (!r.written.empty()) s += fmt::format("  trace written to {}\n", r.written);
  if (!r.report_written.empty()) s += fmt::format("  report written to {}\n", r.report_written);
  return s;
}

nlohmann::json reach_json(const std::string& model, const std::string& to, const Reach& r,
                          const DiffReachOptions& opt) {
  nlohmann::json j{{"run", r.run}};
  if (!r.run) {
    j["reason"] = r.why_not;
    return j;
  }
  j["variant"] = to;
  j["shadow"] = r.shadow;
  j["shadow_index"] = r.shadow_index;
  if (r.shadow_fn) j["shadow_fn"] = r.shadow_fn;
  j["property"] = r.property;
  j["max_states"] = opt.max_states;
  j["found"] = r.found;
  j["interrupted"] = r.interrupted;
  j["states"] = r.states;
  j["seconds"] = r.seconds;
  nlohmann::json ws = nlohmann::json::array();
  for (const auto& w : r.searched)
    ws.push_back(w.skipped.empty() ? nlohmann::json{{"workload", w.workload},
                                                    {"states", w.states},
                                                    {"stop", to_string(w.stop)}}
                                   : nlohmann::json{{"workload", w.workload},
                                                    {"skipped", w.skipped}});
  j["searched"] = ws;
  if (r.found) {
    j["workload"] = r.workload;
    j["workload_index"] = r.workload_index;
    j["steps"] = r.trace->steps.size();
    j["command"] = reach_command(model, to, r);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& st : r.trace->steps) steps.push_back(st.text);
    j["step_texts"] = steps;
    j["last_step"] = r.trace->steps.empty() ? std::string() : r.trace->steps.back().text;
    if (!r.written.empty()) j["trace_out"] = r.written;
    if (!r.report_written.empty()) j["report"] = r.report_written;
  }
  return j;
}

}  // namespace

CLI::App* add_diff_command(CLI::App& app, DiffArgs& a) {
  auto* diffc = app.add_subcommand(
      "diff", "compare a model's decision functions in two variants with Z3: proved "
              "equivalent, or the input classes where they differ");
  diffc->add_option("model", a.model,
                    "model name (" +
                        model_names([](const ModelHandle& h) { return h.offers().decisions != nullptr; }) + ")")
      ->required();
  diffc->add_option("--from", a.from, "variant before the patch")->required();
  diffc->add_option("--to", a.to, "variant after the patch")->required();
  diffc->add_option("--function", a.function, "only this decision function");
  diffc->add_flag("--json", a.as_json, "print the comparison as JSON");
  auto* reach_opt = diffc->add_flag("--reach", a.reach.enabled,
                                    "where they differ, search breadth-first for a shortest trace to such a state: "
                                    "variant TO with shadow=FROM and the model's shadow property, on each shipped "
                                    "workload, smallest first (bfq, cfq, deadline)");
  diffc->add_option("--trace-out", a.reach.trace_out, "with --reach: write the trace found here")->needs(reach_opt);
  diffc->add_option("--report", a.reach.report, "with --reach: write the trace found as an HTML page here")
      ->needs(reach_opt);
  diffc->add_option("--param,-p", a.reach.params,
                    "with --reach: model parameter name=value for the search (repeatable; "
                    "workload=N, NAME or FILE.wl searches only that workload)")
      ->needs(reach_opt);
  diffc->add_option("--workload", a.workload_opt, "with --reach: search only this workload, NAME or FILE.wl")
      ->needs(reach_opt);
  diffc->add_option("--max-states", a.reach.max_states, "with --reach: states searched per workload (default 2000000)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)))
      ->needs(reach_opt);
  return diffc;
}

int run_diff(DiffArgs& a) {
  add_workload_param(a.workload_opt, a.reach.params);
  return run_diff(a.model, a.from, a.to, a.function, a.as_json, a.reach);
}

int run_diff(const std::string& model, const std::string& from, const std::string& to,
             const std::string& function, bool as_json, const DiffReachOptions& reach) {
  // Ctrl-C and SIGTERM end diff with exit 3 ("interrupted"): the interrupt
  // handler stops the running z3 check (props/z3_interrupt.hpp).
  const auto& fns = decision_functions(model);
  std::vector<const DecisionFn*> chosen;
  for (const auto& f : fns)
    if (function.empty() || f.name == function) chosen.push_back(&f);
  if (chosen.empty()) {
    std::string valid;
    for (const auto& f : fns) valid += (valid.empty() ? "" : ", ") + f.name;
    throw UsageError(
        fmt::format("diff: model {} has no decision function '{}' (valid: {})", model, function, valid));
  }
  // Without --function: the functions defined for both variants (inflight's
  // walk and counter functions belong to different variant families).
  if (function.empty()) {
    auto has = [](const DecisionFn* f, const std::string& v) {
      return std::find(f->variants.begin(), f->variants.end(), v) != f->variants.end();
    };
    std::vector<const DecisionFn*> both;
    for (const DecisionFn* f : chosen)
      if (has(f, from) && has(f, to)) both.push_back(f);
    if (!both.empty()) chosen = both;  // else variant_of names the valid variants
  }
  if (reach.enabled && reach.max_states == 0)
    throw UsageError("diff: --max-states must be at least 1");
  if (!reach.enabled && (!reach.trace_out.empty() || !reach.params.empty() || !reach.report.empty()))
    throw UsageError("diff: --trace-out, --report and --param need --reach");
  for (const auto& [what, out] : {std::pair{"--trace-out", reach.trace_out}, std::pair{"--report", reach.report}}) {
    const std::filesystem::path dir = std::filesystem::path(out).parent_path();
    std::error_code ec;
    if (!out.empty() && !dir.empty() && !std::filesystem::is_directory(dir, ec))
      throw UsageError(fmt::format("diff {}: no directory '{}'", what, dir.string()));
  }
  bool all_equal = true;
  nlohmann::json j = nlohmann::json::array();
  for (const DecisionFn* f : chosen) {
    const DiffResult r = diff_decision(*f, variant_of(*f, from), variant_of(*f, to));
    all_equal = all_equal && r.equivalent;
    if (as_json) j.push_back(diff_json(r));
    else std::cout << fmt::format("{} ", model) << diff_text(r, *f) << std::flush;
  }
  if (reach.enabled) {
    Reach r;
    if (all_equal)
      r.why_not = "the two variants decide the same: nothing to reach";
    else
      r = run_reach(model, from, to, function, reach);
    // The page after the search: a write error loses nothing printed below.
    std::string report_error;
    if (r.found && !reach.report.empty()) {
      try {
        write_text_file(trace_report_html(find_model(model), *r.trace, reach_command(model, to, r)), reach.report,
                        "report");
        r.report_written = reach.report;
      } catch (const UsageError& e) {
        report_error = e.what();
      }
    }
    if (as_json) {
      j = nlohmann::json{{"functions", j}, {"reach", reach_json(model, to, r, reach)}};
    } else {
      std::cout << reach_text(model, to, r, reach) << std::flush;
    }
    if (!report_error.empty()) {
      if (as_json) std::cout << j.dump(2) << '\n';
      std::cerr << "blkmc: " << report_error << '\n';
      return kExitUsage;
    }
  }
  if (as_json) std::cout << j.dump(2) << '\n';
  return all_equal ? kExitHolds : kExitViolated;
}

}  // namespace blkmc
