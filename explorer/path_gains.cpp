#include "explorer/path_gains.hpp"

#include "explorer/gain_components.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

namespace blkmc {


GainAnalysis analyze_gains(const GainGraph& g, const int* start, const std::vector<Objective>& objectives,
                           bool record_via) {
  GainAnalysis a;
  const std::size_t n = g.nodes();
  const std::size_t k = std::size_t(g.counters);
  if (k < 1 || k > std::size_t(kMaxPathCounters)) throw std::logic_error("analyze_gains: 1 or 2 counters");
  if (n == 0) return a;
  const auto gain = [&](std::uint64_t e, std::size_t i) { return int(g.gain[e * k + i]); };
  const auto capped = [&](int v) { return std::uint8_t(std::min(g.cap, v)); };

  // Ahead, without a reset: on the graph without its reset edges, the best
  // over a component's edges out, components closed sinks first. Inside a
  // component every edge lies on a cycle: one that adds to a counter can be
  // taken again and again, so from anywhere in it that counter can climb to
  // the cap.
  {
    const Components fc = components(g, true);
    std::vector<std::uint8_t> h(std::size_t(fc.count) * k, 0);
    for (std::uint32_t c = 0; c < fc.count; ++c)
      for (std::uint64_t j = fc.at[c]; j < fc.at[c + 1]; ++j) {
        const std::uint32_t u = fc.order[j];
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          if (g.reset[e]) continue;
          const std::uint32_t d = fc.of[g.to[e]];
          for (std::size_t i = 0; i < k; ++i) {
            std::uint8_t& x = h[c * k + i];
            if (d == c) {
              if (gain(e, i)) {
                a.cyclic_gain = true;
                x = capped(g.cap);
              }
            } else {
              x = std::max(x, capped(gain(e, i) + h[d * k + i]));
            }
          }
        }
      }
    a.ahead.resize(n * k);
    for (std::uint32_t u = 0; u < n; ++u)
      for (std::size_t i = 0; i < k; ++i) a.ahead[u * k + i] = h[fc.of[u] * k + i];
  }

  // After a reset: on the whole graph, the best a reset edge reachable from
  // a component leaves (its gain, then all its end can gain without one).
  const Components cc = components(g, false);
  a.components = cc.count;
  {
    std::vector<std::uint8_t> r(std::size_t(cc.count) * k, 0), has(cc.count, 0);
    for (std::uint32_t c = 0; c < cc.count; ++c)
      for (std::uint64_t j = cc.at[c]; j < cc.at[c + 1]; ++j) {
        const std::uint32_t u = cc.order[j];
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          const std::uint32_t v = g.to[e], d = cc.of[v];
          if (g.reset[e]) {
            has[c] = 1;
            for (std::size_t i = 0; i < k; ++i) r[c * k + i] = std::max(r[c * k + i], capped(gain(e, i) + a.ahead[v * k + i]));
          }
          if (d != c && has[d]) {
            has[c] = 1;
            for (std::size_t i = 0; i < k; ++i) r[c * k + i] = std::max(r[c * k + i], r[d * k + i]);
          }
        }
      }
    a.resets_ahead.resize(n);
    a.after_reset.resize(n * k);
    for (std::uint32_t u = 0; u < n; ++u) {
      a.resets_ahead[u] = has[cc.of[u]];
      for (std::size_t i = 0; i < k; ++i) a.after_reset[u * k + i] = r[cc.of[u] * k + i];
    }
  }
  // Components with an edge inside that adds (through resets or not): the
  // pass below may go round them many times.
  std::vector<bool> adds(cc.count, false);
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e)
      if (cc.of[g.to[e]] == cc.of[u])
        for (std::size_t i = 0; i < k; ++i)
          if (gain(e, i)) adds[cc.of[u]] = true;
  const std::uint32_t ncomp = cc.count;
  const std::vector<std::uint32_t>& comp = cc.of;
  const std::vector<std::uint64_t>& at = cc.at;
  const std::vector<std::uint32_t>& order = cc.order;

  // Forward, per objective: the best-scoring counters found at each node,
  // components from the start's (the highest) down; inside a component the
  // counters move along its edges until nothing improves. Where a cycle
  // adds, that can take up to cap rounds a node, so a budget ends it early:
  // every label is still the counters of a path that exists.
  a.reached.assign(objectives.size() * n * k, 0);
  if (record_via) a.via.assign(objectives.size() * n, GainAnalysis::kNoEdge);
  std::vector<long> score(n);
  std::vector<std::uint32_t> work;
  for (std::size_t o = 0; o < objectives.size(); ++o) {
    const Objective& w = objectives[o];
    std::uint8_t* reached = a.reached.data() + o * n * k;
    const auto dot = [&](const int* c) {
      long s = 0;
      for (std::size_t i = 0; i < k; ++i) s += long(w[i]) * c[i];
      return s;
    };
    std::uint64_t* via = record_via ? a.via.data() + o * n : nullptr;
    const auto offer = [&](std::uint32_t v, const int* c, std::uint64_t e) {
      const long s = dot(c);
      if (s <= score[v]) return false;
      score[v] = s;
      if (via) via[v] = e;
      for (std::size_t i = 0; i < k; ++i) reached[v * k + i] = std::uint8_t(c[i]);
      return true;
    };
    std::fill(score.begin(), score.end(), LONG_MIN);
    offer(0, start, GainAnalysis::kNoEdge);
    const auto step = [&](std::uint32_t u, std::uint64_t e, int* next) {
      for (std::size_t i = 0; i < k; ++i) next[i] = capped((g.reset[e] ? 0 : int(reached[u * k + i])) + gain(e, i));
    };
    std::uint64_t budget = 64 * std::uint64_t(g.edges()) + 1024;
    for (std::uint32_t c = ncomp; c-- > 0;) {
      work.clear();
      for (std::uint64_t j = at[c]; j < at[c + 1]; ++j)
        if (score[order[j]] != LONG_MIN) work.push_back(order[j]);
      while (!work.empty() && (budget > 0 || !adds[c])) {
        const std::uint32_t u = work.back();
        work.pop_back();
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          const std::uint32_t v = g.to[e];
          if (comp[v] != c) continue;
          int next[kMaxPathCounters] = {};
          step(u, e, next);
          if (offer(v, next, e)) {
            work.push_back(v);
            if (adds[c] && budget) --budget;
          }
        }
      }
      for (std::uint64_t j = at[c]; j < at[c + 1]; ++j) {
        const std::uint32_t u = order[j];
        if (score[u] == LONG_MIN) continue;
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          const std::uint32_t v = g.to[e];
          if (comp[v] == c) continue;
          int next[kMaxPathCounters] = {};
          step(u, e, next);
          offer(v, next, e);
        }
      }
    }
  }
  return a;
}

std::vector<std::uint32_t> via_path(const GainGraph& g, const GainAnalysis& a, std::size_t o, std::uint32_t u) {
  const std::size_t n = g.nodes();
  std::vector<std::uint32_t> path;
  if (a.via.size() < (o + 1) * n || u >= n) return path;
  std::vector<bool> seen(n, false);
  for (std::uint32_t v = u; v != 0;) {
    const std::uint64_t e = a.via[o * n + v];
    if (seen[v] || e == GainAnalysis::kNoEdge) return {};
    seen[v] = true;
    // The edge's node: the last whose edges begin at or before e.
    const auto from = std::uint32_t(std::upper_bound(g.first.begin(), g.first.end(), e) - g.first.begin() - 1);
    path.push_back(std::uint32_t(e - g.first[from]));
    v = from;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace blkmc
