#include "cli/suite.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/options.hpp"
#include "cli/prove.hpp"
#include "common/errors.hpp"
#include "explorer/limits.hpp"
#include "app/kernel_select.hpp"
#include "app/report.hpp"
#include "app/registry.hpp"
#include "model/sched/kernel/kernel_source.hpp"
#include "counterexamples/trace.hpp"
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

// One BFS run: a model, variant and parameters, and what it must find.
struct Group {
  std::string model, variant, display;  // display: the non-default parameters
  Params params;
  std::vector<Expect> expects;
  // Rows on the kernel's own code (VARIANT @WHERE, conform rows): the
  // model that runs it, and why the row is skipped ("": it runs).
  const ModelHandle* handle = nullptr;
  std::string skip;
  std::string shown;  // the variant as the row wrote it (@WHERE)
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
  std::string model, variant, display, run, figure;
  Params params;
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
    if (!kind_info(info.props[std::size_t(spec.index)].kind).measured || spec.bound)
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


// `diff MODEL FROM TO FUNCTION equivalent|differ|differ:N`
struct DiffRow {
  std::string model, from, to, function;
  bool equivalent;
  int classes;  // differ:N; -1 when not given
  int line;
};

// `prove MODEL VARIANT PARAMS PROPERTY proved|violated|incomplete`
struct ProveRow {
  ProveRequest req;
  std::string display, expected;
  int line;
};

// A parsed suite: the runs with their expectations, and the same
// expectations as canonical one-per-line rows (--expand).
struct Suite {
  std::vector<Group> groups;
  std::vector<SimRow> sims;
  std::vector<DiffRow> diffs;
  std::vector<ProveRow> proofs;
  std::vector<std::pair<std::string, int>> replays;
  std::vector<std::string> replay_files;  // the suite file of each replay row
  std::vector<std::string> expanded;
  std::vector<std::string> skipped;  // rows on kernel code that is not here, with why
  std::set<std::string> only;         // --only: the row kinds to run (empty: all)
  int lines = 0, files = 0, not_run = 0;
};

// A row as written: KIND, the words that name the run, then the words
// after it (KEY EXPECTED pairs, or replay's files), each with its line.
struct RawRow {
  std::string kind;
  std::vector<std::string> run;
  std::vector<std::pair<std::string, int>> rest;
  int line = 0;
};

// How many words after KIND name the run; -1 for an unknown KIND.
int run_words(const std::string& kind) {
  if (kind == "check" || kind == "prove" || kind == "diff") return 3;
  if (kind == "simulate" || kind == "conform") return 4;
  if (kind == "replay") return 0;
  return -1;
}

const char* const kGrammar =
    "expected 'check MODEL VARIANT|@CODE PARAMS PROPERTY EXPECTED...', 'conform MODEL VARIANT @CODE PARAMS "
    "PROPERTY EXPECTED...', 'simulate MODEL VARIANT PARAMS RUN FIGURE VALUE...', 'diff MODEL FROM TO FUNCTION "
    "equivalent|differ[:N]...', 'prove MODEL VARIANT PARAMS PROPERTY proved|violated|incomplete...' or 'replay "
    "FILE...'";

// VARIANT @CODE: the kernel's own code (a tree, a linux-source tarball,
// debian:X.Y or a .c file), compiled once the row is read. A Debian
// package that is not installed skips the row (skip says why).
struct CodeRef {
  const ModelHandle* model = nullptr;
  std::string variant, skip;
};
CodeRef code_ref(const std::string& model, const std::string& code, KernelUse use) {
  const std::string where = code.substr(1);
  if (where.rfind("debian:", 0) == 0 && !kernel::debian_installed(where))
    return {nullptr, "", fmt::format("skipped: linux-source-{} is not installed", where.substr(7))};
  KernelArgs k;
  (where.size() > 2 && where.compare(where.size() - 2, 2, ".c") == 0 ? k.source : k.kernel) = where;
  const KernelChoice kc = choose_kernel(model, k, use);
  return {kc.model, kc.variant, ""};
}

// Runs f; a UsageError it throws comes back prefixed with FILE:LINE.
template <class F>
decltype(auto) at(const std::string& file, int line, F&& f) {
  try {
    return f();
  } catch (const UsageError& e) {
    const std::string pre = fmt::format("{}:{}: ", file, line);
    const std::string msg = e.what();
    if (msg.rfind(pre, 0) == 0) throw;
    throw UsageError(pre + msg);
  }
}

// Every parameter, in the model's order, as integers (the canonical form).
std::string canonical_params(const std::vector<ParamInfo>& infos, const Params& p) {
  std::vector<std::string> parts;
  for (const auto& pi : infos) parts.push_back(fmt::format("{}={}", pi.name, p.at(pi.name)));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ","));
}

