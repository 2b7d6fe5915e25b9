// Breadth-first search on several threads (explorer/level_search.hpp): the
// same ids, counts, verdicts, maxima and traces as on one thread, whatever
// the batch size and the store (plain, tree-compressed, or hash compaction,
// which omits nothing in spaces this small, on either side: one thread
// searches each of them without levels), and, without reductions, the same stored states and stop
// points as a plain one-thread breadth-first search written here.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <map>
#include <string>
#include <vector>

#include "app/instances.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "explorer/checks.hpp"
#include "tests/model_cases.hpp"
#include "model/tags/tags.hpp"

namespace blkmc::testing {
namespace threads_test {

TEST_CASE("threads: every model gives the same results on 1 to 4 threads and either store") {
  check_every_model(10, [](const ModelHandle& model) {
    const ModelHandle* mh = &model;
    const ModelInfo& inf = mh->info();
    const std::string variant = random_variant(inf);
    const Params p = small_params(inf);
    std::vector<std::string> props;
    for (const PropInfo& pi : inf.props)
      if (*rc::gen::arbitrary<bool>()) props.push_back(pi.name);
    SearchOptions opt;
    opt.progress = false;
    opt.bfs = true;
    opt.limits.max_states = *rc::gen::element<std::uint64_t>(0, 500, 20000, 150000);
    if (*rc::gen::arbitrary<bool>()) opt.reduce = ReduceOptions::all();
    // path measures (explorer/path_measure.hpp) run only on stores that give
    // states back, in one process: tests/path_measure_test.cpp holds them to this.
    opt.reduce.lift = false;
    // One thread searches any store in memory without levels (sequential).
    opt.store = *rc::gen::element(StoreKind::Plain, StoreKind::Tree, StoreKind::HashCompact);
    const StoreKind one_store = opt.store;
    CheckOutcome one;
    try {
      one = mh->check(variant, p, props, opt);
    } catch (const UsageError&) {
      RC_DISCARD("parameters the model refuses");
    }
    opt.threads = *rc::gen::inRange(2u, 5u);
    opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 7, 100, 1000);
    opt.store = *rc::gen::element(StoreKind::Plain, StoreKind::Tree, StoreKind::HashCompact);
    const CheckOutcome many = mh->check(variant, p, props, opt);
    RC_LOG() << "one thread: store " << to_string(one_store) << "; threads " << opt.threads << " batch " << opt.level_batch << " max states "
             << opt.limits.max_states << " store " << to_string(opt.store) << '\n';
    RC_ASSERT(search_difference(one, many) == "");
  });
}

// A plain breadth-first search: a queue, ids in insertion order, stopping
// where the level search must stop (the first violation of the one
// invariant: after that state's parent is expanded; or at max_states).
struct Plain {
  std::size_t states = 0;
  std::uint64_t transitions = 0;
  std::optional<std::size_t> violating;  // its id
};
Plain plain_bfs(const TagsModel& m, int prop, std::size_t max_states) {
  using State = TagsModel::State;
  const std::size_t n = m.state_bytes();
  std::map<std::string, std::size_t> ids;
  std::vector<State> states;
  Plain out;
  auto add = [&](const State& s) {
    const std::string k(reinterpret_cast<const char*>(s.b.data()), n);
    if (ids.count(k)) return true;
    if (states.size() >= max_states) return false;
    ids[k] = states.size();
    states.push_back(s);
    if (!out.violating && m.violates(prop, s)) out.violating = states.size() - 1;
    return true;
  };
  add(m.initial());
  for (std::size_t i = 0; i < states.size() && !out.violating; ++i) {
    bool room = true;
    const State cur = states[i];  // add() may move the vector
    m.for_each_successor(cur, [&](const Step&, const State& nx) {
      if (!room) return;
      ++out.transitions;
      room = add(nx);
    });
    if (!room) break;
  }
  out.states = states.size();
  return out;
}

TEST_CASE("threads: without reductions the level search stores what a plain BFS stores") {
  CHECK(rc::check("tags, stop at a violation or at max_states", [] {
    const int variant = *rc::gen::inRange(0, int(TagsModel::static_info().variants.size()));
    const TagsModel m(variant, {{"ntags", *rc::gen::inRange(1, 4)},
                                {"submitters", *rc::gen::inRange(1, 4)},
                                {"rounds", *rc::gen::inRange(1, 3)},
                                {"pool", *rc::gen::inRange(0, 3)}});
    const int prop = *rc::gen::inRange(0, int(m.info().props.size()));
    RC_PRE(m.info().props[std::size_t(prop)].kind == PropKind::Invariant);
    const std::size_t max_states = *rc::gen::element<std::size_t>(1, 7, 300, 5000, 400000);
    const Plain want = plain_bfs(m, prop, max_states);
    SearchOptions opt;
    opt.progress = false;
    opt.props = {prop};
    opt.limits.max_states = max_states;
    opt.threads = *rc::gen::inRange(1u, 4u);
    opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 50);
    const auto r = explore(m, opt);
    RC_ASSERT(r.stats.states == want.states);
    RC_ASSERT((r.props[0].verdict == Verdict::Violated) == want.violating.has_value());
    if (want.violating) RC_ASSERT(r.stop == StopReason::AllViolated);
  }));
}

}  // namespace threads_test
}  // namespace blkmc::testing
