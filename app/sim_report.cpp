#include "app/sim_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "app/html.hpp"

namespace blkmc {

namespace {

std::string esc(const std::string& s) { return html_escape(s); }

// Twelve colours that stay apart (a workload has at most 12 processes).
const char* colour(std::size_t i) {
  static const char* const c[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                  "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a"};
  return c[i % 12];
}

// A round step for axis ticks: 1, 2 or 5 times a power of ten, about n per axis.
double nice_step(double range, int n) {
  if (range <= 0) return 1;
  const double raw = range / n, p = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

std::string num(double v) { return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:g}", v); }

struct Line {
  std::string name;
  const char* colour;
  std::vector<std::pair<double, double>> pts;  // a step function: y holds until the next x
  bool dashed = false;
};

// A chart of step lines (or, with bars, one bar per point) with axes.
std::string chart(const std::string& xlabel, const std::string& ylabel, const std::vector<Line>& lines, double xmax,
                  double ymax, bool bars = false) {
  const int W = 720, H = 300, L = 60, R = 150, T = 14, B = 40;
  const int pw = W - L - R, ph = H - T - B;
  xmax = std::max(xmax, 1.0);
  ymax = std::max(ymax, 1e-9);
  auto X = [&](double x) { return L + pw * x / xmax; };
  auto Y = [&](double y) { return T + ph - ph * y / ymax; };
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n", W,
      H, W, H);
  const double xs = nice_step(xmax, 8), ys = nice_step(ymax, 5);
  for (double x = 0; x <= xmax + 1e-9; x += xs)
    o += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/><text x=\"{:.1f}\" y=\"{}\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     X(x), T, X(x), T + ph, X(x), T + ph + 14, num(x));
  for (double y = 0; y <= ymax + 1e-9; y += ys)
    o += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/><text x=\"{}\" y=\"{:.1f}\" "
                     "text-anchor=\"end\">{}</text>\n",
                     L, Y(y), L + pw, Y(y), L - 4, Y(y) + 4, num(y));
  o += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", L, T, pw, ph);
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", L + pw / 2, H - 6, esc(xlabel));
  o += fmt::format("<text x=\"12\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 12 {})\">{}</text>\n",
                   T + ph / 2, T + ph / 2, esc(ylabel));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (bars) {
      const double w = std::max(1.0, pw / std::max(xmax, 1.0) * 0.8);
      for (const auto& [x, y] : l.pts)
        o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", X(x) - w / 2,
                         Y(y), w, Y(0) - Y(y), l.colour);
    } else if (!l.pts.empty()) {
      // At most about 2000 corners a line: more do not show at this width.
      const std::size_t every = std::max<std::size_t>(1, l.pts.size() / 2000);
      std::string d = fmt::format("M {:.1f} {:.1f}", X(l.pts[0].first), Y(l.pts[0].second));
      for (std::size_t k = 1; k < l.pts.size(); ++k)
        if (k % every == 0 || k + 1 == l.pts.size())
          d += fmt::format(" H {:.1f} V {:.1f}", X(l.pts[k].first), Y(l.pts[k].second));
      o += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{}><title>{}</title></path>\n", d,
                       l.colour, l.dashed ? " stroke-dasharray=\"5 3\"" : "", esc(l.name));
    }
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                     L + pw + 12, T + 4 + 16 * int(i), l.colour, L + pw + 26, T + 13 + 16 * int(i), esc(l.name));
  }
  o += "</svg>\n";
  return o;
}

}  // namespace