// Only the parameters that differ from the defaults, values by name.
std::string display_params(const std::vector<ParamInfo>& infos, const Params& p) {
  std::vector<std::string> parts;
  for (const auto& pi : infos)
    if (p.at(pi.name) != pi.def)
      parts.push_back(fmt::format("{}={}", pi.name, param_value_name(pi, p.at(pi.name))));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ","));
}

Params params_of(const ModelInfo& info, const std::string& text) {
  return resolve_params(info, text == "-" ? std::vector<std::string>{} : split(text, ','));
}

std::string figure_text(double v) { return fmt::format("{}", v); }

void add_row(Suite& s, const RawRow& r, const std::string& name, double seconds,
             const ModelLookup& lookup) {
  const int n = r.kind == "replay" ? 1 : 2;
  if (r.rest.empty())
    throw UsageError(fmt::format("{}:{}: a {} row needs at least one {}", name, r.line, r.kind,
                                 r.kind == "replay" ? "FILE" : "KEY EXPECTED pair"));
  if (r.rest.size() % std::size_t(n) != 0)
    throw UsageError(fmt::format("{}:{}: '{}' has no EXPECTED after it", name,
                                 r.rest.back().second, r.rest.back().first));
  if (!s.only.empty() && !s.only.count(r.kind)) {
    s.not_run += int(r.rest.size()) / n;
    return;
  }
  if (r.kind == "replay") {
    for (const auto& [file, ln] : r.rest) {
      s.replays.emplace_back(file, ln);
      s.replay_files.push_back(name);
      s.expanded.push_back("replay " + file);
    }
    return;
  }
  const std::string& model = r.run[0];
  if (r.kind == "check" || r.kind == "conform") {
    // conform MODEL VARIANT @CODE PARAMS: the conform model, hand=VARIANT.
    const bool conform = r.kind == "conform";
    const std::string& shown = conform ? r.run[2] : r.run[1];
    const std::string& ptext = conform ? r.run[3] : r.run[2];
    if (conform && shown.rfind("@", 0) != 0)
      throw UsageError(fmt::format("{}:{}: a conform row names the kernel's code as @CODE after the variant", name,
                                   r.line));
    CodeRef code;
    if (shown.rfind("@", 0) == 0)
      code = at(name, r.line, [&] { return code_ref(model, shown, conform ? KernelUse::Conform : KernelUse::Check); });
    if (!code.skip.empty()) {
      for (std::size_t i = 0; i < r.rest.size(); i += 2) s.skipped.push_back(fmt::format("{}:{}: {} {} {} {} {}",
          name, r.rest[i].second, r.kind, model, conform ? r.run[1] + " " + shown : shown, r.rest[i].first, code.skip));
      return;
    }
    const ModelHandle& mh =
        code.model ? *code.model : *at(name, r.line, [&]() { return &lookup(model); });
    const ModelInfo& info = mh.info();
    const std::string variant = code.model ? code.variant : r.run[1];
    std::string text = ptext;
    if (conform) text = (text == "-" ? "" : text + ",") + "hand=" + r.run[1];
    const Params p = at(name, r.line, [&] { return params_of(info, text); });
    if (!info.variants.empty()) at(name, r.line, [&] { return find_variant_index(info, variant); });
    Group* g = nullptr;
    for (auto& x : s.groups)
      if (x.model == model && x.variant == variant && x.params == p && x.handle == code.model) g = &x;
    if (!g) {
      s.groups.push_back({model, variant, display_params(info.params, p), p, {}, code.model, "", shown});
      g = &s.groups.back();
    }
    for (std::size_t i = 0; i < r.rest.size(); i += 2) {
      const auto& [prop, ln] = r.rest[i];
      const std::string& etext = r.rest[i + 1].first;
      g->expects.push_back(at(name, ln, [&] {
        return parse_expect([&](const std::string&) -> const ModelHandle& { return mh; }, name, ln, model, prop,
                            etext);
      }));
      s.expanded.push_back(conform ? fmt::format("conform {} {} {} {} {} {}", model, r.run[1], shown,
                                                 canonical_params(info.params, p), prop, etext)
                                   : fmt::format("check {} {} {} {} {}", model, shown,
                                                 canonical_params(info.params, p), prop, etext));
    }
  } else if (r.kind == "simulate") {
    const ModelInfo& info =
        at(name, r.line, [&]() -> const ModelInfo& { return lookup(model).info(); });
    const Params p = at(name, r.line, [&] { return params_of(info, r.run[2]); });
    if (!info.variants.empty()) at(name, r.line, [&] { return find_variant_index(info, r.run[1]); });
    parse_run(name, r.line, r.run[3]);
    for (std::size_t i = 0; i < r.rest.size(); i += 2) {
      const auto& [figure, ln] = r.rest[i];
      const std::string& text = r.rest[i + 1].first;
      double v = 0;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size())
        throw UsageError(fmt::format("{}:{}: expected figure '{}' is not a number", name, ln, text));
      s.sims.push_back({model, r.run[1], display_params(info.params, p), r.run[3], figure, p, v, ln});
      s.expanded.push_back(fmt::format("simulate {} {} {} {} {} {}", model, r.run[1],
                                       canonical_params(info.params, p), r.run[3], figure,
                                       figure_text(v)));
    }
  } else if (r.kind == "diff") {
    // an unknown model fails before anything runs
    at(name, r.line, [&] { return decision_functions(model).size(); });
    for (std::size_t i = 0; i < r.rest.size(); i += 2) {
      const auto& [function, ln] = r.rest[i];
      const std::string& text = r.rest[i + 1].first;
      int classes = -1;
      if (text.rfind("differ:", 0) == 0) {
        const std::string k = text.substr(7);
        const auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), classes);
        if (ec != std::errc() || ptr != k.data() + k.size() || classes < 1) classes = -2;
      }
      if (text != "equivalent" && text != "differ" && classes < 0)
        throw UsageError(fmt::format(
            "{}:{}: diff rows expect 'equivalent', 'differ' or 'differ:N', not '{}'", name, ln,
            text));
      // an unknown function or variant is a usage error before any row runs,
      // as in a check row
      at(name, ln, [&] {
        const DecisionFn* fn = nullptr;
        for (const auto& f : decision_functions(model))
          if (f.name == function) fn = &f;
        if (!fn) throw UsageError(fmt::format("no decision function '{}' for {}", function, model));
        for (const std::string& v : {r.run[1], r.run[2]})
          if (std::find(fn->variants.begin(), fn->variants.end(), v) == fn->variants.end())
            throw UsageError(fmt::format("{} has no variant '{}' (valid: {})", function, v, fmt::join(fn->variants, ", ")));
        return 0;
      });
      s.diffs.push_back({model, r.run[1], r.run[2], function, text == "equivalent", classes, ln});
      s.expanded.push_back(
          fmt::format("diff {} {} {} {} {}", model, r.run[1], r.run[2], function, text));
    }
  } else {  // prove
    ModelInfo pinfo;
    pinfo.name = model;
    pinfo.params = at(name, r.line, [&] { return prove_params(model); });
    const Params p = at(name, r.line, [&] { return params_of(pinfo, r.run[2]); });
    const ModelInfo& minfo = at(name, r.line, [&]() -> const ModelInfo& { return lookup(model).info(); });
    at(name, r.line, [&] { return find_variant_index(minfo, r.run[1]); });
    for (std::size_t i = 0; i < r.rest.size(); i += 2) {
      const auto& [prop, ln] = r.rest[i];
      const std::string& text = r.rest[i + 1].first;
      at(name, ln, [&] {
        const int k = find_prop(minfo, prop);
        if (minfo.props[std::size_t(k)].kind != PropKind::Invariant)
          throw UsageError(fmt::format("prove: {} is not an invariant property", prop));
        return k;
      });
      if (text != "proved" && text != "violated" && text != "incomplete")
        throw UsageError(fmt::format(
            "{}:{}: prove rows expect 'proved', 'violated' or 'incomplete', not '{}'", name, ln,
            text));
      ProveRequest req;
      req.model = model;
      req.variant = r.run[1];
      const std::string canon = canonical_params(pinfo.params, p);
      if (canon != "-") req.params = split(canon, ',');
      req.props = {prop};
      req.seconds = seconds;
      s.proofs.push_back({req, display_params(pinfo.params, p), text, ln});
      s.expanded.push_back(fmt::format("prove {} {} {} {} {}", model, r.run[1], canon, prop, text));
    }
  }
}

