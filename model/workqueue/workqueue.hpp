// model/workqueue/workqueue: bcache garbage collection against background writeback on
// a workqueue with a bounded number of active work items (seed 003, "[PATCH
// 17/19] bcache: fix for gc and write-back race", commit 9baf30972b55).
//
// What it mirrors (drivers/md/bcache, 4.12/4.13):
//  - the gc thread: bch_btree_gc -> btree_root(gc_root) takes the btree root's
//    rw_semaphore for writing (op.lock = SHRT_MAX); bch_btree_gc_root rewrites
//    the root and calls bch_btree_set_root, which journals the new root with
//    bch_journal_meta(c, &cl) and waits for that journal write in
//    closure_sync(&cl) while still holding the root write lock; then
//    rw_unlock. `rounds` such root rewrites, one after another.
//  - the journal: bch_journal -> closure_wait(&w->wait, parent) and
//    journal_try_write: need_write = true, and if no journal io is in flight
//    it runs journal_write_unlocked inline (closure_call). When
//    journal_full() holds, journal_write_unlocked calls journal_reclaim and
//    btree_flush_write and requeues itself with continue_at(cl,
//    journal_write, system_wq); otherwise it submits the journal bio.
//    journal_write_endio -> journal_write_done wakes the buffer's waiters and
//    requeues journal_write on system_wq (continue_at_nobarrier), which either
//    writes the next pending entry or, with nothing to write, ends the io
//    (journal_write_unlock: io_in_flight = 0). Once queued, a journal entry
//    is written only by that queued journal_write.
//  - the writeback thread (bch_writeback_thread): refill_dirty walks the
//    btree under the root read lock (bch_refill_keybuf, op.lock = -1), then
//    read_dirty issues `keys` dirty keys with closure_call(read_dirty_submit),
//    each submitting a read bio and continue_at(write_dirty); write_dirty
//    submits the write bio and continue_at(write_dirty_finish); finally
//    read_dirty waits for all of them in closure_sync.
//    write_dirty_finish calls bch_btree_insert, whose btree_root(...) takes
//    the root's rw_semaphore for reading (op.lock = 0, root level > 0).
//  - variant `before`: both continuations are queued on system_wq, the queue
//    journal_write uses. Variant `fix` (9baf30972b55): they go to the cached
//    device's own dc->writeback_write_wq.
//
// The workqueue: a FIFO of pending work items and `workers` = max_active:
// at most that many items of one queue are active at a time, and an active
// item that sleeps (write_dirty_finish in down_read) stays active and keeps
// its slot until it returns. The head item starts when a slot is free.
// Items that never sleep (write_dirty, journal_write) run in one step.
// This is kernel/workqueue.c's max_active (pwq->nr_active counts items that
// were started and have not returned, sleeping or not). What the model does
// not have: concurrency management starts another kworker when a running
// one sleeps and work is pending; that needs memory (create_worker), and a
// queue without WQ_MEM_RECLAIM, such as system_wq, has no rescuer to fall
// back on. In 4.12/4.13 system_wq is alloc_workqueue("events", 0, 0):
// per-CPU pools (an item runs on the CPU that queued it), max_active
// WQ_DFL_ACTIVE = 256 per CPU. So workers = 1 is the seed's picture (one
// kworker that is not replaced); workers = N needs N write_dirty_finish
// items asleep at once on the pool journal_write was queued to, which the
// explorer finds whenever keys >= workers (the real bound on one cached
// device's writeback ios in flight is 64, dc->in_flight). The fix's queue is
// alloc_workqueue("bcache_writeback_wq", WQ_MEM_RECLAIM, 0): default
// max_active and a rescuer; the model gives it `workers` too.
//
// The root rw_semaphore: readers are the write_dirty_finish items holding it
// (and refill_dirty, which takes and drops it in one step); the writer is
// the gc between down_write and its rw_unlock. down_read sleeps while the
// writer holds the lock or waits for it (rwsem queues new readers behind a
// waiting writer); down_write sleeps while readers hold it and is granted
// when the last one leaves. up_write hands the read lock to every sleeping
// reader before anyone else runs (__rwsem_mark_wake grants the readers at
// the head of the wait list; gc is the only writer, so that is all of
// them). refill_dirty does not sleep in the model; it is just not enabled
// while down_read would sleep, so gc may take the lock again before it.
//
// Abstracted: the old and the new root node are one lock (gc holds both
// write locks across bch_btree_set_root and closure_sync; a reader blocks on
// whichever c->root it read; with a leaf root bch_btree_insert takes it for
// writing, which blocks the same way); bch_btree_gc_root's -EINTR retry and
// the rest of the gc walk (more root write-lock sections; one that journals
// a new root is another of the `rounds`); btree splits in write_dirty_finish;
// keys, buckets, bio contents and errors; the in_flight semaphore
// (64 >= keys); journal space: journal_full() is a nondeterministic choice
// when gc's journal_try_write runs journal_write_unlocked inline (parameter
// journal_full = 1), and the journal_write queued after a reclaim always
// finds room, so it cannot loop.
#pragma once

