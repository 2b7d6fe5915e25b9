#include "cli/suite.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/prove.hpp"
#include "app/report.hpp"
#include "app/registry.hpp"
#include "props/diff.hpp"
#include "app/registry.hpp"
#include "props/diff.hpp"

namespace blkmc {

namespace {

// A row expects a verdict or, for a maximize property without a bound, its
// maximum (the row passes when the search completes with exactly that).
struct Expect {
  std::string prop;
  Verdict verdict;
  std::optional<int> value;
  int line;
};

struct Group {
  std::string model, variant, params;
  std::vector<Expect> expects;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

// `simulate MODEL VARIANT PARAMS RUN FIGURE EXPECTED`: one seeded run (RUN:
// ticks=N,steps=N,seed=N or first, comma-separated) and one of its figures.
struct SimRow {
  std::string model, variant, params, run, figure;
  double expected;
  int line;
};

SimOptions parse_run(const std::string& name, int lineno, const std::string& run) {
  SimOptions o;
  o.progress = false;
  o.max_steps = 1000000;
  for (const auto& kv : split(run, ',')) {
    if (kv == "first") {
      o.random = false;
      continue;
    }
    const auto eq = kv.find('=');
    std::uint64_t v = 0;
    const std::string val = eq == std::string::npos ? "" : kv.substr(eq + 1);
    const auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    const std::string key = kv.substr(0, eq);
    if (eq == std::string::npos || ec != std::errc() || ptr != val.data() + val.size() ||
        (key != "seed" && v == 0))
      throw UsageError(fmt::format("{}:{}: RUN '{}': expected ticks=N, steps=N, seed=N or first",
                                   name, lineno, kv));
    if (key == "ticks") o.max_ticks = v;
    else if (key == "steps") o.max_steps = v;
    else if (key == "seed") o.seed = v;
    else
      throw UsageError(fmt::format("{}:{}: RUN '{}': expected ticks=N, steps=N, seed=N or first",
                                   name, lineno, kv));
  }
  return o;
}

// FIGURE: a top-level figure (per_1000, completed, seek_distance, ...),
// latency.P, or PROCESS.FIELD (PROCESS.latency.P) of the named process.
std::optional<double> figure_value(const nlohmann::json& f, const std::string& figure) {
  const nlohmann::json* at = &f;
  for (const auto& part : split(figure, '.')) {
    if (at->is_object() && at->contains(part)) {
      at = &(*at)[part];
      continue;
    }
    const nlohmann::json* proc = nullptr;
    if (at == &f && f.contains("processes"))
      for (const auto& p : f["processes"])
        if (p.value("name", "") == part) proc = &p;
    if (!proc) return std::nullopt;
    at = proc;
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

std::string number_text(double v) {
  return v == static_cast<double>(static_cast<long long>(v)) ? fmt::format("{}", static_cast<long long>(v))
                                                            : fmt::format("{:.1f}", v);
}

// EXPECTED: a verdict, or a maximum (a decimal integer) for a maximize
// property without a bound.
Expect parse_expect(const ModelLookup& lookup, const std::string& name, int lineno,
                    const std::string& model, const std::string& prop, const std::string& text) {
  const ModelInfo& info = lookup(model).info();
  const PropSpec spec = parse_prop_spec(info, prop);
  if (!text.empty() && text[0] >= '0' && text[0] <= '9') {
    int v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size())
      throw UsageError(fmt::format("{}:{}: expected value '{}' is not an integer in 0..2147483647",
                                   name, lineno, text));
    if (info.props[std::size_t(spec.index)].kind != PropKind::Maximize || spec.bound)
      throw UsageError(
          fmt::format("{}:{}: an integer EXPECTED needs a maximize property without "
                      "a bound ({} takes holds, violated or incomplete)",
                      name, lineno, prop));
    return {prop, Verdict::Holds, v, lineno};
  }
  Verdict verdict = Verdict::Holds;
  try {
    verdict = parse_verdict(text);
  } catch (const UsageError&) {
    throw UsageError(
        fmt::format("{}:{}: unknown EXPECTED '{}' (valid: holds, violated, "
                    "incomplete, or the maximum of a maximize property)",
                    name, lineno, text));
  }
  return {prop, verdict, std::nullopt, lineno};
}

}  // namespace

int run_suite(std::istream& in, const std::string& name, double seconds_per_run, bool markdown,
              const ModelLookup& lookup) {
  std::vector<Group> groups;
  std::vector<SimRow> sims;
  struct DiffRow {
    std::string model, from, to, function;
    bool equivalent;
    int classes;  // differ:N; -1 when not given
    int line;
  };
  std::vector<DiffRow> diffs;
  // `prove MODEL VARIANT PARAMS PROPERTY proved|violated|incomplete`
  struct ProveRow {
    ProveRequest req;
    std::string expected;
    int line;
  };
  std::vector<ProveRow> proofs;
  std::vector<std::pair<std::string, int>> replays;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ls(line);
    std::vector<std::string> w;
    for (std::string x; ls >> x;) w.push_back(x);
    if (w.empty()) continue;
    if (w[0] == "replay" && w.size() == 2) {
      replays.emplace_back(w[1], lineno);
    } else if (w[0] == "check" && w.size() == 6) {
      Group* g = nullptr;
      for (auto& x : groups)
        if (x.model == w[1] && x.variant == w[2] && x.params == w[3]) g = &x;
      if (!g) {
        groups.push_back({w[1], w[2], w[3], {}});
        g = &groups.back();
      }
      g->expects.push_back(parse_expect(lookup, name, lineno, w[1], w[4], w[5]));
    } else if (w[0] == "diff" && w.size() == 6) {
      int classes = -1;
      if (w[5].rfind("differ:", 0) == 0) {
        const std::string n = w[5].substr(7);
        const auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), classes);
        if (ec != std::errc() || ptr != n.data() + n.size() || classes < 1)
          classes = -2;
      }
      if (w[5] != "equivalent" && w[5] != "differ" && classes < 0)
        throw UsageError(fmt::format(
            "{}:{}: diff rows expect 'equivalent', 'differ' or 'differ:N', not '{}'", name, lineno,
            w[5]));
      decision_functions(w[1]);  // an unknown model fails before anything runs
      diffs.push_back({w[1], w[2], w[3], w[4], w[5] == "equivalent", classes, lineno});
    } else if (w[0] == "prove" && w.size() == 6) {
      if (w[5] != "proved" && w[5] != "violated" && w[5] != "incomplete")
        throw UsageError(fmt::format(
            "{}:{}: prove rows expect 'proved', 'violated' or 'incomplete', not '{}'", name,
            lineno, w[5]));
      prove_params(w[1]);  // an unknown model fails before anything runs
      ProveRequest req;
      req.model = w[1];
      req.variant = w[2];
      if (w[3] != "-") req.params = split(w[3], ',');
      req.props = {w[4]};
      req.seconds = seconds_per_run;
      proofs.push_back({req, w[5], lineno});
    } else if (w[0] == "simulate" && w.size() == 7) {
      parse_run(name, lineno, w[4]);
      double v = 0;
      const auto [ptr, ec] = std::from_chars(w[6].data(), w[6].data() + w[6].size(), v);
      if (ec != std::errc() || ptr != w[6].data() + w[6].size())
        throw UsageError(fmt::format("{}:{}: expected figure '{}' is not a number", name, lineno, w[6]));
      lookup(w[1]);  // an unknown model fails before anything runs
      sims.push_back({w[1], w[2], w[3], w[4], w[5], v, lineno});
    } else {
      throw UsageError(fmt::format("{}:{}: expected 'check MODEL VARIANT PARAMS PROPERTY "
                                   "VERDICT', 'simulate MODEL VARIANT PARAMS RUN FIGURE VALUE', "
                                   "'diff MODEL FROM TO FUNCTION equivalent|differ', 'prove MODEL VARIANT PARAMS "
                                   "PROPERTY proved|violated|incomplete' or 'replay FILE'",
                                   name, lineno));
    }
  }

