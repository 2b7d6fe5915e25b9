// Unit tests for every step of WorkqueueModel (model/workqueue/workqueue.hpp), checked
// through the model's state accessors, and the explorer's verdicts on small
// parameters.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/workqueue/workqueue.hpp"
#include "tests/commuting.hpp"
#include "tests/model_steps.hpp"

namespace workqueue_steps_test {

using namespace blkmc;
using namespace blkmc::testing;

using M = WorkqueueModel;
using State = M::State;

Params params(int workers, int keys, int rounds, int journal_full = 1) {
  return {{"workers", workers}, {"keys", keys}, {"rounds", rounds}, {"journal_full", journal_full}};
}

std::vector<Step> enabled(const M& m, const State& s, int actor) {
  std::vector<Step> out;
  for (auto& x : successors(m, s))
    if (x.first.actor == actor) out.push_back(x.first);
  return out;
}

bool is_enabled(const M& m, const State& s, const Step& st) {
  State dummy{};
  return m.apply(s, st, dummy);
}

std::vector<std::uint8_t> queue(const M& m, const State& s, int q) {
  std::vector<std::uint8_t> out;
  for (int i = 0; i < m.queue_len(s, q); ++i) out.push_back(m.slot(s, q, i));
  return out;
}

std::uint8_t key_item(int k) { return static_cast<std::uint8_t>(M::kKeyItem + k); }

// The writeback thread's steps up to every key's read bio in flight.
std::vector<Step> issue_all(int keys) {
  std::vector<Step> v{step(M::WB, M::REFILL_DIRTY)};
  for (int k = 0; k < keys; ++k) v.push_back(step(M::WB, M::READ_DIRTY, k));
  return v;
}

// Key k from read bio in flight to write_dirty_finish queued, on queue q.
std::vector<Step> to_finish_queued(int k, int q) {
  return {step(M::IRQ, M::READ_DIRTY_ENDIO, k), step(q, M::WRITE_DIRTY, k),
          step(M::IRQ, M::DIRTY_ENDIO, k)};
}

// The seed's interleaving (the call diagram of PATCH 17/19) for one key:
// writeback reads the key before gc takes the root; gc holds the root write
// lock; write_dirty_finish is queued; gc's bch_journal_meta finds the
// journal full and queues journal_write behind it; the only worker picks up
// write_dirty_finish, which sleeps in down_read.
std::vector<Step> seed_steps(int q) {
  std::vector<Step> v = issue_all(1);
  v.push_back(step(M::GC, M::DOWN_WRITE));
  for (const Step& st : to_finish_queued(0, q)) v.push_back(st);
  v.push_back(step(M::GC, M::SET_ROOT, 1));
  v.push_back(step(q, M::WRITE_DIRTY_FINISH, 0));
  return v;
}

SearchOptions quiet() {
  SearchOptions o;
  o.progress = false;
  return o;
}

Verdict verdict(const M& m, int prop) {
  SearchOptions o = quiet();
  o.props = {prop};
  const auto r = explore(m, o);
  REQUIRE(r.stop != StopReason::Time);
  REQUIRE(r.props.size() == 1);
  return r.props[0].verdict;
}

// Every reachable state, with its successor ids: a test-local state graph.
struct Graph {
  std::vector<State> states;
  std::vector<std::vector<std::size_t>> succ;
};

Graph reachable(const M& m) {
  Graph g;
  std::unordered_map<std::string, std::size_t> ids;
  auto id_of = [&](const State& s) {
    const std::string k(reinterpret_cast<const char*>(s.b.data()), m.state_bytes());
    auto [it, fresh] = ids.emplace(k, g.states.size());
    if (fresh) {
      g.states.push_back(s);
      g.succ.emplace_back();
    }
    return it->second;
  };
  id_of(m.initial());
  for (std::size_t i = 0; i < g.states.size(); ++i) {
    const State cur = g.states[i];
    std::vector<std::size_t> out;
    m.for_each_successor(cur, [&](const Step&, const State& n) { out.push_back(id_of(n)); });
    g.succ[i] = out;
  }
  return g;
}

// AG EF finished, decided here without the explorer: backward reachability
// from the finished states. Returns the number of states that cannot reach
// a finished state.
std::size_t states_without_progress(const M& m, const Graph& g) {
  std::vector<std::vector<std::size_t>> pred(g.states.size());
  for (std::size_t i = 0; i < g.succ.size(); ++i)
    for (std::size_t j : g.succ[i]) pred[j].push_back(i);
  std::vector<bool> good(g.states.size(), false);
  std::vector<std::size_t> work;
  for (std::size_t i = 0; i < g.states.size(); ++i)
    if (m.finished(g.states[i])) {
      good[i] = true;
      work.push_back(i);
    }
  while (!work.empty()) {
    const std::size_t j = work.back();
    work.pop_back();
    for (std::size_t i : pred[j])
      if (!good[i]) {
        good[i] = true;
        work.push_back(i);
      }
  }
  return static_cast<std::size_t>(std::count(good.begin(), good.end(), false));
}

TEST_CASE("workqueue: initial state, layout and successors") {
  const M m(M::Before, params(1, 1, 1));
  const State s = m.initial();
  CHECK(m.gc_pc(s) == M::GC_LOCK);
  CHECK(m.gc_round(s) == 0);
  CHECK(m.gc_wait(s) == M::W_NONE);
  CHECK_FALSE(m.need_write(s));
  CHECK(m.journal_io(s) == M::J_IDLE);
  CHECK(m.wb_pc(s) == M::WB_REFILL);
  CHECK(m.wb_issued(s) == 0);
  CHECK(m.key(s, 0) == M::K_IDLE);
  CHECK(m.queue_len(s, M::SYS) == 0);
  CHECK(m.readers(s) == 0);
  CHECK_FALSE(m.writer_holds(s));
  CHECK_FALSE(m.writer_waits(s));
  CHECK_FALSE(m.finished(s));
  CHECK_FALSE(m.seed_cycle(s));
  const auto succ = successors(m, s);
  REQUIRE(succ.size() == 2);
  CHECK(succ[0].first == step(M::GC, M::DOWN_WRITE));
  CHECK(succ[1].first == step(M::WB, M::REFILL_DIRTY));

  // 6 fixed bytes, one per key, keys + 1 queue slots in both variants, and a
  // byte of bits (need_write).
  CHECK(M(M::Before, params(1, 1, 1)).state_bytes() == 10);
  CHECK(M(M::Fix, params(1, 1, 1)).state_bytes() == 10);
  CHECK(M(M::Before, params(4, 4, 3)).state_bytes() == 16);
  CHECK(M(M::Fix, params(4, 4, 3)).state_bytes() == 16);
  CHECK(M(M::Fix, params(4, 4, 3)).state_bytes() <= State::capacity);
  CHECK(M(M::Before, params(1, 3, 1)).queue_capacity(M::SYS) == 4);
  CHECK(M(M::Fix, params(1, 3, 1)).queue_capacity(M::SYS) == 1);
  CHECK(M(M::Fix, params(1, 3, 1)).queue_capacity(M::WBQ) == 3);
  CHECK(M(M::Before, params(1, 1, 1)).actors() == 4);
  CHECK(M(M::Fix, params(1, 1, 1)).actors() == 5);
  CHECK(M(M::Before, params(1, 1, 1)).writeback_queue() == M::SYS);
  CHECK(M(M::Fix, params(1, 1, 1)).writeback_queue() == M::WBQ);

  // Bytes beyond state_bytes() stay zero along a run.
  const State e = run_all(m, s, seed_steps(M::SYS));
  for (std::size_t i = m.state_bytes(); i < State::capacity; ++i) CHECK(e.b[i] == 0);
}

TEST_CASE("workqueue: constructor rejects bad variants and parameters") {
  CHECK_THROWS_AS(M(2, params(1, 1, 1)), UsageError);
  CHECK_THROWS_AS(M(-1, params(1, 1, 1)), UsageError);
  CHECK_THROWS_AS(M(0, params(0, 1, 1)), UsageError);
  CHECK_THROWS_AS(M(0, params(1, 5, 1)), UsageError);
  CHECK_THROWS_AS(M(0, params(1, 1, 4)), UsageError);
}

TEST_CASE("workqueue: DOWN_WRITE takes a free root, sleeps behind readers") {
  const M m(M::Before, params(1, 1, 1));
  // Free root: gc holds the write lock.
  const State w = run(m, m.initial(), step(M::GC, M::DOWN_WRITE));
  CHECK(m.gc_pc(w) == M::GC_SET_ROOT);
  CHECK(m.writer_holds(w));
  CHECK_FALSE(m.read_lock_free(w));

  // A write_dirty_finish holds the read lock: down_write sleeps.
  State r = run_all(m, m.initial(), issue_all(1));
  r = run_all(m, r, to_finish_queued(0, M::SYS));
  r = run(m, r, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  REQUIRE(m.key(r, 0) == M::K_FLOCKED);
  CHECK(m.readers(r) == 1);
  const State sl = run(m, r, step(M::GC, M::DOWN_WRITE));
  CHECK(m.gc_pc(sl) == M::GC_LOCK_WAIT);
  CHECK(m.writer_waits(sl));
  CHECK_FALSE(m.writer_holds(sl));
  // Asleep: no gc step until the reader leaves.
  CHECK(enabled(m, sl, M::GC).empty());
  const State left = run(m, sl, step(M::SYS, M::BTREE_INSERT, 0));
  CHECK(m.readers(left) == 0);
  const auto g = enabled(m, left, M::GC);
  REQUIRE(g.size() == 1);
  CHECK(g[0] == step(M::GC, M::DOWN_WRITE));
  const State got = run(m, left, step(M::GC, M::DOWN_WRITE));
  CHECK(m.gc_pc(got) == M::GC_SET_ROOT);
  CHECK(m.writer_holds(got));
}

TEST_CASE("workqueue: a waiting writer blocks new readers (refill_dirty, write_dirty_finish)") {
  const M m(M::Before, params(2, 2, 1));
  State s = run_all(m, m.initial(), issue_all(2));
  s = run_all(m, s, to_finish_queued(0, M::SYS));
  s = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));  // k0 holds R
  s = run_all(m, s, to_finish_queued(1, M::SYS));
  s = run(m, s, step(M::GC, M::DOWN_WRITE));  // gc waits for W
  REQUIRE(m.writer_waits(s));
  // k1's write_dirty_finish starts and sleeps in down_read behind gc.
  const State k1 = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 1));
  CHECK(m.key(k1, 1) == M::K_FWAIT);
  CHECK(m.busy(k1, M::SYS) == 2);
  CHECK(m.readers(k1) == 1);
  // The writeback thread's refill_dirty is not enabled while gc waits or holds.
  const M m1(M::Before, params(1, 1, 1));
  const State h = run(m1, m1.initial(), step(M::GC, M::DOWN_WRITE));
  CHECK_FALSE(is_enabled(m1, h, step(M::WB, M::REFILL_DIRTY)));
  CHECK(is_enabled(m1, m1.initial(), step(M::WB, M::REFILL_DIRTY)));
  CHECK_FALSE(is_enabled(m, s, step(M::WB, M::REFILL_DIRTY)));
}

