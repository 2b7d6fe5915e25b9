// Unit tests for every step of SbitmapModel (model/sbitmap/sbitmap.hpp), checked
// through the model's state accessors, and the verdicts of each variant on
// small parameters (the suite's bounds).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/sbitmap/sbitmap.hpp"
#include "tests/commuting.hpp"
#include "tests/model_steps.hpp"

namespace sbitmap_steps_test {

using namespace blkmc;
using namespace blkmc::testing;

using M = SbitmapModel;
using State = M::State;

Params params(int tags, int tasks, int rounds, int nr_ws, int clear = -1, int irq = 0,
              int batch = 0) {
  return {{"tags", tags},   {"tasks", tasks}, {"rounds", rounds}, {"nr_ws", nr_ws},
          {"batch", batch}, {"clear", clear}, {"irq", irq}};
}

Step st(int actor, int action, int arg = 0) { return step(actor, action, arg); }

std::vector<Step> steps_of(const M& m, const State& s, int actor) {
  std::vector<Step> out;
  for (auto& [x, n] : successors(m, s))
    if (x.actor == actor) out.push_back(x);
  return out;
}

bool enabled(const M& m, const State& s, const Step& x) {
  State dummy{};
  return m.apply(s, x, dummy);
}

// Task t fails to get a tag, queues on its wait queue and goes to sleep
// (clear=0: three steps of __sbitmap_get_word plus the prepare).
std::vector<Step> sleep_steps(int t) {
  return {st(t, M::GET), st(t, M::GET), st(t, M::PREPARE), st(t, M::GET)};
}

// Progress (AG EF finished) decided by hand on the whole state graph: the
// first stuck state in breadth-first order and the path to it.
struct ProgressResult {
  std::size_t states = 0;
  bool stuck = false;
  std::vector<Step> path;
  State at{};
};

ProgressResult check_progress(const M& m) {
  const std::size_t n = m.state_bytes();
  auto key = [n](const State& s) { return std::string(reinterpret_cast<const char*>(s.b.data()), n); };
  std::unordered_map<std::string, std::uint32_t> id;
  std::vector<State> states{m.initial()};
  std::vector<std::uint32_t> parent{UINT32_MAX};
  std::vector<Step> via{Step{}};
  std::vector<std::vector<std::uint32_t>> succ;
  id.emplace(key(states[0]), 0);
  for (std::size_t h = 0; h < states.size(); ++h) {
    succ.emplace_back();
    const State cur = states[h];
    m.for_each_successor(cur, [&](const Step& x, const State& nx) {
      const auto [it, fresh] = id.emplace(key(nx), std::uint32_t(states.size()));
      if (fresh) {
        states.push_back(nx);
        parent.push_back(std::uint32_t(h));
        via.push_back(x);
      }
      succ[h].push_back(it->second);
    });
  }
  std::vector<std::vector<std::uint32_t>> pred(states.size());
  for (std::size_t a = 0; a < states.size(); ++a)
    for (auto b : succ[a]) pred[b].push_back(std::uint32_t(a));
  std::vector<char> can_finish(states.size(), 0);
  std::vector<std::uint32_t> work;
  for (std::size_t a = 0; a < states.size(); ++a)
    if (m.finished(states[a])) {
      can_finish[a] = 1;
      work.push_back(std::uint32_t(a));
    }
  for (std::size_t h = 0; h < work.size(); ++h)
    for (auto p : pred[work[h]])
      if (!can_finish[p]) {
        can_finish[p] = 1;
        work.push_back(p);
      }
  ProgressResult r;
  r.states = states.size();
  for (std::size_t a = 0; a < states.size(); ++a)
    if (!can_finish[a]) {
      r.stuck = true;
      r.at = states[a];
      for (std::uint32_t x = std::uint32_t(a); parent[x] != UINT32_MAX; x = parent[x])
        r.path.push_back(via[x]);
      std::reverse(r.path.begin(), r.path.end());
      break;
    }
  return r;
}

Verdict verdict_of(const M& m, int prop) {
  SearchOptions opt;
  opt.progress = false;
  opt.props = {prop};
  const auto r = explore(m, opt);
  REQUIRE(r.stop != StopReason::Time);
  return r.props.at(0).verdict;
}

TEST_CASE("sbitmap: parameters, wake_batch and the clear scheme per variant") {
  const M m(M::C854, params(2, 2, 1, 1));
  CHECK(m.batch() == 2);  // clamp(2 / 1, 1, 8)
  CHECK(m.clear() == M::ClearBit);
  CHECK(M(M::C854, params(2, 2, 1, 2)).batch() == 1);
  CHECK(M(M::C854, params(8, 2, 1, 1)).batch() == 8);
  CHECK(M(M::C854, params(1, 2, 1, 2)).batch() == 1);  // clamped up to 1
  CHECK(M(M::C854, params(4, 2, 1, 1, -1, 0, 3)).batch() == 3);  // explicit
  CHECK(M(M::PreC854, params(2, 2, 1, 1)).clear() == M::ClearBit);
  for (int v = M::Y040b83; v <= M::D106397; ++v)
    CHECK(M(v, params(2, 2, 1, 1)).clear() == M::DeferredLockless);
  CHECK(M(M::Y72d04b, params(2, 2, 1, 1)).clear() == M::DeferredRecheck);
  CHECK(M(M::Y72d04b, params(2, 2, 1, 1, 1)).clear() == M::DeferredLocked);
  CHECK_FALSE(M(M::C854, params(2, 2, 1, 1)).six_two());
  CHECK(M(M::K4f8126, params(2, 2, 1, 1)).six_two());
  CHECK_THROWS_AS(M(-1, params(2, 2, 1, 1)), UsageError);
  CHECK_THROWS_AS(M(M::Y72d04b + 1, params(2, 2, 1, 1)), UsageError);
  // Layout (sbitmap::schema): 6 shared bytes (word, cleared, wake_index,
  // wait_index, the irq's owner and victim), one wait_cnt per queue, one
  // list slot per task per queue, 8 bytes per task, then the bits (the
  // wasted-wakeup ghost, each task's woken and prepared).
  CHECK(m.state_bytes() == 6 + 1 + 2 + 16 + 1);
  CHECK(M(M::C854, params(4, 3, 2, 2)).state_bytes() == 6 + 2 + 6 + 24 + 1);
  // 6.2 on: completion_cnt and wakeup_cnt, no wait_cnt.
  CHECK(M(M::K4f8126, params(4, 3, 2, 2)).state_bytes() == 8 + 6 + 24 + 1);
  CHECK(M::static_info().variants.size() == 9);
  CHECK(M::static_info().actions.size() == std::size_t(M::kNumPc));
}

TEST_CASE("sbitmap: initial state") {
  for (int v = M::PreC854; v <= M::Y72d04b; ++v) {
    const M m(v, params(2, 3, 2, 2));
    const State s = m.initial();
    CHECK(m.word(s) == 0);
    CHECK(m.cleared(s) == 0);
    CHECK(m.wake_index(s) == 0);
    CHECK(m.wait_index(s) == 0);
    CHECK(m.irq_owner(s) == -1);
    CHECK(m.irq_victim(s) == -1);
    CHECK_FALSE(m.wasted(s));
    for (int q = 0; q < 2; ++q) {
      CHECK(m.wait_cnt(s, q) == m.batch());
      CHECK_FALSE(m.waitqueue_active(s, q));
    }
    for (int t = 0; t < 3; ++t) {
      CHECK(m.pc(s, t) == M::GET);
      CHECK(m.round(s, t) == 0);
      CHECK(m.phase(s, t) == 0);
    }
    CHECK(m.ws_active(s) == 0);
    CHECK_FALSE(m.finished(s));
    CHECK(successors(m, s).size() == 3);  // each task tries once
  }
}

TEST_CASE("sbitmap: GET takes the lowest free bit; a failed try picks a queue, then prepares, "
          "then sleeps") {
  const M m(M::C854, params(2, 3, 1, 2));
  State s = run(m, m.initial(), st(1, M::GET));
  CHECK(m.word(s) == 0b01);
  CHECK(m.tag(s, 1) == 0);
  CHECK(m.pc(s, 1) == M::PUT);
  s = run(m, s, st(0, M::GET));
  CHECK(m.word(s) == 0b11);
  CHECK(m.tag(s, 0) == 1);
  // Task 2, word full, clear=0: the first failure picks ws[wait_index].
  s = run(m, s, st(2, M::GET));
  CHECK(m.pc(s, 2) == M::GET);
  CHECK(m.phase(s, 2) == 1);
  CHECK(m.ws(s, 2) == 0);
  CHECK(m.wait_index(s) == 1);  // bt_wait_ptr advanced the hctx wait_index
  // The loop-top try fails: prepare.
  s = run(m, s, st(2, M::GET));
  CHECK(m.pc(s, 2) == M::PREPARE);
  s = run(m, s, st(2, M::PREPARE));
  CHECK(m.phase(s, 2) == 2);
  // The try after prepare_to_wait fails: sleep.
  s = run(m, s, st(2, M::GET));
  CHECK(m.pc(s, 2) == M::SCHEDULE);
  CHECK(m.sleeping(s, 2));
  CHECK(steps_of(m, s, 2).empty());
  // A try after prepare_to_wait that succeeds goes to FINISH_GOT.
  State r = run_all(m, run(m, m.initial(), st(0, M::GET)), {st(1, M::GET)});
  r = run_all(m, r, {st(2, M::GET), st(2, M::GET), st(2, M::PREPARE), st(0, M::PUT)});
  CHECK(m.word(r) == 0b10);
  r = run(m, r, st(2, M::GET));
  CHECK(m.pc(r, 2) == M::FINISH_GOT);
  CHECK(m.tag(r, 2) == 0);
  // A loop-top try that succeeds holds the tag directly, its queue forgotten.
  State u = run_all(m, m.initial(), {st(0, M::GET), st(1, M::GET), st(2, M::GET), st(0, M::PUT)});
  u = run(m, u, st(2, M::GET));
  CHECK(m.pc(u, 2) == M::PUT);
  CHECK(m.ws(u, 2) == 0);
}

TEST_CASE("sbitmap: bt_wait_ptr hands out the queues round robin") {
  const M m(M::C854, params(1, 4, 1, 2));
  State s = run(m, m.initial(), st(0, M::GET));
  s = run_all(m, s, {st(1, M::GET), st(2, M::GET), st(3, M::GET)});
  CHECK(m.ws(s, 1) == 0);
  CHECK(m.ws(s, 2) == 1);
  CHECK(m.ws(s, 3) == 0);
  CHECK(m.wait_index(s) == 1);
}

TEST_CASE("sbitmap: lockless sbitmap_deferred_clear: xchg, then andnot, as two steps") {
  const M m(M::D106397, params(1, 2, 2, 1));
  CHECK(m.clear() == M::DeferredLockless);
  State s = run_all(m, m.initial(), {st(0, M::GET), st(0, M::PUT)});
  CHECK(m.word(s) == 1);  // the bit stays set in the word ...
  CHECK(m.cleared(s) == 1);  // ... and is recorded in cleared
  s = run(m, s, st(0, M::W_ACTIVE));  // nobody waits
  CHECK(m.pc(s, 0) == M::GET);
  CHECK(m.round(s, 0) == 1);
  s = run(m, s, st(1, M::GET));
  CHECK(m.pc(s, 1) == M::DCLEAR);
  s = run(m, s, st(1, M::DCLEAR));
  CHECK(m.pc(s, 1) == M::ANDNOT);
  CHECK(m.cleared(s) == 0);
  CHECK(m.mask(s, 1) == 1);
  CHECK(m.word(s) == 1);  // the window: cleared is empty, the word still full
  // Task 0 now finds the word full and nothing in cleared: allocation fails.
  State f = run_all(m, s, {st(0, M::GET), st(0, M::DCLEAR)});
  CHECK(m.pc(f, 0) == M::GET);
  CHECK(m.phase(f, 0) == 1);
  s = run(m, s, st(1, M::ANDNOT));
  CHECK(m.word(s) == 0);
  CHECK(m.mask(s, 1) == 0);
  CHECK(m.pc(s, 1) == M::GET);
  s = run(m, s, st(1, M::GET));
  CHECK(m.pc(s, 1) == M::PUT);
  CHECK(m.word(s) == 1);
}

TEST_CASE("sbitmap: sbitmap_deferred_clear under swap_lock (ea86ea2cdced) and with the "
          "re-check (72d04bdcf3f7)") {
  // clear=1: one atomic step; an empty cleared mask fails even when the word
  // has meanwhile got free bits.
  const M m1(M::D106397, params(2, 2, 2, 1, M::DeferredLocked));
  State s = run_all(m1, m1.initial(), {st(0, M::GET), st(1, M::GET), st(0, M::PUT)});
  CHECK(m1.cleared(s) == 0b01);
  s = run(m1, s, st(0, M::W_ACTIVE));
  s = run_all(m1, s, {st(0, M::GET), st(0, M::DCLEAR)});
  CHECK(m1.word(s) == 0b10);
  CHECK(m1.cleared(s) == 0);
  CHECK(m1.pc(s, 0) == M::GET);
  {
    // Word now has a free bit but cleared is empty: clear=1 fails.
    State w = s;
    m1.set_word(w, 0b10);
    m1.set_pc(w, 1, M::DCLEAR);
    w = run(m1, w, st(1, M::DCLEAR));
    CHECK(m1.pc(w, 1) == M::GET);
    CHECK(m1.phase(w, 1) == 1);  // failed: picked a queue
  }
  // clear=3: the same situation retries instead.
  const M m3(M::Y72d04b, params(2, 2, 2, 1));
  State w = m3.initial();
  m3.set_word(w, 0b10);
  m3.set_pc(w, 1, M::DCLEAR);
  w = run(m3, w, st(1, M::DCLEAR));
  CHECK(m3.pc(w, 1) == M::GET);
  CHECK(m3.phase(w, 1) == 0);  // a retry of the same try
  // ... and fails only when the word is really full.
  State full = m3.initial();
  m3.set_word(full, 0b11);
  m3.set_pc(full, 1, M::DCLEAR);
  full = run(m3, full, st(1, M::DCLEAR));
  CHECK(m3.phase(full, 1) == 1);
  // With bits in cleared, clear=3 moves them in one step.
  State c = m3.initial();
  m3.set_word(c, 0b11);
  m3.set_cleared(c, 0b01);
  m3.set_pc(c, 0, M::DCLEAR);
  c = run(m3, c, st(0, M::DCLEAR));
  CHECK(m3.word(c) == 0b10);
  CHECK(m3.cleared(c) == 0);
  CHECK(m3.pc(c, 0) == M::GET);
}

TEST_CASE("sbitmap: PREPARE queues at the tail, counts ws_active; SCHEDULE waits for a wake-up") {
  const M m(M::C854, params(1, 3, 1, 1));
  State s = run(m, m.initial(), st(0, M::GET));
  s = run_all(m, s, sleep_steps(1));
  s = run_all(m, s, {st(2, M::GET), st(2, M::GET), st(2, M::PREPARE)});
  CHECK(m.list_len(s, 0) == 2);
  CHECK(m.list_at(s, 0, 0) == 2);  // task 1 first
  CHECK(m.list_at(s, 0, 1) == 3);
  CHECK(m.ws_active(s) == 2);
  CHECK(m.prepared(s, 1));
  CHECK(m.on_list(s, 2));
  CHECK(m.waiters(s) == 2);
  CHECK_FALSE(enabled(m, s, st(1, M::SCHEDULE)));
  // Task 0 frees and its wake-up wakes task 1 (batch 1).
  s = run_all(m, s, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC), st(0, M::W_CMPXCHG),
                     st(0, M::W_INC), st(0, M::W_WAKE)});
  CHECK(m.woken(s, 1));
  CHECK_FALSE(m.on_list(s, 1));
  CHECK(m.list_at(s, 0, 0) == 3);
  CHECK(m.ws_active(s) == 2);  // until finish_wait
  CHECK(m.pc(s, 0) == M::DONE);
  s = run(m, s, st(1, M::SCHEDULE));
  CHECK(m.pc(s, 1) == M::FINISH);
  s = run(m, s, st(1, M::FINISH));
  CHECK(m.ws_active(s) == 1);
  CHECK_FALSE(m.prepared(s, 1));
  CHECK_FALSE(m.woken(s, 1));
  CHECK(m.pc(s, 1) == M::GET);
  CHECK(m.phase(s, 1) == 1);
  // A task woken between prepare and its try does not sleep.
  const M m2(M::C854, params(1, 2, 1, 1));
  State w = run(m2, m2.initial(), st(0, M::GET));
  w = run_all(m2, w, {st(1, M::GET), st(1, M::GET), st(1, M::PREPARE)});
  w = run_all(m2, w, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC), st(0, M::W_CMPXCHG),
                      st(0, M::W_INC), st(0, M::W_WAKE)});
  CHECK(m2.woken(w, 1));
  w = run(m2, w, st(1, M::GET));  // the bit is free: it gets it
  CHECK(m2.pc(w, 1) == M::FINISH_GOT);
  w = run(m2, w, st(1, M::FINISH_GOT));
  CHECK(m2.pc(w, 1) == M::PUT);
  CHECK(m2.ws_active(w) == 0);
}

