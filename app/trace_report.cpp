#include "app/trace_report.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/html.hpp"

#include "model/sched/workload.hpp"

namespace blkmc {

namespace {

using nlohmann::json;

std::string esc(const std::string& s) { return html_escape(s); }

std::string clip(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 1) + "\u2026";
}

// ------------------------------------------------------------ the state

// A state as (variable, value) rows. Objects nest with dots; an array of
// objects that each carry a unique "name" is keyed by it (procs[reader].pc),
// an array of "NAME:rest" strings by NAME (requests[writer.0]), so a row
// keeps its key when other elements come and go; other arrays by index.
using Rows = std::vector<std::pair<std::string, std::string>>;

std::optional<std::vector<std::string>> names_of(const json& a) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& e : a) {
    std::string n;
    if (e.is_object() && e.contains("name") && e["name"].is_string())
      n = e["name"].get<std::string>();
    else if (e.is_string() && e.get<std::string>().find(':') != std::string::npos)
      n = e.get<std::string>().substr(0, e.get<std::string>().find(':'));
    else
      return std::nullopt;
    if (n.empty() || !seen.insert(n).second) return std::nullopt;
    names.push_back(n);
  }
  return names;
}

void flatten(const json& v, const std::string& path, Rows& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) flatten(x, path.empty() ? k : path + "." + k, out);
  } else if (v.is_array()) {
    const auto names = v.empty() ? std::nullopt : names_of(v);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string key = fmt::format("{}[{}]", path, names ? (*names)[i] : std::to_string(i));
      const json& e = v[i];
      if (names && e.is_object()) {
        json rest = e;
        rest.erase("name");
        if (rest.empty()) out.emplace_back(key, "");
        flatten(rest, key, out);
      } else if (names) {
        out.emplace_back(key, e.get<std::string>().substr(e.get<std::string>().find(':') + 1));
      } else {
        flatten(e, key, out);
      }
    }
  } else {
    out.emplace_back(path, v.is_string() ? v.get<std::string>() : v.dump());
  }
}

// ------------------------------------------------------------ the chart

// Where the trace marks something: the violating step, a lasso's ends.
struct Marks {
  int violating = -1;             // step index (1-based), -1: none
  std::optional<int> stuck, loop;  // as in the trace
  PropKind kind{};  // the property's (its kind_info row marks the page)
};

std::string function_and_effect(const std::string& text) {
  const auto colon = text.find(": ");
  if (colon == std::string::npos || colon > 60) return esc(clip(text, 150));
  return fmt::format("<tspan class=\"fn\">{}</tspan>{}", esc(text.substr(0, colon)),
                     esc(clip(text.substr(colon), 150 - colon)));
}

