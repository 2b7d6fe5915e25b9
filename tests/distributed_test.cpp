// The distributed search (explorer/distributed_search.hpp) on 1 to 4 ranks
// of a LocalCluster (threads standing in for MPI processes): the same
// states, transitions, reduction outcomes, verdicts, maxima and traces as
// the one-process search, for every model, with and without reductions,
// limits, depth bounds and batch sizes, progress and starvation included.
// tests/mpi_test.sh runs the same comparison under mpirun where Open MPI is
// installed.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "app/instances.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "explorer/checks.hpp"
#include "tests/model_cases.hpp"

namespace blkmc::testing {
namespace distributed_test {

// mh->check on n ranks at once; rank 0's outcome (every rank's must agree).
CheckOutcome check_on_ranks(const ModelHandle& mh, int n, const std::string& variant, const Params& p,
                            const std::vector<std::string>& props, SearchOptions opt) {
  auto ranks = LocalCluster::group(n);
  std::vector<CheckOutcome> out(static_cast<std::size_t>(n));
  std::vector<std::exception_ptr> err(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      SearchOptions o = opt;
      o.cluster = ranks[std::size_t(r)].get();
      try {
        out[std::size_t(r)] = mh.check(variant, p, props, o);
      } catch (...) {
        err[std::size_t(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : err)
    if (e) std::rethrow_exception(e);
  for (int r = 1; r < n; ++r) {
    // Traces are rebuilt on every rank; rank 0 alone shortens them.
    REQUIRE(out[std::size_t(r)].stats.states == out[0].stats.states);
    REQUIRE(out[std::size_t(r)].stop == out[0].stop);
  }
  return out[0];
}

TEST_CASE("distributed: every model gives the one-process results on 1 to 4 ranks") {
  check_every_model(8, [](const ModelHandle& model) {
    const ModelHandle* mh = &model;
    const ModelInfo& inf = mh->info();
    const std::string variant = random_variant(inf);
    const Params p = small_params(inf);
    const std::vector<std::string> props = random_safety_props(inf);
    SearchOptions opt = random_limits();
    opt.bfs = true;
    if (*rc::gen::arbitrary<bool>()) opt.reduce = ReduceOptions::all();
    opt.reduce.lift = false;  // one process only (tests/path_measure_test.cpp)
    CheckOutcome one;
    try {
      one = mh->check(variant, p, props, opt);
    } catch (const UsageError&) {
      RC_DISCARD("parameters the model refuses");
    }
    const int n = *rc::gen::inRange(1, 5);
    opt.threads = *rc::gen::inRange(1u, 3u);
    opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 7, 100, 1000);
    const CheckOutcome many = check_on_ranks(*mh, n, variant, p, props, opt);
    RC_LOG() << "ranks " << n << " threads " << opt.threads << " batch " << opt.level_batch
             << " max states " << opt.limits.max_states << " max depth " << opt.limits.max_depth << '\n';
    RC_ASSERT(search_difference(one, many) == "");
    RC_ASSERT(many.stats.ranks == unsigned(n));
  });
}

TEST_CASE("distributed: progress and starvation give the one-process verdicts and traces on 1 to 4 ranks") {
  check_every_model(6, [](const ModelHandle& mh) {
    auto c = random_graph_case(mh, true);
    if (!c) return;  // nothing here needs an edge log
    const int n = *rc::gen::inRange(1, 5);
    c->opt.threads = *rc::gen::inRange(1u, 3u);
    c->opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 7, 100, 1000);
    const CheckOutcome many = check_on_ranks(mh, n, c->variant, c->params, c->props, c->opt);
    RC_LOG() << "ranks " << n << " threads " << c->opt.threads << " batch " << c->opt.level_batch
             << " max states " << c->opt.limits.max_states << " max depth " << c->opt.limits.max_depth << '\n';
    RC_ASSERT(search_difference(c->plain, many) == "");
  });
}

TEST_CASE("distributed: --dfs and compact stores are refused") {
  const ModelHandle& mh = *all_models().front();
  SearchOptions opt;
  opt.progress = false;
  const std::string variant = mh.info().variants.front().name;
  opt.bfs = false;
  CHECK_THROWS_AS(check_on_ranks(mh, 2, variant, {}, {}, opt), UsageError);
  opt.bfs = true;
  opt.store = StoreKind::Tree;
  CHECK_THROWS_AS(check_on_ranks(mh, 2, variant, {}, {}, opt), UsageError);
}

}  // namespace distributed_test
}  // namespace blkmc::testing
