#include "explorer/long_run_share.hpp"

#include "explorer/gain_components.hpp"

#include <algorithm>
#include <bitset>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace blkmc {

namespace {

using ActorSet = std::bitset<256>;
constexpr std::uint32_t kNone = 0xffffffffu;
constexpr std::uint64_t kNoEdge = ~std::uint64_t(0);
// Distances: a cycle's weights are q * mine - p * other with p, q up to
// what a cycle gains, summed along paths of up to every node.
__extension__ typedef __int128 Wide;

ActorSet enabled_at(const GainGraph& g, std::uint32_t u) {
  ActorSet en;
  for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) en.set(g.actor[e]);
  return en;
}

// The search for a cycle of negative weight over the live edges (those
// inside a fair component): Bellman-Ford-Moore from a virtual source at
// distance 0 to every node, in FIFO order. Every `nodes` relaxations the
// parent pointers are searched for a cycle; a cycle of parent pointers is
// always negative (Cherkassky and Goldberg, "Negative-cycle detection
// algorithms", 1999), and where none is negative the queue empties.
class NegativeCycles {
 public:
  NegativeCycles(const GainGraph& g, const std::vector<bool>& live, const std::vector<std::uint32_t>& nodes,
                 const std::function<bool()>& cut)
      : g_(g), live_(live), nodes_(nodes), cut_(cut), dist_(g.nodes()), parent_(g.nodes()), mark_(g.nodes()),
        in_queue_(g.nodes()), src_(g.edges()) {
    for (std::uint32_t u = 0; u < g.nodes(); ++u)
      for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) src_[e] = u;
  }

  bool stopped() const { return stopped_; }

  // The edges of a negative cycle of w(e), from its first node back to it;
  // empty where there is none (or where cut() stopped the search).
  template <class W>
  std::vector<std::uint64_t> find(W&& w) {
    std::deque<std::uint32_t> queue;
    for (std::uint32_t u : nodes_) {
      dist_[u] = 0;
      parent_[u] = kNoEdge;
      in_queue_[u] = true;
      queue.push_back(u);
    }
    std::size_t since_check = 0;
    while (!queue.empty()) {
      const std::uint32_t u = queue.front();
      queue.pop_front();
      in_queue_[u] = false;
      for (std::uint64_t e = g_.first[u]; e < g_.first[u + 1]; ++e) {
        if (!live_[e]) continue;
        const std::uint32_t v = g_.to[e];
        const Wide d = dist_[u] + w(e);
        if (d >= dist_[v]) continue;
        dist_[v] = d;
        parent_[v] = e;
        if (!in_queue_[v]) {
          in_queue_[v] = true;
          queue.push_back(v);
        }
        if ((++relaxed_ & 0xfffff) == 0 && cut_ && cut_()) {
          stopped_ = true;
          return {};
        }
        if (++since_check >= nodes_.size()) {
          since_check = 0;
          if (auto c = parent_cycle(); !c.empty()) return c;
        }
      }
    }
    return parent_cycle();  // none where the distances settled; checked all the same
  }

 private:
  std::vector<std::uint64_t> parent_cycle() {
    for (std::uint32_t u : nodes_) mark_[u] = 0;
    std::uint32_t walk = 0;
    for (std::uint32_t x : nodes_) {
      if (mark_[x]) continue;
      ++walk;
      std::uint32_t v = x;
      while (v != kNone && mark_[v] == 0) {
        mark_[v] = walk;
        v = parent_[v] == kNoEdge ? kNone : src_[parent_[v]];
      }
      if (v == kNone || mark_[v] != walk) continue;
      std::vector<std::uint64_t> cycle;  // v is on it: follow the parents back round to v
      std::uint32_t c = v;
      do {
        cycle.push_back(parent_[c]);
        c = src_[parent_[c]];
      } while (c != v);
      std::reverse(cycle.begin(), cycle.end());
      return cycle;
    }
    return {};
  }

  const GainGraph& g_;
  const std::vector<bool>& live_;
  const std::vector<std::uint32_t>& nodes_;
  const std::function<bool()>& cut_;
  std::uint64_t relaxed_ = 0;
  bool stopped_ = false;
  std::vector<Wide> dist_;
  std::vector<std::uint64_t> parent_;
  std::vector<std::uint32_t> mark_;
  std::vector<bool> in_queue_;
  std::vector<std::uint32_t> src_;
};