#include <nlohmann/json.hpp>

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "model/schema.hpp"
#include "model/schema_model.hpp"

namespace blkmc {

namespace workqueue {
// Value names, indexed by WorkqueueModel's GcPc, GcWait, JournalIo, WbPc and
// KeyState.
inline constexpr const char* kGcPcNames[] = {"down_write", "asleep-in-down_write", "set_root",
                                             "closure_sync", "done"};
inline constexpr const char* kGcWaitNames[] = {"none", "entry", "write"};
inline constexpr const char* kJournalIoNames[] = {"idle", "queued", "bio"};
inline constexpr const char* kWbPcNames[] = {"refill_dirty", "read_dirty", "closure_sync", "done"};
inline constexpr const char* kKeyNames[] = {"idle",       "read-bio",   "wd-queued",   "write-bio",
                                            "wdf-queued", "wdf-asleep", "wdf-holds-R", "done"};
// The state variables, declared once: the gc thread (pc, round, what its
// closure waits for), the journal io and need_write, the writeback thread
// (pc, keys issued), one closure state per dirty key, and the slots of
// system_wq (keys + 1 before the fix, 1 with it) and, with the fix,
// writeback_wq (keys); a slot holds 0 (empty), kJournalItem or kKeyItem + key.
// The writeback thread's pc is wb_pc (the schema's names are unique); its
// json calls it pc.
Schema schema(int variant, int keys, int rounds);
}  // namespace workqueue

class WorkqueueModel : public SchemaModel<WorkqueueModel> {
 public:
  static constexpr int kMaxWorkers = 4, kMaxKeys = 4, kMaxRounds = 3;
  // 6 fixed bytes, one per key, the queues (keys + 1 slots in all) and a
  // byte of bits (need_write).
  using State = ByteState<8 + 2 * kMaxKeys>;