TEST_CASE("sbitmap: FINISH_GOT leaves an un-woken entry on the queue") {
  const M m(M::C854, params(1, 2, 1, 1));
  State s = run(m, m.initial(), st(0, M::GET));
  s = run_all(m, s, {st(1, M::GET), st(1, M::GET), st(1, M::PREPARE), st(0, M::PUT)});
  s = run(m, s, st(1, M::GET));
  CHECK(m.on_list(s, 1));
  s = run(m, s, st(1, M::FINISH_GOT));
  CHECK_FALSE(m.on_list(s, 1));
  CHECK_FALSE(m.waitqueue_active(s, 0));
  CHECK(m.ws_active(s) == 0);
  CHECK(m.ws(s, 1) == 0);
}

TEST_CASE("sbitmap: PUT clears the bit (clear=0) or defers it; irq=1 offers interrupts") {
  const M m(M::C854, params(2, 2, 2, 1));
  State s = run_all(m, m.initial(), {st(0, M::GET), st(0, M::PUT)});
  CHECK(m.word(s) == 0);
  CHECK(m.pc(s, 0) == M::W_PTR);
  CHECK(m.tag(s, 0) == 0);
  // No waiter: sbq_wake_ptr returns NULL, the round ends.
  s = run(m, s, st(0, M::W_PTR));
  CHECK(m.pc(s, 0) == M::GET);
  CHECK(m.round(s, 0) == 1);
  const M d(M::Y040b83, params(2, 2, 1, 1));
  State t = run_all(d, d.initial(), {st(0, M::GET), st(1, M::GET), st(1, M::PUT)});
  CHECK(d.word(t) == 0b11);
  CHECK(d.cleared(t) == 0b10);
  const M g(M::K4f8126, params(2, 2, 1, 1));
  State u = run_all(g, g.initial(), {st(0, M::GET), st(0, M::PUT)});
  CHECK(g.pc(u, 0) == M::W_ACTIVE);
  // irq=1: while task 0 is inside its wake-up path, task 1's put may run as
  // an interrupt on task 0's CPU; then task 0 cannot step until it returns.
  const M mi(M::J48c033, params(2, 2, 1, 1, 0, 1));
  State i = run_all(mi, mi.initial(), {st(0, M::GET), st(1, M::GET), st(0, M::PUT)});
  auto puts = steps_of(mi, i, 1);
  REQUIRE(puts.size() == 2);
  CHECK(puts[0] == st(1, M::PUT, 0));
  CHECK(puts[1] == st(1, M::PUT, 1));
  i = run(mi, i, st(1, M::PUT, 1));
  CHECK(mi.irq_owner(i) == 1);
  CHECK(mi.irq_victim(i) == 0);
  CHECK(steps_of(mi, i, 0).empty());
  CHECK_FALSE(mi.runnable(i, 0));
  i = run(mi, i, st(1, M::W_PTR));  // nobody waits: the interrupt returns
  CHECK(mi.irq_owner(i) == -1);
  CHECK(steps_of(mi, i, 0).size() == 1);
  // Without irq, or when the other task is not waking, only the plain put.
  State p = run_all(mi, mi.initial(), {st(0, M::GET), st(1, M::GET)});
  CHECK(steps_of(mi, p, 1).size() == 1);
  const M mn(M::J48c033, params(2, 2, 1, 1, 0, 0));
  State n = run_all(mn, mn.initial(), {st(0, M::GET), st(1, M::GET), st(0, M::PUT)});
  CHECK(steps_of(mn, n, 1).size() == 1);
}