// Reads one suite text into s (see cli/suite.hpp for the grammar).
void parse_suite(Suite& s, std::istream& in, const std::string& name, double seconds,
                 const ModelLookup& lookup) {
  ++s.files;
  std::optional<RawRow> row;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ls(line);
    std::vector<std::string> w;
    for (std::string x; ls >> x;) w.push_back(x);
    if (w.empty()) continue;
    ++s.lines;
    if (line[0] == ' ' || line[0] == '\t') {  // a continuation line
      if (!row)
        throw UsageError(
            fmt::format("{}:{}: an indented line continues a row, but no row precedes it", name,
                        lineno));
      for (auto& x : w) row->rest.emplace_back(std::move(x), lineno);
      continue;
    }
    if (row) add_row(s, *row, name, seconds, lookup);
    row.reset();
    const int words = run_words(w[0]);
    if (words < 0 || w.size() < std::size_t(words) + 1)
      throw UsageError(fmt::format("{}:{}: {}", name, lineno, kGrammar));
    row = RawRow{w[0], {w.begin() + 1, w.begin() + 1 + words}, {}, lineno};
    for (std::size_t i = std::size_t(words) + 1; i < w.size(); ++i)
      row->rest.emplace_back(w[i], lineno);
  }
  if (row) add_row(s, *row, name, seconds, lookup);
}