  enum Variant : int { Before, Fix };
  enum Prop : int { Deadlock, AllWorkRuns };
  // Actors (Step::actor). WBQ exists in variant fix only.
  enum Actor : std::uint8_t { GC, WB, IRQ, SYS, WBQ };
  // Step::action: named after the kernel function the step runs.
  enum Action : std::uint8_t {
    DOWN_WRITE,           // gc: btree_root(gc_root) -> rw_lock(true, root)
    SET_ROOT,             // gc: bch_btree_set_root -> bch_journal_meta (arg: journal_full)
    CLOSURE_SYNC,         // gc: closure_sync returns, rw_unlock(true, root)
    REFILL_DIRTY,         // writeback thread: refill_dirty (root read lock)
    READ_DIRTY,           // writeback thread: closure_call(read_dirty_submit) (arg: key)
    READ_DIRTY_SYNC,      // writeback thread: read_dirty's closure_sync returns
    READ_DIRTY_ENDIO,     // irq: read bio done, write_dirty queued (arg: key)
    DIRTY_ENDIO,          // irq: write bio done, write_dirty_finish queued (arg: key)
    JOURNAL_WRITE_ENDIO,  // irq: journal_write_done
    WRITE_DIRTY,          // kworker: write_dirty (arg: key)
    WRITE_DIRTY_FINISH,   // kworker: write_dirty_finish -> down_read (arg: key)
    BTREE_INSERT,         // kworker: bch_btree_insert done, rw_unlock (arg: key)
    JOURNAL_WRITE,        // kworker: journal_write
  };
  // gc thread program counter.
  enum GcPc : std::uint8_t { GC_LOCK, GC_LOCK_WAIT, GC_SET_ROOT, GC_SYNC, GC_DONE };
  // What gc's closure waits for: nothing, its journal entry still unwritten,
  // or the journal write that carries the entry.
  enum GcWait : std::uint8_t { W_NONE, W_ENTRY, W_WRITE };
  // Journal io (c->journal.io): idle (io_in_flight = 0), journal_write
  // queued on system_wq, or the journal bio in flight.
  enum JournalIo : std::uint8_t { J_IDLE, J_QUEUED, J_BIO };
  // Writeback thread program counter.
  enum WbPc : std::uint8_t { WB_REFILL, WB_READ, WB_SYNC, WB_DONE };
  // One dirty key's closure (struct dirty_io).
  enum KeyState : std::uint8_t {
    K_IDLE,     // not issued yet
    K_READ,     // read bio in flight; write_dirty follows
    K_QWRITE,   // write_dirty queued
    K_WRITE,    // write bio in flight; write_dirty_finish follows
    K_QFINISH,  // write_dirty_finish queued
    K_FWAIT,    // write_dirty_finish active, asleep in down_read (keeps its worker)
    K_FLOCKED,  // write_dirty_finish active, holds the root read lock
    K_DONE,     // closure returned
  };
  // Queue entries: 0 = empty slot, kJournalItem, or kKeyItem + key.
  static constexpr std::uint8_t kJournalItem = 1, kKeyItem = 2;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  WorkqueueModel(int variant, const Params& params);

  State initial() const;

  template <class F>
  void for_each_successor(const State& s, F&& emit) const;
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;

  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const;
  Footprint footprint(const State& s, const Step& step) const;
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;

  // --- for the reductions (explorer/reduced_model.hpp) ---
  // What each variable is computed from, what the guards read. Every
  // variable is a guard's or flows into one (round into gc's pc, need_write
  // into the journal io), so slicing stores everything.
  Influence influence() const;
  // The keys' dirty_io closures run the same code, but read_dirty issues
  // them in order (key `issued` next): only permutations that keep the
  // issued keys 0..issued-1 among themselves are automorphisms. The engine
  // permutes a whole block (its canonical order would sort unissued keys,
  // K_IDLE, first), so no symmetry is declared; rename() is what a
  // symmetry within the issued keys needs (tests/reduction_models_test.cpp
  // checks it commutes with every step).
  // After the keys' block moved (copy c to perm[c]): the queued work items
  // name the moved keys.
  void rename(State& s, const std::vector<int>& perm) const;
  // Everything the actor may read or write from s on (actors(): GC, WB,
  // IRQ, SYS and, with the fix, WBQ).
  Footprint actor_future(const State& s, int actor) const;

  int variant() const { return variant_; }
  int workers() const { return workers_; }
  int keys() const { return keys_; }
  int rounds() const { return rounds_; }
  bool journal_full_possible() const { return journal_full_; }
  int actors() const { return variant_ == Fix ? 5 : 4; }
  // The queue the writeback continuations go to: SYS (before) or WBQ (fix).
  int writeback_queue() const { return variant_ == Fix ? WBQ : SYS; }
  int queue_capacity(int q) const { return q == SYS ? cap_sys_ : cap_wbq_; }