TEST_CASE("sbitmap: pre-c854ab5773be: cmpxchg(c, c + batch); every caller at <= 0 wakes") {
  // Two wakers on one queue with one sleeper, batch 1 (the commit's example).
  const M m(M::PreC854, params(2, 3, 1, 2));
  State s = run_all(m, m.initial(), {st(0, M::GET), st(1, M::GET)});
  s = run_all(m, s, sleep_steps(2));
  s = run_all(m, s, {st(0, M::PUT), st(1, M::PUT), st(0, M::W_PTR), st(1, M::W_PTR)});
  CHECK(m.wws(s, 0) == 1);
  CHECK(m.wws(s, 1) == 1);
  s = run(m, s, st(0, M::W_DEC));
  CHECK(m.cnt(s, 0) == 0);
  CHECK(m.pc(s, 0) == M::W_CMPXCHG);
  s = run(m, s, st(1, M::W_DEC));
  CHECK(m.cnt(s, 1) == -1);
  CHECK(m.wait_cnt(s, 0) == -1);
  s = run(m, s, st(0, M::W_CMPXCHG));  // cmpxchg(0, 1) fails on -1 ...
  CHECK(m.wait_cnt(s, 0) == -1);
  CHECK(m.pc(s, 0) == M::W_INC);  // ... and it advances and wakes anyway
  s = run(m, s, st(1, M::W_CMPXCHG));  // cmpxchg(-1, 0) succeeds
  CHECK(m.wait_cnt(s, 0) == 0);
  s = run_all(m, s, {st(0, M::W_INC), st(1, M::W_INC)});
  CHECK(m.wake_index(s) == 0);  // advanced twice
  s = run(m, s, st(0, M::W_WAKE));
  CHECK(m.woken(s, 2));
  s = run(m, s, st(1, M::W_WAKE));
  CHECK(m.pc(s, 0) == M::DONE);
  CHECK(m.pc(s, 1) == M::DONE);
  // wait_cnt is left at 0 with no waker inside its update: wait-cnt-reset.
  CHECK(m.wait_cnt(s, 0) == 0);
  CHECK(m.violates(M::WaitCntReset, s));
  // A decrement to a positive count just returns.
  const M b(M::PreC854, params(2, 3, 1, 1));  // batch 2
  State t = run_all(b, b.initial(), {st(0, M::GET), st(1, M::GET)});
  t = run_all(b, t, sleep_steps(2));
  t = run_all(b, t, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC)});
  CHECK(b.wait_cnt(t, 0) == 1);
  CHECK(b.pc(t, 0) == M::DONE);
}

