// model/inflight/inflight_decisions.cpp: the inflight model's decision functions for
// blkmc diff, i.e. the counter updates and what a reader adds up. Both are
// the templates of model/inflight/inflight_logic.hpp (element_value, count) run on a
// one-request view, over int and over z3::expr: no second copy of the logic.
#include <fmt/format.h>

#include "model/inflight/inflight_logic.hpp"
#include "model/inflight/inflight_symbolic.hpp"
#include "model/z3_values.hpp"

namespace blkmc::inflight {

namespace {

constexpr int kParts = 3;  // sda1..sda3 besides part0

inline int ival(int /*like*/, int v) { return v; }
inline bool bval(int /*like*/, bool v) { return v; }

// The state inflight_logic.hpp's templates read, for one request (the one
// holding driver tag 0, or being counted) and the counters of CPU 0.
template <class X>
struct OneRequest {
  X pc_, target_;
  std::vector<X> cnt_;
  auto ic(int v) const { return ival(pc_, v); }
  auto bc(bool v) const { return bval(pc_, v); }
  X pc(int) const { return pc_; }
  X target(int) const { return target_; }
  X counter(int t, int) const { return cnt_[std::size_t(t)]; }
  void set_counter(int t, int, const X& v) { cnt_[std::size_t(t)] = v; }
};

template <class X>
X pick(const X& index, const std::vector<X>& by_value, const X& like) {
  X r = ival(like, 0);
  for (int t = 0; t < static_cast<int>(by_value.size()); ++t)
    r = ite(index == ival(like, t), by_value[std::size_t(t)], r);
  return r;
}

Config config(int variant) { return {variant, kParts, 1, 1, 1, -1, 1, 1}; }

// blk_mq_check_inflight (or the v1 / double walks) on the tag of a request
// in phase `pc` with rq->part = `rq_part`, for a read of `read_of`: 0 not
// counted, 1 counted for the partition read, 2 counted for sda only (the
// double walk's part0 half), 3 for both.
const std::vector<int> kWalks = {TagWalkV1, TagWalkDouble, Bf0ddaba, B0d97557};

struct WalkCounts {
  template <class X>
  X operator()(int v, const std::vector<X>& in) const {
    const Config c = config(kWalks.at(std::size_t(v)));
    const OneRequest<X> s{in[0], in[1], {}};
    std::vector<X> by_read;
    for (int t = 0; t <= kParts; ++t) {
      const auto ev = element_value(c, s, t, 0);
      by_read.push_back(ev.first + ival(in[0], 2) * ev.second);
    }
    return pick(in[2], by_read, in[0]);
  }
};

// blk_account_io_start's counter update: the change to counter `counter`
// when a request to rq_part is submitted (part_inc_in_flight and its
// successors).
const std::vector<int> kCounters = {LegacyAtomic, Percpu, Be835694};

struct CounterUpdate {
  template <class X>
  X operator()(int v, const std::vector<X>& in) const {
    const Config c = config(kCounters.at(std::size_t(v)));
    std::vector<X> by_counter;
    for (int t = 0; t <= kParts; ++t) {
      std::vector<X> by_part;
      for (int rt = 0; rt <= kParts; ++rt) {
        OneRequest<X> s{in[0], in[0], std::vector<X>(kParts + 1, ival(in[0], 0))};
        count(c, s, rt, 0, +1);
        by_part.push_back(s.counter(t, 0));
      }
      by_counter.push_back(pick(in[0], by_part, in[0]));
    }
    return pick(in[1], by_counter, in[0]);
  }
};

std::vector<std::string> names(const std::vector<int>& vs) {
  static const char* const kNames[] = {"legacy-atomic", "tag-walk-v1", "tag-walk-double", "bf0ddaba65dd",
                                       "b0d97557ebfc",  "percpu",      "7be835694dae"};
  std::vector<std::string> out;
  for (int v : vs) out.push_back(kNames[v]);
  return out;
}

}  // namespace

std::vector<DecisionFn> inflight_decisions() {
  DecisionFn walk;
  walk.name = "walk_counts";
  walk.kernel =
      "blk_mq_check_inflight / blk_mq_check_inflight_rw: what a read of read_of adds for one "
      "driver tag (phase 0 idle, 1 queued without a driver tag, 2 started, 3 completed and still "
      "holding the tag)";
  // rq_phase(rq): the model's request phase (see walk.kernel), not one
  // kernel field: the tag bit, rq->state and REQ_ATOM_STARTED together.
  walk.inputs = {int_input("phase", SUBMIT, FREE, "rq_phase(rq)"),
                 int_input("rq_part", 0, kParts, "rq->part->partno"),
                 int_input("read_of", 0, kParts, "part->partno")};
  walk.variants = names(kWalks);
  walk.outcomes = {"not counted", "counted", "counted for sda only", "counted for both"};
  walk.symbolic = [](int v, const std::vector<z3::expr>& in, SymNames&) { return WalkCounts{}(v, in); };
  walk.concrete = [](int v, const std::vector<int>& in) { return WalkCounts{}(v, in); };
  // The model's invariant: a request without a driver tag has no rq->part
  // yet (phase 0), and the reader reads what a submitter may target.
  walk.assume = [](const std::vector<z3::expr>& in) { return in[0] != SUBMIT || in[1] == 0; };
  walk.assume_concrete = [](const std::vector<int>& in) { return in[0] != SUBMIT || in[1] == 0; };
  walk.reach =
      "blkmc check inflight -v TO --prop quiescent-exact-part --bfs (and quiescent-exact-part0, "
      "live-read-bounded) finds the shortest read where the count matters";

  DecisionFn upd;
  upd.name = "counter_update";
  upd.kernel =
      "blk_account_io_start -> part_inc_in_flight: how much the in-flight counter of partition "
      "`counter` (part; 0: sda) moves when a request to rq_part is submitted";
  upd.inputs = {int_input("rq_part", 0, kParts, "rq->part->partno"),
                int_input("counter", 0, kParts, "part->partno")};
  upd.variants = names(kCounters);
  upd.outcomes = {"+0", "+1"};
  upd.symbolic = [](int v, const std::vector<z3::expr>& in, SymNames&) { return CounterUpdate{}(v, in); };
  upd.concrete = [](int v, const std::vector<int>& in) { return CounterUpdate{}(v, in); };
  upd.reach =
      "blkmc check inflight -v TO --prop quiescent-exact-part0 --bfs finds the shortest read of "
      "sda that misses a partition's request";
  return {walk, upd};
}

}  // namespace blkmc::inflight
