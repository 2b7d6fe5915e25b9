#include "cli/compare.hpp"

#include <iostream>

#include <fmt/format.h>

#include "app/report.hpp"
#include "cli/options.hpp"
#include "counterexamples/trace.hpp"
#include "explorer/limits.hpp"
#include "common/errors.hpp"

namespace blkmc {

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
  auto* compare = app.add_subcommand(
      "compare", "regression-check a patch: the same properties on two variants, what changed");
  compare->add_option("model", a.model, "model name")->required();
  compare->add_option("--before", a.before, "variant before the patch");
  compare->add_option("--after", a.after, "variant after the patch");
  add_kernel_options(compare, a.before_code, "the code before the patch");
  compare->add_option("--after-kernel", a.after_code.kernel, "the code after the patch: a tree, tarball or debian:X.Y");
  compare->add_option("--after-source", a.after_code.source, "the code after the patch: a scheduler FILE.c");
  compare->add_option("--param,-p", a.params, kParamHelp);
  compare->add_option("--workload", a.workload_opt, kWorkloadHelp);
  compare->add_option("--prop", a.props, "property (repeatable; default: all; NAME<=K bounds a maximize one)");
  compare->add_option("--time", a.seconds, "time limit per run, seconds")->check(finite_range(0.001, 1e7));
  compare->add_option("--max-states", a.max_states, "state limit per run")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(4000000000ULL)));
  compare->add_option("--trace-out", a.trace_out, "write the counterexample of each verdict that changed (prefix)");
  compare->add_flag("--json", a.as_json, "print the comparison as JSON");
  return compare;
}

int run_compare(CompareArgs& a) {
  add_workload_param(a.workload_opt, a.params);
  no_repeats(a.props, "--prop");
  if (a.before_code.given() || a.after_code.given())
    return run_compare_kernels(a.model, a.before_code, a.after_code, a.params, a.props, a.seconds, a.max_states,
                               a.trace_out, a.as_json);
  if (a.before.empty() || a.after.empty())
    throw UsageError("compare: --before and --after (variants), or --kernel/--source and "
                     "--after-kernel/--after-source (code)");
  const ModelHandle& mh = find_model(a.model);
  SearchOptions opt;
  opt.bfs = true;
  opt.threads = default_threads();
  opt.progress = false;
  opt.limits.seconds = a.seconds;
  opt.limits.max_states = a.max_states;
  opt.limits.memory_bytes = default_memory_limit();
  opt.reduce = ReduceOptions::all();
  const Params p = resolve_params(mh.info(), a.params);
  const CheckOutcome before = mh.check(a.before, p, a.props, opt);
  const CheckOutcome after = mh.check(a.after, p, a.props, opt);
  return print_comparison(before, after, a.trace_out, a.as_json);
}

std::string prop_file_name(std::string prop) {
  if (const auto le = prop.find("<="); le != std::string::npos) prop.replace(le, 2, "-le");
  return prop;
}