std::string msc_svg(const Trace& t, const Marks& mk) {
  std::map<int, std::string> actors;
  for (const auto& s : t.steps) actors.emplace(s.actor, s.actor_name.empty() ? fmt::format("#{}", s.actor) : s.actor_name);
  std::map<int, int> lane;
  for (const auto& [id, name] : actors) lane.emplace(id, int(lane.size()));
  const int lw = 96, top = 44, rh = 18, n = int(t.steps.size());
  const int lanes_w = 16 + lw * int(actors.size()), label_x = lanes_w + 8, label_w = 980;
  const int width = label_x + label_w + 170, height = top + (n + 1) * rh + 16;
  auto lane_x = [&](int actor) { return 16 + lw / 2 + lw * lane.at(actor); };
  auto row_y = [&](int i) { return top + i * rh; };
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"msc\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\">\n",
      width, height, width, height);
  // The loop's rows and the violating row behind everything else.
  if (mk.loop && *mk.loop < n)
    o += fmt::format("<rect class=\"loopbg\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                     row_y(*mk.loop + 1) - rh / 2, width, (n - *mk.loop) * rh);
  if (mk.violating > 0)
    o += fmt::format("<rect class=\"bad\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                     row_y(mk.violating) - rh / 2, width, rh);
  for (const auto& [id, name] : actors) {
    const int x = lane_x(id);
    o += fmt::format("<text class=\"actor\" x=\"{}\" y=\"20\" text-anchor=\"middle\">{}<title>{}</title></text>\n", x,
                     esc(clip(name, 13)), esc(name));
    o += fmt::format("<line class=\"life\" x1=\"{}\" y1=\"28\" x2=\"{}\" y2=\"{}\"/>\n", x, x, height - 8);
  }
  o += fmt::format("<a href=\"#s0\"><text class=\"lbl\" x=\"{}\" y=\"{}\">0. initial state</text></a>\n", label_x,
                   row_y(0) + 4);
  int prev = -1;
  for (int i = 1; i <= n; ++i) {
    const TraceStep& s = t.steps[std::size_t(i - 1)];
    const int x = lane_x(s.actor), y = row_y(i);
    // A thin link from the previous event: the order of the steps.
    if (prev >= 0 && prev != x)
      o += fmt::format("<line class=\"seq\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", prev, y - rh, x, y);
    prev = x;
    o += fmt::format(
        "<a href=\"#s{}\"><title>{}. {}: {} {}</title><circle class=\"ev{}\" cx=\"{}\" cy=\"{}\" r=\"5\"/>"
        "<text class=\"lbl\" x=\"{}\" y=\"{}\">{}. {}</text></a>\n",
        i, i, esc(actors.at(s.actor)), esc(s.action), esc(s.text), i == mk.violating ? " badev" : "", x, y, label_x,
        y + 4, i, function_and_effect(s.text));
  }
  // A lasso: the stuck point and the loop.
  const bool starvation = kind_info(mk.kind).per_actor;  // a weakly fair cycle
  if (mk.stuck) {
    const int y = row_y(*mk.stuck) + rh / 2;
    o += fmt::format("<line class=\"stuck\" x1=\"0\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", y, width, y);
    // In the right-hand column, clear of the step texts.
    const int sx = label_x + label_w + 36;
    o += fmt::format("<text class=\"stucklbl\" x=\"{}\" y=\"{}\">stuck: from here</text>\n", sx, y - 3);
    o += fmt::format("<text class=\"stucklbl\" x=\"{}\" y=\"{}\">{}</text>\n", sx, y + 11,
                     starvation ? "it stays pending" : "nothing can finish");
  }
  if (mk.loop) {
    const int bx = label_x + label_w + 20;
    if (*mk.loop < n) {
      const int y0 = row_y(*mk.loop + 1) - 6, y1 = row_y(n) + 6;
      o += fmt::format("<path class=\"loop\" d=\"M {} {} h 12 V {} h -12\"/>\n", bx, y0, y1, bx);
      o += fmt::format("<text class=\"looplbl\" x=\"{}\" y=\"{}\">loop: steps {}..{}</text>\n", bx + 16,
                       (y0 + y1) / 2, *mk.loop + 1, n);
      o += fmt::format("<text class=\"looplbl\" x=\"{}\" y=\"{}\">repeat forever</text>\n", bx + 16,
                       (y0 + y1) / 2 + 13);
    } else {
      o += fmt::format("<text class=\"looplbl\" x=\"{}\" y=\"{}\">no step is enabled:</text>\n", bx, row_y(n) + 4);
      o += fmt::format("<text class=\"looplbl\" x=\"{}\" y=\"{}\">stuck forever</text>\n", bx, row_y(n) + 17);
    }
  }
  o += "</svg>\n";
  return o;
}

// ------------------------------------------------------------ the timeline

// One request's life in the trace, in step indices (0: the initial state).
struct Life {
  std::string name;
  int proc = 0, dir = sched::READ;
  int insert = 0, dispatch = -1, issue = -1, complete = -1;  // -1: not in the trace
  int sub = 0;  // its row within the process's lane
  bool tracked = false;
};

// The status of each request in a scheduler state ("NAME:STATUS:...").
std::map<std::string, std::string> statuses(const json& state) {
  std::map<std::string, std::string> out;
  if (!state.is_object() || !state.contains("requests") || !state["requests"].is_array()) return out;
  for (const auto& r : state["requests"]) {
    if (!r.is_string()) continue;
    const std::string s = r.get<std::string>();
    const auto a = s.find(':');
    if (a == std::string::npos) continue;
    const auto b = s.find(':', a + 1);
    out[s.substr(0, a)] = s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  }
  return out;
}

bool queued(const std::string& st) { return st == "sched" || st == "sched-head"; }

std::string timeline_svg(const Trace& t, const sched::Workload& wl) {
  const int n = int(t.steps.size());
  std::vector<json> states{t.initial};
  for (const auto& s : t.steps) states.push_back(s.state);
  // Each request's episodes (a cyclic process reuses a request).
  std::map<std::string, int> rq_of;  // "proc.index" -> workload request
  for (std::size_t r = 0; r < wl.rqs.size(); ++r)
    rq_of[fmt::format("{}.{}", wl.procs[std::size_t(wl.rqs[r].proc)].name, wl.rqs[r].index)] = int(r);
  std::vector<Life> lives;
  std::map<std::string, std::size_t> open;  // name -> its episode in lives
  std::vector<std::pair<int, int>> dispatches;  // (step, dir) in order
  std::map<std::string, std::string> before;
  for (int i = 0; i <= n; ++i) {
    const auto now = statuses(states[std::size_t(i)]);
    for (const auto& [name, st] : now) {
      const auto rq = rq_of.find(name);
      if (rq == rq_of.end()) continue;
      if (!open.count(name)) {
        if (st == "done" || st == "idle") continue;
        Life l;
        l.name = name;
        l.proc = wl.rqs[std::size_t(rq->second)].proc;
        l.dir = wl.rqs[std::size_t(rq->second)].dir;
        l.insert = i;
        l.tracked = rq->second == wl.track;
        open[name] = lives.size();
        lives.push_back(l);
      }
      Life& l = lives[open[name]];
      if (l.dispatch < 0 && !queued(st)) {
        l.dispatch = i;
        if (i > 0 && before.count(name) && queued(before[name])) dispatches.emplace_back(i, l.dir);
      }
      if (l.issue < 0 && (st == "driver" || st == "done")) l.issue = i;
      if (st == "done" || st == "idle") {
        l.complete = i;
        open.erase(name);
      }
    }
    for (const auto& [name, k] : std::map<std::string, std::size_t>(open))
      if (!now.count(name)) {  // gone back to idle: a cyclic request completed
        lives[k].complete = i;
        open.erase(name);
      }
    before = now;
  }
  if (lives.empty()) return "";
  // Rows within each process's lane: the first row free at the insert.
  const int np = int(wl.procs.size());
  std::vector<std::vector<int>> row_end(static_cast<std::size_t>(np));
  for (auto& l : lives) {
    auto& ends = row_end[std::size_t(l.proc)];
    const int end = l.complete >= 0 ? l.complete : n + 1;
    std::size_t r = 0;
    while (r < ends.size() && ends[r] > l.insert) ++r;
    if (r == ends.size()) ends.push_back(0);
    ends[r] = end;
    l.sub = int(r);
  }
  const int bar = 7, gap = 2, left = 110, top = 36;
  const double dx = std::clamp(1000.0 / std::max(n, 1), 3.0, 16.0);
  std::vector<int> lane_y(std::size_t(np) + 1);
  lane_y[0] = top;
  for (int p = 0; p < np; ++p)
    lane_y[std::size_t(p) + 1] =
        lane_y[std::size_t(p)] + std::max<int>(1, int(row_end[std::size_t(p)].size())) * (bar + gap) + 12;
  const int width = left + int(dx * (n + 1)) + 40, height = lane_y[std::size_t(np)] + 40;
  auto X = [&](int i) { return left + dx * i; };
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n"
      "<defs><pattern id=\"hatch\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"5\" class=\"waitbg\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" class=\"hatch\"/></pattern></defs>\n",
      width, height, width, height);
  // Clock ticks (clock=1): the steps that advance time.
  int ticks = 0;
  for (int i = 1; i <= n; ++i)
    if (t.steps[std::size_t(i - 1)].action == "tick") {
      ++ticks;
      o += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", X(i), top - 4, X(i),
                       lane_y[std::size_t(np)]);
    }
  for (int p = 0; p < np; ++p) {
    const int y = lane_y[std::size_t(p)];
    o += fmt::format("<text class=\"proc\" x=\"4\" y=\"{}\">{}</text>\n", y + bar, esc(clip(wl.procs[std::size_t(p)].name, 16)));
    o += fmt::format("<line class=\"lane\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", left, lane_y[std::size_t(p) + 1] - 6,
                     width - 20, lane_y[std::size_t(p) + 1] - 6);
  }
  // Direction switches and new batches, where the dispatches show them.
  int last_dir = -1;
  for (const auto& [i, dir] : dispatches) {
    if (last_dir >= 0 && dir != last_dir)
      o += fmt::format(
          "<line class=\"switch\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"><title>step {}: dispatch "
          "switches to {}</title></line><text class=\"switchlbl\" x=\"{:.1f}\" y=\"{}\">{}</text>\n",
          X(i), top - 12, X(i), lane_y[std::size_t(np)], i, dir == sched::READ ? "reads" : "writes", X(i) + 2, top - 14,
          dir == sched::READ ? "\u2192R" : "\u2192W");
    last_dir = dir;
    const json& st = states[std::size_t(i)];
    const json sc = st.is_object() ? st.value("sched", json::object()) : json::object();
    if (sc.is_object() && sc.contains("batching") && sc["batching"].is_number_integer() && sc["batching"].get<int>() == 1)
      o += fmt::format("<path class=\"batch\" d=\"M {:.1f} {} l -4 -7 h 8 z\"><title>step {}: a new batch "
                       "starts</title></path>\n",
                       X(i), top - 2, i);
  }
  for (const auto& l : lives) {
    const int y = lane_y[std::size_t(l.proc)] + l.sub * (bar + gap);
    const int end = l.complete >= 0 ? l.complete : n + 1;
    const int disp = l.dispatch >= 0 ? l.dispatch : end;
    const char* d = l.dir == sched::READ ? "r" : "w";
    const std::string tip = fmt::format(
        "{} ({}): inserted at step {}, {}, {}", l.name, l.dir == sched::READ ? "read" : "write", l.insert,
        l.dispatch >= 0 ? fmt::format("dispatched at step {}", l.dispatch) : std::string("never dispatched"),
        l.complete >= 0 ? fmt::format("completed at step {}", l.complete) : std::string("not completed"));
    if (disp > l.insert)
      o += fmt::format("<rect class=\"q{}{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"><title>{}{}</title></rect>\n",
                       d, l.tracked ? " tracked" : "", X(l.insert), y, X(disp) - X(l.insert), bar, esc(tip),
                       l.tracked ? " (the tracked request: its wait is shaded)" : "");
    if (l.dispatch >= 0 && end > disp)
      o += fmt::format("<rect class=\"s{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"><title>{}</title></rect>\n",
                       d, X(disp), y, X(end) - X(disp), bar, esc(tip));
    if (l.dispatch >= 0)
      o += fmt::format("<line class=\"dmark\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", X(disp), y - 1, X(disp),
                       y + bar + 1);
    if (l.complete < 0)
      o += fmt::format("<path class=\"open\" d=\"M {:.1f} {} l 5 {} l -5 {} z\"/>\n", X(end), y, bar / 2.0, bar / 2.0);
  }
  // The axis: steps (and ticks).
  const int ay = lane_y[std::size_t(np)] + 4;
  o += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", left, ay, X(n), ay);
  const int every = n <= 20 ? 1 : n <= 100 ? 10 : n <= 400 ? 25 : 100;
  for (int i = 0; i <= n; i += every)
    o += fmt::format("<text class=\"axl\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", X(i), ay + 14, i);
  o += fmt::format("<text class=\"axl\" x=\"{}\" y=\"{}\">step{}</text>\n", 4, ay + 14,
                   ticks ? fmt::format(" ({} ticks: grey lines)", ticks) : std::string());
  o += "</svg>\n";
  return o;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