  // Rows first, then the table, so columns fit the longest names.
  struct Row {
    std::string model, variant, params, prop, expected, found, states, seconds, steps;
    bool ok;
  };
  std::vector<Row> table;
  int failures = 0, rows = 0;
  for (const Group& g : groups) {
    const ModelHandle& mh = lookup(g.model);
    std::vector<std::string> params = g.params == "-" ? std::vector<std::string>{}
                                                      : split(g.params, ',');
    std::vector<std::string> props;
    for (const auto& e : g.expects) props.push_back(e.prop);
    SearchOptions opt;
    opt.bfs = true;
    opt.limits.seconds = seconds_per_run;
    opt.progress = false;
    opt.limits.memory_bytes = default_memory_limit();
    const CheckOutcome o = mh.check(g.variant, resolve_params(mh.info(), params), props, opt);
    for (std::size_t i = 0; i < g.expects.size(); ++i) {
      const Expect& e = g.expects[i];
      const auto& pr = o.props[i];
      bool ok;
      std::string expected, found;
      if (e.value) {
        ok = pr.value_exact && pr.value == e.value;
        expected = std::to_string(*e.value);
        found = !pr.value        ? to_string(pr.verdict)
                : pr.value_exact ? std::to_string(*pr.value)
                                 : fmt::format(">={} ({})", *pr.value, to_string(pr.verdict));
      } else {
        ok = pr.verdict == e.verdict;
        expected = to_string(e.verdict);
        found = to_string(pr.verdict);
      }
      failures += !ok;
      ++rows;
      const auto& tr = pr.trace;
      table.push_back({g.model, g.variant, g.params, e.prop, expected, found,
                       std::to_string(o.stats.states), fmt::format("{:.3f}", o.stats.seconds),
                       tr ? std::to_string(tr->steps.size()) : "-", ok});
    }
  }
  if (markdown) {
    std::cout << "| model | variant | params | property | verdict | states | seconds | trace steps |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : table)
      std::cout << fmt::format("| {} | {} | {} | {} | {}{} | {} | {} | {} |\n", r.model, r.variant,
                               r.params, r.prop, r.found, r.ok ? "" : " (MISMATCH)", r.states,
                               r.seconds, r.steps);
  } else {
    std::size_t w[4] = {5, 7, 6, 8};
    for (const Row& r : table) {
      w[0] = std::max(w[0], r.model.size());
      w[1] = std::max(w[1], r.variant.size());
      w[2] = std::max(w[2], r.params.size());
      w[3] = std::max(w[3], r.prop.size());
    }
    auto row = [&](const Row& r, const std::string& ok) {
      return fmt::format("{:<{}} {:<{}} {:<{}} {:<{}} {:<10} {:<10} {:>9} {:>8} {:>5}  {}\n",
                         r.model, w[0], r.variant, w[1], r.params, w[2], r.prop, w[3], r.expected,
                         r.found, r.states, r.seconds, r.steps, ok);
    };
    std::cout << row({"model", "variant", "params", "property", "expected", "found", "states",
                       "seconds", "steps", true},
                      "ok");
    for (const Row& r : table) std::cout << row(r, r.ok ? "ok" : "MISMATCH");
  }
  // Simulation figures: one run per model/variant/params/run.
  std::map<std::string, SimOutcome> runs;
  for (const SimRow& r : sims) {
    ++rows;
    const std::string key = r.model + " " + r.variant + " " + r.params + " " + r.run;
    std::string found;
    bool ok = false;
    try {
      auto it = runs.find(key);
      if (it == runs.end()) {
        const ModelHandle& mh = lookup(r.model);
        const std::vector<std::string> params =
            r.params == "-" ? std::vector<std::string>{} : split(r.params, ',');
        it = runs.emplace(key, mh.simulate(r.variant, resolve_params(mh.info(), params),
                                           parse_run(name, r.line, r.run)))
                 .first;
      }
      const auto v = figure_value(it->second.figures, r.figure);
      if (v) {
        found = number_text(*v);
        ok = std::abs(*v - r.expected) < 0.05;
      } else {
        found = "no such figure";
      }
    } catch (const std::exception& ex) {
      found = ex.what();
    }
    failures += !ok;
    if (!markdown)
      std::cout << fmt::format("simulate {} {} {} {} {:<24} expected {:<8} found {:<8}  {}\n",
                               r.model, r.variant, r.params, r.run, r.figure,
                               number_text(r.expected), found, ok ? "ok" : "MISMATCH");
  }
  // Symbolic comparisons of decision functions (Z3).
  for (const DiffRow& d : diffs) {
    ++rows;
    std::string found;
    bool ok = false;
    double secs = 0;
    try {
      const DecisionFn* fn = nullptr;
      for (const auto& f : decision_functions(d.model))
        if (f.name == d.function) fn = &f;
      if (!fn) throw UsageError(fmt::format("no decision function '{}'", d.function));
      auto idx = [&](const std::string& v) {
        for (std::size_t i = 0; i < fn->variants.size(); ++i)
          if (fn->variants[i] == v) return static_cast<int>(i);
        throw UsageError(fmt::format("no variant '{}'", v));
      };
      const DiffResult r = diff_decision(*fn, idx(d.from), idx(d.to));
      secs = r.seconds;
      found = r.equivalent ? "equivalent"
                           : fmt::format("differ:{}{}", r.cubes.size(), r.truncated ? "+" : "");
      ok = r.equivalent == d.equivalent &&
           (d.classes < 0 || (!r.truncated && int(r.cubes.size()) == d.classes));
    } catch (const std::exception& ex) {
      found = ex.what();
    }
    failures += !ok;
    if (!markdown)
      std::cout << fmt::format("diff {} {} {} {:<10} expected {:<10} found {:<18} {:.3f} s  {}\n",
                               d.model, d.from, d.to, d.function,
                               d.equivalent          ? std::string("equivalent")
                               : d.classes > 0       ? fmt::format("differ:{}", d.classes)
                                                     : std::string("differ"),
                               found, secs,
                               ok ? "ok" : "MISMATCH");
  }
  // k-induction proofs (Z3).
  for (const ProveRow& pr : proofs) {
    ++rows;
    std::string found;
    bool ok = false;
    double secs = 0;
    try {
      const auto v = prove(pr.req);
      const auto& r = v.at(0).result;
      secs = r.seconds;
      found = to_string(r.prop.verdict);
      ok = found == pr.expected;
      if (r.prop.verdict != ProofVerdict::Incomplete) found += fmt::format(" (k={})", r.prop.k);
    } catch (const std::exception& ex) {
      found = ex.what();
    }
    failures += !ok;
    if (!markdown)
      std::cout << fmt::format("prove {} {} {} {:<18} expected {:<10} found {:<16} {:.3f} s  {}\n",
                               pr.req.model, pr.req.variant, fmt::join(pr.req.params, ","),
                               pr.req.props[0], pr.expected, found, secs, ok ? "ok" : "MISMATCH");
  }
  for (const auto& [file, ln] : replays) {
    ++rows;
    std::string found;
    bool ok = false;
    try {
      const Trace t = read_trace_file(file);
      const ReplayResult r = lookup(t.model).replay(t);
      ok = r.reproduced;
      found = r.reproduced ? fmt::format("reproduces {} ({} steps)", t.property, t.steps.size())
                           : "does not reproduce";
    } catch (const std::exception& ex) {
      found = ex.what();
    }
    failures += !ok;
    if (!markdown)
      std::cout << fmt::format("replay {:<60} {}  {}\n", file, found, ok ? "ok" : "MISMATCH");
  }
  std::cout << fmt::format("\n{}: {} rows, {} passed, {} failed\n", name, rows, rows - failures,
                           failures);
  return failures ? 1 : 0;
}

}  // namespace blkmc