TEST_CASE("sbitmap: c854ab5773be: reset to batch; the cmpxchg loser calls __sbq_wake_up again") {
  const M m(M::C854, params(2, 3, 1, 2));
  State s = run_all(m, m.initial(), {st(0, M::GET), st(1, M::GET)});
  s = run_all(m, s, sleep_steps(2));
  s = run_all(m, s, {st(0, M::PUT), st(1, M::PUT), st(0, M::W_PTR), st(1, M::W_PTR),
                     st(0, M::W_DEC), st(1, M::W_DEC)});
  CHECK(m.wait_cnt(s, 0) == -1);
  s = run(m, s, st(0, M::W_CMPXCHG));  // cmpxchg(0, 1) fails: retry
  CHECK(m.pc(s, 0) == M::W_PTR);
  CHECK(m.wws(s, 0) == 0);
  s = run(m, s, st(1, M::W_CMPXCHG));  // cmpxchg(-1, 1) wins
  CHECK(m.wait_cnt(s, 0) == 1);
  CHECK(m.pc(s, 1) == M::W_INC);
  CHECK_FALSE(m.violates(M::WaitCntReset, s));
  s = run_all(m, s, {st(1, M::W_INC), st(1, M::W_WAKE)});
  CHECK(m.wake_index(s) == 1);
  CHECK(m.woken(s, 2));
  CHECK(m.pc(s, 1) == M::DONE);
  // The loser finds no waiter any more and returns.
  s = run(m, s, st(0, M::W_PTR));
  CHECK(m.pc(s, 0) == M::DONE);
  CHECK_FALSE(m.violates(M::WaitCntReset, s));
}

