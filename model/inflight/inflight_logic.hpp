// model/inflight/inflight_logic: the inflight model's steps written ONCE over their
// value types (docs/architecture.md, "One source, two semantics"), for the explorer
// (model/inflight/inflight.cpp: a view over the ByteState, I = int, B = bool) and for
// k-induction (model/inflight/inflight_symbolic.cpp: a view over z3::expr).
//
// A view V provides I/B, the constant makers ic(int)/bc(bool), and a getter
// and setter per state variable:
//   pc(sub) target(sub) round(sub)            per submitter
//   counter(t, cpu)                           per partition and CPU (0 in tag walks)
//   rd_pos() rd_done() rd_target() rd_acc() rd_acc0() rd_seen() rd_seen0()
//   live() part_wrong() part0_wrong() over_bound() negative() missed_queued()
// Only &&, ||, !, comparisons, +, - and ite() on values read from the state;
// every index (submitter, partition, CPU, driver tag) is a concrete
// argument. A step whose kernel code indexes by a state value (the
// counter of rq->part, the element the reader visits next) takes the index
// as an argument and its guard requires the state to agree.
#pragma once

#include <utility>

#include "model/concrete_values.hpp"

namespace blkmc::inflight {

enum Variant : int { LegacyAtomic, TagWalkV1, TagWalkDouble, Bf0ddaba, B0d97557, Percpu, Be835694 };
enum Pc : int { SUBMIT, DISPATCH, COMPLETE, FREE, DONE };
// The pc values by name (state_json, stories, prove's states).
inline constexpr const char* kPcNames[] = {"submit", "dispatch", "complete", "free", "done"};
constexpr int READ = DONE + 1, VISIT = DONE + 2;

struct Config {
  int variant, parts, nsub, rounds, reads, target, whole, ncpu;
  bool uses_atomic() const { return variant == LegacyAtomic; }
  bool uses_percpu() const { return variant == Percpu || variant == Be835694; }
  bool uses_tag_walk() const { return !uses_atomic() && !uses_percpu(); }
  int read_elements() const { return uses_atomic() ? 1 : uses_tag_walk() ? nsub : ncpu; }
  int ncnt_cpu() const { return uses_percpu() ? ncpu : 1; }
  int first_target() const { return whole ? 0 : 1; }
  // Whether a request to a partition is also counted in part0's counter.
  bool counts_part0() const { return variant != Be835694; }
};

template <class V>
auto one_if(const V& s, const decltype(s.bc(true))& b) {
  return ite(b, s.ic(1), s.ic(0));
}

// --- request predicates -----------------------------------------------------

template <class V>
auto submitted(const V& s, int sub) {
  return s.pc(sub) == s.ic(DISPATCH) || s.pc(sub) == s.ic(COMPLETE);
}
template <class V>
auto started(const V& s, int sub) {
  return s.pc(sub) == s.ic(COMPLETE);
}
template <class V>
auto holds_driver_tag(const V& s, int sub) {
  return s.pc(sub) == s.ic(COMPLETE) || s.pc(sub) == s.ic(FREE);
}
template <class V>
auto in_window(const Config& c, const V& s, int sub) {
  return c.uses_tag_walk() ? started(s, sub) : submitted(s, sub);
}
// A request to rt counts for a read of t (t = 0: the whole disk).
template <class V, class I>
auto belongs(const V& s, const I& rt, int t) {
  return s.bc(t == 0) || rt == s.ic(t);
}
template <class V>
auto reading(const V& s) {
  return s.rd_pos() != s.ic(0);
}

// The truth: requests inside the window for target t.
template <class V>
auto truth(const Config& c, const V& s, int t) {
  auto n = s.ic(0);
  for (int sub = 0; sub < c.nsub; ++sub) n = n + one_if(s, in_window(c, s, sub) && belongs(s, s.target(sub), t));
  return n;
}
// The legacy definition: submitted and not completed, for target t.
template <class V>
auto submitted_count(const Config& c, const V& s, int t) {
  auto n = s.ic(0);
  for (int sub = 0; sub < c.nsub; ++sub) n = n + one_if(s, submitted(s, sub) && belongs(s, s.target(sub), t));
  return n;
}

// What a read of t accumulates from element e (a counter, a CPU's counter,
// or driver tag e): {for t, for part0 (tag-walk-double only)}.
template <class V>
auto element_value(const Config& c, const V& s, int t, int e) {
  using I = decltype(s.ic(0));
  if (c.uses_atomic()) return std::pair<I, I>{s.counter(t, 0), s.ic(0)};
  if (c.uses_percpu()) return std::pair<I, I>{s.counter(t, e), s.ic(0)};
  const auto held = holds_driver_tag(s, e);
  const auto rt = s.target(e);
  switch (c.variant) {
    case TagWalkV1:  // rq->part == mi->part
      return std::pair<I, I>{one_if(s, held && rt == s.ic(t)), s.ic(0)};
    case TagWalkDouble:  // REQ_ATOM_STARTED until the free
      if (t == 0) return std::pair<I, I>{one_if(s, held && rt == s.ic(0)), s.ic(0)};
      return std::pair<I, I>{one_if(s, held && rt == s.ic(t)),
                             one_if(s, held && (rt == s.ic(t) || rt == s.ic(0)))};
    case Bf0ddaba:  // rq->part == mi->part && MQ_RQ_IN_FLIGHT
      return std::pair<I, I>{one_if(s, started(s, e) && rt == s.ic(t)), s.ic(0)};
    default:  // B0d97557: (!partno || rq->part == part) && MQ_RQ_IN_FLIGHT
      return std::pair<I, I>{one_if(s, started(s, e) && belongs(s, rt, t)), s.ic(0)};
  }
}

// --- guards -----------------------------------------------------------------

template <class V>
auto may_submit(const Config&, const V& s, int sub) {
  return s.pc(sub) == s.ic(SUBMIT);
}
template <class V>
auto may_dispatch(const Config&, const V& s, int sub) {
  return s.pc(sub) == s.ic(DISPATCH);
}
// tgt: the partition the request went to (rq->part), as the index.
template <class V>
auto may_complete(const Config&, const V& s, int sub, int tgt) {
  return s.pc(sub) == s.ic(COMPLETE) && s.target(sub) == s.ic(tgt);
}
template <class V>
auto may_free(const Config&, const V& s, int sub) {
  return s.pc(sub) == s.ic(FREE);
}
// A read of t begins (reads element 0).
template <class V>
auto may_read(const Config& c, const V& s, int t) {
  const int lo = c.target < 0 ? 0 : c.target, hi = c.target < 0 ? c.parts : c.target;
  return s.bc(t >= lo && t <= hi) && !reading(s) && s.rd_done() < s.ic(c.reads);
}
// The read of t visits element e >= 1.
template <class V>
auto may_visit(const Config&, const V& s, int t, int e) {
  return reading(s) && s.rd_target() == s.ic(t) && s.rd_pos() == s.ic(e);
}

// --- updates ----------------------------------------------------------------

// A submitter moved: the current read (if any) is no longer quiescent; a
// request entering the accounting window is one more seen during the read.
template <class V>
void note_submitter_step(const Config&, V& s, int sub, bool enters_window) {
  const auto r = reading(s);
  s.set_live(s.live() || r);
  if (!enters_window) return;
  s.set_rd_seen(s.rd_seen() +
                one_if(s, r && (s.rd_target() == s.ic(0) || s.target(sub) == s.rd_target())));
  s.set_rd_seen0(s.rd_seen0() + one_if(s, r));
}

template <class V>
void count(const Config& c, V& s, int tgt, int cpu, int d) {
  if (c.uses_tag_walk()) return;
  s.set_counter(tgt, cpu, s.counter(tgt, cpu) + s.ic(d));
  if (tgt != 0 && c.counts_part0()) s.set_counter(0, cpu, s.counter(0, cpu) + s.ic(d));
}

// blk_account_io_start: part_inc_in_flight / part_stat_local_inc (counters),
// nothing for the blk-mq tag walks.
template <class V>
void blk_account_io_start(const Config& c, V& s, int sub, int tgt, int cpu) {
  s.set_target(sub, s.ic(tgt));
  count(c, s, tgt, cpu, +1);
  s.set_pc(sub, s.ic(DISPATCH));
  note_submitter_step(c, s, sub, !c.uses_tag_walk());
}

// blk_mq_get_driver_tag + blk_mq_start_request: driver tag `sub`, started.
template <class V>
void blk_mq_start_request(const Config& c, V& s, int sub) {
  s.set_pc(sub, s.ic(COMPLETE));
  note_submitter_step(c, s, sub, c.uses_tag_walk());
}

// blk_mq_complete_request -> blk_account_io_done on CPU cpu.
template <class V>
void blk_account_io_done(const Config& c, V& s, int sub, int tgt, int cpu) {
  count(c, s, tgt, cpu, -1);
  s.set_pc(sub, s.ic(FREE));
  note_submitter_step(c, s, sub, false);
}

// blk_mq_free_request: driver tag released; the next round, or done.
template <class V>
void blk_mq_free_request(const Config& c, V& s, int sub) {
  s.set_target(sub, s.ic(0));
  const auto next = s.round(sub) + s.ic(1);
  s.set_round(sub, next);
  s.set_pc(sub, ite(next == s.ic(c.rounds), s.ic(DONE), s.ic(SUBMIT)));
  note_submitter_step(c, s, sub, false);
}

// The read of t returns: the ghost verdicts are settled here.
template <class V>
void end_read(const Config& c, V& s, int t) {
  const auto raw = s.rd_acc();
  const auto reported = c.uses_percpu() ? ite(raw < s.ic(0), s.ic(0), raw) : raw;
  const auto quiescent = !s.live();
  auto part_wrong = s.part_wrong(), part0_wrong = s.part0_wrong();
  const auto wrong = quiescent && reported != truth(c, s, t);
  if (t == 0) part0_wrong = part0_wrong || wrong;
  else part_wrong = part_wrong || wrong;
  auto missed = s.missed_queued() || (quiescent && reported != submitted_count(c, s, t));
  auto over = s.over_bound() || reported > s.rd_seen();
  if (c.variant == TagWalkDouble && t != 0) {  // the part0 half of the walk
    const auto c0 = s.rd_acc0();
    part0_wrong = part0_wrong || (quiescent && c0 != truth(c, s, 0));
    missed = missed || (quiescent && c0 != submitted_count(c, s, 0));
    over = over || c0 > s.rd_seen0();
  }
  s.set_part_wrong(part_wrong);
  s.set_part0_wrong(part0_wrong);
  s.set_missed_queued(missed);
  s.set_over_bound(over);
  s.set_negative(s.negative() || raw < s.ic(0));
  s.set_live(s.bc(false));
  s.set_rd_pos(s.ic(0));
  s.set_rd_done(s.rd_done() + s.ic(1));
  s.set_rd_target(s.ic(0));
  s.set_rd_acc(s.ic(0));
  s.set_rd_acc0(s.ic(0));
  s.set_rd_seen(s.ic(0));
  s.set_rd_seen0(s.ic(0));
}

// One reader step (part_in_flight / blk_mq_in_flight /
// part_in_flight_double): element elem of a read of tgt; element 0 begins
// the read.
template <class V>
void part_in_flight(const Config& c, V& s, int tgt, int elem) {
  if (elem == 0) {
    s.set_rd_target(s.ic(tgt));
    s.set_rd_acc(s.ic(0));
    s.set_rd_acc0(s.ic(0));
    s.set_rd_seen(truth(c, s, tgt));
    s.set_rd_seen0(truth(c, s, 0));
    s.set_live(s.bc(false));
  }
  const auto v = element_value(c, s, tgt, elem);
  s.set_rd_acc(s.rd_acc() + v.first);
  s.set_rd_acc0(s.rd_acc0() + v.second);
  s.set_rd_pos(s.ic(elem + 1));
  if (elem + 1 == c.read_elements()) end_read(c, s, tgt);
}

// --- properties -------------------------------------------------------------

enum Prop : int {
  QuiescentExactPart,
  QuiescentExactPart0,
  LiveReadBounded,
  NeverNegative,
  QuiescentCountsQueued,
  Deadlock,
  Progress
};

template <class V>
auto violates(const Config&, const V& s, int prop) {
  switch (prop) {
    case QuiescentExactPart:
      return s.part_wrong();
    case QuiescentExactPart0:
      return s.part0_wrong();
    case LiveReadBounded:
      return s.over_bound();
    case NeverNegative:
      return s.negative();
    case QuiescentCountsQueued:
      return s.missed_queued();
    default:
      return s.bc(false);
  }
}

template <class V>
auto finished(const Config& c, const V& s) {
  auto r = s.rd_done() >= s.ic(c.reads) && !reading(s);
  for (int sub = 0; sub < c.nsub; ++sub) r = r && s.pc(sub) == s.ic(DONE);
  return r;
}

// --- strengthening lemmas (auxiliary invariants for k-induction) ------------
// Each is an invariant of the model that `blkmc prove inflight` proves by
// induction (assuming the earlier ones) before it assumes it; the tests also
// check them on every state the explorer reaches.

template <class V, class B>
auto implies(const V&, const B& a, const B& b) {
  return !a || b;
}

// well-formed: each submitter's phase agrees with its round (done exactly
// after the last) and its target (0 when idle, a partition it may choose
// while it holds a request); the reader is at an element of the read (its
// fields reset between reads), of a target it may read; the requests it has
// seen are never negative, and a tag walk's sums stay within the tags it
// passed. (prove works over mathematical integers, so nothing needs a bound
// against wrapping.)
template <class V>
auto lemma_well_formed(const Config& c, const V& s) {
  const int lo = c.target < 0 ? 0 : c.target, hi = c.target < 0 ? c.parts : c.target;
  auto r = s.bc(true);
  for (int sub = 0; sub < c.nsub; ++sub) {
    const auto pc = s.pc(sub), t = s.target(sub);
    const auto holds_rq = pc == s.ic(DISPATCH) || pc == s.ic(COMPLETE) || pc == s.ic(FREE);
    r = r && pc >= s.ic(SUBMIT) && pc <= s.ic(DONE) && s.round(sub) >= s.ic(0) &&
        s.round(sub) <= s.ic(c.rounds) && (pc == s.ic(DONE)) == (s.round(sub) == s.ic(c.rounds)) &&
        implies(s, !holds_rq, t == s.ic(0)) &&
        implies(s, holds_rq, t >= s.ic(c.first_target()) && t <= s.ic(c.parts));
  }
  const auto rd = reading(s);
  const auto pos = s.rd_pos();
  r = r && pos >= s.ic(0) && pos < s.ic(c.read_elements()) && s.rd_done() >= s.ic(0) &&
      s.rd_done() <= s.ic(c.reads) && s.rd_seen() >= s.ic(0) && s.rd_seen0() >= s.ic(0) &&
      implies(s, !rd,
              s.rd_target() == s.ic(0) && s.rd_acc() == s.ic(0) && s.rd_acc0() == s.ic(0) &&
                  s.rd_seen() == s.ic(0) && s.rd_seen0() == s.ic(0) && !s.live()) &&
      implies(s, rd,
              s.rd_done() < s.ic(c.reads) && s.rd_target() >= s.ic(lo) &&
                  s.rd_target() <= s.ic(hi));
  if (c.uses_tag_walk())
    r = r && s.rd_acc() >= s.ic(0) && s.rd_acc() <= pos && s.rd_acc0() >= s.ic(0) &&
        s.rd_acc0() <= pos;
  return r;
}

// Whether a request to rt moves the counter of t (t = 0: part0, which every
// request moves unless 7be835694dae counts it once, in its own partition).
template <class V, class I>
auto counted_in(const Config& c, const V& s, const I& rt, int t) {
  return rt == s.ic(t) || s.bc(t == 0 && c.counts_part0());
}

// counters-sum (counter variants): summed over the CPUs, the in_flight
// counter of each target equals the submitted, not completed requests it
// counts. A single CPU's counter may be anything in between.
template <class V>
auto lemma_counters_sum(const Config& c, const V& s) {
  auto r = s.bc(true);
  if (c.uses_tag_walk()) return r;
  for (int t = 0; t <= c.parts; ++t) {
    auto sum = s.ic(0), n = s.ic(0);
    for (int cpu = 0; cpu < c.ncnt_cpu(); ++cpu) sum = sum + s.counter(t, cpu);
    for (int sub = 0; sub < c.nsub; ++sub)
      n = n + one_if(s, submitted(s, sub) && counted_in(c, s, s.target(sub), t));
    r = r && sum == n;
  }
  return r;
}

// quiescent-sum: while no submitter has stepped since the read began, its
// partial sums are the elements it passed, as they are now.
template <class V>
auto lemma_quiescent_sum(const Config& c, const V& s) {
  auto r = s.bc(true);
  for (int t = 0; t <= c.parts; ++t) {
    auto acc = s.ic(0), acc0 = s.ic(0);
    for (int e = 0; e < c.read_elements(); ++e) {
      const auto v = element_value(c, s, t, e);
      const auto passed = s.rd_pos() > s.ic(e);
      acc = acc + ite(passed, v.first, s.ic(0));
      acc0 = acc0 + ite(passed, v.second, s.ic(0));
    }
    r = r && implies(s, reading(s) && !s.live() && s.rd_target() == s.ic(t),
                     s.rd_acc() == acc && s.rd_acc0() == acc0);
  }
  return r;
}

// read-bounded: what the read has summed plus what the elements ahead of it
// hold now never exceeds the requests seen in the window during the read
// (each is counted at most once: it entered an element behind the reader,
// or it is still ahead of it).
template <class V>
auto lemma_read_bounded(const Config& c, const V& s) {
  auto r = s.bc(true);
  for (int t = 0; t <= c.parts; ++t) {
    auto ahead = s.ic(0), ahead0 = s.ic(0);
    for (int e = 0; e < c.read_elements(); ++e) {
      const auto v = element_value(c, s, t, e);
      const auto todo = s.rd_pos() <= s.ic(e);
      ahead = ahead + ite(todo, v.first, s.ic(0));
      ahead0 = ahead0 + ite(todo, v.second, s.ic(0));
    }
    r = r && implies(s, reading(s) && s.rd_target() == s.ic(t),
                     s.rd_acc() + ahead <= s.rd_seen() && s.rd_acc0() + ahead0 <= s.rd_seen0());
  }
  return r;
}

}  // namespace blkmc::inflight
