#include "explorer/starvation.hpp"

#include <bitset>
#include <stdexcept>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>

namespace blkmc {

namespace {

using ActorSet = std::bitset<256>;
constexpr std::uint32_t kNone = 0xffffffffu;

// The actors with at least one step from u (in the whole graph, pending
// successor or not): the actors enabled in u.
ActorSet enabled_at(const EdgeLog& log, std::uint32_t u) {
  ActorSet en;
  const std::uint8_t* a = log.actor_begin(u);
  for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v, ++a) en.set(*a);
  return en;
}

}  // namespace

// Why deciding fairness per strongly connected component C is exact (weak
// fairness: an actor enabled in every state of the cycle steps in it):
//  - If every actor a either has an edge inside C or is disabled in some
//    state of C, take a closed walk that visits, for each actor, a state of C
//    where it is disabled or one of its edges inside C (C is strongly
//    connected, so such a walk exists; a walk through every state and every
//    internal edge is the extreme case). An actor enabled in every state of
//    the walk is not disabled at any visited state, so the walk contains one
//    of its edges: the cycle is fair.
//  - Otherwise some actor a is enabled in every state of C and has no edge
//    inside C. Every pending cycle lies inside one component, so every cycle
//    in C has a enabled throughout and never steps: none is fair.
// Trivial components (one state without a self-loop) hold no cycle.
std::optional<FairCycle> find_fair_pending_cycle(const EdgeLog& log,
                                                 const std::vector<bool>& pending, std::size_t n) {
  if (!log.keeps_actors()) throw std::logic_error("starvation needs an edge log with actors");
  // Pending states, renumbered 0..P-1 in id order.
  std::vector<std::uint32_t> idx(n, kNone), ids;
  for (std::uint32_t u = 0; u < n; ++u)
    if (pending[u]) {
      idx[u] = std::uint32_t(ids.size());
      ids.push_back(u);
    }
  const std::uint32_t P = std::uint32_t(ids.size());
  if (P == 0) return std::nullopt;

  // The pending subgraph as a CSR graph (sources ascending by construction).
  using Graph =
      boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                         boost::no_property, std::uint32_t, std::uint32_t>;
  std::vector<std::uint32_t> comp(P);
  std::uint32_t ncomp = 0;
  {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t k = 0; k < P; ++k)
      for (const std::uint32_t* v = log.succ_begin(ids[k]); v != log.succ_end(ids[k]); ++v)
        if (idx[*v] != kNone) edges.emplace_back(k, idx[*v]);
    const Graph g(boost::edges_are_sorted, edges.begin(), edges.end(), P);
    edges.clear();
    edges.shrink_to_fit();
    ncomp = std::uint32_t(boost::strong_components(
        g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g))));
  }
  auto comp_of = [&](std::uint32_t v) { return idx[v] == kNone ? kNone : comp[idx[v]]; };

  // Per component: its size, its lowest member, whether it has a self-loop.
  std::vector<std::uint32_t> csize(ncomp, 0), first(ncomp, kNone);
  std::vector<bool> self_loop(ncomp, false);
  for (std::uint32_t k = 0; k < P; ++k) {
    const std::uint32_t c = comp[k];
    ++csize[c];
    if (first[c] == kNone) first[c] = k;
    for (const std::uint32_t* v = log.succ_begin(ids[k]); v != log.succ_end(ids[k]); ++v)
      if (*v == ids[k]) self_loop[c] = true;
  }
  // Non-trivial components: the actors enabled in all their states and the
  // actors with an edge inside.
  std::vector<std::uint32_t> slot(ncomp, kNone);
  std::uint32_t nslots = 0;
  for (std::uint32_t c = 0; c < ncomp; ++c)
    if (csize[c] >= 2 || self_loop[c]) slot[c] = nslots++;
  if (nslots == 0) return std::nullopt;
  std::vector<ActorSet> enabled_all(nslots, ActorSet().set()), moved(nslots);
  for (std::uint32_t k = 0; k < P; ++k) {
    const std::uint32_t c = comp[k], s = slot[c];
    if (s == kNone) continue;
    const std::uint32_t u = ids[k];
    const std::uint8_t* a = log.actor_begin(u);
    for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v, ++a)
      if (comp_of(*v) == c) moved[s].set(*a);
    enabled_all[s] &= enabled_at(log, u);
  }
  std::uint32_t best = kNone, bc = kNone;  // compact index of the entry, its component
  for (std::uint32_t c = 0; c < ncomp; ++c) {
    const std::uint32_t s = slot[c];
    if (s != kNone && (enabled_all[s] & ~moved[s]).none() && first[c] < best) {
      best = first[c];
      bc = c;
    }
  }
  if (best == kNone) return std::nullopt;

  // A closed walk from the entry r through the fair component: repeatedly go
  // (shortest path inside the component, BFS in log order) to the nearest
  // witness of an actor not yet covered (a state where it is disabled, or one
  // of its edges), then back to r. An actor is covered once the walk visits a
  // state where it is disabled or takes one of its steps; the actors disabled
  // at r start covered. Each round covers at least one more actor.
  FairCycle fc;
  const std::uint32_t r = ids[best];
  fc.entry = r;
  fc.walk.push_back(r);
  ActorSet covered = ~enabled_at(log, r);
  std::vector<std::uint32_t> pred(P), stamp(P, 0);
  std::vector<std::uint8_t> pred_actor(P);
  std::uint32_t gen = 0;
  auto go = [&](std::uint32_t to, std::uint8_t actor) {
    fc.walk.push_back(to);
    fc.actors.push_back(actor);
    covered.set(actor);
    covered |= ~enabled_at(log, to);
  };
  // BFS inside the component from the walk's end to the first state u where
  // stop(u) returns a target: {kNone, 0} for u itself, {v, actor} for u and
  // then that edge. Appends the path; false when no state matches.
  auto walk_to = [&](auto&& stop) {
    const std::uint32_t from = fc.walk.back();
    ++gen;
    std::vector<std::uint32_t> queue{from};
    stamp[idx[from]] = gen;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t u = queue[head];
      const auto hit = stop(u);
      if (hit) {
        std::vector<std::pair<std::uint32_t, std::uint8_t>> path;
        for (std::uint32_t x = u; x != from; x = pred[idx[x]])
          path.emplace_back(x, pred_actor[idx[x]]);
        for (auto it = path.rbegin(); it != path.rend(); ++it) go(it->first, it->second);
        if (hit->first != kNone) go(hit->first, hit->second);
        return true;
      }
      const std::uint8_t* a = log.actor_begin(u);
      for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v, ++a)
        if (comp_of(*v) == bc && stamp[idx[*v]] != gen) {
          stamp[idx[*v]] = gen;
          pred[idx[*v]] = u;
          pred_actor[idx[*v]] = *a;
          queue.push_back(*v);
        }
    }
    return false;
  };
  using Hit = std::optional<std::pair<std::uint32_t, std::uint8_t>>;
  while (!covered.all()) {
    const bool found = walk_to([&](std::uint32_t u) -> Hit {
      if ((~enabled_at(log, u) & ~covered).any()) return std::pair{kNone, std::uint8_t(0)};
      const std::uint8_t* a = log.actor_begin(u);
      for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v, ++a)
        if (comp_of(*v) == bc && !covered[*a]) return std::pair{*v, *a};
      return std::nullopt;
    });
    if (!found) throw std::logic_error("starvation: a fair component without a witness");
  }
  if (fc.walk.back() != r)
    walk_to([&](std::uint32_t u) -> Hit {
      return u == r ? Hit(std::pair{kNone, std::uint8_t(0)}) : std::nullopt;
    });
  return fc;
}

}  // namespace blkmc