TEST_CASE("workqueue: SET_ROOT journals the root; journal_full queues journal_write") {
  const M m(M::Before, params(1, 1, 2));
  const State w = run(m, m.initial(), step(M::GC, M::DOWN_WRITE));
  const auto g = enabled(m, w, M::GC);
  REQUIRE(g.size() == 2);
  CHECK(g[0] == step(M::GC, M::SET_ROOT, 0));
  CHECK(g[1] == step(M::GC, M::SET_ROOT, 1));

  // Journal full: journal_write queued on system_wq, entry still pending.
  const State full = run(m, w, step(M::GC, M::SET_ROOT, 1));
  CHECK(m.gc_pc(full) == M::GC_SYNC);
  CHECK(m.gc_wait(full) == M::W_ENTRY);
  CHECK(m.need_write(full));
  CHECK(m.journal_io(full) == M::J_QUEUED);
  CHECK(queue(m, full, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
  CHECK(m.writer_holds(full));

  // Room in the journal: journal_write_unlocked submits the bio inline.
  const State bio = run(m, w, step(M::GC, M::SET_ROOT, 0));
  CHECK(m.gc_pc(bio) == M::GC_SYNC);
  CHECK(m.gc_wait(bio) == M::W_WRITE);
  CHECK_FALSE(m.need_write(bio));
  CHECK(m.journal_io(bio) == M::J_BIO);
  CHECK(m.queue_len(bio, M::SYS) == 0);

  // journal_full = 0: only the inline write.
  const M nf(M::Before, params(1, 1, 1, 0));
  const auto g0 = enabled(nf, run(nf, nf.initial(), step(M::GC, M::DOWN_WRITE)), M::GC);
  REQUIRE(g0.size() == 1);
  CHECK(g0[0] == step(M::GC, M::SET_ROOT, 0));

  // Journal io still in flight (the trailing journal_write queued): the new
  // entry only marks need_write and waits for that journal_write.
  State r2 = run_all(m, bio,
                     {step(M::IRQ, M::JOURNAL_WRITE_ENDIO), step(M::GC, M::CLOSURE_SYNC),
                      step(M::GC, M::DOWN_WRITE)});
  REQUIRE(m.journal_io(r2) == M::J_QUEUED);
  const auto g2 = enabled(m, r2, M::GC);
  REQUIRE(g2.size() == 1);
  CHECK(g2[0] == step(M::GC, M::SET_ROOT, 0));
  const State q = run(m, r2, step(M::GC, M::SET_ROOT, 0));
  CHECK(m.need_write(q));
  CHECK(m.gc_wait(q) == M::W_ENTRY);
  CHECK(m.journal_io(q) == M::J_QUEUED);
  CHECK(queue(m, q, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
}

TEST_CASE("workqueue: journal_write_done wakes gc and requeues journal_write") {
  const M m(M::Before, params(1, 1, 1));
  const State bio =
      run_all(m, m.initial(), {step(M::GC, M::DOWN_WRITE), step(M::GC, M::SET_ROOT, 0)});
  // closure_sync cannot return before the journal write completes.
  CHECK(enabled(m, bio, M::GC).empty());
  const auto irq = enabled(m, bio, M::IRQ);
  REQUIRE(irq.size() == 1);
  CHECK(irq[0] == step(M::IRQ, M::JOURNAL_WRITE_ENDIO));
  const State d = run(m, bio, irq[0]);
  CHECK(m.gc_wait(d) == M::W_NONE);
  CHECK(m.journal_io(d) == M::J_QUEUED);
  CHECK(queue(m, d, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
  CHECK(enabled(m, d, M::GC) == std::vector<Step>{step(M::GC, M::CLOSURE_SYNC)});
  // The trailing journal_write finds nothing to write: the io ends.
  const State j = run(m, d, step(M::SYS, M::JOURNAL_WRITE));
  CHECK(m.journal_io(j) == M::J_IDLE);
  CHECK(m.queue_len(j, M::SYS) == 0);
}

TEST_CASE("workqueue: JOURNAL_WRITE writes the pending entry and needs a free worker") {
  const M m(M::Before, params(1, 1, 1));
  const State full =
      run_all(m, m.initial(), {step(M::GC, M::DOWN_WRITE), step(M::GC, M::SET_ROOT, 1)});
  const auto k = enabled(m, full, M::SYS);
  REQUIRE(k.size() == 1);
  CHECK(k[0] == step(M::SYS, M::JOURNAL_WRITE));
  const State j = run(m, full, k[0]);
  CHECK(m.journal_io(j) == M::J_BIO);
  CHECK_FALSE(m.need_write(j));
  CHECK(m.gc_wait(j) == M::W_WRITE);
  CHECK(m.queue_len(j, M::SYS) == 0);
  // Then the bio completes and gc returns from closure_sync.
  const State back =
      run_all(m, j, {step(M::IRQ, M::JOURNAL_WRITE_ENDIO), step(M::GC, M::CLOSURE_SYNC)});
  CHECK(m.gc_pc(back) == M::GC_DONE);

  // The seed state: the only worker is held, journal_write cannot start.
  const State seed = run_all(m, m.initial(), seed_steps(M::SYS));
  CHECK(queue(m, seed, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
  CHECK(m.busy(seed, M::SYS) == 1);
  CHECK_FALSE(is_enabled(m, seed, step(M::SYS, M::JOURNAL_WRITE)));
}

TEST_CASE("workqueue: CLOSURE_SYNC ends the round and up_write wakes sleeping readers") {
  const M m(M::Before, params(2, 2, 2));
  State s = run_all(m, m.initial(), issue_all(2));
  s = run(m, s, step(M::GC, M::DOWN_WRITE));
  s = run_all(m, s, to_finish_queued(0, M::SYS));
  s = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  REQUIRE(m.key(s, 0) == M::K_FWAIT);
  s = run_all(m, s, {step(M::GC, M::SET_ROOT, 0), step(M::IRQ, M::JOURNAL_WRITE_ENDIO)});
  REQUIRE(m.gc_wait(s) == M::W_NONE);
  const State c = run(m, s, step(M::GC, M::CLOSURE_SYNC));
  CHECK(m.gc_round(c) == 1);
  CHECK(m.gc_pc(c) == M::GC_LOCK);
  CHECK_FALSE(m.writer_holds(c));
  CHECK(m.key(c, 0) == M::K_FLOCKED);  // handed the read lock
  CHECK(m.key(c, 1) == M::K_READ);     // untouched
  CHECK(m.readers(c) == 1);
  CHECK(m.busy(c, M::SYS) == 1);
  // The second round goes to GC_DONE.
  State d = run(m, c, step(M::SYS, M::BTREE_INSERT, 0));
  d = run_all(
      m, d,
      {step(M::GC, M::DOWN_WRITE), step(M::GC, M::SET_ROOT, 0), step(M::SYS, M::JOURNAL_WRITE),
       step(M::IRQ, M::JOURNAL_WRITE_ENDIO), step(M::GC, M::CLOSURE_SYNC)});
  CHECK(m.gc_round(d) == 2);
  CHECK(m.gc_pc(d) == M::GC_DONE);
  CHECK(enabled(m, d, M::GC).empty());
}

TEST_CASE("workqueue: writeback thread refill, read_dirty in key order, closure_sync") {
  const M m(M::Fix, params(1, 3, 1));
  State s = run(m, m.initial(), step(M::WB, M::REFILL_DIRTY));
  CHECK(m.wb_pc(s) == M::WB_READ);
  for (int k = 0; k < 3; ++k) {
    const auto e = enabled(m, s, M::WB);
    REQUIRE(e.size() == 1);
    CHECK(e[0] == step(M::WB, M::READ_DIRTY, k));
    s = run(m, s, e[0]);
    CHECK(m.key(s, k) == M::K_READ);
    CHECK(m.wb_issued(s) == k + 1);
  }
  CHECK(m.wb_pc(s) == M::WB_SYNC);
  // read_dirty's closure_sync waits for every key.
  CHECK(enabled(m, s, M::WB).empty());
  for (int k = 0; k < 3; ++k) {
    s = run_all(m, s, to_finish_queued(k, M::WBQ));
    s = run_all(m, s, {step(M::WBQ, M::WRITE_DIRTY_FINISH, k), step(M::WBQ, M::BTREE_INSERT, k)});
    CHECK(m.key(s, k) == M::K_DONE);
    if (k < 2) CHECK(enabled(m, s, M::WB).empty());
  }
  const auto e = enabled(m, s, M::WB);
  REQUIRE(e.size() == 1);
  CHECK(e[0] == step(M::WB, M::READ_DIRTY_SYNC));
  s = run(m, s, e[0]);
  CHECK(m.wb_pc(s) == M::WB_DONE);
  CHECK(enabled(m, s, M::WB).empty());
}

TEST_CASE("workqueue: bio endio queues the continuation on the variant's queue") {
  for (int v : {M::Before, M::Fix}) {
    const M m(v, params(1, 2, 1));
    const int q = m.writeback_queue();
    State s = run_all(m, m.initial(), issue_all(2));
    const auto irq = enabled(m, s, M::IRQ);
    REQUIRE(irq.size() == 2);
    CHECK(irq[0] == step(M::IRQ, M::READ_DIRTY_ENDIO, 0));
    CHECK(irq[1] == step(M::IRQ, M::READ_DIRTY_ENDIO, 1));
    s = run(m, s, step(M::IRQ, M::READ_DIRTY_ENDIO, 1));
    s = run(m, s, step(M::IRQ, M::READ_DIRTY_ENDIO, 0));
    CHECK(m.key(s, 0) == M::K_QWRITE);
    CHECK(m.key(s, 1) == M::K_QWRITE);
    // FIFO in completion order.
    CHECK(queue(m, s, q) == std::vector<std::uint8_t>{key_item(1), key_item(0)});
    if (v == M::Fix) CHECK(m.queue_len(s, M::SYS) == 0);
    s = run(m, s, step(q, M::WRITE_DIRTY, 1));
    CHECK(m.key(s, 1) == M::K_WRITE);
    const State d = run(m, s, step(M::IRQ, M::DIRTY_ENDIO, 1));
    CHECK(m.key(d, 1) == M::K_QFINISH);
    CHECK(queue(m, d, q) == std::vector<std::uint8_t>{key_item(0), key_item(1)});
  }
}

TEST_CASE("workqueue: kworkers take the head item only, bounded by max_active") {
  const M m(M::Before, params(1, 2, 1));
  State s = run_all(m, m.initial(), issue_all(2));
  s = run_all(m, s, {step(M::IRQ, M::READ_DIRTY_ENDIO, 0), step(M::IRQ, M::READ_DIRTY_ENDIO, 1)});
  // Only the head (k0) may start.
  auto k = enabled(m, s, M::SYS);
  REQUIRE(k.size() == 1);
  CHECK(k[0] == step(M::SYS, M::WRITE_DIRTY, 0));
  CHECK_FALSE(is_enabled(m, s, step(M::SYS, M::WRITE_DIRTY, 1)));
  s = run(m, s, k[0]);
  CHECK(queue(m, s, M::SYS) == std::vector<std::uint8_t>{key_item(1)});
  s = run_all(m, s,
              {step(M::SYS, M::WRITE_DIRTY, 1), step(M::IRQ, M::DIRTY_ENDIO, 0),
               step(M::IRQ, M::DIRTY_ENDIO, 1)});
  // write_dirty_finish(k0) takes the read lock and keeps the only worker.
  s = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  CHECK(m.key(s, 0) == M::K_FLOCKED);
  CHECK(m.busy(s, M::SYS) == 1);
  k = enabled(m, s, M::SYS);
  REQUIRE(k.size() == 1);
  CHECK(k[0] == step(M::SYS, M::BTREE_INSERT, 0));  // k1 waits for a worker
  s = run(m, s, k[0]);
  CHECK(m.key(s, 0) == M::K_DONE);
  CHECK(m.busy(s, M::SYS) == 0);
  CHECK(enabled(m, s, M::SYS) == std::vector<Step>{step(M::SYS, M::WRITE_DIRTY_FINISH, 1)});

  // Two workers: both write_dirty_finish items are active at once.
  const M m2(M::Before, params(2, 2, 1));
  State t = run_all(m2, m2.initial(), issue_all(2));
  t = run_all(m2, t,
              {step(M::IRQ, M::READ_DIRTY_ENDIO, 0), step(M::IRQ, M::READ_DIRTY_ENDIO, 1),
               step(M::SYS, M::WRITE_DIRTY, 0), step(M::SYS, M::WRITE_DIRTY, 1),
               step(M::IRQ, M::DIRTY_ENDIO, 0), step(M::IRQ, M::DIRTY_ENDIO, 1),
               step(M::SYS, M::WRITE_DIRTY_FINISH, 0), step(M::SYS, M::WRITE_DIRTY_FINISH, 1)});
  CHECK(m2.busy(t, M::SYS) == 2);
  CHECK(m2.readers(t) == 2);
}

TEST_CASE("workqueue: write_dirty_finish sleeps in down_read while gc holds the root") {
  const M m(M::Before, params(1, 1, 1));
  State s = run_all(m, m.initial(), issue_all(1));
  s = run(m, s, step(M::GC, M::DOWN_WRITE));
  s = run_all(m, s, to_finish_queued(0, M::SYS));
  const State f = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  CHECK(m.key(f, 0) == M::K_FWAIT);
  CHECK(m.busy(f, M::SYS) == 1);  // keeps its worker
  CHECK(m.readers(f) == 0);
  CHECK(m.queue_len(f, M::SYS) == 0);
  // No step of its own: only gc's up_write wakes it.
  CHECK(enabled(m, f, M::SYS).empty());
}

TEST_CASE("workqueue: before reaches the seed's cycle, fix runs journal_write") {
  const M b(M::Before, params(1, 1, 1));
  const State s = run_all(b, b.initial(), seed_steps(M::SYS));
  CHECK(b.seed_cycle(s));
  CHECK(b.gc_pc(s) == M::GC_SYNC);
  CHECK(b.gc_wait(s) == M::W_ENTRY);
  CHECK(b.writer_holds(s));
  CHECK(b.key(s, 0) == M::K_FWAIT);
  CHECK(queue(b, s, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
  CHECK(b.wb_pc(s) == M::WB_SYNC);
  CHECK(successors(b, s).empty());
  CHECK_FALSE(b.finished(s));
  CHECK(b.summary(s).find("CYCLE") != std::string::npos);

  // The same interleaving with the fix: write_dirty_finish sleeps on
  // writeback_wq's worker, journal_write still has system_wq's.
  const M f(M::Fix, params(1, 1, 1));
  State t = run_all(f, f.initial(), seed_steps(M::WBQ));
  CHECK_FALSE(f.seed_cycle(t));
  CHECK(f.key(t, 0) == M::K_FWAIT);
  CHECK(f.busy(t, M::WBQ) == 1);
  CHECK(f.busy(t, M::SYS) == 0);
  CHECK(queue(f, t, M::SYS) == std::vector<std::uint8_t>{M::kJournalItem});
  CHECK(enabled(f, t, M::SYS) == std::vector<Step>{step(M::SYS, M::JOURNAL_WRITE)});
  t = run_all(f, t,
              {step(M::SYS, M::JOURNAL_WRITE), step(M::IRQ, M::JOURNAL_WRITE_ENDIO),
               step(M::GC, M::CLOSURE_SYNC), step(M::WBQ, M::BTREE_INSERT, 0),
               step(M::SYS, M::JOURNAL_WRITE), step(M::WB, M::READ_DIRTY_SYNC)});
  CHECK(f.finished(t));
  CHECK(successors(f, t).empty());
}

TEST_CASE("workqueue: finished() needs both threads done, every key done, queues empty") {
  const M m(M::Before, params(1, 1, 1));
  State s = run_all(m, m.initial(), issue_all(1));
  s = run_all(m, s, to_finish_queued(0, M::SYS));
  s = run_all(
      m, s,
      {step(M::SYS, M::WRITE_DIRTY_FINISH, 0), step(M::SYS, M::BTREE_INSERT, 0),
       step(M::WB, M::READ_DIRTY_SYNC), step(M::GC, M::DOWN_WRITE), step(M::GC, M::SET_ROOT, 0),
       step(M::IRQ, M::JOURNAL_WRITE_ENDIO), step(M::GC, M::CLOSURE_SYNC)});
  CHECK(m.gc_pc(s) == M::GC_DONE);
  CHECK(m.wb_pc(s) == M::WB_DONE);
  // The trailing journal_write is still queued: not finished.
  CHECK_FALSE(m.finished(s));
  const State f = run(m, s, step(M::SYS, M::JOURNAL_WRITE));
  CHECK(m.finished(f));
  State x = f;
  m.set_wb_pc(x, M::WB_SYNC);
  CHECK_FALSE(m.finished(x));
  x = f;
  m.set_key(x, 0, M::K_FLOCKED);
  CHECK_FALSE(m.finished(x));
  x = f;
  m.set_journal_io(x, M::J_BIO);
  CHECK_FALSE(m.finished(x));
}

TEST_CASE("workqueue: properties and action names") {
  const M m(M::Before, params(1, 1, 1));
  const auto& info = m.info();
  REQUIRE(info.props.size() == 2);
  CHECK(info.props[M::Deadlock].name == "deadlock");
  CHECK(info.props[M::Deadlock].kind == PropKind::Deadlock);
  CHECK(info.props[M::AllWorkRuns].name == "all-work-runs");
  CHECK(info.props[M::AllWorkRuns].kind == PropKind::Progress);
  // Neither is an invariant: violates() is false even in the cycle.
  const State s = run_all(m, m.initial(), seed_steps(M::SYS));
  CHECK_FALSE(m.violates(M::Deadlock, s));
  CHECK_FALSE(m.violates(M::AllWorkRuns, s));
  REQUIRE(info.actions.size() == 13);
  CHECK(info.actions[M::DOWN_WRITE] == "down_write");
  CHECK(info.actions[M::SET_ROOT] == "bch_btree_set_root");
  CHECK(info.actions[M::CLOSURE_SYNC] == "closure_sync");
  CHECK(info.actions[M::REFILL_DIRTY] == "refill_dirty");
  CHECK(info.actions[M::READ_DIRTY] == "read_dirty");
  CHECK(info.actions[M::READ_DIRTY_SYNC] == "read_dirty_sync");
  CHECK(info.actions[M::READ_DIRTY_ENDIO] == "read_dirty_endio");
  CHECK(info.actions[M::DIRTY_ENDIO] == "dirty_endio");
  CHECK(info.actions[M::JOURNAL_WRITE_ENDIO] == "journal_write_done");
  CHECK(info.actions[M::WRITE_DIRTY] == "write_dirty");
  CHECK(info.actions[M::WRITE_DIRTY_FINISH] == "write_dirty_finish");
  CHECK(info.actions[M::BTREE_INSERT] == "bch_btree_insert");
  CHECK(info.actions[M::JOURNAL_WRITE] == "journal_write");
  REQUIRE(info.variants.size() == 2);
  CHECK(info.variants[M::Before].name == "before");
  CHECK(info.variants[M::Fix].name == "fix");
  CHECK(info.variants[M::Fix].commit == "9baf30972b55");
}

TEST_CASE("workqueue: every reachable state is consistent") {
  for (int v : {M::Before, M::Fix})
    for (int w : {1, 2})
      for (int k : {1, 2, 3})
        for (int jf : {0, 1}) {
          const M m(v, params(w, k, 2, jf));
          const Graph g = reachable(m);
          INFO("variant " << v << " workers " << w << " keys " << k << " journal_full " << jf);
          for (const State& s : g.states) {
            // Sleeping readers only while gc holds or waits for the write lock.
            int asleep = 0, items = 0, journal = 0;
            for (int i = 0; i < k; ++i) asleep += m.key(s, i) == M::K_FWAIT;
            if (asleep) CHECK((m.writer_holds(s) || m.writer_waits(s)));
            if (m.readers(s)) CHECK_FALSE(m.writer_holds(s));
            CHECK(m.busy(s, m.writeback_queue()) <= w);
            // Queue entries match the closures' states; journal_write is
            // queued exactly when the journal io says so.
            for (int q = M::SYS; q < m.actors(); ++q)
              for (int i = 0; i < m.queue_len(s, q); ++i) {
                const std::uint8_t it = m.slot(s, q, i);
                if (it == M::kJournalItem) {
                  CHECK(q == M::SYS);
                  ++journal;
                } else {
                  CHECK(q == m.writeback_queue());
                  const int kk = it - M::kKeyItem;
                  CHECK((m.key(s, kk) == M::K_QWRITE || m.key(s, kk) == M::K_QFINISH));
                  ++items;
                }
              }
            int queued = 0;
            for (int i = 0; i < k; ++i)
              queued += m.key(s, i) == M::K_QWRITE || m.key(s, i) == M::K_QFINISH;
            CHECK(items == queued);
            CHECK(journal == (m.journal_io(s) == M::J_QUEUED ? 1 : 0));
            // gc waits on the journal only in closure_sync.
            if (m.gc_wait(s) != M::W_NONE) CHECK(m.gc_pc(s) == M::GC_SYNC);
            if (m.gc_wait(s) == M::W_WRITE) CHECK(m.journal_io(s) == M::J_BIO);
            // Stuck states are exactly the seed's cycle (before) or none (fix).
            if (successors(m, s).empty() && !m.finished(s)) CHECK(m.seed_cycle(s));
          }
        }
}

TEST_CASE("workqueue: footprints of independent steps commute") {
  int total_independent = 0;
  CHECK(rc::check("independent steps commute", [&] {
    const int variant = *rc::gen::inRange(0, 2);
    const M m(variant, params(*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4),
                              *rc::gen::inRange(1, 3), *rc::gen::inRange(0, 2)));
    total_independent += walk_checking_commutation(m, 60);
  }));
  // Typically hundreds; the bound leaves room for unlucky random runs.
  CHECK(total_independent > 20);
}

TEST_CASE("workqueue: footprints name the shared variables") {
  const M m(M::Before, params(1, 2, 1));
  const auto names = m.variable_names();
  CHECK(names == std::vector<std::string>{"pc", "round", "waits", "io", "need_write", "wb_pc",
                                          "issued", "key[0]", "key[1]", "system_wq[0]",
                                          "system_wq[1]", "system_wq[2]"});
  CHECK(names == m.schema().element_names());
  const M fx(M::Fix, params(1, 2, 1));
  CHECK(fx.variable_names().back() == "writeback_wq[1]");
  const State s = m.initial();
  const Footprint dw = m.footprint(s, step(M::GC, M::DOWN_WRITE));
  CHECK(dw.reads.test(var_index(m, "key[0]")));
  CHECK(dw.reads.test(var_index(m, "key[1]")));
  CHECK(dw.writes.test(var_index(m, "pc")));
  CHECK(dw.writes.test(var_index(m, "round")));  // gc's pc and round, as one
  CHECK(dw.writes.count() == 2);
  const Footprint sr = m.footprint(s, step(M::GC, M::SET_ROOT, 1));
  for (const char* n : {"system_wq[0]", "system_wq[2]", "io", "need_write", "waits"})
    CHECK(sr.writes.test(var_index(m, n)));
  const Footprint rd = m.footprint(s, step(M::WB, M::READ_DIRTY, 1));
  CHECK(rd.writes.test(var_index(m, "key[1]")));
  CHECK_FALSE(rd.writes.test(var_index(m, "key[0]")));
  // Two read bios completing race on the queue's tail.
  CHECK_FALSE(m.footprint(s, step(M::IRQ, M::READ_DIRTY_ENDIO, 0))
                  .independent_of(m.footprint(s, step(M::IRQ, M::READ_DIRTY_ENDIO, 1))));
  // With the fix they use writeback_wq, not system_wq.
  const Footprint fe = fx.footprint(s, step(M::IRQ, M::READ_DIRTY_ENDIO, 0));
  CHECK(fe.writes.test(var_index(fx, "writeback_wq[0]")));
  CHECK(fe.writes.test(var_index(fx, "writeback_wq[1]")));
  CHECK_FALSE(fe.writes.test(var_index(fx, "system_wq[0]")));
  // They write apart; both read what enables any irq step (every key's
  // bio, the journal io), as partial-order reduction needs of one actor.
  const Footprint fj = fx.footprint(s, step(M::IRQ, M::JOURNAL_WRITE_ENDIO));
  CHECK((fe.writes & fj.writes).none());
  CHECK(fj.reads.test(var_index(fx, "key[1]")));
  CHECK(fe.reads.test(var_index(fx, "io")));
  CHECK_FALSE(m.footprint(s, step(M::IRQ, M::READ_DIRTY_ENDIO, 0))
                  .independent_of(m.footprint(s, step(M::IRQ, M::JOURNAL_WRITE_ENDIO))));
  // gc's rw_unlock touches every key (it wakes sleeping readers).
  const Footprint cs = m.footprint(s, step(M::GC, M::CLOSURE_SYNC));
  CHECK(cs.writes.test(var_index(m, "key[0]")));
  CHECK(cs.writes.test(var_index(m, "key[1]")));
}

TEST_CASE("workqueue: describe, summary, state_json and actor names") {
  const M m(M::Before, params(1, 1, 1));
  CHECK(m.actor_name(M::GC) == "gc thread");
  CHECK(m.actor_name(M::WB) == "writeback");
  CHECK(m.actor_name(M::IRQ) == "bio endio");
  CHECK(m.actor_name(M::SYS) == "system_wq");
  CHECK(m.actor_name(M::WBQ) == "writeback_wq");
  State s = run_all(m, m.initial(), issue_all(1));
  s = run(m, s, step(M::GC, M::DOWN_WRITE));
  s = run_all(m, s, to_finish_queued(0, M::SYS));
  const std::string d = m.describe(s, step(M::GC, M::SET_ROOT, 1));
  CHECK(d.find("bch_btree_set_root") != std::string::npos);
  CHECK(d.find("journal_full()") != std::string::npos);
  CHECK(d.find("queued [write_dirty_finish(k0), journal_write]") != std::string::npos);
  s = run(m, s, step(M::GC, M::SET_ROOT, 1));
  const std::string f = m.describe(s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  CHECK(f.find("down_read(root) SLEEPS") != std::string::npos);
  CHECK(f.find("keeps its worker") != std::string::npos);
  s = run(m, s, step(M::SYS, M::WRITE_DIRTY_FINISH, 0));
  const std::string sum = m.summary(s);
  CHECK(sum.find("root W by gc") != std::string::npos);
  CHECK(sum.find("system_wq 1/1 busy [write_dirty_finish(k0) asleep in down_read] "
                 "queued [journal_write]") != std::string::npos);
  const auto j = m.state_json(s);
  CHECK(j["gc"]["pc"] == "closure_sync");
  CHECK(j["gc"]["waits"] == "entry");
  CHECK(j["journal"]["io"] == "queued");
  CHECK(j["journal"]["need_write"] == true);
  CHECK(j["root"]["writer"] == "holds");
  CHECK(j["keys"][0] == "wdf-asleep");
  CHECK(j["system_wq"] == nlohmann::json::array({"journal_write"}));
  CHECK_FALSE(j.contains("writeback_wq"));
  CHECK(M(M::Fix, params(1, 1, 1))
            .state_json(M(M::Fix, params(1, 1, 1)).initial())
            .contains("writeback_wq"));
  // Every enabled step of a few runs has a description naming no "?".
  const M fx(M::Fix, params(2, 2, 2));
  const Graph g = reachable(fx);
  for (const State& st : g.states)
    for (auto& [sp, n] : successors(fx, st)) CHECK(fx.describe(st, sp) != "?");
}

TEST_CASE("workqueue: explorer verdicts on small parameters") {
  // The seed's picture: one worker, one key.
  {
    const M m(M::Before, params(1, 1, 1));
    SearchOptions o = quiet();
    o.props = {M::Deadlock};
    const auto r = explore(m, o);
    REQUIRE(r.props[0].verdict == Verdict::Violated);
    REQUIRE(r.props[0].trace.has_value());
    const auto& cx = *r.props[0].trace;
    CHECK(cx.steps.size() == 8);  // BFS: shortest
    CHECK(m.seed_cycle(cx.states.back()));
  }
  CHECK(verdict(M(M::Fix, params(1, 1, 1)), M::Deadlock) == Verdict::Holds);
  // More workers: the cycle needs as many write_dirty_finish items asleep as
  // there are workers.
  CHECK(verdict(M(M::Before, params(2, 1, 1)), M::Deadlock) == Verdict::Holds);
  CHECK(verdict(M(M::Before, params(2, 2, 1)), M::Deadlock) == Verdict::Violated);
  CHECK(verdict(M(M::Before, params(3, 2, 2)), M::Deadlock) == Verdict::Holds);
  CHECK(verdict(M(M::Before, params(3, 3, 1)), M::Deadlock) == Verdict::Violated);
  CHECK(verdict(M(M::Fix, params(1, 3, 2)), M::Deadlock) == Verdict::Holds);
  CHECK(verdict(M(M::Fix, params(2, 3, 2)), M::Deadlock) == Verdict::Holds);
  // A journal that never fills: one round is safe, but the second round's
  // entry waits for the trailing journal_write that journal_write_done
  // queued on system_wq.
  CHECK(verdict(M(M::Before, params(1, 1, 1, 0)), M::Deadlock) == Verdict::Holds);
  CHECK(verdict(M(M::Before, params(1, 1, 2, 0)), M::Deadlock) == Verdict::Violated);
  CHECK(verdict(M(M::Fix, params(1, 1, 2, 0)), M::Deadlock) == Verdict::Holds);
  // Progress (AG EF finished) by the explorer ...
  CHECK(verdict(M(M::Before, params(1, 1, 1)), M::AllWorkRuns) == Verdict::Violated);
  CHECK(verdict(M(M::Before, params(2, 2, 1)), M::AllWorkRuns) == Verdict::Violated);
  CHECK(verdict(M(M::Before, params(2, 1, 2)), M::AllWorkRuns) == Verdict::Holds);
  CHECK(verdict(M(M::Fix, params(1, 2, 2)), M::AllWorkRuns) == Verdict::Holds);
  CHECK(verdict(M(M::Fix, params(2, 3, 2)), M::AllWorkRuns) == Verdict::Holds);
}

TEST_CASE("workqueue: a finished state stays reachable exactly when no cycle is reachable") {
  // Independent of the explorer: backward reachability on the whole graph.
  for (int v : {M::Before, M::Fix})
    for (int w : {1, 2})
      for (int k : {1, 2})
        for (int r : {1, 2})
          for (int jf : {0, 1}) {
            const M m(v, params(w, k, r, jf));
            const Graph g = reachable(m);
            const std::size_t bad = states_without_progress(m, g);
            std::size_t cycles = 0;
            for (const State& s : g.states) cycles += m.seed_cycle(s);
            INFO("variant " << v << " workers " << w << " keys " << k << " rounds " << r
                            << " journal_full " << jf << ": " << g.states.size() << " states");
            if (v == M::Fix) {
              CHECK(bad == 0);
              CHECK(cycles == 0);
            } else {
              const bool deadlocks = k >= w && (jf == 1 || r == 2);
              CHECK((bad > 0) == deadlocks);
              CHECK((cycles > 0) == deadlocks);
            }
            // The graph is acyclic (every step moves some bounded counter
            // forward), so Progress reduces to deadlock freedom here.
            std::vector<int> color(g.states.size(), 0);
            bool cyclic = false;
            std::vector<std::pair<std::size_t, std::size_t>> stack{{0, 0}};
            color[0] = 1;
            while (!stack.empty()) {
              auto& [node, next] = stack.back();
              if (next < g.succ[node].size()) {
                const std::size_t to = g.succ[node][next++];
                if (color[to] == 1) cyclic = true;
                if (color[to] == 0) {
                  color[to] = 1;
                  stack.emplace_back(to, 0);
                }
              } else {
                color[node] = 2;
                stack.pop_back();
              }
            }
            CHECK_FALSE(cyclic);
          }
}

}  // namespace workqueue_steps_test
