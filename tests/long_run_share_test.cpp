// The long-run share (explorer/long_run_share.hpp): on graphs known by
// hand, and on random small graphs against every simple cycle enumerated
// (components and fairness worked out again by transitive closure).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "app/instances.hpp"
#include "explorer/long_run_share.hpp"

namespace blkmc::testing {
namespace long_run_share_test {

struct Edge {
  std::uint32_t from, to;
  int a, b, actor;
};

struct Built {
  GainGraph g;
};

// Edges grouped by their node in the order given per node.
Built build(std::uint32_t n, std::vector<Edge> edges) {
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.from < y.from; });
  Built b;
  b.g.counters = 2;
  std::size_t j = 0;
  for (std::uint32_t u = 0; u < n; ++u) {
    for (; j < edges.size() && edges[j].from == u; ++j) {
      const int add[2] = {edges[j].a, edges[j].b};
      b.g.add_edge(edges[j].to, add, false, edges[j].actor, add);
    }
    b.g.end_node();
  }
  return b;
}

std::uint32_t from_of(const GainGraph& g, std::uint64_t e) {
  return std::uint32_t(std::upper_bound(g.first.begin(), g.first.end(), e) - g.first.begin() - 1);
}

// The cycle closes at its entry and adds up to what it says.
void check_cycle(const GainGraph& g, const ShareCycle& c, int i) {
  REQUIRE(!c.edges.empty());
  std::uint32_t at = c.entry;
  std::uint64_t mine = 0, other = 0;
  for (std::uint64_t e : c.edges) {
    REQUIRE(from_of(g, e) == at);
    at = g.to[e];
    mine += g.served[e * 2 + std::size_t(i)];
    other += g.served[e * 2 + std::size_t(1 - i)];
  }
  CHECK(at == c.entry);
  CHECK(mine == c.mine);
  CHECK(other == c.other);
}

