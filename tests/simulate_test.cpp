// blkmc simulate (explorer/simulate.hpp, model/sched/sim_observer.hpp): one
// schedule, the same per seed, and the scheduler figures computed by hand.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "app/instances.hpp"
#include "explorer/simulate.hpp"
#include "model/sched/sched_model.hpp"
#include "tests/toy_model.hpp"

namespace simulate_test {

using namespace blkmc;
using namespace blkmc::testing;

// Two counters racing to 3; whoever reaches it first wins; a loser that
// reaches 3 second deadlocks the run when `stall` is set.
struct Race : ToyBase<Race, ByteState<2>> {
  using State = ByteState<2>;
  bool stall = false;
  const ModelInfo& info() const {
    static const ModelInfo i{"race", "toy", {}, {}, {}, {"inc"}};
    return i;
  }
  std::size_t state_bytes() const { return 2; }
  State initial() const { return {}; }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    if (stall && (s.b[0] == 3 || s.b[1] == 3)) return;
    for (int a = 0; a < 2; ++a)
      if (s.b[std::size_t(a)] < 3) {
        State n = s;
        ++n.b[std::size_t(a)];
        emit(mkstep(a, 0), n);
      }
  }
  bool finished(const State& s) const { return s.b[0] == 3 && s.b[1] == 3; }
  std::string summary(const State& s) const {
    return fmt::format("{} {}", int(s.b[0]), int(s.b[1]));
  }
};

SimOptions quiet_opt() {
  SimOptions o;
  o.progress = false;
  return o;
}

TEST_CASE("simulate: the first-step schedule, limits, deadlock and finish") {
  Race m;
  SimOptions o = quiet_opt();
  o.random = false;
  auto r = simulate(m, o);
  CHECK(r.end == SimEnd::Finished);
  CHECK(r.steps == 6);
  CHECK(r.final_summary == "3 3");
  CHECK(r.figures.is_null());
  CHECK(r.text.empty());
  o.max_steps = 2;
  r = simulate(m, o);
  CHECK(r.end == SimEnd::Steps);
  CHECK(r.final_summary == "2 0");  // actor 0 first, always
  m.stall = true;
  o.max_steps = 0;
  r = simulate(m, o);
  CHECK(r.end == SimEnd::Deadlock);
  CHECK(r.final_summary == "3 0");
}

TEST_CASE("simulate: a seed gives one run; seeds differ") {
  Race m;
  SimOptions o = quiet_opt();
  std::set<std::string> seen;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    o.seed = seed;
    m.stall = true;
    const auto a = simulate(m, o), b = simulate(m, o);
    CHECK(a.final_summary == b.final_summary);
    CHECK(a.steps == b.steps);
    seen.insert(a.final_summary);
  }
  // Stalled runs end "3 k" or "k 3" for k in 0..2: random choices reach several.
  CHECK(seen.size() >= 2);
  for (const auto& s : seen) CHECK(s.find('3') != std::string::npos);
}

TEST_CASE("simulate: percentiles are nearest-rank") {
  using sched::percentile;
  std::vector<std::uint64_t> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(percentile(v, 50) == 5);
  CHECK(percentile(v, 90) == 9);
  CHECK(percentile(v, 99) == 10);
  CHECK(percentile(v, 1) == 1);
  CHECK(percentile({}, 50) == 0);
  CHECK(percentile({7}, 50) == 7);
}

TEST_CASE("simulate: scheduler figures of a sync reader, by hand") {
  using namespace blkmc::sched;
  const Params p{{"workload", 0},   {"clock", 1},          {"wait_cap", 255},
                 {"fair_window", 4}, {"fifo_batch", 16},    {"writes_starved", 2},
                 {"read_expire", 2}, {"write_expire", 20}, {"prio_aging_expire", 40},
                 {"shadow", -1}};
  // Each read takes 2 ticks; the second one lies 4 sectors past the end of
  // the first (the seek distance), then a write 2 sectors back.
  const DeadlineModel m(DeadlineScheduler::V6_18, p,
                        parse_workload("device depth=1 slot=0 service=2\n"
                                       "proc a sync=1 reqs=R0,R5,W4\n",
                                       "t"));
  SimOptions o = quiet_opt();
  o.random = false;
  const auto r = simulate(m, o);
  CHECK(r.end == SimEnd::Finished);
  const auto& f = r.figures;
  CHECK(f["time_unit"] == "tick");
  CHECK(f["ticks"] == 6);
  CHECK(f["completed"] == 3);
  CHECK(f["dispatches"] == 3);
  CHECK(f["seek_distance"] == 4 + 2);
  CHECK(f["direction_switches"] == 1);
  CHECK(f["per_1000"] == 500.0);
  CHECK(f["processes"][0]["latency"]["p50"] == 2);
  CHECK(f["processes"][0]["latency"]["max"] == 2);
  CHECK(f["dispatch_order"] == nlohmann::json::array({"a.0", "a.1", "a.2"}));
  CHECK(r.text.find("dispatch order: a.0 a.1 a.2") != std::string::npos);
  // A tick limit stops the run in the middle.
  o.max_ticks = 3;
  const auto part = simulate(m, o);
  CHECK(part.end == SimEnd::Ticks);
  CHECK(part.figures["completed"] == 1);
}

}  // namespace simulate_test
