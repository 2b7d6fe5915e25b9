// model/sched/deadline/deadline_decide: mq-deadline's choice of direction and
// request (__dd_dispatch_request, block/mq-deadline.c), written once over
// its value types (docs/architecture.md, "One source, two semantics"): B is bool or
// z3::expr, I is int or z3::expr. Only &&, ||, !, comparisons, + and ite()
// on the inputs, so that DeadlineScheduler runs it on the state and blkmc
// diff proves it over every input.
#pragma once

#include "model/concrete_values.hpp"

namespace blkmc::sched::dd {

template <class B, class I>
struct Choice {
  B new_batch;    // false: the current batch continues with the next request
  B write;        // the direction chosen
  B none;         // nothing queued at this priority
  B take_fifo;    // a new batch starts at the oldest request (deadline_fifo_request)
  B take_lowest;  // ... at the lowest sector (seed 002's deadline_head_request)
  I starved;      // dd->starved afterwards
};
// Otherwise the request is the next one in sector order (latest_pos / next_rq).

// One priority level's view of the queues: has_X = its fifo_list[X] is not
// empty, next_X = a request at or after the last position in direction X,
// expired_X = the oldest request of X is past its deadline.
template <class B, class I>
struct DdView {
  I batching, fifo_batch;
  B last_write;
  B has_read, has_write, next_read, next_write, expired_read, expired_write;
  I starved, writes_starved;
};

// The batch continues in last_dir while a next request exists and fewer
// than fifo_batch were dispatched; otherwise reads win unless writes were
// passed over writes_starved times (or there are no reads), and the new
// batch starts at the next request in sector order unless the oldest has
// expired or there is none (then the fifo head; seed 002: the lowest
// sector when nothing expired).
template <class B, class I>
Choice<B, I> dd_choose(const B& head_request, const DdView<B, I>& v) {
  const B next_last = ite(v.last_write, v.next_write, v.next_read);
  const B in_batch = next_last && v.batching < v.fifo_batch;
  const B both = v.has_read && v.has_write;
  const B any = v.has_read || v.has_write;
  const B write = (!v.has_read && v.has_write) || (both && v.starved >= v.writes_starved);
  const I bumped = ite(v.starved >= 255, ival(v.starved, 255), v.starved + 1);
  const I starved = ite(write, ival(v.starved, 0), ite(both, bumped, v.starved));
  const B next = ite(write, v.next_write, v.next_read);
  const B expired = ite(write, v.expired_write, v.expired_read);
  const B lowest = head_request && !expired && !next;
  const B fifo = !lowest && (expired || !next);
  return {!in_batch,        ite(in_batch, v.last_write, write),     !any,
          !in_batch && fifo, !in_batch && any && lowest, ite(in_batch, v.starved, starved)};
}

}  // namespace blkmc::sched::dd
