#include "app/report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "counterexamples/trace.hpp"

namespace blkmc {

nlohmann::json stats_json(const Stats& s) {
  return {{"states", s.states},
          {"transitions", s.transitions},
          {"max_depth", s.max_depth},
          {"seconds", s.seconds},
          {"states_per_second", s.states_per_second},
          {"bytes_per_state", s.bytes_per_state},
          {"state_bytes", s.state_bytes},
          {"store_bytes", s.store_bytes},
          {"peak_rss_bytes", s.peak_rss_bytes},
          {"reduction", s.reduction},
          {"ample_states", s.ample_states},
          {"full_states", s.full_states},
          {"por_gave_up", s.por_gave_up},
          {"threads", s.threads},
          {"ranks", s.ranks},
          {"store", s.store},
          {"disk_bytes", s.disk_bytes},
          {"omission_probability", s.omission_probability}};
}

nlohmann::json outcome_json(const CheckOutcome& o) {
  nlohmann::json props = nlohmann::json::array();
  for (const auto& p : o.props) {
    nlohmann::json j{{"property", p.name}, {"verdict", to_string(p.verdict)}};
    if (p.value) {
      j["value"] = *p.value;
      j["value_exact"] = p.value_exact;
    }
    if (p.bound) j["bound"] = *p.bound;
    if (p.trace) j["trace_steps"] = p.trace->steps.size();
    if (!p.shares_note.empty()) j["long_run_note"] = p.shares_note;
    for (const ShareFigure& f : p.shares) {
      nlohmann::json s{{"process", f.name}, {"other", f.other}, {"found", f.found}};
      if (!f.within.empty()) s["within"] = f.within;
      if (f.found)
        s.update({{"sectors", f.mine},
                  {"other_sectors", f.theirs},
                  {"share", double(f.mine) / double(f.theirs)},
                  {"prefix_steps", f.prefix},
                  {"cycle_steps", f.steps},
                  {"fair_alone", f.fair_alone}});
      j["long_run"].push_back(s);
    }
    props.push_back(j);
  }
  nlohmann::json j{{"model", o.model},   {"variant", o.variant}, {"params", o.params},
                   {"search", o.search}, {"stop", to_string(o.stop)}, {"properties", props},
                   {"stats", stats_json(o.stats)}};
  if (o.census) {
    nlohmann::json rows = nlohmann::json::array();
    for (const CensusRow& r : o.census->rows)
      rows.push_back({{"variable", r.var}, {"copies", r.copies}, {"tuples", r.tuples}, {"states_without", r.without}});
    j["census"] = {{"states", o.census->states}, {"variables", rows}};
  }
  return j;
}

// The variables that multiply the stored states, largest factor first.
std::string census_text(const Census& c) {
  std::string out = fmt::format("  census of the {} stored states (factor: states / states still distinct without the "
                                "variable; values: the distinct values of its copies together):\n",
                                c.states);
  out += fmt::format("    {:>8} {:>10}  {}\n", "factor", "values", "variable");
  std::size_t flat = 0;
  for (const CensusRow& r : c.rows) {
    if (r.without >= c.states) {
      ++flat;
      continue;
    }
    out += fmt::format("    {:>7.2f}x {:>10}  {}{}\n", double(c.states) / double(std::max<std::uint64_t>(r.without, 1)),
                       r.tuples, r.var, r.copies > 1 ? fmt::format(" ({} copies)", r.copies) : "");
  }
  if (flat) out += fmt::format("    {} more multiply nothing (one value, or set by the others)\n", flat);
  return out;
}

std::string prop_result_text(const CheckOutcome::Prop& p) {
  const std::string steps = p.trace ? fmt::format("{} steps", p.trace->steps.size()) : "";
  if (p.value && !p.bound) {  // a maximize property without a bound
    const std::string trace = p.trace ? "trace " + steps : "no trace";
    if (p.value_exact) return fmt::format("max = {} ({})", *p.value, trace);
    return fmt::format("max at least {} (search incomplete; {})", *p.value, trace);
  }
  std::string out = to_string(p.verdict);
  if (p.value && p.bound) {
    if (p.verdict == Verdict::Violated)
      return out + fmt::format("  ({} > {}; {})", *p.value, *p.bound, steps);
    if (p.value_exact) return out + fmt::format("  (max = {})", *p.value);
    return out + fmt::format("  (max at least {} so far)", *p.value);
  }
  if (p.trace) out += fmt::format("  ({})", steps);
  return out;
}

// A share measure's long-run line (explorer/long_run_share.hpp), after
// its restriction if it has one.
std::string share_text(const ShareFigure& f) {
  const std::string within = f.within.empty() ? "" : f.within + ", ";
  if (!f.found) return fmt::format("{}{}: no weakly fair run serves {} without end", within, f.name, f.other);
  const std::string where =
      fmt::format("a {}-step cycle {} steps in, {}", f.steps, f.prefix,
                  f.fair_alone ? "weakly fair by itself" : "weakly fair only with detours taken ever more rarely");
  if (f.mine == 0)
    return fmt::format("{}{} can be served nothing while {} is served {} sector(s) a round: {}", within, f.name,
                       f.other, f.theirs, where);
  return fmt::format("{}{} is served at least {} sector(s) for every {} of {}'s ({:.2f}): {}", within, f.name, f.mine,
                     f.theirs, f.other, double(f.mine) / double(f.theirs), where);
}

// Bytes per state mean something once the store's first allocation (its
// table and first chunk) is shared by many states; before, its size says more.
constexpr std::uint64_t kStatesForPerState = 100000;

std::string stats_text(const Stats& s) {
  const std::string store =
      s.states >= kStatesForPerState
          ? fmt::format("{:.1f} bytes/state ({} store)", s.bytes_per_state, s.store)
          : fmt::format("{} store of {}", s.store, human_bytes(double(s.store_bytes)));
  return fmt::format(
      "{} states, {} transitions, max depth {}, {:.3f} s, {} states/s, {}{}, peak RSS {}, {} thread{}{}",
      s.states, s.transitions, s.max_depth, s.seconds, human_count(s.states_per_second), store,
      s.disk_bytes ? fmt::format(", disk {} ({:.1f} bytes/state)", human_bytes(double(s.disk_bytes)),
                                 s.states ? double(s.disk_bytes) / double(s.states) : 0.0)
                   : "",
      human_bytes(double(s.peak_rss_bytes)), s.threads, s.threads == 1 ? "" : "s",
      s.ranks > 1 ? fmt::format(" on each of {} ranks (store and RSS: all ranks)", s.ranks) : "");
}

std::string reduction_text(const Stats& s) {
  std::string out = s.reduction;
  if (s.ample_states + s.full_states)
    out += fmt::format(" ({} of {} states with steps of several actors expanded by one actor's{})",
                       s.ample_states, s.ample_states + s.full_states,
                       s.por_gave_up ? "; too few to go on trying" : "");
  return out;
}

std::string params_text(const std::string& model, const Params& p) {
  const auto& all = all_models();
  const auto it = std::find_if(all.begin(), all.end(), [&](const ModelHandle* m) { return m->info().name == model; });
  return it == all.end() ? params_string(p) : params_string((*it)->info(), p);
}

std::string params_text(const CheckOutcome& o) {
  return o.params_shown.empty() ? params_text(o.model, o.params) : o.params_shown;
}

std::string outcome_text(const CheckOutcome& o) {
  std::string out = fmt::format("{} --variant {} ({}), {} search: {}\n", o.model, o.variant, params_text(o),
                                o.search, to_string(o.stop));
  for (const auto& p : o.props) {
    out += fmt::format("  {:<22} {}", p.name, prop_result_text(p));
    // A lossy store never gives a bare "holds" (nor an exact maximum).
    if (o.stats.omission_probability > 0 && p.verdict == Verdict::Holds)
      out += fmt::format("  ({}: ~{:.1e} chance that a state was omitted)",
                         o.stats.store == "bitstate" ? "bitstate" : "hash compaction",
                         o.stats.omission_probability);
    out += '\n';
    if (!p.shares_note.empty()) out += fmt::format("  {:<22}   long run: not computed ({})\n", "", p.shares_note);
    for (const ShareFigure& f : p.shares) out += fmt::format("  {:<22}   long run: {}\n", "", share_text(f));
  }
  out += "  " + stats_text(o.stats) + '\n';
  out += "  reduction: " + reduction_text(o.stats) + '\n';
  if (o.census) out += census_text(*o.census);
  return out;
}

int exit_code(const CheckOutcome& o) {
  bool incomplete = false;
  for (const auto& p : o.props) {
    if (p.verdict == Verdict::Violated) return kExitViolated;
    if (p.verdict == Verdict::Incomplete) incomplete = true;
  }
  return incomplete ? kExitIncomplete : kExitHolds;
}

std::string search_difference(const CheckOutcome& a, const CheckOutcome& b) {
  if (a.stop != b.stop) return fmt::format("stopped {}", to_string(a.stop));
  if (a.stats.states != b.stats.states || a.stats.transitions != b.stats.transitions ||
      a.stats.max_depth != b.stats.max_depth)
    return fmt::format("{} states, {} transitions, depth {}", a.stats.states, a.stats.transitions,
                       a.stats.max_depth);
  if (a.stats.ample_states != b.stats.ample_states || a.stats.full_states != b.stats.full_states)
    return fmt::format("partial-order: {} of {} ample", a.stats.ample_states,
                       a.stats.ample_states + a.stats.full_states);
  for (std::size_t i = 0; i < a.props.size() && i < b.props.size(); ++i) {
    const auto &x = a.props[i], &y = b.props[i];
    if (x.verdict != y.verdict || x.value != y.value || x.value_exact != y.value_exact)
      return fmt::format("{} {}", x.name, x.value ? std::to_string(*x.value) : to_string(x.verdict));
    if (x.trace.has_value() != y.trace.has_value() ||
        (x.trace && trace_to_json(*x.trace) != trace_to_json(*y.trace)))
      return fmt::format("{}: another trace", x.name);
    const auto share_key = [](const CheckOutcome::Prop& q) {
      std::string k = q.shares_note;
      for (const ShareFigure& f : q.shares)
        k += fmt::format("|{} {} {} {} {} {} {}", f.found, f.mine, f.theirs, f.prefix, f.steps, f.fair_alone,
                         f.within);
      return k;
    };
    if (share_key(x) != share_key(y)) return fmt::format("{}: another long-run share", x.name);
  }
  return "";
}

}  // namespace blkmc