int print_comparison(const CheckOutcome& a, const CheckOutcome& b, const std::string& trace_out,
                     bool as_json, const std::vector<std::pair<std::string, nlohmann::json>>& extra) {
  int changed = 0, regressions = 0, values_changed = 0, undecided = 0, shares_changed = 0;
  nlohmann::json rows = nlohmann::json::array();
  if (!as_json)
    std::cout << fmt::format("{} ({}): {} -> {}\n  {:<22} {:<11} {:<11}\n", a.model,
                             params_text(a), a.variant, b.variant, "property", a.variant,
                             b.variant);
  // A maximize property without a bound shows its maximum ("max>=" when the
  // search was incomplete) instead of a verdict.
  auto cell = [](const CheckOutcome::Prop& p) {
    if (p.value && !p.bound) return fmt::format("max{}{}", p.value_exact ? "=" : ">=", *p.value);
    return to_string(p.verdict);
  };
  for (std::size_t i = 0; i < a.props.size(); ++i) {
    const auto &pa = a.props[i], &pb = b.props[i];
    const bool maximize = pa.value && !pa.bound;
    // A search stopped at a limit decides nothing: neither FIXED nor
    // REGRESSION nor a changed maximum.
    const bool open = pa.verdict == Verdict::Incomplete || pb.verdict == Verdict::Incomplete ||
                      (maximize && (!pa.value_exact || !pb.value_exact));
    const bool diff = !open && pa.verdict != pb.verdict;
    const bool value_diff = !open && maximize && (pa.value != pb.value || pa.value_exact != pb.value_exact);
    const bool unknown = open;
    undecided += unknown;
    values_changed += value_diff;
    changed += diff;
    regressions += diff && pb.verdict == Verdict::Violated;
    std::string note;
    // The counterexample of the side that is violated shows what changed; for
    // a maximum that changed, the trace to the new maximum.
    const bool after_side = pb.verdict == Verdict::Violated || (!diff && value_diff);
    const auto& side = after_side ? pb : pa;
    const auto& cx = side.trace;
    if ((diff || value_diff) && cx && !trace_out.empty()) {
      const std::string path = fmt::format(
          "{}-{}-{}.json", trace_out, after_side ? b.variant : a.variant, prop_file_name(pa.name));
      write_trace_file(*cx, path);
      note = " trace: " + path;
    }
    nlohmann::json row{{"property", pa.name},
                       {"before", to_string(pa.verdict)},
                       {"after", to_string(pb.verdict)},
                       {"changed", diff},
                       {"undecided", unknown}};
    if (maximize) {
      row["value_before"] = *pa.value;
      row["value_after"] = *pb.value;
      row["value_exact_before"] = pa.value_exact;
      row["value_exact_after"] = pb.value_exact;
      row["value_changed"] = value_diff;
    }
    rows.push_back(row);
    const std::string mark =
        diff         ? (pb.verdict == Verdict::Violated ? "REGRESSION" : "FIXED")
        : value_diff ? fmt::format("CHANGED ({} -> {})", cell(pa), cell(pb))
        : unknown    ? fmt::format("UNDECIDED ({} stopped at a limit)",
                                   pa.verdict == Verdict::Incomplete || (maximize && !pa.value_exact)
                                       ? (pb.verdict == Verdict::Incomplete || (maximize && !pb.value_exact)
                                              ? std::string("both searches")
                                              : fmt::format("the {} search", a.variant))
                                       : fmt::format("the {} search", b.variant))
                     : "";
    if (!as_json)
      std::cout << fmt::format("  {:<22} {:<11} {:<11} {}{}\n", pa.name, cell(pa), cell(pb), mark,
                               note);
    // A share measure's long-run lines (fair-ratio), process by process.
    for (std::size_t k = 0; k < pa.shares.size() && k < pb.shares.size(); ++k) {
      const ShareFigure &fa = pa.shares[k], &fb = pb.shares[k];
      const auto share = [](const ShareFigure& f) {
        return f.found ? fmt::format("{:.2f}", double(f.mine) / double(f.theirs)) : std::string("none");
      };
      const auto sectors = [](const ShareFigure& f) {
        return f.found ? fmt::format("{}:{}", f.mine, f.theirs) : std::string("none");
      };
      const bool moved = fa.found != fb.found || (fa.found && fa.mine * fb.theirs != fb.mine * fa.theirs);
      shares_changed += moved;
      rows.back()["long_run"].push_back({{"process", fa.name},
                                         {"before", fa.found ? nlohmann::json(double(fa.mine) / double(fa.theirs)) : nlohmann::json()},
                                         {"after", fb.found ? nlohmann::json(double(fb.mine) / double(fb.theirs)) : nlohmann::json()},
                                         {"changed", moved}});
      if (!fa.within.empty()) rows.back()["long_run"].back()["within"] = fa.within;
      if (!as_json)
        std::cout << fmt::format("  {:<22} {:<11} {:<11} {}{}\n", "  long run: " + fa.name, share(fa), share(fb),
                                 moved ? fmt::format("CHANGED ({} -> {} sectors against {})", sectors(fa),
                                                     sectors(fb), fa.other)
                                       : "",
                                 fa.within.empty() ? "" : fmt::format("{}({})", moved ? " " : "", fa.within));
    }
  }
  if (as_json) {
    nlohmann::json j{{"model", a.model},
                     {"params", a.params},
                     {"before", a.variant},
                     {"after", b.variant},
                     {"properties", rows},
                     {"changed", changed},
                     {"values_changed", values_changed},
                     {"long_run_changed", shares_changed},
                     {"regressions", regressions},
                     {"undecided", undecided}};
    for (const auto& [k, v] : extra) j[k] = v;
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << fmt::format(
        "  {} verdict(s) changed{}{}{} ({} states before, {} after)\n", changed,
        values_changed ? fmt::format(", {} maximum(s) changed", values_changed) : std::string(),
        shares_changed ? fmt::format(", {} long-run share(s) changed", shares_changed) : std::string(),
        undecided ? fmt::format(", {} undecided (a search stopped at a limit)", undecided) : std::string(),
        a.stats.states, b.stats.states);
    for (const auto& [k, v] : extra)
      if (v.is_string()) std::cout << "  " << v.get<std::string>() << '\n';
  }
  // A regression is an answer; otherwise a property left open makes the
  // comparison incomplete.
  return regressions ? kExitViolated : undecided ? kExitIncomplete : kExitHolds;
}