TEST_CASE("sbitmap: 040b83fcecfb: wake, advance, reset; retry on < 0 or an empty queue") {
  const M m(M::Y040b83, params(1, 2, 2, 1, 0));
  // 48c033314f37's race: the waiter takes the freed tag and leaves the queue
  // between the decrement to 0 and the check: wait_cnt stays 0.
  State s = run(m, m.initial(), st(0, M::GET));
  s = run_all(m, s, {st(1, M::GET), st(1, M::GET), st(1, M::PREPARE), st(0, M::PUT),
                     st(0, M::W_PTR), st(0, M::W_DEC)});
  CHECK(m.wait_cnt(s, 0) == 0);
  CHECK(m.pc(s, 0) == M::W_CHECK);
  s = run_all(m, s, {st(1, M::GET), st(1, M::FINISH_GOT)});
  CHECK_FALSE(m.waitqueue_active(s, 0));
  s = run(m, s, st(0, M::W_CHECK));
  CHECK(m.pc(s, 0) == M::W_PTR);  // return true: call again
  CHECK(m.violates(M::WaitCntReset, s));
  s = run(m, s, st(0, M::W_PTR));  // no waiter: return
  CHECK(m.pc(s, 0) == M::GET);
  CHECK(m.wait_cnt(s, 0) == 0);
  // Task 0 now sleeps on that queue; task 1's free drives wait_cnt below 0
  // and retries for ever.
  s = run_all(m, s, {st(0, M::GET), st(0, M::GET), st(0, M::PREPARE), st(0, M::GET)});
  CHECK(m.sleeping(s, 0));
  s = run_all(m, s, {st(1, M::PUT), st(1, M::W_PTR), st(1, M::W_DEC)});
  CHECK(m.cnt(s, 1) == -1);
  s = run(m, s, st(1, M::W_CHECK));
  CHECK(m.pc(s, 1) == M::W_PTR);
  for (int i = 0; i < 10; ++i) s = run_all(m, s, {st(1, M::W_PTR), st(1, M::W_DEC), st(1, M::W_CHECK)});
  CHECK(m.wait_cnt_floor() == -3);
  CHECK(m.wait_cnt(s, 0) == -3);  // saturated: the spin is a cycle
  // The normal path: decrement to 0 with waiters: wake, advance, reset.
  const M n(M::Y040b83, params(1, 2, 1, 2, 0));
  State t = run(n, n.initial(), st(0, M::GET));
  t = run_all(n, t, sleep_steps(1));
  t = run_all(n, t, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC), st(0, M::W_CHECK)});
  CHECK(n.pc(t, 0) == M::W_WAKE);
  t = run(n, t, st(0, M::W_WAKE));
  CHECK(n.woken(t, 1));
  CHECK(n.pc(t, 0) == M::W_INC);
  CHECK(n.wait_cnt(t, 0) == 0);
  CHECK_FALSE(n.violates(M::WaitCntReset, t));  // task 0 is still resetting
  t = run(n, t, st(0, M::W_INC));
  CHECK(n.wake_index(t) == 1);
  t = run(n, t, st(0, M::W_SET));
  CHECK(n.wait_cnt(t, 0) == 1);
  CHECK(n.pc(t, 0) == M::DONE);
}

