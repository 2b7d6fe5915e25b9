#include "explorer/gain_components.hpp"

#include <stdexcept>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>

namespace blkmc {

Components components(const GainGraph& g, bool without_resets) {
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                   boost::no_property, std::uint32_t, std::uint32_t>;
  const std::size_t n = g.nodes();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(g.edges());
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
      if (g.to[e] >= n) throw std::logic_error("components: an edge to no node");
      if (!(without_resets && g.reset[e])) edges.emplace_back(u, g.to[e]);
    }
  const Graph csr(boost::edges_are_sorted, edges.begin(), edges.end(), std::uint32_t(n));
  Components c;
  c.of.resize(n);
  c.count = std::uint32_t(
      boost::strong_components(csr, boost::make_iterator_property_map(c.of.begin(), boost::get(boost::vertex_index, csr))));
  c.at.assign(std::size_t(c.count) + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) ++c.at[c.of[u] + 1];
  for (std::size_t i = 0; i < c.count; ++i) c.at[i + 1] += c.at[i];
  c.order.resize(n);
  std::vector<std::uint64_t> fill(c.at.begin(), c.at.end() - 1);
  for (std::uint32_t u = 0; u < n; ++u) c.order[fill[c.of[u]]++] = u;
  for (std::uint32_t u = 0; u < n; ++u)
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e)
      if (!(without_resets && g.reset[e]) && c.of[g.to[e]] > c.of[u])
        throw std::logic_error("components: out of order");
  return c;
}


}  // namespace blkmc
