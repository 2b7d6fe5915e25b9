// model/tags/tags_logic: the tags model's steps written ONCE over their value
// types (docs/architecture.md, "One source, two semantics"), for the explorer
// (model/tags/tags.cpp: a view over the ByteState, I = int, B = bool) and for
// k-induction (model/tags/tags_symbolic.cpp: a view over z3::expr, sized by the
// parameters, so 64 or 1024 tags are one more vector, not a new layout).
//
// A view V provides I/B, the constant makers ic(int)/bc(bool), and a getter
// and setter per state variable:
//   bit(t) owner(t) rqs(t)                    per tag
//   pc(sub) round(sub) tag(sub) obj(sub)      per submitter
//   pos() count() oops() stale_fn() stale_count()  the iterator
// The functions below use only &&, ||, !, comparisons, + and ite(); never an
// `if` on a value read from the state. Every index (submitter, tag, pool
// object) is a concrete argument: a step whose kernel code indexes by a
// state value (rqs[rq->tag]) takes the index as an argument and its guard
// requires the state to agree (tag(sub) == t). Each step is a guard
// (may_*) and an update named after the kernel function; the update is
// only applied where the guard holds.
#pragma once

#include "model/concrete_values.hpp"

namespace blkmc::tags {

enum Variant : int { V4_11, NullCheck, Refcount, TagMatch };
// Submitter program counter; also the Step::action of submitter steps.
enum Pc : int { GET, ALLOC, ASSIGN, START, COMPLETE, FREE, DONE };
constexpr int VISIT = DONE + 1;  // the iterator's action
// The pc values by name (state_json, stories).
inline constexpr const char* kPcNames[] = {"get", "alloc", "assign", "start", "complete", "free", "done"};

struct Config {
  int variant, ntags, nsub, rounds, pool;
};

// The request a submitter works on: a fresh id per round (pool = 0) or the
// pool object it holds.
template <class V>
auto request_id(const Config& c, const V& s, int sub) {
  return c.pool ? s.obj(sub) : s.ic(sub * c.rounds + 1) + s.round(sub);
}

// Submitter sub works on request id (id 0 is NULL: nobody). With pool = 0 an
// id names one round of one submitter; with a pool, the object it holds.
template <class V, class I>
auto works_on(const Config& c, const V& s, int sub, const I& id) {
  if (c.pool) return id != s.ic(0) && s.obj(sub) == id;
  return id != s.ic(0) && request_id(c, s, sub) == id && s.pc(sub) != s.ic(DONE);
}

template <class V>
auto pc_in(const V& s, int sub, int lo, int hi) {
  return s.pc(sub) >= s.ic(lo) && s.pc(sub) <= s.ic(hi);
}

// rq->ref > 0: the request was initialised and not yet freed. A fresh
// request gets its reference when it is assigned; a pool object when it is
// taken from the pool (blk_mq_rq_ctx_init). The first submitter working on
// id decides (there is at most one in every reachable state).
template <class V, class I>
auto rq_alive(const Config& c, const V& s, const I& id) {
  auto r = s.bc(false);
  for (int sub = c.nsub - 1; sub >= 0; --sub)
    r = ite(works_on(c, s, sub, id), pc_in(s, sub, c.pool ? ALLOC : START, FREE), r);
  return r;
}

// rq->state == MQ_RQ_IN_FLIGHT: started and not yet completed.
template <class V, class I>
auto rq_in_flight(const Config& c, const V& s, const I& id) {
  auto r = s.bc(false);
  for (int sub = c.nsub - 1; sub >= 0; --sub)
    r = ite(works_on(c, s, sub, id), s.pc(sub) == s.ic(COMPLETE), r);
  return r;
}

// rq->tag (-1 when the request holds no driver tag).
template <class V, class I>
auto rq_tag(const Config& c, const V& s, const I& id) {
  auto r = s.ic(-1);
  for (int sub = c.nsub - 1; sub >= 0; --sub)
    r = ite(works_on(c, s, sub, id), ite(pc_in(s, sub, ASSIGN, FREE), s.tag(sub), s.ic(-1)), r);
  return r;
}

template <class V>
auto object_free(const Config& c, const V& s, int object) {
  auto r = s.bc(true);
  for (int sub = 0; sub < c.nsub; ++sub) r = r && s.obj(sub) != s.ic(object);
  return r;
}

template <class V>
auto iterator_done(const Config& c, const V& s) {
  return s.pos() >= s.ic(c.ntags) || s.oops();
}

// --- guards -----------------------------------------------------------------

template <class V>
auto may_get_request(const Config& c, const V& s, int sub, int object) {
  return s.pc(sub) == s.ic(GET) && object_free(c, s, object);
}
template <class V>
auto may_get_tag(const Config&, const V& s, int sub, int t) {
  return s.pc(sub) == s.ic(ALLOC) && !s.bit(t);
}
// ASSIGN, START, COMPLETE, FREE: the submitter's pc; ASSIGN and FREE index
// by the tag the submitter holds, given as t.
template <class V>
auto may_step_at(const Config&, const V& s, int sub, int pc, int t) {
  auto g = s.pc(sub) == s.ic(pc);
  if (pc == ASSIGN || pc == FREE) g = g && s.tag(sub) == s.ic(t);
  return g;
}
// The iterator's next bit is t.
template <class V>
auto may_bt_iter(const Config& c, const V& s, int t) {
  return !iterator_done(c, s) && s.pos() == s.ic(t);
}

// --- updates ----------------------------------------------------------------

// blk_mq_get_request / blk_mq_rq_ctx_init: a request object from the
// scheduler's pool, ref = 1. Only with pool >= 1.
template <class V>
void blk_mq_get_request(const Config&, V& s, int sub, int object) {
  s.set_obj(sub, s.ic(object));
  s.set_pc(sub, s.ic(ALLOC));
}

// blk_mq_get_tag: test_and_set_bit_lock on a clear bit. rq->tag is set here;
// tags->rqs[tag] is published by the next, separate step: the race window.
template <class V>
void blk_mq_get_tag(const Config& c, V& s, int sub, int t) {
  s.set_bit(t, s.bc(true));
  s.set_owner(t, request_id(c, s, sub));
  s.set_tag(sub, s.ic(t));
  s.set_pc(sub, s.ic(ASSIGN));
}

// tags->rqs[rq->tag] = rq (blk_mq_get_driver_tag / ctx_init, per version).
template <class V>
void blk_mq_assign_rqs(const Config& c, V& s, int sub, int t) {
  s.set_rqs(t, request_id(c, s, sub));
  s.set_pc(sub, s.ic(START));
}

template <class V>
void blk_mq_start_request(const Config&, V& s, int sub) {
  s.set_pc(sub, s.ic(COMPLETE));
}

template <class V>
void blk_mq_complete_request(const Config&, V& s, int sub) {
  s.set_pc(sub, s.ic(FREE));
}

// blk_mq_free_request -> blk_mq_put_tag: clear the bit, drop the reference.
// tags->rqs[] keeps pointing at the request.
template <class V>
void blk_mq_free_request(const Config& c, V& s, int sub, int t) {
  s.set_bit(t, s.bc(false));
  s.set_owner(t, s.ic(0));
  s.set_tag(sub, s.ic(0));
  if (c.pool) s.set_obj(sub, s.ic(0));
  const auto next = s.round(sub) + s.ic(1);
  s.set_round(sub, next);
  s.set_pc(sub, ite(next == s.ic(c.rounds), s.ic(DONE), s.ic(c.pool ? GET : ALLOC)));
}

// The busy-iter callback: blk_mq_check_inflight counts started requests.
// `call`: whether bt_iter calls fn at all.
template <class V, class I, class B>
void in_flight_fn(const Config& c, V& s, int t, const I& rq, const B& call) {
  const auto stale = rq != s.owner(t);
  const auto counted = call && rq_in_flight(c, s, rq);
  s.set_stale_fn(s.stale_fn() || (call && stale));
  s.set_count(ite(counted, s.count() + s.ic(1), s.count()));
  // Counted through a slot it does not own: the request is counted again at
  // (or was already counted through) its own tag.
  s.set_stale_count(s.stale_count() || (counted && stale));
}

// bt_iter / bt_tags_iter for bit t of the walk.
template <class V>
void bt_iter(const Config& c, V& s, int t) {
  const auto set = s.bit(t);
  const auto rq = s.rqs(t);
  const auto null = rq == s.ic(0);
  auto oops = s.bc(false);
  auto call = set && !null;
  switch (c.variant) {
    case V4_11:  // rq->q == hctx->queue on a NULL rq: oops, the walk dies
      oops = set && null;
      break;
    case NullCheck:
      break;
    case Refcount:  // under tags->lock: rq && req_ref_inc_not_zero(rq)
      call = call && rq_alive(c, s, rq);
      break;
    default:  // TagMatch: ... && rq->tag == bitnr
      call = call && rq_alive(c, s, rq) && rq_tag(c, s, rq) == s.ic(t);
      break;
  }
  in_flight_fn(c, s, t, rq, call);
  s.set_oops(s.oops() || oops);
  s.set_pos(ite(oops, s.pos(), s.ic(t + 1)));
}

// --- properties -------------------------------------------------------------

enum Prop : int { NoNullDeref, FnSeesOwner, CountOwnerOnly, WalkCountBounded, Deadlock };

// Whether the state violates the (invariant) property prop.
template <class V>
auto violates(const Config& c, const V& s, int prop) {
  switch (prop) {
    case NoNullDeref:
      return s.oops();
    case FnSeesOwner:
      return s.stale_fn();
    case CountOwnerOnly:
      return s.stale_count();
    case WalkCountBounded:
      return s.count() > s.ic(c.nsub);
    default:
      return s.bc(false);
  }
}

template <class V>
auto finished(const Config& c, const V& s) {
  auto r = iterator_done(c, s);
  for (int sub = 0; sub < c.nsub; ++sub) r = r && s.pc(sub) == s.ic(DONE);
  return r;
}

// --- strengthening lemmas (auxiliary invariants for k-induction) ------------
// Each is an invariant of the model that `blkmc prove` proves by induction
// (assuming the earlier ones) before it assumes it; the explorer's tests
// check them on every reachable state too.

template <class V>
auto implies(const V& s, const decltype(s.bc(true))& a, const decltype(s.bc(true))& b) {
  return !a || b;
}

// The submitter holds a driver tag: between blk_mq_get_tag and the free.
template <class V>
auto holds_tag(const V& s, int sub) {
  return pc_in(s, sub, ASSIGN, FREE);
}

// well-formed: every variable in its range, and the phase of each submitter
// agrees with its round (done exactly after the last), its tag (0 unless it
// holds one) and its pool object (held exactly between get and free); the
// walk counts at most one request per bit it passed.
template <class V>
auto lemma_well_formed(const Config& c, const V& s) {
  const int maxid = c.pool ? c.pool : c.nsub * c.rounds;
  auto r = s.pos() >= s.ic(0) && s.pos() <= s.ic(c.ntags) && s.count() >= s.ic(0) &&
           s.count() <= s.pos();
  for (int t = 0; t < c.ntags; ++t)
    r = r && s.owner(t) >= s.ic(0) && s.owner(t) <= s.ic(maxid) && s.rqs(t) >= s.ic(0) &&
        s.rqs(t) <= s.ic(maxid);
  for (int sub = 0; sub < c.nsub; ++sub) {
    r = r && pc_in(s, sub, c.pool ? GET : ALLOC, DONE) && s.round(sub) >= s.ic(0) &&
        s.round(sub) <= s.ic(c.rounds) &&
        (s.pc(sub) == s.ic(DONE)) == (s.round(sub) == s.ic(c.rounds)) &&
        s.tag(sub) >= s.ic(0) && s.tag(sub) < s.ic(c.ntags) &&
        implies(s, !holds_tag(s, sub), s.tag(sub) == s.ic(0));
    if (c.pool)
      r = r && s.obj(sub) >= s.ic(0) && s.obj(sub) <= s.ic(c.pool) &&
          (s.obj(sub) == s.ic(0)) == (s.pc(sub) == s.ic(GET) || s.pc(sub) == s.ic(DONE));
  }
  return r;
}

// tag-ownership: a submitter holding a tag has its bit set and is its owner;
// a set bit is held by a submitter; a clear bit has no owner; two
// submitters never hold the same tag; two submitters never hold the same
// pool object.
template <class V>
auto lemma_tag_ownership(const Config& c, const V& s) {
  auto r = s.bc(true);
  for (int t = 0; t < c.ntags; ++t) {
    auto held = s.bc(false);
    for (int sub = 0; sub < c.nsub; ++sub) held = held || (holds_tag(s, sub) && s.tag(sub) == s.ic(t));
    r = r && s.bit(t) == held && implies(s, !s.bit(t), s.owner(t) == s.ic(0));
  }
  for (int sub = 0; sub < c.nsub; ++sub) {
    for (int t = 0; t < c.ntags; ++t)
      r = r && implies(s, holds_tag(s, sub) && s.tag(sub) == s.ic(t),
                       s.owner(t) == request_id(c, s, sub));
    for (int o = sub + 1; o < c.nsub; ++o) {
      r = r && implies(s, holds_tag(s, sub) && holds_tag(s, o), s.tag(sub) != s.tag(o));
      if (c.pool) r = r && implies(s, s.obj(sub) != s.ic(0), s.obj(sub) != s.obj(o));
    }
  }
  return r;
}

// rqs-published: once assigned, tags->rqs[] at the submitter's tag names
// its request until the free.
template <class V>
auto lemma_rqs_published(const Config& c, const V& s) {
  auto r = s.bc(true);
  for (int sub = 0; sub < c.nsub; ++sub)
    for (int t = 0; t < c.ntags; ++t)
      r = r && implies(s, pc_in(s, sub, START, FREE) && s.tag(sub) == s.ic(t),
                       s.rqs(t) == request_id(c, s, sub));
  return r;
}

// fresh-ids (pool = 0 only; true by definition otherwise): an rqs[] entry
// naming a submitter's current request is the one it published at its own
// tag, and no entry names a request of a round the submitter has not
// reached. With a pool, objects come back: a stale slot can name a live
// object, which is the refcount variant's bug.
template <class V>
auto lemma_fresh_ids(const Config& c, const V& s) {
  auto r = s.bc(true);
  if (c.pool) return r;
  for (int sub = 0; sub < c.nsub; ++sub)
    for (int t = 0; t < c.ntags; ++t) {
      const auto id = request_id(c, s, sub);
      r = r &&
          implies(s, s.pc(sub) != s.ic(DONE) && s.rqs(t) == id,
                  pc_in(s, sub, START, FREE) && s.tag(sub) == s.ic(t)) &&
          !(s.rqs(t) > id && s.rqs(t) <= s.ic(sub * c.rounds + c.rounds));
    }
  return r;
}

// walk-count: the requests the walk counted plus those it may still count
// (not yet started, or in flight at a bit it has not reached) never exceed
// the submitters. True with one round each; with more, a submitter counted
// once comes back with a new request, and the lemma fails (as the property
// does).
template <class V>
auto lemma_walk_count(const Config& c, const V& s) {
  auto pending = s.count();
  for (int sub = 0; sub < c.nsub; ++sub)
    pending = pending + ite(pc_in(s, sub, GET, START) ||
                                (s.pc(sub) == s.ic(COMPLETE) && s.tag(sub) >= s.pos()),
                            s.ic(1), s.ic(0));
  return pending <= s.ic(c.nsub);
}

}  // namespace blkmc::tags
