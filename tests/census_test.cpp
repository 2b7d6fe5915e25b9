// check --census (explorer/census.hpp): its counts against the same counts
// taken exactly (the masked states themselves, not their hashes) over a
// search's store, and what a sliced variable and a store that keeps no
// states give.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "app/instances.hpp"
#include "explorer/census.hpp"
#include "explorer/checks.hpp"
#include "explorer/reach.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/sched_test_util.hpp"

namespace blkmc::testing {
namespace census_test {

using namespace blkmc::sched;
using M = SchedModel<DeadlineScheduler>;

M deadline_on(const std::string& wl) {
  Params p;
  for (const auto& pi : M::static_info().params) p[pi.name] = pi.def;
  p["workload"] = shipped(wl);
  return M(variant_index_of<DeadlineScheduler>("v6.18"), p);
}

SearchOptions options(const M& m, const std::string& prop) {
  SearchOptions opt;
  opt.progress = false;
  opt.props = {find_prop(m.info(), prop)};
  opt.reduce = ReduceOptions::all();
  opt.limits.max_states = 50000;
  return opt;
}

// Distinct masked states, counted on the bytes themselves.
std::uint64_t exact_distinct(const VisitedStore& st, std::vector<std::uint8_t> mask) {
  std::set<std::vector<std::uint8_t>> seen;
  std::vector<std::uint8_t> s(st.state_bytes());
  mask.resize(s.size(), 0xff);  // bytes past the schema's, if any, are kept
  for (std::size_t i = 0; i < st.size(); ++i) {
    st.load(std::uint32_t(i), s.data());
    for (std::size_t b = 0; b < s.size(); ++b) s[b] = std::uint8_t(s[b] & mask[b]);
    seen.insert(s);
  }
  return seen.size();
}

TEST_CASE("census: the hashed counts are the exact counts, variable by variable") {
  for (const char* wl : {"gated-write", "seed002-read-raid0"}) {
    const M m = deadline_on(wl);
    const SearchOptions opt = options(m, "max-wait");
    Search<M> search(m, opt);
    auto never = [](const M::State&) { return false; };
    FindState<M> obs(never);
    search.run(obs);
    const Census c = take_census(m.schema(), search.store(), [](const std::string&, std::size_t, std::size_t) {});
    const Schema& sc = m.schema();
    REQUIRE(c.states == search.store().size());
    REQUIRE(c.rows.size() == sc.vars().size());
    bool some_factor = false;
    for (const CensusRow& r : c.rows) {
      const std::size_t dot = r.var.rfind('.');
      const int v = sc.find(dot == std::string::npos ? r.var : r.var.substr(dot + 1));
      std::vector<bool> keep(sc.vars().size(), true);
      keep[std::size_t(v)] = false;
      const std::vector<std::uint8_t> clear = sc.keep_mask(keep);
      std::vector<std::uint8_t> only(clear.size());
      std::transform(clear.begin(), clear.end(), only.begin(), [](std::uint8_t b) { return std::uint8_t(~b); });
      INFO(wl << ": " << r.var);
      CHECK(r.copies == sc.copies(v));
      CHECK(r.tuples == exact_distinct(search.store(), only));
      CHECK(r.without == exact_distinct(search.store(), clear));
      some_factor = some_factor || r.without < c.states;
    }
    CHECK(some_factor);
    // Largest factor first.
    CHECK(std::is_sorted(c.rows.begin(), c.rows.end(),
                         [](const CensusRow& a, const CensusRow& b) { return a.without < b.without; }));
  }
}

TEST_CASE("census: a sliced ghost has one value; explore() reports the census it asks for") {
  const M m = deadline_on("gated-write");
  SearchOptions opt = options(m, "conservation");
  opt.census = true;
  const auto r = explore(m, opt);
  REQUIRE(r.census);
  CHECK(r.census->states == r.stats.states);
  const auto wait = std::find_if(r.census->rows.begin(), r.census->rows.end(),
                                 [](const CensusRow& row) { return row.var == "ghost.wait"; });
  REQUIRE(wait != r.census->rows.end());
  CHECK(wait->tuples == 1);
  CHECK(wait->without == r.census->states);
  opt.census = false;
  CHECK_FALSE(explore(m, opt).census);
}

TEST_CASE("census: a store that keeps no states is refused") {
  const M m = deadline_on("gated-write");
  SearchOptions opt = options(m, "conservation");
  opt.census = true;
  opt.store = StoreKind::HashCompact;
  CHECK_THROWS_AS(explore(m, opt), UsageError);
}

}  // namespace census_test
}  // namespace blkmc::testing