TEST_CASE("sbitmap: 48c033314f37 / 30514bd2dd4e: conditional decrement, always reset") {
  const M m(M::J48c033, params(1, 3, 1, 1, 0));
  State s = run(m, m.initial(), st(0, M::GET));
  s = run_all(m, s, sleep_steps(1));
  s = run_all(m, s, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC)});
  CHECK(m.wait_cnt(s, 0) == 0);
  CHECK(m.cnt(s, 0) == 0);
  // Another waker finds wait_cnt 0: return true and call again (the spin).
  State o = s;
  m.set_pc(o, 2, M::W_PTR);
  o = run(m, o, st(2, M::W_PTR));
  CHECK(m.wws(o, 2) == 1);
  o = run(m, o, st(2, M::W_DEC));
  CHECK(m.pc(o, 2) == M::W_PTR);
  CHECK(m.wait_cnt(o, 0) == 0);  // never below 0
  // Task 0: queue has waiters -> wake, advance, reset.
  s = run_all(m, s, {st(0, M::W_CHECK), st(0, M::W_WAKE), st(0, M::W_INC), st(0, M::W_SET)});
  CHECK(m.wait_cnt(s, 0) == 1);
  CHECK(m.woken(s, 1));
  // The queue emptied before the check: still resets (the 48c033314f37 fix).
  const M e(M::J48c033, params(1, 2, 1, 1, 0));
  State t = run(e, e.initial(), st(0, M::GET));
  t = run_all(e, t, {st(1, M::GET), st(1, M::GET), st(1, M::PREPARE), st(0, M::PUT),
                     st(0, M::W_PTR), st(0, M::W_DEC), st(1, M::GET), st(1, M::FINISH_GOT)});
  t = run(e, t, st(0, M::W_CHECK));
  CHECK(e.pc(t, 0) == M::W_WAKE);
  t = run_all(e, t, {st(0, M::W_WAKE), st(0, M::W_INC), st(0, M::W_SET)});
  CHECK(e.wait_cnt(t, 0) == 1);
  CHECK(e.pc(t, 0) == M::DONE);
  // A decrement to > 0 on an emptied queue retries.
  const M b(M::J48c033, params(2, 3, 1, 1, 0));  // batch 2
  State u = run_all(b, b.initial(), {st(0, M::GET), st(1, M::GET)});
  u = run_all(b, u, {st(2, M::GET), st(2, M::GET), st(2, M::PREPARE), st(0, M::PUT),
                     st(0, M::W_PTR), st(0, M::W_DEC), st(2, M::GET), st(2, M::FINISH_GOT)});
  CHECK(b.wait_cnt(u, 0) == 1);
  u = run(b, u, st(0, M::W_CHECK));
  CHECK(b.pc(u, 0) == M::W_PTR);
  // 30514bd2dd4e: sbq_wake_ptr skips a queue whose wait_cnt is 0.
  const M h(M::H30514, params(1, 3, 1, 1, 0));
  State v = run(h, h.initial(), st(0, M::GET));
  v = run_all(h, v, sleep_steps(1));
  v = run_all(h, v, {st(0, M::PUT), st(0, M::W_PTR), st(0, M::W_DEC)});
  h.set_pc(v, 2, M::W_PTR);
  v = run(h, v, st(2, M::W_PTR));
  CHECK(h.pc(v, 2) == M::DONE);  // no queue to wake: this free's wake-up is lost
}

TEST_CASE("sbitmap: 4f8126bb2308: completions counted only with waiters; one queue per batch") {
  const M m(M::K4f8126, params(1, 2, 1, 1, 0));
  State s = run(m, m.initial(), st(0, M::GET));
  State quiet = run_all(m, s, {st(0, M::PUT), st(0, M::W_ACTIVE)});
  CHECK(m.completion_cnt(quiet) == 0);  // ws_active 0: not counted
  CHECK(m.pc(quiet, 0) == M::DONE);
  s = run_all(m, s, sleep_steps(1));
  s = run_all(m, s, {st(0, M::PUT), st(0, M::W_ACTIVE)});
  CHECK(m.pc(s, 0) == M::W_ADD);
  s = run(m, s, st(0, M::W_ADD));
  CHECK(m.completion_cnt(s) == 1);
  CHECK(m.cnt(s, 0) == 0);
  s = run(m, s, st(0, M::W_CMP));
  CHECK(m.pc(s, 0) == M::W_PTR);
  s = run(m, s, st(0, M::W_PTR));
  CHECK(m.wws(s, 0) == 1);
  CHECK(m.pc(s, 0) == M::W_XCHG);
  s = run(m, s, st(0, M::W_XCHG));
  CHECK(m.wakeup_cnt(s) == 1);
  CHECK(m.pc(s, 0) == M::W_WAKE);
  s = run(m, s, st(0, M::W_WAKE));
  CHECK(m.woken(s, 1));
  CHECK(m.pc(s, 0) == M::DONE);
  CHECK_FALSE(m.violates(M::NoWastedWakeup, s));
  // Below a batch: return.
  const M b(M::K4f8126, params(2, 3, 1, 1, 0));  // batch 2
  State t = run_all(b, b.initial(), {st(0, M::GET), st(1, M::GET)});
  t = run_all(b, t, sleep_steps(2));
  t = run_all(b, t, {st(0, M::PUT), st(0, M::W_ACTIVE), st(0, M::W_ADD), st(0, M::W_CMP)});
  CHECK(b.pc(t, 0) == M::DONE);
  // A failed try_cmpxchg reloads wakeups and compares again.
  const M c(M::K4f8126, params(1, 2, 1, 1, 0));
  State u = run(c, c.initial(), st(0, M::GET));
  u = run_all(c, u, sleep_steps(1));
  u = run_all(c, u, {st(0, M::PUT), st(0, M::W_ACTIVE), st(0, M::W_ADD), st(0, M::W_CMP),
                     st(0, M::W_PTR)});
  c.set_wakeup_cnt(u, 1);  // another waker took the batch
  u = run(c, u, st(0, M::W_XCHG));
  CHECK(c.pc(u, 0) == M::W_CMP);
  CHECK(c.cnt(u, 0) == 1);
  u = run(c, u, st(0, M::W_CMP));
  CHECK(c.pc(u, 0) == M::DONE);
  // Jan Kara's race: the chosen queue empties before wake_up_nr.
  const M j(M::K4f8126, params(2, 3, 1, 2, 0));
  State w = run_all(j, j.initial(), {st(0, M::GET), st(1, M::GET)});
  w = run_all(j, w, {st(2, M::GET), st(2, M::GET), st(2, M::PREPARE)});  // on ws[0]
  w = run_all(j, w, {st(0, M::PUT), st(0, M::W_ACTIVE), st(0, M::W_ADD), st(0, M::W_CMP),
                     st(0, M::W_PTR), st(0, M::W_XCHG)});
  CHECK(j.wws(w, 0) == 1);
  w = run_all(j, w, {st(2, M::GET), st(2, M::FINISH_GOT)});
  // Meanwhile another task waits on ws[1].
  j.set_list_at(w, 1, 0, 2);
  j.set_pc(w, 1, M::SCHEDULE);
  w = run(j, w, st(0, M::W_WAKE));
  CHECK(j.violates(M::NoWastedWakeup, w));
  CHECK_FALSE(j.woken(w, 1));
}