code, pre, .mono { font-family: ui-monospace, monospace; font-size: 12px; }
pre { background: #f4f4f4; padding: .6em; overflow-x: auto; }
.verdict { font-weight: bold; } .violated { color: #b00; } .holds { color: #070; }
.scroll { overflow-x: auto; border: 1px solid #ddd; }
svg text { font-family: ui-monospace, monospace; font-size: 11px; }
.msc .actor { font-weight: bold; } .msc .life { stroke: #bbb; stroke-dasharray: 3 3; }
.msc .seq { stroke: #ccc; } .msc circle { fill: #4a7ab5; } .msc circle.badev { fill: #c00; }
.msc .fn { font-weight: bold; fill: #24457a; } .msc .bad { fill: #fde0e0; } .msc .loopbg { fill: #fff6d8; }
.msc .stuck { stroke: #c00; stroke-dasharray: 6 3; } .msc .stucklbl, .msc .looplbl { fill: #b00; font-weight: bold; }
.msc .loop { fill: none; stroke: #b00; stroke-width: 2; } .msc a:hover text { fill: #c00; }
.tl .proc { font-weight: bold; } .tl .lane { stroke: #eee; } .tl .tick { stroke: #eee; }
.tl .qr { fill: #b9d3ee; } .tl .qw { fill: #fdd0a2; } .tl .sr { fill: #3a6ea5; } .tl .sw { fill: #d9651b; }
.tl .tracked { fill: url(#hatch); stroke: #c00; } .tl .waitbg { fill: #fbb; } .tl .hatch { stroke: #c00; stroke-width: 2; }
.tl .dmark { stroke: #000; } .tl .open { fill: #888; } .tl .switch { stroke: #666; stroke-dasharray: 4 3; }
.tl .switchlbl { fill: #444; font-size: 10px; } .tl .batch { fill: #2a2; } .tl .axis { stroke: #888; }
.tl .axl { fill: #555; font-size: 10px; }
.legend span { display: inline-block; width: 1.2em; height: .8em; margin: 0 .3em 0 1em; vertical-align: middle; }
details { border-top: 1px solid #eee; padding: .2em 0; } summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: 12px; }
details.bad > summary { color: #b00; font-weight: bold; }
table.state { border-collapse: collapse; margin: .3em 0 .6em 1.5em; }
table.state td { font-family: ui-monospace, monospace; font-size: 12px; padding: 0 .8em 0 0; }
tr.chg td { background: #fff0a0; font-weight: bold; } tr.gone td { color: #999; text-decoration: line-through; }
)";

// Opens the step's details when a chart row (a #sN link) is followed.
constexpr const char* kScript = R"(
function openStep() {
  var e = document.getElementById(location.hash.slice(1));
  if (e && e.tagName === 'DETAILS') { e.open = true; e.scrollIntoView(); }
}
window.addEventListener('hashchange', openStep);
window.addEventListener('load', openStep);
)";

std::string state_sections(const Trace& t, const Marks& mk) {
  std::string o;
  Rows prev;
  const int n = int(t.steps.size());
  for (int i = 0; i <= n; ++i) {
    const json& st = i == 0 ? t.initial : t.steps[std::size_t(i - 1)].state;
    Rows rows;
    flatten(st, "", rows);
    std::map<std::string, std::string> was(prev.begin(), prev.end());
    std::set<std::string> now;
    int changed = 0;
    std::string table;
    for (const auto& [k, v] : rows) {
      now.insert(k);
      const auto w = was.find(k);
      const bool chg = i > 0 && (w == was.end() || w->second != v);
      changed += chg;
      table += fmt::format("<tr{}><td>{}</td><td>{}</td>{}</tr>\n", chg ? " class=\"chg\"" : "", esc(k), esc(v),
                           chg && w != was.end() ? fmt::format("<td>was {}</td>", esc(w->second)) : std::string());
    }
    if (i > 0)
      for (const auto& [k, v] : prev)
        if (!now.count(k)) {
          ++changed;
          table += fmt::format("<tr class=\"gone\"><td>{}</td><td>{}</td><td>gone</td></tr>\n", esc(k), esc(v));
        }
    const std::string head =
        i == 0 ? std::string("0. initial state")
               : fmt::format("{}. {} {}: {}", i, t.steps[std::size_t(i - 1)].actor_name, t.steps[std::size_t(i - 1)].action,
                             t.steps[std::size_t(i - 1)].text);
    const bool bad = i == mk.violating || (mk.stuck && i == *mk.stuck);
    o += fmt::format("<details id=\"s{}\"{}{}><summary>{}{}</summary>\n", i, bad ? " class=\"bad\"" : "",
                     i == n ? " open" : "", esc(head),
                     i > 0 ? fmt::format(" \u2014 {} changed", changed) : std::string());
    o += rows.empty() ? std::string("<p>(no state recorded)</p>\n")
                      : "<table class=\"state\">\n" + table + "</table>\n";
    o += "</details>\n";
    prev = std::move(rows);
  }
  return o;
}

}  // namespace

std::string trace_report_html(const ModelHandle& mh, const Trace& t, const std::string& command) {
  const ModelInfo& info = mh.info();
  const ReplayResult r = mh.replay(t);  // throws as replay does
  const Params params = trace_params(info, t);
  const PropSpec spec = parse_prop_spec(info, t.property);
  const PropInfo& prop = info.props.at(std::size_t(spec.index));
  Marks mk;
  mk.kind = prop.kind;
  mk.stuck = t.stuck;
  mk.loop = t.loop;
  const int n = int(t.steps.size());
  if (!kind_info(prop.kind).on_graph && n > 0) mk.violating = n;
  const std::string verdict =
      !r.verdict_line.empty()
          ? fmt::format("{}: {}", r.reproduced ? "reproduced" : "NOT reproduced", r.verdict_line)
          : r.reproduced ? fmt::format("reproduced: {} is violated", t.property)
                         : fmt::format("NOT reproduced: {} holds at the end", t.property);
  const std::string title = fmt::format("{} {} \u2014 {}", t.model, t.variant, t.property);
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  o += fmt::format("<title>{}</title>\n<style>{}</style>\n<script>{}</script>\n</head><body>\n", esc(title), kStyle,
                   kScript);
  o += fmt::format("<h1>{}</h1>\n", esc(title));
  o += fmt::format("<p><b>Model</b> {} ({})<br><b>Variant</b> {}<br><b>Parameters</b> <code>{}</code><br>", esc(info.name),
                   esc(info.summary), esc(t.variant), esc(params_string(info, params)));
  o += fmt::format("<b>Property</b> {} ({}): {}<br><b>Trace</b> {} steps, {} search{}</p>\n", esc(t.property),
                   esc(to_string(prop.kind)), esc(prop.summary), n, esc(t.search.empty() ? "?" : t.search),
                   t.param_files.empty() ? "" : "; the workload file's text is in the trace");
  o += fmt::format("<p class=\"verdict {}\">{}</p>\n", r.reproduced ? "violated" : "holds", esc(verdict));
  o += fmt::format("<p>Reproduce it:</p><pre>{}</pre>\n", esc(command));
  o += "<h2>Message-sequence chart</h2>\n<p>A lifeline per actor, a row per step (click one for the state after "
       "it). ";
  if (mk.violating > 0) o += "The red row is the step after which the property is violated. ";
  if (mk.stuck) o += "The dashed red line is the stuck point; ";
  if (mk.loop) o += "the yellow rows, bracketed, are the loop. ";
  o += "</p>\n<div class=\"scroll\">\n" + msc_svg(t, mk) + "</div>\n";
  // The dispatch timeline, for the scheduler models.
  const auto wp = std::find_if(info.params.begin(), info.params.end(),
                               [](const ParamInfo& p) { return p.name == "workload" && p.open; });
  if (wp != info.params.end()) {
    const sched::Workload& wl = sched::workload_at(params.at("workload"));
    const std::string tl = timeline_svg(t, wl);
    if (!tl.empty()) {
      o += fmt::format(
          "<h2 id=\"timeline\">Dispatch timeline</h2>\n<p>Workload {}: a lane per process, each request from insert (left end) to "
          "dispatch (black tick) to completion (right end); a grey arrow: not completed in the trace. "
          "Dashed lines: dispatch switches direction; green triangles: a new batch.</p>\n"
          "<p class=\"legend\"><span style=\"background:#b9d3ee\"></span>read queued"
          "<span style=\"background:#3a6ea5\"></span>read dispatched"
          "<span style=\"background:#fdd0a2\"></span>write queued"
          "<span style=\"background:#d9651b\"></span>write dispatched"
          "<span style=\"background:#fbb;border:1px solid #c00\"></span>the tracked request's wait</p>\n"
          "<div class=\"scroll\">\n{}</div>\n",
          esc(wl.name), tl);
    }
    // A workload imported from a capture: the stall as recorded, beside
    // the schedule that makes the property's value.
    if (wl.track >= 0 && !wl.observed.empty() && wl.observed[std::size_t(wl.track)] >= 0) {
      const sched::WlRequest& rq = wl.rqs[std::size_t(wl.track)];
      const int longest = *std::max_element(wl.observed.begin(), wl.observed.end());
      o += fmt::format(
          "<h2 id=\"capture\">Your capture</h2>\n<p>This workload was imported from a block trace (<code>blkmc "
          "workload import</code>). There the tracked request {}.{} took {} ticks from queued to completed (a tick "
          "is the capture's median service time; the longest request of the window took {}). The trace above is the "
          "schedule, out of every interleaving of the window's requests, behind this result: {}.</p>\n",
          esc(wl.procs[std::size_t(rq.proc)].name), rq.index, wl.observed[std::size_t(wl.track)], longest,
          esc(verdict));
    }
  }
  o += "<h2>State after each step</h2>\n<p>Every variable by name; yellow: changed by the step (with its old "
       "value); struck through: gone.</p>\n";
  o += state_sections(t, mk);
  o += "</body></html>\n";
  return o;
}

}  // namespace blkmc
