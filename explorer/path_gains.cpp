#include "explorer/path_gains.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>

namespace blkmc {

namespace {

// The strongly connected components, numbered so that every edge leads to
// a component numbered no higher (Tarjan's order: a component is closed
// after every component it reaches).
std::vector<std::uint32_t> components(const GainGraph& g, std::uint32_t& ncomp) {
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                   boost::no_property, std::uint32_t, std::uint32_t>;
  const std::size_t n = g.nodes();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(g.edges());
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) edges.emplace_back(u, g.to[e]);
  const Graph csr(boost::edges_are_sorted, edges.begin(), edges.end(), std::uint32_t(n));
  std::vector<std::uint32_t> comp(n);
  ncomp = std::uint32_t(
      boost::strong_components(csr, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, csr))));
  return comp;
}

}  // namespace

GainAnalysis analyze_gains(const GainGraph& g, const int* start, const std::vector<Objective>& objectives) {
  GainAnalysis a;
  const std::size_t n = g.nodes();
  const int k = g.counters;
  if (k < 1 || k > kMaxPathCounters) throw std::logic_error("analyze_gains: 1 or 2 counters");
  if (n == 0) return a;
  std::uint32_t ncomp = 0;
  const std::vector<std::uint32_t> comp = components(g, ncomp);
  a.components = ncomp;
  // Inside a component every edge lies on a cycle: one that adds leaves the
  // sums unbounded (up to the cap), and the bounds below would not hold.
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
      const std::uint32_t v = g.to[e];
      if (comp[v] > comp[u]) throw std::logic_error("analyze_gains: components out of order");
      if (comp[v] == comp[u])
        for (int i = 0; i < k; ++i)
          if (g.gain[e * std::size_t(k) + std::size_t(i)]) {
            a.cyclic_gain = true;
            return a;
          }
    }
  // The nodes by component, lowest (the sinks) first.
  std::vector<std::uint64_t> at(std::size_t(ncomp) + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) ++at[comp[u] + 1];
  for (std::size_t c = 0; c < ncomp; ++c) at[c + 1] += at[c];
  std::vector<std::uint32_t> order(n);
  {
    std::vector<std::uint64_t> fill(at.begin(), at.end() - 1);
    for (std::uint32_t u = 0; u < n; ++u) order[fill[comp[u]]++] = u;
  }
  const auto gain = [&](std::uint64_t e, int i) { return int(g.gain[e * std::size_t(k) + std::size_t(i)]); };

  // Backward: a component's gain ahead is the best over its edges out
  // (inside it every edge adds nothing), components closed sinks first.
  std::vector<std::uint8_t> comp_ahead(std::size_t(ncomp) * std::size_t(k), 0);
  for (std::uint32_t c = 0; c < ncomp; ++c)
    for (std::uint64_t j = at[c]; j < at[c + 1]; ++j) {
      const std::uint32_t u = order[j];
      for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
        const std::uint32_t d = comp[g.to[e]];
        if (d == c) continue;
        for (int i = 0; i < k; ++i) {
          std::uint8_t& h = comp_ahead[std::size_t(c) * std::size_t(k) + std::size_t(i)];
          h = std::uint8_t(std::max<int>(h, std::min(g.cap, gain(e, i) + comp_ahead[std::size_t(d) * std::size_t(k) + std::size_t(i)])));
        }
      }
    }
  a.ahead.resize(n * std::size_t(k));
  for (std::uint32_t u = 0; u < n; ++u)
    for (int i = 0; i < k; ++i)
      a.ahead[u * std::size_t(k) + std::size_t(i)] = comp_ahead[std::size_t(comp[u]) * std::size_t(k) + std::size_t(i)];

  // Forward, per objective: the best-scoring counters found at each node,
  // components from the start's (the highest) down; inside a component the
  // counters move along its edges (which add nothing, and may reset) until
  // nothing improves.
  a.reached.assign(objectives.size() * n * std::size_t(k), 0);
  std::vector<long> score(n);
  std::vector<std::uint32_t> work;
  for (std::size_t o = 0; o < objectives.size(); ++o) {
    const Objective& w = objectives[o];
    std::uint8_t* reached = a.reached.data() + o * n * std::size_t(k);
    const auto dot = [&](const int* c) {
      long s = 0;
      for (int i = 0; i < k; ++i) s += long(w[std::size_t(i)]) * c[i];
      return s;
    };
    const auto offer = [&](std::uint32_t v, const int* c) {
      const long s = dot(c);
      if (s <= score[v]) return false;
      score[v] = s;
      for (int i = 0; i < k; ++i) reached[v * std::size_t(k) + std::size_t(i)] = std::uint8_t(c[i]);
      return true;
    };
    std::fill(score.begin(), score.end(), LONG_MIN);
    offer(0, start);
    for (std::uint32_t c = ncomp; c-- > 0;) {
      work.clear();
      for (std::uint64_t j = at[c]; j < at[c + 1]; ++j)
        if (score[order[j]] != LONG_MIN) work.push_back(order[j]);
      while (!work.empty()) {
        const std::uint32_t u = work.back();
        work.pop_back();
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          const std::uint32_t v = g.to[e];
          if (comp[v] != c) continue;
          int next[kMaxPathCounters] = {};
          if (!g.reset[e])
            for (int i = 0; i < k; ++i) next[i] = reached[u * std::size_t(k) + std::size_t(i)];
          if (offer(v, next)) work.push_back(v);
        }
      }
      for (std::uint64_t j = at[c]; j < at[c + 1]; ++j) {
        const std::uint32_t u = order[j];
        if (score[u] == LONG_MIN) continue;
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
          const std::uint32_t v = g.to[e];
          if (comp[v] == c) continue;
          int next[kMaxPathCounters] = {};
          for (int i = 0; i < k; ++i)
            next[i] = std::min(g.cap, (g.reset[e] ? 0 : int(reached[u * std::size_t(k) + std::size_t(i)])) + gain(e, i));
          offer(v, next);
        }
      }
    }
  }
  return a;
}

}  // namespace blkmc