TEST_CASE("sbitmap: 26edb30dd1c0 wakes at least one waiter; 106397376c03 a whole batch") {
  // Two queues, one waiter on each, batch 2 (the 106397376c03 example).
  for (int v : {M::K26edb30, M::D106397}) {
    const M m(v, params(4, 3, 1, 2, 0));
    REQUIRE(m.batch() == 2);
    State s = m.initial();
    m.set_list_at(s, 0, 0, 2);  // task 1 on ws[0]
    m.set_list_at(s, 1, 0, 3);  // task 2 on ws[1]
    for (int t : {1, 2}) {
      m.set_pc(s, t, M::SCHEDULE);
      m.set_prepared(s, t, true);
    }
    m.set_completion_cnt(s, 2);
    m.set_pc(s, 0, M::W_SCAN);
    s = run(m, s, st(0, M::W_SCAN));
    CHECK(m.woken(s, 1));
    CHECK(m.woken(s, 2) == (v == M::D106397));
    CHECK(m.wake_index(s) == (v == M::D106397 ? 0 : 1));
    CHECK(m.pc(s, 0) == M::DONE);
    CHECK_FALSE(m.violates(M::NoWastedWakeup, s));
  }
  // The scan starts at wake_index and wraps.
  const M m(M::D106397, params(2, 3, 1, 2, 0));
  State s = m.initial();
  m.set_list_at(s, 0, 0, 3);
  m.set_pc(s, 2, M::SCHEDULE);
  m.set_prepared(s, 2, true);
  m.set_wake_index(s, 1);
  m.set_pc(s, 0, M::W_SCAN);
  s = run(m, s, st(0, M::W_SCAN));
  CHECK(m.woken(s, 2));
  CHECK(m.wake_index(s) == 1);
  // ws_active 0: return at once.
  State e = m.initial();
  m.set_pc(e, 0, M::W_SCAN);
  e = run(m, e, st(0, M::W_SCAN));
  CHECK(m.pc(e, 0) == M::DONE);
}

TEST_CASE("sbitmap: finished() and the invariants") {
  const M m(M::C854, params(1, 1, 2, 1));
  State s = run_all(m, m.initial(), {st(0, M::GET), st(0, M::PUT), st(0, M::W_PTR)});
  CHECK_FALSE(m.finished(s));
  s = run_all(m, s, {st(0, M::GET), st(0, M::PUT), st(0, M::W_PTR)});
  CHECK(m.pc(s, 0) == M::DONE);
  CHECK(m.finished(s));
  CHECK(successors(m, s).empty());
  // no-lost-wakeup and deadlock are graph properties: no state violates them.
  CHECK_FALSE(m.violates(M::NoLostWakeup, s));
  CHECK_FALSE(m.violates(M::Deadlock, s));
  // wait-cnt-reset: only while nobody resets; never from 6.2 on.
  State z = m.initial();
  m.set_wait_cnt(z, 0, 0);
  CHECK(m.violates(M::WaitCntReset, z));
  m.set_pc(z, 0, M::W_SET);
  CHECK_FALSE(m.violates(M::WaitCntReset, z));
  const M g(M::K26edb30, params(1, 1, 1, 1));
  State y = g.initial();
  g.set_wait_cnt(y, 0, 0);
  CHECK_FALSE(g.violates(M::WaitCntReset, y));
  g.set_wasted(y, true);
  CHECK(g.violates(M::NoWastedWakeup, y));
}

TEST_CASE("sbitmap: BFS finds each variant's hang at the suite's bounds and not its fix's") {
  struct Row {
    int variant;
    Params p;
    bool stuck;     // no-lost-wakeup violated
    bool deadlock;  // ... by a sleeper no step can wake (deadlock violated too)
  };
  const std::vector<Row> rows{
      // 48c033314f37's race in 040b83fcecfb: wait_cnt left at 0, then a waker spins.
      {M::Y040b83, params(1, 2, 2, 1, 0), true, false},
      {M::J48c033, params(1, 2, 2, 1, 0), false, false},
      // 30514bd2dd4e's lockup: an interrupt spins on wait_cnt 0.
      {M::J48c033, params(2, 3, 1, 2, 0, 1), true, false},
      {M::H30514, params(2, 3, 1, 2, 0, 1), false, false},
      // ... whose own bandaid loses a wake-up with one waiting queue.
      {M::H30514, params(1, 3, 1, 1, 0), true, true},
      {M::K4f8126, params(1, 3, 1, 1, 0), false, false},
      // 72d04bdcf3f7's race on the cleared mask.
      {M::D106397, params(2, 2, 2, 1), true, true},
      {M::Y72d04b, params(2, 2, 2, 1), false, false},
      {M::D106397, params(2, 3, 2, 1, M::DeferredLocked), true, true},
      {M::Y72d04b, params(2, 3, 2, 1), false, false},
      {M::C854, params(2, 3, 1, 2, 0), false, false},
      {M::PreC854, params(2, 3, 1, 2, 0), false, false},
  };
  for (const Row& r : rows) {
    const M m(r.variant, r.p);
    INFO(M::static_info().variants[r.variant].name << " " << params_string(r.p));
    const ProgressResult pr = check_progress(m);
    CHECK(pr.stuck == r.stuck);
    CHECK((verdict_of(m, M::Deadlock) == Verdict::Violated) == r.deadlock);
    if (!pr.stuck) continue;
    // The path replays step by step to a state no step leads out of to a
    // finished one.
    State s = m.initial();
    for (const Step& x : pr.path) s = run(m, s, x);
    CHECK(std::memcmp(s.b.data(), pr.at.b.data(), m.state_bytes()) == 0);
    CHECK_FALSE(m.finished(s));
  }
}