int run_compare_kernels(const std::string& model, const KernelArgs& before, const KernelArgs& after,
                        const std::vector<std::string>& params, const std::vector<std::string>& props,
                        double seconds, std::uint64_t max_states, const std::string& trace_out, bool as_json) {
  if (!before.given() || !after.given())
    throw UsageError("compare: the code before (--kernel or --source) and after (--after-kernel or --after-source)");
  if (!after.version.empty()) throw UsageError("compare: --kernel-version is for the --source before the patch");
  const KernelChoice ka = choose_kernel(model, before), kb = choose_kernel(model, after);
  if (ka.variant == kb.variant)
    throw UsageError(fmt::format("compare: before and after are the same code ({})", ka.variant));
  SearchOptions opt;
  opt.bfs = true;
  opt.threads = default_threads();
  opt.progress = false;
  opt.limits.seconds = seconds;
  opt.limits.max_states = max_states;
  opt.limits.memory_bytes = default_memory_limit();
  opt.reduce = ReduceOptions::all();
  const Params p = resolve_params(ka.model->info(), params);
  const CheckOutcome a = ka.model->check(ka.variant, p, props, opt);
  const CheckOutcome b = kb.model->check(kb.variant, p, props, opt);
  // Where the two first dispatch differently: both sources explored together.
  const ModelHandle& pm = pair_model(model);
  std::vector<std::string> pp = params;
  pp.push_back("before=" + ka.variant);
  const CheckOutcome d = pm.check(kb.variant, resolve_params(pm.info(), pp), {"conforms"}, opt);
  std::vector<std::pair<std::string, nlohmann::json>> extra;
  const auto& c = d.props.at(0);
  if (c.verdict == Verdict::Holds) {
    extra.push_back({"divergence", fmt::format("the two sources dispatch alike on every interleaving ({} states)",
                                               d.stats.states)});
  } else if (c.trace) {
    std::string line = fmt::format("first divergence after {} steps: {}", c.trace->steps.size() - 1,
                                   c.trace->steps.back().text);
    if (!trace_out.empty()) {
      const std::string path = trace_out + "-divergence.json";
      write_trace_file(*c.trace, path);
      line += " (trace: " + path + ")";
    }
    extra.push_back({"divergence", line});
  } else {
    extra.push_back({"divergence", fmt::format("undecided: the joint search stopped at a limit ({} states)",
                                               d.stats.states)});
  }
  return print_comparison(a, b, trace_out, as_json, extra);
}

}  // namespace blkmc