  // --- state accessors: slots of workqueue::schema(), resolved once ---
  int gc_pc(const State& s) const { return gc_pc_.get(s); }
  void set_gc_pc(State& s, int v) const { gc_pc_.set(s, v); }
  int gc_round(const State& s) const { return gc_round_.get(s); }
  void set_gc_round(State& s, int v) const { gc_round_.set(s, v); }
  int gc_wait(const State& s) const { return gc_wait_.get(s); }
  void set_gc_wait(State& s, int v) const { gc_wait_.set(s, v); }
  bool need_write(const State& s) const { return need_write_.test(s); }
  void set_need_write(State& s, bool v) const { need_write_.set(s, v); }
  int journal_io(const State& s) const { return journal_io_.get(s); }
  void set_journal_io(State& s, int v) const { journal_io_.set(s, v); }
  int wb_pc(const State& s) const { return wb_pc_.get(s); }
  void set_wb_pc(State& s, int v) const { wb_pc_.set(s, v); }
  // Keys issued so far by read_dirty (keys are issued in order 0, 1, ...).
  int wb_issued(const State& s) const { return wb_issued_.get(s); }
  void set_wb_issued(State& s, int v) const { wb_issued_.set(s, v); }
  int key(const State& s, int k) const { return key_.get(s, k); }
  void set_key(State& s, int k, int v) const { key_.set(s, k, v); }
  // Slot i of queue q (SYS or WBQ); slot 0 is the head.
  std::uint8_t slot(const State& s, int q, int i) const {
    return std::uint8_t(queue_slots(q).get(s, i));
  }
  void set_slot(State& s, int q, int i, int v) const { queue_slots(q).set(s, i, v); }

  // --- derived state ---
  int queue_len(const State& s, int q) const;
  // Active (started, not returned) items of queue q: the workers in use.
  int busy(const State& s, int q) const;
  bool writer_holds(const State& s) const { return gc_pc(s) == GC_SET_ROOT || gc_pc(s) == GC_SYNC; }
  bool writer_waits(const State& s) const { return gc_pc(s) == GC_LOCK_WAIT; }
  int readers(const State& s) const;
  // down_read would be granted now.
  bool read_lock_free(const State& s) const { return !writer_holds(s) && !writer_waits(s); }
  // The seed's cycle: gc holds the root write lock in closure_sync waiting
  // for a journal entry that only a queued journal_write can write; that
  // journal_write cannot start because every worker of system_wq is held by
  // a write_dirty_finish asleep in down_read on the root lock.
  bool seed_cycle(const State& s) const;

 private:
  // The steps, named after the kernel functions they mirror.
  void btree_root_down_write(State& s) const;
  void bch_btree_set_root(State& s, bool journal_full) const;
  void journal_write_unlocked(State& s, bool journal_full) const;
  void gc_closure_sync(State& s) const;
  void refill_dirty(State& s) const;
  void read_dirty(State& s, int k) const;
  void read_dirty_sync(State& s) const;
  void read_dirty_endio(State& s, int k) const;
  void dirty_endio(State& s, int k) const;
  void journal_write_done(State& s) const;
  void write_dirty(State& s, int k) const;
  void write_dirty_finish(State& s, int k) const;
  void bch_btree_insert(State& s, int k) const;
  void journal_write(State& s) const;

  void queue_work(State& s, int q, std::uint8_t item) const;
  std::uint8_t pop_work(State& s, int q) const;
  const ByteVar& queue_slots(int q) const { return q == SYS ? sys_ : wbq_; }
  // The head item of q may start: it exists and a worker is free.
  bool head_can_start(const State& s, int q) const {
    return queue_len(s, q) > 0 && busy(s, q) < workers_;
  }
  std::string item_name(const State& s, std::uint8_t item) const;
  std::string queue_text(const State& s, int q) const;
  std::string lock_text(const State& s) const;

  // Flat (footprint) indices of each variable's first element (wbq: -1
  // before the fix).
  struct Flat {
    int pc, round, waits, io, need_write, wb_pc, issued, key, sys, wbq;
  } fl_{};
  using Bits = std::bitset<Footprint::kMaxVars>;
  void all_keys(Bits& b) const;
  void slots(Bits& b, int q) const;  // every slot of queue q
  // gc will still run bch_btree_set_root (and so may start journal io).
  bool gc_sets_root(const State& s) const {
    return gc_pc(s) < GC_SYNC || (gc_pc(s) == GC_SYNC && gc_round(s) + 1 < rounds_);
  }