TEST_CASE("long-run share: graphs known by hand") {
  SUBCASE("two steps in turn: 1 for 2, and 2 for 1") {
    const Built b = build(2, {{0, 1, 1, 0, 0}, {1, 0, 0, 2, 1}});
    const LongRunShare s = long_run_share(b.g);
    CHECK(s.fair_components == 1);
    REQUIRE(s.least[0].found);
    CHECK(s.least[0].mine == 1);
    CHECK(s.least[0].other == 2);
    CHECK(s.least[0].fair_alone);
    REQUIRE(s.least[1].found);
    CHECK(s.least[1].mine == 2);
    CHECK(s.least[1].other == 1);
    check_cycle(b.g, s.least[0], 0);
  }
  SUBCASE("two cycles through a hub: each counter's worst is a different cycle") {
    // 0 -> 1 -> 0 gives 1 : 3; 0 -> 2 -> 0 gives 4 : 2.
    const Built b = build(3, {{0, 1, 1, 0, 0}, {1, 0, 0, 3, 1}, {0, 2, 2, 0, 0}, {2, 0, 2, 2, 1}});
    const LongRunShare s = long_run_share(b.g);
    REQUIRE(s.least[0].found);
    CHECK(s.least[0].mine * 3 == s.least[0].other * 1);
    CHECK(s.least[0].entry == 0);
    REQUIRE(s.least[1].found);
    CHECK(s.least[1].mine * 4 == s.least[1].other * 2);  // 2 : 4, the other cycle
    check_cycle(b.g, s.least[0], 0);
    check_cycle(b.g, s.least[1], 1);
  }
  SUBCASE("a cycle where only the other gains: a share of 0") {
    const Built b = build(2, {{0, 1, 1, 1, 0}, {1, 0, 0, 1, 1}, {1, 1, 0, 1, 1}});
    const LongRunShare s = long_run_share(b.g);
    REQUIRE(s.least[0].found);
    CHECK(s.least[0].mine == 0);
    CHECK(s.least[0].other == 1);
    CHECK(s.least[0].entry == 1);
    // Only actor 1 steps on the self-loop, but actor 0 is disabled at node 1.
    CHECK(s.least[0].fair_alone);
  }
  SUBCASE("a component no weakly fair run stays in is left out") {
    // Nodes 1 and 2 loop with actor 1 only; actor 0 is enabled at both and
    // always leaves for node 3, whose self-loop gains nothing.
    const Built b =
        build(4, {{0, 1, 0, 0, 0}, {1, 2, 0, 1, 1}, {2, 1, 0, 0, 1}, {1, 3, 0, 0, 0}, {2, 3, 0, 0, 0}, {3, 3, 0, 0, 1}});
    const LongRunShare s = long_run_share(b.g);
    CHECK(s.fair_components == 1);  // node 3's loop
    CHECK_FALSE(s.least[0].found);
    CHECK_FALSE(s.least[1].found);
  }
  SUBCASE("a cycle unfair alone in a fair component") {
    // 0 <-> 1 with actor 0 gaining the first counter; actor 1 is enabled
    // at both and steps only through node 2, which gains the second.
    const Built b = build(3, {{0, 1, 1, 0, 0},
                              {1, 0, 1, 0, 0},
                              {0, 2, 0, 0, 1},
                              {1, 2, 0, 0, 1},
                              {2, 0, 0, 1, 1}});
    const LongRunShare s = long_run_share(b.g);
    REQUIRE(s.least[1].found);
    CHECK(s.least[1].mine == 0);  // 0 -> 1 -> 0: the second counter gets nothing, the first 2
    CHECK(s.least[1].other == 2);
    CHECK_FALSE(s.least[1].fair_alone);
    check_cycle(b.g, s.least[1], 1);
  }
  SUBCASE("restricted to some nodes: their cycles alone, fairness read off every step") {
    // 0 -> 1 -> 0 gives the first counter 1 for 3; 0 -> 2 -> 0 gives it 4 for 2.
    Built b = build(3, {{0, 1, 1, 0, 0}, {1, 0, 0, 3, 1}, {0, 2, 2, 0, 0}, {2, 0, 2, 2, 1}});
    b.g.within = {1, 0, 1};  // node 1 is out: the 1 : 3 cycle no longer counts
    LongRunShare s = long_run_share(b.g);
    REQUIRE(s.least[0].found);
    CHECK(s.least[0].mine == 4);
    CHECK(s.least[0].other == 2);
    check_cycle(b.g, s.least[0], 0);
    CHECK(s.least[0].fair_alone);
    // Actor 2 is enabled at nodes 0 and 2 and only leaves for node 1: a run
    // that stays among 0 and 2 never lets it step, so none is weakly fair.
    b = build(3, {{0, 1, 1, 0, 2}, {1, 0, 0, 3, 1}, {0, 2, 2, 0, 0}, {2, 0, 2, 2, 1}, {2, 1, 0, 0, 2}});
    b.g.within = {1, 0, 1};
    s = long_run_share(b.g);
    CHECK(s.fair_components == 0);
    CHECK_FALSE(s.least[0].found);
    b.g.within.clear();
    s = long_run_share(b.g);
    CHECK(s.fair_components == 1);
    CHECK(s.least[0].found);
    b.g.within = {1, 1};
    CHECK_THROWS_AS(long_run_share(b.g), std::logic_error);  // not one flag per node
  }
  SUBCASE("no service on any cycle") {
    const Built b = build(2, {{0, 1, 1, 1, 0}, {1, 1, 0, 0, 0}});
    const LongRunShare s = long_run_share(b.g);
    CHECK_FALSE(s.least[0].found);
    CHECK_FALSE(s.least[1].found);
  }
}