std::string simulation_report_html(const SimOutcome& o, const std::string& params_text, const std::string& command) {
  const std::string title = fmt::format("simulate {} {}", o.model, o.variant);
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>{}</title>\n", esc(title));
  h += "<style>body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }\n"
       "h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }\n"
       "pre { background: #f4f4f4; padding: .6em; overflow-x: auto; font-size: 12px; }\n"
       "svg text { font: 11px ui-monospace, monospace; fill: #333; }\n"
       ".chart .grid { stroke: #eee; } .chart .frame { fill: none; stroke: #999; }</style>\n</head><body>\n";
  h += fmt::format("<h1>{}</h1>\n<p><b>Parameters</b> <code>{}</code><br><b>Schedule</b> {}<br><b>End</b> {} after {} "
                   "steps</p>\n",
                   esc(title), esc(params_text), esc(o.schedule), esc(to_string(o.end)), o.steps);
  h += fmt::format("<p>Reproduce it:</p><pre>{}</pre>\n", esc(command));
  h += fmt::format("<h2>Figures</h2>\n<pre>{}  final state: {}</pre>\n", esc(o.text), esc(o.final_summary));
  const auto& s = o.series;
  if (!s.is_object() || !s.contains("completions")) {
    h += "<p>This model has no observer: there is nothing to draw.</p>\n</body></html>\n";
    return h;
  }
  const std::string unit = s.value("time_unit", "step");
  const auto names = s["processes"].get<std::vector<std::string>>();
  const double end = s.value("end", 0.0);
  // Latency CDF per process, and cumulative service per process.
  std::vector<std::vector<double>> lat(names.size());
  std::vector<Line> service(names.size());
  double lat_max = 0, svc_max = 0;
  std::vector<double> done(names.size(), 0);
  for (std::size_t p = 0; p < names.size(); ++p) {
    service[p] = {names[p], colour(p), {{0, 0}}};
  }
  for (const auto& e : s["completions"]) {
    const auto p = e[1].get<std::size_t>();
    if (p >= names.size()) continue;
    lat[p].push_back(e[2].get<double>());
    lat_max = std::max(lat_max, e[2].get<double>());
    done[p] += e[3].get<double>();
    service[p].pts.emplace_back(e[0].get<double>(), done[p]);
    svc_max = std::max(svc_max, done[p]);
  }
  // The capture's own latencies, where the workload was imported from one.
  std::vector<std::vector<double>> seen(names.size());
  if (s.contains("observed"))
    for (const auto& e : s["observed"]) {
      const auto p = e[0].get<std::size_t>();
      if (p >= names.size()) continue;
      seen[p].push_back(e[1].get<double>());
      lat_max = std::max(lat_max, e[1].get<double>());
    }
  std::vector<Line> cdf;
  auto add_cdf = [&](std::vector<double>& v, std::size_t p, const std::string& label, bool dashed) {
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    Line l{fmt::format("{} ({})", label, v.size()), colour(p), {{0, 0}}, dashed};
    for (std::size_t k = 0; k < v.size(); ++k)
      if (k + 1 == v.size() || v[k + 1] != v[k]) l.pts.emplace_back(v[k], double(k + 1) / double(v.size()));
    l.pts.emplace_back(lat_max, 1.0);
    cdf.push_back(std::move(l));
  };
  for (std::size_t p = 0; p < names.size(); ++p) {
    add_cdf(lat[p], p, names[p], false);
    add_cdf(seen[p], p, names[p] + " captured", true);
  }
  const bool compared = std::any_of(seen.begin(), seen.end(), [](const auto& v) { return !v.empty(); });
  for (auto& l : service) l.pts.emplace_back(end, l.pts.back().second);
  h += fmt::format(
      "<h2>Latency distribution</h2>\n<p>Per process, the share of its completed requests whose latency "
      "(submission to completion) was at most x {}s; the number of requests in brackets.{}</p>\n{}",
      unit,
      compared ? " Dashed: the same processes in the capture the workload was imported from (queued to "
                 "completed, in the import's ticks), beside this run."
               : "",
      cdf.empty() ? std::string("<p>(no request completed)</p>\n") : chart(unit + "s", "share of requests", cdf, lat_max, 1.0));
  h += fmt::format("<h2>Service over time</h2>\n<p>Sectors completed per process, cumulative.</p>\n{}",
                   chart(unit + "s", "sectors completed", service, end, std::max(svc_max, 1.0)));
  // Seek distance of each issue, reads and writes apart; past 600 issues
  // a bar is the longest seek of a group of consecutive issues.
  const std::size_t issues = s["issues"].size(), group = std::max<std::size_t>(1, (issues + 599) / 600);
  Line reads{"read", "#3a6ea5", {}}, writes{"write", "#d9651b", {}};
  double seek_max = 0;
  for (std::size_t k = 0; k < issues; ++k) {
    const auto& e = s["issues"][k];
    const double d = e[1].get<double>(), x = double(k / group + 1);
    Line& l = e[2].get<int>() == 0 ? reads : writes;
    if (!l.pts.empty() && l.pts.back().first == x)
      l.pts.back().second = std::max(l.pts.back().second, d);
    else
      l.pts.emplace_back(x, d);
    seek_max = std::max(seek_max, d);
  }
  h += fmt::format("<h2>Seek distance</h2>\n<p>For each request issued to the device, in issue order, the sectors the "
                   "head travelled to it (the device model's head is the end of the previous issue){}.</p>\n{}",
                   group > 1 ? fmt::format("; a bar is the longest seek among {} consecutive issues", group) : "",
                   issues ? chart(group > 1 ? fmt::format("issue / {}", group) : "issue", "seek distance (sectors)",
                                  {reads, writes}, double((issues + group - 1) / group), std::max(seek_max, 1.0), true)
                          : std::string("<p>(nothing was issued)</p>\n"));
  if (s.value("truncated", false))
    h += "<p>The run had more events than the charts keep (the first 1,000,000 of each kind are drawn).</p>\n";
  h += "</body></html>\n";
  return h;
}

}  // namespace blkmc