TEST_CASE("sbitmap: the stuck states are the kernel's hangs") {
  SUBCASE("040b83fcecfb: a waker busy-loops on a negative wait_cnt") {
    const M m(M::Y040b83, params(1, 2, 2, 1, 0));
    const ProgressResult pr = check_progress(m);
    REQUIRE(pr.stuck);
    // Someone sleeps, wait_cnt of its queue is 0, and the other task's
    // wake-up can only loop.
    State s = pr.at;
    int sleeper = m.sleeping(s, 0) ? 0 : 1;
    REQUIRE(m.sleeping(s, sleeper));
    CHECK(m.wait_cnt(s, m.ws(s, sleeper)) == 0);
    const int waker = 1 - sleeper;
    for (int i = 0; i < 60 && m.pc(s, waker) != M::DONE; ++i) {
      auto xs = steps_of(m, s, waker);
      REQUIRE(xs.size() == 1);
      s = run(m, s, xs[0]);
    }
    CHECK(m.pc(s, waker) != M::DONE);
    CHECK(m.sleeping(s, sleeper));
  }
  SUBCASE("48c033314f37 with irq: the interrupt spins, the interrupted task cannot run") {
    const M m(M::J48c033, params(2, 3, 1, 2, 0, 1));
    const ProgressResult pr = check_progress(m);
    REQUIRE(pr.stuck);
    const State& s = pr.at;
    REQUIRE(m.irq_victim(s) >= 0);
    CHECK(m.resetting(s, m.irq_victim(s)));
    CHECK(steps_of(m, s, m.irq_victim(s)).empty());
  }
  SUBCASE("106397376c03: the sole waiter sleeps while the word has a free bit") {
    const M m(M::D106397, params(2, 2, 2, 1));
    const ProgressResult pr = check_progress(m);
    REQUIRE(pr.stuck);
    const State& s = pr.at;
    CHECK((m.sleeping(s, 0) || m.sleeping(s, 1)));
    CHECK(pr.path.size() == 15);
  }
}

TEST_CASE("sbitmap: invariant verdicts at the suite's bounds") {
  const Params small = params(2, 3, 1, 2, 0);
  CHECK(verdict_of(M(M::PreC854, small), M::WaitCntReset) == Verdict::Violated);
  CHECK(verdict_of(M(M::C854, small), M::WaitCntReset) == Verdict::Holds);
  CHECK(verdict_of(M(M::Y040b83, small), M::WaitCntReset) == Verdict::Violated);
  CHECK(verdict_of(M(M::J48c033, small), M::WaitCntReset) == Verdict::Holds);
  CHECK(verdict_of(M(M::H30514, small), M::WaitCntReset) == Verdict::Holds);
  const Params two = params(2, 3, 2, 2, 0);
  CHECK(verdict_of(M(M::K4f8126, two), M::NoWastedWakeup) == Verdict::Violated);
  CHECK(verdict_of(M(M::K26edb30, two), M::NoWastedWakeup) == Verdict::Holds);
  CHECK(verdict_of(M(M::C854, two), M::NoWastedWakeup) == Verdict::Violated);
}

TEST_CASE("sbitmap: independent steps commute") {
  int total_independent = 0;
  CHECK(rc::check("independent steps commute", [&] {
    const int variant = *rc::gen::inRange(0, 9);
    const M m(variant, params(*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4),
                              *rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3),
                              *rc::gen::inRange(-1, 4), *rc::gen::inRange(0, 2)));
    total_independent += walk_checking_commutation(m, 40);
  }));
  // Typically hundreds; the bound leaves room for unlucky random runs.
  CHECK(total_independent > 20);
}

TEST_CASE("sbitmap: describe, summary, state_json, variable names, actor names") {
  const M m(M::C854, params(2, 3, 1, 2));
  State s = run_all(m, m.initial(), {st(0, M::GET), st(1, M::GET)});
  CHECK(m.describe(m.initial(), st(0, M::GET)) == "__sbitmap_get_word: word 00: got tag 0");
  s = run_all(m, s, sleep_steps(2));
  CHECK(m.summary(s).find("t2:SLEEPING") != std::string::npos);
  CHECK(m.summary(s).find("ws[0]{cnt 1: t2}") != std::string::npos);
  CHECK(m.describe(s, st(0, M::PUT)) == "blk_mq_put_tag(0): clear_bit -> word 01");
  s = run_all(m, s, {st(0, M::PUT), st(0, M::W_PTR)});
  CHECK(m.describe(s, st(0, M::W_DEC)) == "atomic_dec_return(&ws[0]->wait_cnt) = 0");
  const auto j = m.state_json(s);
  CHECK(j["word"] == "01");
  CHECK(j["ws"][0]["wait"][0] == 2);
  CHECK(j["ws"][0]["wait_cnt"] == 1);
  CHECK(j["tasks"][0]["pc"] == "wake-dec");
  CHECK(j["tasks"][0]["waker_ws"] == 0);
  CHECK(j["tasks"][2]["prepared"] == true);
  CHECK(m.actor_name(2) == "task 2");
  const auto names = m.variable_names();
  // 7 shared variables, a wait_cnt per queue, the queues' slots, 10 per task.
  CHECK(names.size() == std::size_t(7 + 2 + 2 * 3 + 10 * 3));
  CHECK(names == m.schema().element_names());
  CHECK(names.front() == "word");
  CHECK(names[std::size_t(var_index(m, "wait[5]"))] == "wait[5]");
  CHECK(names.back() == "prepared[2]");
  // An interrupt is marked in the story.
  const M mi(M::J48c033, params(2, 2, 1, 1, 0, 1));
  State i = run_all(mi, mi.initial(), {st(0, M::GET), st(1, M::GET), st(0, M::PUT)});
  CHECK(mi.describe(i, st(1, M::PUT, 1)).find("in an interrupt on task 0's CPU") !=
        std::string::npos);
  i = run(mi, i, st(1, M::PUT, 1));
  CHECK(mi.describe(i, st(1, M::W_PTR)).rfind("[irq] ", 0) == 0);
  CHECK(mi.summary(i).find("t0:wake-ptr[interrupted]") != std::string::npos);
}

}  // namespace sbitmap_steps_test