// Every simple cycle (rooted at its lowest node, parallel edges apart) in a
// component that admits a weakly fair run: the least mine/other with
// other > 0, as (mine, other); found false where none.
// Restricted to the nodes marked in `within` (empty: every node): only the
// edges between marked nodes make components and cycles; every edge still
// says its actor is enabled.
std::tuple<bool, std::uint64_t, std::uint64_t> brute_least(std::uint32_t n, const std::vector<Edge>& edges, int i,
                                                           const std::vector<bool>& within = {}) {
  const auto in = [&](std::uint32_t u) { return within.empty() || within[u]; };
  const auto kept = [&](const Edge& e) { return in(e.from) && in(e.to); };
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (const Edge& e : edges)
    if (kept(e)) reach[e.from][e.to] = true;
  for (std::uint32_t k = 0; k < n; ++k)
    for (std::uint32_t u = 0; u < n; ++u)
      for (std::uint32_t v = 0; v < n; ++v)
        if (reach[u][k] && reach[k][v]) reach[u][v] = true;
  const auto same = [&](std::uint32_t u, std::uint32_t v) { return u == v || (reach[u][v] && reach[v][u]); };
  const auto fair = [&](std::uint32_t c) {
    if (!in(c)) return false;
    std::bitset<8> always, inside;
    always.set();
    bool has = false;
    for (std::uint32_t u = 0; u < n; ++u) {
      if (!same(u, c)) continue;
      std::bitset<8> en;
      for (const Edge& e : edges)
        if (e.from == u) {
          en.set(std::size_t(e.actor));
          if (kept(e) && same(e.to, c)) {
            has = true;
            inside.set(std::size_t(e.actor));
          }
        }
      always &= en;
    }
    return has && (always & ~inside).none();
  };
  bool found = false;
  std::uint64_t bm = 0, bo = 1;
  std::vector<bool> on(n, false);
  const auto walk = [&](auto&& self, std::uint32_t root, std::uint32_t u, std::uint64_t mine, std::uint64_t other) -> void {
    for (const Edge& e : edges) {
      if (e.from != u || !kept(e)) continue;
      const std::uint64_t m = mine + std::uint64_t(i == 0 ? e.a : e.b), o = other + std::uint64_t(i == 0 ? e.b : e.a);
      if (e.to == root) {
        if (o > 0 && (!found || m * bo < bm * o)) {
          found = true;
          bm = m;
          bo = o;
        }
      } else if (e.to > root && !on[e.to]) {
        on[e.to] = true;
        self(self, root, e.to, m, o);
        on[e.to] = false;
      }
    }
  };
  for (std::uint32_t r = 0; r < n; ++r)
    if (fair(r)) {
      on[r] = true;
      walk(walk, r, r, 0, 0);
      on[r] = false;
    }
  return {found, bm, bo};
}

TEST_CASE("long-run share: the least over every simple cycle, on random graphs") {
  rc::detail::TestParams params = rc::detail::configuration().testParams;  // RC_PARAMS="seed=N"
  params.maxSuccess = 300;
  const auto r = rc::detail::checkTestable(
      [] {
        const auto n = std::uint32_t(*rc::gen::inRange(1, 7));
        const int m = *rc::gen::inRange(0, 14);
        std::vector<Edge> edges;
        for (int j = 0; j < m; ++j)
          edges.push_back({std::uint32_t(*rc::gen::inRange(0, int(n))), std::uint32_t(*rc::gen::inRange(0, int(n))),
                           *rc::gen::inRange(0, 4), *rc::gen::inRange(0, 4), *rc::gen::inRange(0, 3)});
        Built b = build(n, edges);
        std::vector<Edge> sorted = edges;
        std::stable_sort(sorted.begin(), sorted.end(), [](const Edge& x, const Edge& y) { return x.from < y.from; });
        // Half the time restricted to some nodes (GainGraph::within).
        std::vector<bool> within;
        if (*rc::gen::arbitrary<bool>())
          for (std::uint32_t u = 0; u < n; ++u) {
            within.push_back(*rc::gen::inRange(0, 3) > 0);
            b.g.within.push_back(within.back());
          }
        const LongRunShare s = long_run_share(b.g);
        for (int i = 0; i < 2; ++i) {
          const auto [found, bm, bo] = brute_least(n, sorted, i, within);
          const ShareCycle& c = s.least[i];
          RC_ASSERT(c.found == found);
          if (!found) continue;
          RC_ASSERT(c.mine * bo == bm * c.other);
          std::uint32_t at = c.entry;
          std::uint64_t mine = 0, other = 0;
          for (std::uint64_t e : c.edges) {
            RC_ASSERT(from_of(b.g, e) == at);
            RC_ASSERT(within.empty() || within[at]);
            at = b.g.to[e];
            mine += b.g.served[e * 2 + std::size_t(i)];
            other += b.g.served[e * 2 + std::size_t(1 - i)];
          }
          RC_ASSERT(at == c.entry);
          RC_ASSERT(mine == c.mine);
          RC_ASSERT(other == c.other);
        }
      },
      rc::detail::TestMetadata{}, params);
  std::ostringstream why;
  rc::detail::printResultMessage(r, why);
  INFO(why.str());
  CHECK(r.is<rc::detail::SuccessResult>());
}

}  // namespace long_run_share_test
}  // namespace blkmc::testing