int run_parsed(const Suite& s, const std::string& name, double seconds_per_run, bool markdown,
               const ModelLookup& lookup, const SuiteSearch& how) {
  const SuiteReduce reduce = how.reduce;
  // Rows first, then the table, so columns fit the longest names.
  struct Row {
    std::string model, variant, params, prop, expected, found, states, seconds, steps;
    bool ok;
    bool cut = false;  // not as expected because Ctrl-C cut the run short
  };
  // A trace a replay row cannot read is a usage error before any row runs,
  // as a bad check row is (read where the rows run, not for --expand).
  for (std::size_t i = 0; i < s.replays.size(); ++i)
    at(s.replay_files[i], s.replays[i].second, [&] { return read_trace_file(s.replays[i].first).steps.size(); });
  std::vector<Row> table;
  int failures = 0, rows = 0, spread_runs = 0, cut = 0, not_run = 0;
  // A row that is not as expected after an interrupt was cut short: it
  // says so and is no failure; rows not started are counted, not run.
  auto settle = [&](bool ok) {
    if (!ok && g_interrupted) {
      ++cut;
      return true;
    }
    failures += !ok;
    return false;
  };
  auto mark = [](bool ok, bool was_cut) { return ok ? "ok" : was_cut ? "interrupted" : "MISMATCH"; };
  for (const Group& g : s.groups) {
    if (g_interrupted) {
      not_run += int(g.expects.size());
      continue;
    }
    std::vector<std::string> props;
    for (const auto& e : g.expects) props.push_back(e.prop);
    SearchOptions opt;
    opt.bfs = true;
    opt.limits.seconds = seconds_per_run;
    opt.progress = false;
    opt.limits.memory_bytes = default_memory_limit();
    opt.reduce = reduce == SuiteReduce::Off ? ReduceOptions::none() : ReduceOptions::all();
    opt.threads = how.threads;
    CheckOutcome o;
    std::string threads_differ;  // compare threads: one thread finds exactly the same
    std::string ranks_differ;    // under mpirun: one process finds exactly the same
    std::optional<CheckOutcome> full;
    try {
      const ModelHandle& mh = g.handle ? *g.handle : lookup(g.model);
      if (how.cluster) {
        SearchOptions ranks = opt;
        ranks.cluster = how.cluster;
        o = mh.check(g.variant, g.params, props, ranks);
        // The same search in one process (path measures run in one process only).
        SearchOptions one = opt;
        one.reduce.lift = false;
        ranks_differ = search_difference(mh.check(g.variant, g.params, props, one), o);
        ++spread_runs;
      } else {
        o = mh.check(g.variant, g.params, props, opt);
      }
      if (how.compare_threads) {
        SearchOptions one = opt;
        one.threads = 1;
        threads_differ = search_difference(mh.check(g.variant, g.params, props, one), o);
      }
      if (reduce == SuiteReduce::Compare) {
        opt.reduce = ReduceOptions::none();
        full = mh.check(g.variant, g.params, props, opt);
      }
    } catch (const std::exception& ex) {
      // A run that cannot be made fails its rows, as in the other row
      // kinds; the rows already run keep their results.
      for (const Expect& e : g.expects) {
        table.push_back({g.model, g.shown, g.display, e.prop,
                         e.value ? std::to_string(*e.value) : to_string(e.verdict), ex.what(), "-", "-",
                         "-", false, settle(false)});
        ++rows;
      }
      continue;
    }
    for (std::size_t i = 0; i < g.expects.size(); ++i) {
      const Expect& e = g.expects[i];
      const auto& pr = o.props[i];
      // Compare: the unreduced search finds the same.
      const bool same = !full || (full->props[i].verdict == pr.verdict &&
                                  full->props[i].value == pr.value &&
                                  full->props[i].value_exact == pr.value_exact);
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
      if (!threads_differ.empty()) {
        ok = false;
        found += fmt::format(" (one thread: {})", threads_differ);
      }
      if (!ranks_differ.empty()) {
        ok = false;
        found += fmt::format(" (one process: {})", ranks_differ);
      }
      if (!same) {
        ok = false;
        found += fmt::format(" (unreduced: {})", full->props[i].value
                                                     ? std::to_string(*full->props[i].value)
                                                     : to_string(full->props[i].verdict));
      }
      const bool was_cut = settle(ok);
      ++rows;
      const auto& tr = pr.trace;
      table.push_back({g.model, g.shown, g.display, e.prop, expected, found,
                       full ? fmt::format("{}/{}", o.stats.states, full->stats.states)
                            : std::to_string(o.stats.states),
                       fmt::format("{:.3f}", o.stats.seconds),
                       tr ? std::to_string(tr->steps.size()) : "-", ok, was_cut});
    }
  }
  if (markdown) {
    std::cout << "| model | variant | params | property | verdict | states | seconds | trace steps |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : table)
      std::cout << fmt::format("| {} | {} | {} | {} | {}{} | {} | {} | {} |\n", r.model, r.variant,
                               r.params, r.prop, r.found, r.ok ? "" : r.cut ? " (interrupted)" : " (MISMATCH)", r.states,
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
    for (const Row& r : table) std::cout << row(r, mark(r.ok, r.cut));
  }
  // Simulation figures: one run per model/variant/params/run.
  std::map<std::string, SimOutcome> runs;
  for (const SimRow& r : s.sims) {
    if (g_interrupted) {
      ++not_run;
      continue;
    }
    ++rows;
    const std::string key =
        r.model + " " + r.variant + " " + params_string(r.params) + " " + r.run;
    std::string found;
    bool ok = false;
    try {
      auto it = runs.find(key);
      if (it == runs.end()) {
        const ModelHandle& mh = lookup(r.model);
        it = runs.emplace(key, mh.simulate(r.variant, r.params, parse_run(name, r.line, r.run)))
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
    const bool was_cut = settle(ok);
    if (!markdown)
      std::cout << fmt::format("simulate {} {} {} {} {:<24} expected {:<8} found {:<8}  {}\n",
                               r.model, r.variant, r.display, r.run, r.figure,
                               number_text(r.expected), found, mark(ok, was_cut));
  }
  // Symbolic comparisons of decision functions (Z3).
  for (const DiffRow& d : s.diffs) {
    if (g_interrupted) {
      ++not_run;
      continue;
    }
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
    const bool was_cut = settle(ok);
    if (!markdown)
      std::cout << fmt::format("diff {} {} {} {:<10} expected {:<10} found {:<18} {:.3f} s  {}\n",
                               d.model, d.from, d.to, d.function,
                               d.equivalent          ? std::string("equivalent")
                               : d.classes > 0       ? fmt::format("differ:{}", d.classes)
                                                     : std::string("differ"),
                               found, secs,
                               mark(ok, was_cut));
  }
  // k-induction proofs (Z3).
  for (const ProveRow& pr : s.proofs) {
    if (g_interrupted) {
      ++not_run;
      continue;
    }
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
    const bool was_cut = settle(ok);
    if (!markdown)
      std::cout << fmt::format("prove {} {} {} {:<18} expected {:<10} found {:<16} {:.3f} s  {}\n",
                               pr.req.model, pr.req.variant, pr.display,
                               pr.req.props[0], pr.expected, found, secs, mark(ok, was_cut));
  }
  for (const auto& [file, ln] : s.replays) {
    if (g_interrupted) {
      ++not_run;
      continue;
    }
    ++rows;
    std::string found;
    bool ok = false;
    try {
      Trace t = read_trace_file(file);
      const ModelHandle& mh = t.source.is_null() ? lookup(t.model) : model_for_trace(t, {});
      fix_trace_sources(t);
      const ReplayResult r = mh.replay(t);
      ok = r.reproduced;
      found = r.reproduced ? fmt::format("reproduces {} ({} steps)", t.property, t.steps.size())
                           : "does not reproduce";
    } catch (const std::exception& ex) {
      found = ex.what();
    }
    const bool was_cut = settle(ok);
    if (!markdown)
      std::cout << fmt::format("replay {:<60} {}  {}\n", file, found, mark(ok, was_cut));
  }
  for (const auto& sk : s.skipped) std::cout << sk << '\n';
  std::cout << fmt::format("\n{}: {} rows, {} passed, {} failed{}{}{} ({} lines in {} file{})\n", name,
                           rows, rows - failures - cut, failures,
                           g_interrupted ? fmt::format(", interrupted: {} cut short, {} not run", cut, not_run)
                                         : std::string(),
                           s.skipped.empty() ? std::string() : fmt::format(", {} skipped", s.skipped.size()),
                           s.not_run ? fmt::format(", {} of other kinds not run (--only)", s.not_run)
                                     : std::string(),
                           s.lines, s.files, s.files == 1 ? "" : "s");
  if (how.cluster)
    std::cout << fmt::format("{} check runs searched over {} ranks and again in one process\n", spread_runs,
                             how.cluster->size());
  if (g_interrupted) return kExitIncomplete;  // the rows finished before it stand above
  return failures ? 1 : 0;
}

}  // namespace

// A suite without a single row checks nothing: that is an error, not a pass.
static void require_rows(const Suite& s, const std::string& name) {
  if (s.groups.empty() && s.sims.empty() && s.diffs.empty() && s.proofs.empty() && s.replays.empty())
    throw UsageError(fmt::format("{}: no rows{} (a suite that checks nothing does not pass)", name,
                                 s.only.empty() ? "" : " of the kinds --only names"));
}

int run_suite(std::istream& in, const std::string& name, double seconds_per_run, bool markdown,
              const ModelLookup& lookup, const SuiteSearch& how) {
  Suite s;
  s.only = how.only;
  parse_suite(s, in, name, seconds_per_run, lookup);
  require_rows(s, name);
  return run_parsed(s, name, seconds_per_run, markdown, lookup, how);
}

std::vector<std::string> suite_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".suite" && it->is_regular_file(ec))
          found.push_back(it->path().generic_string());
      if (ec) throw UsageError(fmt::format("cannot read directory '{}': {}", p, ec.message()));
      if (found.empty()) throw UsageError(fmt::format("no *.suite files under '{}'", p));
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

int run_suite_files(const std::vector<std::string>& paths, double seconds_per_run, bool markdown,
                    bool expand, const ModelLookup& lookup, const SuiteSearch& how) {
  Suite s;
  s.only = how.only;
  for (const auto& file : suite_files(paths)) {
    if (file == "-") {
      parse_suite(s, std::cin, "suite", seconds_per_run, lookup);
      continue;
    }
    std::ifstream in(file);
    if (!in) throw UsageError(fmt::format("cannot open suite file '{}'", file));
    parse_suite(s, in, file, seconds_per_run, lookup);
  }
  if (expand) {
    for (const auto& row : s.expanded) std::cout << row << '\n';
    return 0;
  }
  const std::string name = paths.size() == 1 && paths[0] == "-"
                               ? std::string("suite")
                               : fmt::format("{}", fmt::join(paths, " "));
  require_rows(s, name);
  return run_parsed(s, name, seconds_per_run, markdown, lookup, how);
}

CLI::App* add_suite_command(CLI::App& app, SuiteArgs& a) {
  auto* suite = app.add_subcommand(
      "suite",
      "run verification suites: rows 'check MODEL VARIANT PARAMS PROPERTY EXPECTED...', "
      "'simulate MODEL VARIANT PARAMS RUN FIGURE VALUE...', 'prove MODEL VARIANT PARAMS "
      "PROPERTY VERDICT...', 'diff MODEL FROM TO FUNCTION EXPECTED...', 'replay FILE...' "
      "(PARAMS: - or the non-default k=v,k=v; an indented line continues a row; see "
      "cli/suite.hpp); `blkmc suite model/` runs the shipped suite");
  suite->add_option("paths", a.paths, "suite files, directories (every *.suite below, sorted) or - for stdin")
      ->required();
  suite->add_option("--time", a.seconds, "time limit per run, seconds")->check(finite_range(0.001, 1e7));
  suite->add_flag("--no-reduce", a.no_reduce, "search every row without reductions");
  suite->add_flag("--compare-reductions", a.compare_reductions,
                  "search every row with and without reductions; a row also fails when they differ");
  suite->add_option("--threads", a.threads, "workers of each search (default: every core)")
      ->check(CLI::Range(1u, 1024u));
  suite->add_flag("--compare-threads", a.compare_threads,
                  "search every check row again on one thread; a row also fails when states, "
                  "transitions, verdicts, maxima or traces differ");
  suite->add_option("--only", a.only,
                    "run only the rows of these kinds (check, conform, simulate, prove, diff, replay; "
                    "comma-separated); the others are counted as not run")
      ->delimiter(',')
      ->check(CLI::IsMember({"check", "conform", "simulate", "prove", "diff", "replay"}));
  suite->add_flag("--markdown", a.markdown, "print the verdict table as Markdown");
  suite->add_flag("--expand", a.expand,
                  "run nothing; print every expectation as a canonical one-per-line row (all "
                  "parameters, as integers)");
  return suite;
}

int run_suite(const SuiteArgs& a, Cluster* cluster) {
  if (a.no_reduce && a.compare_reductions) throw UsageError("--no-reduce and --compare-reductions exclude each other");
  SuiteSearch how;
  how.reduce = a.no_reduce ? SuiteReduce::Off : a.compare_reductions ? SuiteReduce::Compare : SuiteReduce::On;
  how.threads = a.threads ? a.threads : default_threads();
  how.compare_threads = a.compare_threads;
  how.cluster = cluster;
  how.only.insert(a.only.begin(), a.only.end());
  return run_suite_files(a.paths, a.seconds, a.markdown, a.expand, ModelLookup(find_model), how);
}

}  // namespace blkmc