// The states the share is restricted to (GainGraph::within) and the steps
// between them: a run that stays among those states from some point on
// ends in a component of this graph. orig[e]: edge e's index in g. Only
// what the share reads is copied (edges, actors, served counts).
GainGraph restricted(const GainGraph& g, std::vector<std::uint64_t>& orig) {
  GainGraph h;
  h.first.reserve(g.first.size());
  for (std::uint32_t u = 0; u < g.nodes(); ++u) {
    if (g.within[u])
      for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
        if (!g.within[g.to[e]]) continue;
        h.to.push_back(g.to[e]);
        h.actor.push_back(g.actor[e]);
        for (std::size_t i = 0; i < 2; ++i) h.served.push_back(g.served[e * 2 + i]);
        orig.push_back(e);
      }
    h.end_node();
  }
  return h;
}

// The search on g, whose nodes are full's and whose edges are some of
// full's: what is enabled at a node is read off full, where every step of
// the node is an edge.
LongRunShare share_on(const GainGraph& full, const GainGraph& g, const std::function<bool()>& cut) {
  const std::vector<std::uint8_t>& actor = g.actor;
  LongRunShare out;
  const std::size_t n = g.nodes();
  if (n == 0) return out;

  // Components that admit a weakly fair run: every actor enabled at all of
  // their nodes has an edge inside (explorer/starvation.cpp says why that is
  // exact); a component without an edge inside holds no cycle.
  const Components cc = components(g, false);
  const std::uint32_t count = cc.count;
  const std::vector<std::uint32_t>& comp = cc.of;
  std::vector<ActorSet> always(count), inside(count);
  std::vector<bool> has_edge(count, false);
  for (auto& a : always) a.set();
  for (std::uint32_t u = 0; u < n; ++u) {
    const std::uint32_t c = comp[u];
    always[c] &= enabled_at(full, u);
    for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e)
      if (comp[g.to[e]] == c) {
        has_edge[c] = true;
        inside[c].set(actor[e]);
      }
  }
  std::vector<bool> fair(count, false);
  for (std::uint32_t c = 0; c < count; ++c) {
    fair[c] = has_edge[c] && (always[c] & ~inside[c]).none();
    out.fair_components += fair[c];
  }
  if (out.fair_components == 0) return out;

  const auto gain = [&](std::uint64_t e, int i) { return std::int64_t(g.served[e * 2 + std::size_t(i)]); };
  std::vector<bool> live(g.edges(), false);
  std::vector<std::uint32_t> nodes;
  std::vector<std::uint32_t> seen(n, kNone), queue;
  std::vector<std::uint64_t> via(n, kNoEdge);
  for (int i = 0; i < 2; ++i) {
    // Only fair components where the other is served somewhere hold a
    // cycle with a ratio: the search runs on them alone.
    std::vector<bool> serves(count, false);
    for (std::uint32_t u = 0; u < n; ++u)
      if (fair[comp[u]])
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e)
          if (comp[g.to[e]] == comp[u] && gain(e, 1 - i) > 0) serves[comp[u]] = true;
    nodes.clear();
    std::fill(live.begin(), live.end(), false);
    std::uint64_t first = kNoEdge;
    for (std::uint32_t u = 0; u < n; ++u) {
      if (!serves[comp[u]]) continue;
      nodes.push_back(u);
      for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e) {
        live[e] = comp[g.to[e]] == comp[u];
        if (live[e] && first == kNoEdge && gain(e, 1 - i) > 0) first = e;
      }
    }
    if (nodes.empty()) continue;
    ShareCycle& best = out.least[i];
    // A first cycle through the first edge that serves the other: that
    // edge, then a shortest way back inside its component.
    std::vector<std::uint64_t> cycle;
    {
      const std::uint32_t from = std::uint32_t(std::upper_bound(g.first.begin(), g.first.end(), first) - g.first.begin() - 1);
      queue.assign(1, g.to[first]);
      seen[g.to[first]] = std::uint32_t(i);
      for (std::size_t h = 0; h < queue.size() && seen[from] != std::uint32_t(i); ++h) {
        const std::uint32_t u = queue[h];
        for (std::uint64_t e = g.first[u]; e < g.first[u + 1]; ++e)
          if (live[e] && seen[g.to[e]] != std::uint32_t(i)) {
            seen[g.to[e]] = std::uint32_t(i);
            via[g.to[e]] = e;
            queue.push_back(g.to[e]);
          }
      }
      for (std::uint32_t v = from; v != g.to[first];) {
        cycle.push_back(via[v]);
        v = std::uint32_t(std::upper_bound(g.first.begin(), g.first.end(), via[v]) - g.first.begin() - 1);
      }
      cycle.push_back(first);
      std::reverse(cycle.begin(), cycle.end());  // first, then the way back
    }
    // The least ratio mine/other, from above: p/q is the best cycle's so
    // far, and a cycle with q*mine - p*other < 0 is strictly below it.
    // Each round finds one or proves there is none; the ratios of simple
    // cycles are finitely many, so it ends, and 0 (a cycle where only the
    // other is served) cannot be beaten.
    NegativeCycles search(g, live, nodes, cut);
    std::int64_t p = 1, q = 0;
    for (bool have = true;;) {
      if (!have) {
        ++out.rounds;
        cycle = search.find([&](std::uint64_t e) { return Wide(q) * gain(e, i) - Wide(p) * gain(e, 1 - i); });
      }
      have = false;
      if (search.stopped()) {
        out.stopped = true;
        out.least[0] = out.least[1] = ShareCycle{};
        return out;
      }
      if (cycle.empty()) break;
      std::uint64_t mine = 0, other = 0;
      for (std::uint64_t e : cycle) {
        mine += std::uint64_t(gain(e, i));
        other += std::uint64_t(gain(e, 1 - i));
      }
      if (other == 0 || Wide(q) * mine >= Wide(p) * other)
        throw std::logic_error("long_run_share: a cycle that is not below the best");
      best.found = true;
      best.mine = mine;
      best.other = other;
      best.edges = std::move(cycle);
      const std::uint64_t d = std::gcd(mine, other);
      p = std::int64_t(mine / d);
      q = std::int64_t(other / d);
      if (p == 0) break;
    }
    if (!best.found) continue;
    // Start the cycle at its lowest node (under BFS ids: nearest the start).
    std::vector<std::uint32_t> from(best.edges.size());
    for (std::size_t j = 0; j < best.edges.size(); ++j) {
      const std::uint64_t e = best.edges[j];
      from[j] = std::uint32_t(std::upper_bound(g.first.begin(), g.first.end(), e) - g.first.begin() - 1);
    }
    const std::size_t low = std::size_t(std::min_element(from.begin(), from.end()) - from.begin());
    std::rotate(best.edges.begin(), best.edges.begin() + std::ptrdiff_t(low), best.edges.end());
    best.entry = from[low];
    ActorSet en, moved;
    en.set();
    for (std::size_t j = 0; j < from.size(); ++j) {
      en &= enabled_at(full, from[j]);
      moved.set(actor[best.edges[j]]);
    }
    best.fair_alone = (en & ~moved).none();
  }
  return out;
}

}  // namespace

LongRunShare long_run_share(const GainGraph& g, const std::function<bool()>& cut) {
  if (g.served.size() != 2 * g.edges()) throw std::logic_error("long_run_share: two served counts per edge");
  if (g.actor.size() != g.edges()) throw std::logic_error("long_run_share: one actor per edge");
  if (g.within.empty()) return share_on(g, g, cut);
  if (g.within.size() != g.nodes()) throw std::logic_error("long_run_share: one within flag per node");
  std::vector<std::uint64_t> orig;
  const GainGraph h = restricted(g, orig);
  LongRunShare out = share_on(g, h, cut);
  for (ShareCycle& c : out.least)
    for (std::uint64_t& e : c.edges) e = orig[e];
  return out;
}

}  // namespace blkmc
