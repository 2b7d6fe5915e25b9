// model/sched/sched_abstraction: the values of a scheduler state that no
// step, guard, finished() or property tells apart, put in one
// representative in the key (the abstraction layer,
// explorer/reduced_model.hpp). Included by sched_model.cpp.
//
// Each merge is a bisimulation that keeps every step's label: a state and
// its key enable the same steps (the same actor, action and request), and
// their successors are again equal up to the same merge; so verdicts,
// maxima, BFS depths and weak fairness per actor all survive, and traces
// are rebuilt on the concrete states.
//
// - The order among the requests in service. The device serves the first
//   `spindles` requests of the driver (in issue order) at once and
//   completes any of them (model/sched/device.hpp); the order is read only
//   to tell which requests are in service. A new request joins at the back,
//   one that completes or is requeued leaves, and ticks age every request
//   in service alike, so permuting the ranks among the requests in service
//   commutes with every step. No decision of deadline, bfq, cfq or none
//   reads a request's rank in the driver (Sched::kReadsServiceOrder false:
//   their sort lists, fifos and dispatch lists hold only what they have not
//   dispatched); the kernel's own schedulers say nothing, and keep the
//   order. The key gives the ranks in service to those requests in request
//   order.
// - The scheduler's own (Sched::abstract_key): its hw_tag detector's
//   running maximum read only against a threshold, and its sample count
//   once no later decision can change hw_tag (model/sched/hw_tag_key.hpp);
//   CFQ's slice_dispatch while no queue or a sync queue is active.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "model/sched/sched_model.hpp"

namespace blkmc::sched {

namespace abstraction_detail {
template <class Sched>
bool merges_service_order(const Workload& wl) {
  if constexpr (BlindToServiceOrder<Sched>)
    return std::min(wl.dev.spindles, wl.dev.depth) > 1;
  return false;
}
}  // namespace abstraction_detail

template <class Sched>
void SchedModel<Sched>::abstract_key(State& s) const {
  if (abstraction_detail::merges_service_order<Sched>(wl_)) {
    // The requests in the driver by rank; the first `spindles` are served.
    std::array<std::pair<int, int>, kMaxRqs> drv{};
    int n = 0;
    for (int r = 0; r < rq_.size(); ++r)
      if (rq_.status(s, r) == St::Driver) drv[std::size_t(n++)] = {rq_.seq(s, r), r};
    std::sort(drv.begin(), drv.begin() + n);
    const int k = std::min(n, wl_.dev.spindles);
    // Their ranks, lowest first, to the served requests in request order.
    std::array<int, kMaxRqs> served{};
    for (int i = 0; i < k; ++i) served[std::size_t(i)] = drv[std::size_t(i)].second;
    std::sort(served.begin(), served.begin() + k);
    for (int i = 0; i < k; ++i) rq_.set_seq(s, served[std::size_t(i)], drv[std::size_t(i)].first);
  }
  if constexpr (HasSchedAbstraction<Sched>) sched_.abstract_key(s);
}

template <class Sched>
std::vector<std::string> SchedModel<Sched>::abstractions() const {
  std::vector<std::string> out;
  if (abstraction_detail::merges_service_order<Sched>(wl_))
    out.push_back(fmt::format("the order of the {} requests in service", std::min(wl_.dev.spindles, wl_.dev.depth)));
  if constexpr (HasSchedAbstraction<Sched>)
    for (std::string& a : sched_.abstractions()) out.push_back(std::move(a));
  return out;
}

}  // namespace blkmc::sched