  int variant_, workers_, keys_, rounds_;
  bool journal_full_;
  int cap_sys_, cap_wbq_;
  ByteVar gc_pc_, gc_round_, gc_wait_, journal_io_, wb_pc_, wb_issued_, key_, sys_, wbq_;
  BitVar need_write_;
};

template <class F>
void WorkqueueModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  auto one = [&](std::uint8_t actor, std::uint8_t action, int arg, auto&& fn) {
    next = s;
    fn(next);
    emit(Step{actor, action, std::uint8_t(arg)}, next);
  };
  // gc thread
  switch (gc_pc(s)) {
    case GC_LOCK:
      one(GC, DOWN_WRITE, 0, [&](State& n) { btree_root_down_write(n); });
      break;
    case GC_LOCK_WAIT:
      if (readers(s) == 0) one(GC, DOWN_WRITE, 0, [&](State& n) { btree_root_down_write(n); });
      break;
    case GC_SET_ROOT:
      one(GC, SET_ROOT, 0, [&](State& n) { bch_btree_set_root(n, false); });
      // journal_full() only matters when journal_write_unlocked runs inline.
      if (journal_full_ && journal_io(s) == J_IDLE)
        one(GC, SET_ROOT, 1, [&](State& n) { bch_btree_set_root(n, true); });
      break;
    case GC_SYNC:
      if (gc_wait(s) == W_NONE) one(GC, CLOSURE_SYNC, 0, [&](State& n) { gc_closure_sync(n); });
      break;
    default:
      break;
  }
  // writeback thread
  switch (wb_pc(s)) {
    case WB_REFILL:
      if (read_lock_free(s)) one(WB, REFILL_DIRTY, 0, [&](State& n) { refill_dirty(n); });
      break;
    case WB_READ:
      one(WB, READ_DIRTY, wb_issued(s), [&](State& n) { read_dirty(n, wb_issued(s)); });
      break;
    case WB_SYNC: {
      bool all = true;
      for (int k = 0; k < keys_; ++k) all = all && key(s, k) == K_DONE;
      if (all) one(WB, READ_DIRTY_SYNC, 0, [&](State& n) { read_dirty_sync(n); });
      break;
    }
    default:
      break;
  }
  // bio completions
  for (int k = 0; k < keys_; ++k) {
    if (key(s, k) == K_READ)
      one(IRQ, READ_DIRTY_ENDIO, k, [&](State& n) { read_dirty_endio(n, k); });
    if (key(s, k) == K_WRITE) one(IRQ, DIRTY_ENDIO, k, [&](State& n) { dirty_endio(n, k); });
  }
  if (journal_io(s) == J_BIO)
    one(IRQ, JOURNAL_WRITE_ENDIO, 0, [&](State& n) { journal_write_done(n); });
  // kworkers: the head item of each queue, then the active sleeping items.
  for (int q = SYS; q < actors(); ++q) {
    if (!head_can_start(s, q)) continue;
    const std::uint8_t item = slot(s, q, 0);
    if (item == kJournalItem) {
      one(std::uint8_t(q), JOURNAL_WRITE, 0, [&](State& n) { journal_write(n); });
    } else {
      const int k = item - kKeyItem;
      if (key(s, k) == K_QWRITE)
        one(std::uint8_t(q), WRITE_DIRTY, k, [&](State& n) { write_dirty(n, k); });
      else
        one(std::uint8_t(q), WRITE_DIRTY_FINISH, k, [&](State& n) { write_dirty_finish(n, k); });
    }
  }
  // An item asleep in down_read is woken by gc's up_write (CLOSURE_SYNC).
  const auto wq = std::uint8_t(writeback_queue());
  for (int k = 0; k < keys_; ++k)
    if (key(s, k) == K_FLOCKED) one(wq, BTREE_INSERT, k, [&](State& n) { bch_btree_insert(n, k); });
}

}  // namespace blkmc
