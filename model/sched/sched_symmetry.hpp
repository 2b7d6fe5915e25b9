// model/sched/sched_symmetry: which of a workload's processes are
// interchangeable, and how a state follows a permutation of them (the
// symmetry layer, explorer/symmetry.hpp). Included by sched_model.cpp.
//
// Two processes p and q are interchangeable when a renaming that swaps
// them (p's k-th request with q's k-th, p's queue with q's) maps every
// step of a state to a step of the renamed state. That holds when nothing
// a decision reads tells them apart:
//   - their parameters: direction, sync, prio and level, think, delay,
//     cyclic, head, bypass, req_sync, their side of the gate, the number of
//     requests, and each request's direction and size;
//   - their sectors. The comparisons that cross processes are the
//     scheduler's sort order (mq-deadline's sort lists, CFQ's and BFQ's
//     last position and the close-cooperator and merge checks against it)
//     and the device's seek distance from the head (rotational, seek > 0).
//     A sector offset between p and q changes those comparisons in general
//     (another process's request falls between them, or the last position
//     does), so the sectors must be equal; where neither the scheduler
//     (Sched::kReadsSectors false: `none`) nor the device (no seek time)
//     reads one, any sectors do. The head's position then differs between
//     p's and q's requests, but nothing reads it;
//   - the properties: a process that owns the tracked request (max-wait,
//     max-wait-ticks, max-expired-wait, starvation) or one of the `fair`
//     pair (fair-ratio) stays where it is when those are checked; the
//     other properties (and the ghosts they do not read) see no process.
// Equal sectors leave the remaining ties to the state: mq-deadline breaks
// equal sectors by insertion order (seq), CFQ picks queues by service-tree
// order, BFQ v6.12 by its trees' insertion order; where a model breaks a
// tie by index, the commuting checks (tests/reduction_sched_test.cpp) fail,
// and a scheduler whose variant does (BFQ before v6.12) says so with
// renames_procs().
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/sched/sched_model.hpp"

namespace blkmc::sched {

template <class Sched>
bool SchedModel<Sched>::interchangeable(int p, int q) const {
  const WlProc& a = wl_.procs[std::size_t(p)];
  const WlProc& b = wl_.procs[std::size_t(q)];
  if (a.dir != b.dir || a.sync != b.sync || a.cyclic != b.cyclic || a.head != b.head || a.bypass != b.bypass ||
      a.req_sync != b.req_sync || a.prio != b.prio || a.level != b.level || a.think != b.think ||
      a.delay != b.delay || a.pre_gate != b.pre_gate || a.count != b.count)
    return false;
  // A seeking device charges the distance from the head (elsewhere the
  // head is read by nothing, and sliced: SchedModel::influence).
  bool sectors_seen = wl_.dev.rotational && wl_.dev.seek > 0;
  if constexpr (HasProcSymmetry<Sched>) sectors_seen = sectors_seen || Sched::kReadsSectors;
  for (int k = 0; k < a.count; ++k) {
    const WlRequest& x = wl_.rqs[std::size_t(a.first + k)];
    const WlRequest& y = wl_.rqs[std::size_t(b.first + k)];
    if (x.dir != y.dir || x.size != y.size || (sectors_seen && x.sector != y.sector)) return false;
  }
  return true;
}

template <class Sched>
std::vector<int> SchedModel<Sched>::symmetry_classes(const std::vector<int>& props) const {
  std::vector<int> label(std::size_t(nproc_), -1);
  if constexpr (requires { sched_.renames_procs(); })
    if (!sched_.renames_procs()) return label;  // a variant that breaks ties by index
  if constexpr (HasProcSymmetry<Sched>) {
    bool tracked = false, fair = false;
    for (int pr : props) {
      tracked = tracked || pr == MaxWait || pr == MaxWaitTicks || pr == MaxExpiredWait || pr == Starvation;
      fair = fair || pr == FairRatio;
    }
    auto named = [&](int p) {
      return (tracked && wl_.track >= 0 && wl_.rqs[std::size_t(wl_.track)].proc == p) ||
             (fair && wl_.has_fair() && (wl_.fair[0] == p || wl_.fair[1] == p));
    };
    for (int p = 0; p < nproc_; ++p) {
      if (named(p)) continue;
      for (int q = 0; q < p && label[std::size_t(p)] < 0; ++q)
        if (label[std::size_t(q)] >= 0 && interchangeable(q, p)) label[std::size_t(p)] = label[std::size_t(q)];
      if (label[std::size_t(p)] < 0) label[std::size_t(p)] = p;
    }
  }
  return label;
}

template <class Sched>
int SchedModel<Sched>::symmetric_block(const std::vector<int>& props) const {
  const std::vector<int> label = symmetry_classes(props);
  for (std::size_t p = 0; p < label.size(); ++p)
    if (label[p] >= 0 && std::count(label.begin(), label.end(), label[p]) > 1) return schema_.find_place("proc");
  return -1;
}

// The block "proc" has moved (copy c to perm[c]); its requests' copies
// follow (p's k-th to perm[p]'s k-th), then the scheduler's own variables.
template <class Sched>
void SchedModel<Sched>::rename(State& s, const std::vector<int>& perm) const {
  if constexpr (HasProcSymmetry<Sched>) {
    State before(kNoInit);
    copy_state(before, s);
    // Every try of every key calls this: the requests' permutation is kept
    // per thread rather than allocated each time.
    thread_local std::vector<int> rq_perm;
    rq_perm.resize(std::size_t(rq_.size()));
    for (int p = 0; p < nproc_; ++p) {
      const WlProc& from = wl_.procs[std::size_t(p)];
      const WlProc& to = wl_.procs[std::size_t(perm[std::size_t(p)])];
      for (int k = 0; k < from.count; ++k) rq_perm[std::size_t(from.first + k)] = to.first + k;
    }
    for (const Schema::BlockLayout& l : rq_blocks_) move_copies(l, before, s, rq_perm);
    sched_.rename(s, before, perm, rq_perm);
  } else {
    (void)s;
    (void)perm;
  }
}

// What process a owns against b's: its pc and think, its requests in
// order (every request block rename moves), then the scheduler's
// per-process state. It moves with them.
template <class Sched>
int SchedModel<Sched>::compare_copies(const State& s, int a, int b) const {
  if (int d = pc(s, a) - pc(s, b)) return d;
  if (int d = think(s, a) - think(s, b)) return d;
  const WlProc& pa = wl_.procs[std::size_t(a)];
  const WlProc& pb = wl_.procs[std::size_t(b)];
  for (int k = 0; k < pa.count && k < pb.count; ++k)
    for (const Schema::BlockLayout& l : rq_blocks_)
      if (int d = blkmc::compare_copies(l, s, pa.first + k, pb.first + k)) return d;
  if constexpr (HasProcSymmetry<Sched>) return sched_.compare_procs(s, a, b);
  return 0;
}

template <class Sched>
std::string SchedModel<Sched>::describe_symmetry(const std::vector<std::vector<int>>& classes) const {
  std::vector<std::string> out;
  for (const auto& cl : classes) {
    std::vector<std::string> names;
    for (int p : cl) names.push_back(wl_.procs[std::size_t(p)].name);
    out.push_back(fmt::format("{}", fmt::join(names, " ")));
  }
  return fmt::format("interchangeable processes: {}", fmt::join(out, "; "));
}

}  // namespace blkmc::sched
