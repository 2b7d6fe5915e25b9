// mq-deadline's decision functions for blkmc diff: dd_choose() of
// deadline_decide.hpp over z3::expr and over int/bool (variant order:
// v6.18, head-request, prio-5.14, prio-5.16). The 5.x variants differ from
// v6.18 in the aged pass and the dispatch lists, not in this choice, so
// diff proves them equal here.
#include <z3++.h>

#include "model/sched/deadline/deadline.hpp"
#include "model/sched/deadline/deadline_decide.hpp"
#include "model/sched/deadline/deadline_symbolic.hpp"
#include "model/z3_values.hpp"

namespace blkmc::sched {

namespace {

const std::vector<std::string> kVariants = {"v6.18", "head-request", "prio-5.14", "prio-5.16"};

z3::expr bconst(const z3::expr& like, bool b) { return like.ctx().bool_val(b); }
bool bconst(int /*like*/, bool b) { return b; }
const z3::expr& as_bool(const z3::expr& e) { return e; }
bool as_bool(int v) { return v != 0; }

enum In : std::size_t {
  kBatching, kFifoBatch, kLastWrite, kHasRead, kHasWrite, kNextRead, kNextWrite, kExpiredRead,
  kExpiredWrite, kLowestRead, kLowestWrite, kStarved, kWritesStarved
};

template <class X>
auto choose(int v, const std::vector<X>& in) {
  using B = decltype(bconst(in[0], true));
  const dd::DdView<B, X> view{in[kBatching],           in[kFifoBatch],
                              as_bool(in[kLastWrite]),  as_bool(in[kHasRead]),
                              as_bool(in[kHasWrite]),   as_bool(in[kNextRead]),
                              as_bool(in[kNextWrite]),  as_bool(in[kExpiredRead]),
                              as_bool(in[kExpiredWrite]), in[kStarved],
                              in[kWritesStarved]};
  return dd::dd_choose(bconst(in[0], v == DeadlineScheduler::HeadRequest), view);
}

// The request chosen, as an identity: the lowest-sector request is the fifo
// head when the oldest request also has the lowest sector.
struct DispatchChoice {
  template <class X>
  X operator()(int v, const std::vector<X>& in) const {
    using blkmc::ite;
    using blkmc::ival;
    const auto c = choose(v, in);
    const auto lowest_is_fifo = ite(c.write, as_bool(in[kLowestWrite]), as_bool(in[kLowestRead]));
    const X pick = ite(c.take_lowest && !lowest_is_fifo, ival(in[0], 3),
                       ite(c.take_fifo || c.take_lowest, ival(in[0], 2), ival(in[0], 1)));
    return ite(c.none, ival(in[0], 0), ite(c.write, ival(in[0], 4), ival(in[0], 0)) + pick);
  }
};

struct Starved {
  template <class X>
  X operator()(int v, const std::vector<X>& in) const {
    return choose(v, in).starved;
  }
};

// The model's invariants on a view: next_X, expired_X and "the oldest is
// the lowest" only with requests of X; a batch never counts past fifo_batch.
template <class X>
auto view_ok(const std::vector<X>& in) {
  auto implies = [](const auto& a, const auto& b) { return !a || b; };
  return implies(as_bool(in[kNextRead]), as_bool(in[kHasRead])) &&
         implies(as_bool(in[kExpiredRead]), as_bool(in[kHasRead])) &&
         implies(as_bool(in[kLowestRead]), as_bool(in[kHasRead])) &&
         implies(as_bool(in[kNextWrite]), as_bool(in[kHasWrite])) &&
         implies(as_bool(in[kExpiredWrite]), as_bool(in[kHasWrite])) &&
         implies(as_bool(in[kLowestWrite]), as_bool(in[kHasWrite])) &&
         in[kBatching] <= in[kFifoBatch];
}

template <class F>
DecisionFn make(std::string name, std::string kernel, std::vector<std::string> outcomes) {
  DecisionFn f;
  f.name = std::move(name);
  f.kernel = std::move(kernel);
  // With the kernel expressions they stand for (block/mq-deadline.c,
  // __dd_dispatch_request; per_prio: the priority level being served).
  f.inputs = {int_input("batching", 0, 16, "dd->batching"),
              int_input("fifo_batch", 1, 16, "dd->fifo_batch"),
              bool_input("last_write", "dd->last_dir == DD_WRITE"),
              bool_input("has_read", "!list_empty(&per_prio->fifo_list[DD_READ])"),
              bool_input("has_write", "!list_empty(&per_prio->fifo_list[DD_WRITE])"),
              bool_input("next_read", "deadline_next_request(dd, per_prio, DD_READ)"),
              bool_input("next_write", "deadline_next_request(dd, per_prio, DD_WRITE)"),
              bool_input("expired_read", "deadline_check_fifo(per_prio, DD_READ)"),
              bool_input("expired_write", "deadline_check_fifo(per_prio, DD_WRITE)"),
              bool_input("oldest_read_is_lowest",
                         "deadline_fifo_request(dd, per_prio, DD_READ) has the lowest sector of the reads"),
              bool_input("oldest_write_is_lowest",
                         "deadline_fifo_request(dd, per_prio, DD_WRITE) has the lowest sector of the writes"),
              int_input("starved", 0, 255, "dd->starved"),
              int_input("writes_starved", 0, 16, "dd->writes_starved")};
  f.variants = kVariants;
  f.outcomes = std::move(outcomes);
  f.symbolic = [](int v, const std::vector<z3::expr>& in, SymNames&) { return F{}(v, in); };
  f.concrete = [](int v, const std::vector<int>& in) { return int(F{}(v, in)); };
  f.assume = [](const std::vector<z3::expr>& in) { return view_ok(in); };
  f.assume_concrete = [](const std::vector<int>& in) { return bool(view_ok(in)); };
  f.reach =
      "blkmc check deadline -v FROM -p shadow=TO --prop same-choice --bfs finds a shortest trace "
      "to a state where the two choices take different requests";
  return f;
}

}  // namespace

std::vector<DecisionFn> deadline_decisions() {
  return {make<DispatchChoice>("dispatch_choice",
                               "__dd_dispatch_request: the direction and request of the dispatch",
                               {"nothing", "READ next in sector order", "READ fifo head",
                                "READ lowest sector", "-", "WRITE next in sector order",
                                "WRITE fifo head", "WRITE lowest sector"}),
          make<Starved>("starved", "__dd_dispatch_request: dd->starved afterwards", {})};
}

}  // namespace blkmc::sched
