// device/conformance: the model against the kernel, on one run's events.
//
// predict_order(m): the model's dispatch order for its workload along the
//   schedule a gated run follows: every submission that is allowed first,
//   then the request parked on hctx->dispatch, then the scheduler's choice,
//   and a completion (the oldest issued request) only when nothing else can
//   happen. For mq-deadline with every request pending at once this order
//   is the model's only order.
// check_conformance(m, events): feeds the model the kernel's events in
//   kernel order (insert = SUBMIT, complete = COMPLETE) and checks that each
//   block_rq_issue is a choice the model allows: the request parked on
//   hctx->dispatch when one is parked, otherwise what the scheduler's
//   dispatch returns, pulled at any moment since hctx->dispatch last
//   emptied (the kernel pulls in a queue run the trace does not show, so
//   each state since then is a candidate; the latest that fits is taken).
//   The first issue that fits no candidate is reported with the model's
//   choices.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "device/analysis.hpp"
#include "model/sched/sched_model.hpp"

namespace blkmc::device {

struct Conformance {
  bool ok = true;
  int events = 0;      // events fed to the model
  int issues = 0;      // issues checked
  int failed_at = -1;  // index of the first non-conforming event
  std::string message;
  // The tracked request's wait along the kernel's run, as the model counts
  // it (max-wait: scheduler dispatches of other requests while it was
  // queued); -1 without a tracked request or when the run does not conform.
  int wait = -1;
};

namespace detail {

template <class M>
std::optional<typename M::State> take(const M& m, const typename M::State& s, int actor,
                                      std::uint8_t action, int arg) {
  std::optional<typename M::State> out;
  m.for_each_successor(s, [&](const Step& st, const typename M::State& n) {
    if (!out && st.actor == actor && st.action == action && (arg < 0 || st.arg == arg)) out = n;
  });
  return out;
}

template <class M>
std::optional<typename M::State> feed(const M& m, const typename M::State& s, const Event& e) {
  const int r = e.rq;
  if (e.kind == EvKind::Insert)
    return take(m, s, m.rqs().info(r).proc, M::SUBMIT, r);
  if (e.kind == EvKind::Complete) return take(m, s, m.device(), M::COMPLETE, r);
  if (e.kind == EvKind::Requeue) return take(m, s, m.device(), M::REQUEUE, r);
  return std::nullopt;
}

// The scheduler's pick from s (after NULL dispatches that change its
// state); -1 when it returns nothing. `next` gets the state after the pick.
template <class M>
int pick(const M& m, typename M::State s, typename M::State& next) {
  for (int k = 0; k < 8; ++k) {
    int got = -2;
    typename M::State n{};
    m.for_each_successor(s, [&](const Step& st, const typename M::State& x) {
      if (got == -2 && st.actor == m.dispatcher() && st.action == M::DISPATCH) {
        got = st.arg == M::kNull ? -1 : st.arg;
        n = x;
      }
    });
    if (got == -2) return -1;
    if (got >= 0) {
      next = n;
      return got;
    }
    s = n;  // a NULL dispatch that changed the scheduler's state
  }
  return -1;
}

}  // namespace detail

// events: when given, the schedule's events as the kernel would trace them.
template <class M>
std::vector<int> predict_order(const M& m, std::vector<Event>* events = nullptr) {
  using S = typename M::State;
  S s = m.initial();
  std::vector<int> order;
  for (int step = 0; step < 100000 && !m.finished(s); ++step) {
    std::optional<std::pair<Step, S>> best;
    int best_rank = 99;
    m.for_each_successor(s, [&](const Step& st, const S& n) {
      int rank = 99;
      if (st.action == M::SUBMIT) rank = 0;
      else if (st.action == M::ISSUE) rank = 1;
      else if (st.action == M::DISPATCH) rank = st.arg == M::kNull ? 3 : 2;
      else if (st.action == M::COMPLETE) rank = 4;
      else if (st.action == M::TICK) rank = 5;
      if (rank < best_rank) best_rank = rank, best = std::make_pair(st, n);
    });
    if (!best) break;
    // Completions in issue order: the oldest request in the driver.
    if (best->first.action == M::COMPLETE) {
      int oldest = -1;
      for (int r = 0; r < m.rqs().size(); ++r)
        if (m.rqs().status(s, r) == sched::St::Driver &&
            (oldest < 0 || m.rqs().seq(s, r) < m.rqs().seq(s, oldest)))
          oldest = r;
      if (auto n = detail::take(m, s, m.device(), M::COMPLETE, oldest)) {
        best->first.arg = std::uint8_t(oldest);
        best->second = *n;
      }
    }
    const Step st = best->first;
    s = best->second;
    if ((st.action == M::ISSUE || st.action == M::DISPATCH) && st.arg != M::kNull &&
        m.rqs().status(s, st.arg) == sched::St::Driver) {
      order.push_back(st.arg);
      if (events) events->push_back(Event{EvKind::Issue, st.arg, 0});
    }
    if (events && st.action == M::SUBMIT) events->push_back(Event{EvKind::Insert, st.arg, 0});
    if (events && st.action == M::COMPLETE) events->push_back(Event{EvKind::Complete, st.arg, 0});
  }
  return order;
}

template <class M>
Conformance check_conformance(const M& m, const std::vector<Event>& events) {
  using S = typename M::State;
  Conformance c;
  S s = m.initial();
  std::vector<S> cands{s};     // states since hctx->dispatch last emptied
  std::vector<Event> since;    // the events after cands[0]
  auto fail = [&](int i, std::string msg) {
    c.ok = false;
    c.failed_at = i;
    c.message = std::move(msg);
    return c;
  };
  for (int i = 0; i < int(events.size()); ++i) {
    const Event& e = events[std::size_t(i)];
    const std::string who = m.rqs().name(e.rq);
    ++c.events;
    if (e.kind != EvKind::Issue) {
      auto n = detail::feed(m, s, e);
      if (!n && m.hctx_head(s) < 0) {
        // The kernel may have pulled a request onto hctx->dispatch (no
        // driver tag free) before this event: the gate's park does.
        S after{};
        const int r = detail::pick(m, s, after);
        if (r >= 0 && m.rqs().status(after, r) == sched::St::Hctx) {
          n = detail::feed(m, after, e);
          if (n) {
            cands.assign(1, after);
            since.clear();
          }
        }
      }
      if (!n)
        return fail(i, fmt::format("event {}: the model does not allow the {} of {} here ({})", i,
                                   e.kind == EvKind::Insert ? "insert" : e.kind == EvKind::Complete ? "completion" : "requeue",
                                   who, m.summary(s)));
      s = *n;
      since.push_back(e);
      cands.push_back(s);
      continue;
    }
    ++c.issues;
    const int h = m.hctx_head(s);
    if (h >= 0) {
      if (h != e.rq)
        return fail(i, fmt::format("issue {}: the kernel issued {}, the model has {} parked on hctx->dispatch first",
                                   c.issues, who, m.rqs().name(h)));
      auto n = detail::take(m, s, m.dispatcher(), M::ISSUE, h);
      if (!n)
        return fail(i, fmt::format("issue {}: {} is parked on hctx->dispatch but the model has no free driver tag",
                                   c.issues, who));
      s = *n;
      cands.assign(1, s);
      since.clear();
      continue;
    }
    // Pulled from the scheduler at some moment since hctx->dispatch emptied.
    std::vector<int> choices;
    bool done = false;
    for (int k = int(cands.size()) - 1; k >= 0 && !done; --k) {
      S after{};
      const int r = detail::pick(m, cands[std::size_t(k)], after);
      choices.push_back(r);
      if (r != e.rq) continue;
      S t = after;
      bool ok = true;
      for (std::size_t j = std::size_t(k); j < since.size() && ok; ++j) {
        auto n = detail::feed(m, t, since[j]);
        ok = n.has_value();
        if (ok) t = *n;
      }
      if (!ok) continue;
      if (m.rqs().status(t, r) == sched::St::Hctx) {
        auto n = detail::take(m, t, m.dispatcher(), M::ISSUE, r);
        if (!n) continue;
        t = *n;
      }
      s = t;
      done = true;
    }
    if (!done) {
      std::set<int> uniq(choices.begin(), choices.end());
      std::string allowed;
      for (int r : uniq) {
        if (!allowed.empty()) allowed += ", ";
        allowed += r < 0 ? std::string("nothing") : m.rqs().name(r);
      }
      return fail(i, fmt::format("issue {}: the kernel issued {}; the model's scheduler would dispatch {} ({})",
                                 c.issues, who, allowed, m.sched().summary(cands.back())));
    }
    cands.assign(1, s);
    since.clear();
  }
  if (m.tracked() >= 0) c.wait = m.wait(s);
  return c;
}

}  // namespace blkmc::device
