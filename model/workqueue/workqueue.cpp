#include "model/workqueue/workqueue.hpp"

#include <fmt/format.h>

namespace blkmc {

Schema workqueue::schema(int variant, int keys, int rounds) {
  Schema sc;
  const int gc = sc.group("gc"), jn = sc.group("journal"), wb = sc.group("writeback");
  const int ks = sc.block("keys", keys);
  // Queue slots: 0 (empty), kJournalItem, kKeyItem + key.
  const int item_hi = WorkqueueModel::kKeyItem + keys - 1;
  sc.enumeration("pc", {std::begin(kGcPcNames), std::end(kGcPcNames)}, gc);
  sc.integer("round", 0, rounds, gc);
  sc.enumeration("waits", {std::begin(kGcWaitNames), std::end(kGcWaitNames)}, gc);
  sc.enumeration("io", {std::begin(kJournalIoNames), std::end(kJournalIoNames)}, jn);
  sc.boolean("need_write", jn);
  sc.enumeration("wb_pc", {std::begin(kWbPcNames), std::end(kWbPcNames)}, wb);
  sc.integer("issued", 0, keys, wb);
  sc.enumeration("key", {std::begin(kKeyNames), std::end(kKeyNames)}, ks);
  // system_wq holds journal_write and, before the fix, one item per key.
  const int sys_slots = variant == WorkqueueModel::Before ? keys + 1 : 1;
  sc.integer("system_wq", 0, item_hi, sc.block("system_wq", sys_slots));
  if (variant == WorkqueueModel::Fix)
    sc.integer("writeback_wq", 0, item_hi, sc.block("writeback_wq", keys));
  sc.layout();
  return sc;
}

const ModelInfo& WorkqueueModel::static_info() {
  static const ModelInfo info{
      "workqueue",
      "bcache gc vs writeback (seed 003, PATCH 17/19): gc holds the btree root write lock in "
      "closure_sync waiting for journal_write on system_wq, while write_dirty_finish sleeps on "
      "the root read lock in a worker of the same queue",
      {
          {"workers", 1, 1, kMaxWorkers,
           "max_active of each workqueue: work items active at once (one asleep keeps its slot)"},
          {"keys", 1, 1, kMaxKeys, "dirty keys read_dirty writes back (one dirty_io closure each)"},
          {"rounds", 1, 1, kMaxRounds,
           "root rewrites by the gc thread (bch_btree_set_root + closure_sync under the root "
           "write lock)"},
          {"journal_full", 1, 0, 1,
           "1: journal_write_unlocked, run inline from gc's journal_try_write, may find the "
           "journal full and queue journal_write on system_wq; 0: the journal never fills"},
      },
      {
          {"before", "v4.13",
           "read_dirty_submit and write_dirty continue_at(..., system_wq): writeback's "
           "write_dirty/write_dirty_finish share system_wq with journal_write",
           "seeds/003_b6080861c1d4707e.txt (PATCH 17/19); drivers/md/bcache/writeback.c, "
           "journal.c, btree.c (v4.12, v4.13) before 9baf30972b55"},
          {"fix", "9baf30972b55",
           "\"bcache: fix for gc and write-back race\": write_dirty and write_dirty_finish run on "
           "the cached device's own dc->writeback_write_wq",
           "seeds/003_b6080861c1d4707e.txt (PATCH 17/19, Tang Junhui, 2017); commit "
           "9baf30972b55"},
      },
      {
          {"deadlock", PropKind::Deadlock,
           "no reachable state is stuck before both threads and every work item have finished "
           "(seed 003: gc in closure_sync under the root write lock waits for journal_write, "
           "queued on system_wq behind write_dirty_finish, which holds the worker asleep in "
           "down_read on the root lock)"},
          {"all-work-runs", PropKind::Progress,
           "from every reachable state, a state where both threads are done and every queued "
           "work item has run stays reachable"},
      },
      {"down_write", "bch_btree_set_root", "closure_sync", "refill_dirty", "read_dirty",
       "read_dirty_sync", "read_dirty_endio", "dirty_endio", "journal_write_done", "write_dirty",
       "write_dirty_finish", "bch_btree_insert", "journal_write"},
  };
  return info;
}

WorkqueueModel::WorkqueueModel(int variant, const Params& p)
    : variant_(variant),
      workers_(p.at("workers")),
      keys_(p.at("keys")),
      rounds_(p.at("rounds")),
      journal_full_(p.at("journal_full") != 0) {
  if (variant < 0 || variant > Fix) throw UsageError("workqueue: bad variant index");
  if (workers_ < 1 || workers_ > kMaxWorkers || keys_ < 1 || keys_ > kMaxKeys || rounds_ < 1 ||
      rounds_ > kMaxRounds)
    throw UsageError("workqueue: parameter out of range");
  // system_wq holds journal_write (at most one: it is the journal closure's
  // work) and, before the fix, one item per dirty_io closure.
  cap_sys_ = variant_ == Before ? keys_ + 1 : 1;
  cap_wbq_ = variant_ == Fix ? keys_ : 0;
  schema_ = workqueue::schema(variant_, keys_, rounds_);
  fit_schema("workqueue");
  auto byte = [&](const char* n) { return schema_.byte_var(schema_.find(n)); };
  gc_pc_ = byte("pc"), gc_round_ = byte("round"), gc_wait_ = byte("waits");
  journal_io_ = byte("io"), need_write_ = schema_.bit_var(schema_.find("need_write"));
  wb_pc_ = byte("wb_pc"), wb_issued_ = byte("issued"), key_ = byte("key");
  sys_ = byte("system_wq");
  if (variant_ == Fix) wbq_ = byte("writeback_wq");
  auto first = [&](const char* n) { return schema_.index(schema_.find(n)); };
  fl_ = {first("pc"),    first("round"),  first("waits"), first("io"),        first("need_write"),
         first("wb_pc"), first("issued"), first("key"),   first("system_wq"),
         variant_ == Fix ? first("writeback_wq") : -1};
}

WorkqueueModel::State WorkqueueModel::initial() const {
  // Every variable at 0 (its first value): gc before down_write, journal idle, writeback thread
  // before refill_dirty, no key issued, both queues empty.
  return State{};
}

int WorkqueueModel::queue_len(const State& s, int q) const {
  int n = 0;
  while (n < queue_capacity(q) && slot(s, q, n) != 0) ++n;
  return n;
}

int WorkqueueModel::busy(const State& s, int q) const {
  if (q != writeback_queue()) return 0;  // journal_write never sleeps
  int n = 0;
  for (int k = 0; k < keys_; ++k) n += key(s, k) == K_FWAIT || key(s, k) == K_FLOCKED;
  return n;
}

int WorkqueueModel::readers(const State& s) const {
  int n = 0;
  for (int k = 0; k < keys_; ++k) n += key(s, k) == K_FLOCKED;
  return n;
}

bool WorkqueueModel::seed_cycle(const State& s) const {
  if (gc_pc(s) != GC_SYNC || gc_wait(s) != W_ENTRY || journal_io(s) != J_QUEUED) return false;
  if (writeback_queue() != SYS) return false;
  int asleep = 0;
  for (int k = 0; k < keys_; ++k) asleep += key(s, k) == K_FWAIT;
  return asleep == workers_ && busy(s, SYS) == workers_;
}

void WorkqueueModel::queue_work(State& s, int q, std::uint8_t item) const {
  const int n = queue_len(s, q);
  if (n >= queue_capacity(q)) throw std::logic_error("workqueue: queue overflow");
  set_slot(s, q, n, item);
}

std::uint8_t WorkqueueModel::pop_work(State& s, int q) const {
  const std::uint8_t head = slot(s, q, 0);
  const int cap = queue_capacity(q);
  for (int i = 0; i + 1 < cap; ++i) set_slot(s, q, i, slot(s, q, i + 1));
  set_slot(s, q, cap - 1, 0);
  return head;
}

// bch_btree_gc -> btree_root(gc_root, ...): rw_lock(true, root) is
// down_write. It sleeps while write_dirty_finish items hold the read lock,
// and is granted when the last of them calls up_read.
void WorkqueueModel::btree_root_down_write(State& s) const {
  set_gc_pc(s, readers(s) == 0 ? GC_SET_ROOT : GC_LOCK_WAIT);
}

// bch_btree_gc_root -> bch_btree_set_root -> bch_journal_meta(c, &cl) ->
// bch_journal: closure_wait(&w->wait, &cl), then journal_try_write: set
// need_write; if no journal io is in flight, claim it (io_in_flight = 1) and
// run journal_write_unlocked inline. Then closure_sync(&cl), root still
// write-locked.
void WorkqueueModel::bch_btree_set_root(State& s, bool journal_full) const {
  set_need_write(s, true);
  set_gc_wait(s, W_ENTRY);
  if (journal_io(s) == J_IDLE) journal_write_unlocked(s, journal_full);
  set_gc_pc(s, GC_SYNC);
}

// journal_write_unlocked with need_write set: when the journal is full,
// journal_reclaim + btree_flush_write and continue_at(cl, journal_write,
// system_wq); else the current entry goes out in a journal bio and its
// waiters wait for journal_write_done.
void WorkqueueModel::journal_write_unlocked(State& s, bool journal_full) const {
  if (journal_full) {
    queue_work(s, SYS, kJournalItem);
    set_journal_io(s, J_QUEUED);
    return;
  }
  set_need_write(s, false);
  if (gc_wait(s) == W_ENTRY) set_gc_wait(s, W_WRITE);
  set_journal_io(s, J_BIO);
}

// closure_sync(&cl) returns; back in btree_root: rw_unlock(true, root).
// up_write grants the read lock to every write_dirty_finish asleep in
// down_read.
void WorkqueueModel::gc_closure_sync(State& s) const {
  set_gc_round(s, gc_round(s) + 1);
  set_gc_pc(s, gc_round(s) == rounds_ ? GC_DONE : GC_LOCK);
  for (int k = 0; k < keys_; ++k)
    if (key(s, k) == K_FWAIT) set_key(s, k, K_FLOCKED);
}

// bch_writeback_thread -> refill_dirty -> bch_refill_keybuf ->
// bch_btree_map_keys: a btree walk under the root read lock, taken and
// dropped in this step.
void WorkqueueModel::refill_dirty(State& s) const { set_wb_pc(s, WB_READ); }

// read_dirty: down(&dc->in_flight), closure_call(&io->cl, read_dirty_submit):
// the read bio is submitted and continue_at(cl, write_dirty, wq) is armed.
void WorkqueueModel::read_dirty(State& s, int k) const {
  set_key(s, k, K_READ);
  set_wb_issued(s, k + 1);
  if (k + 1 == keys_) set_wb_pc(s, WB_SYNC);
}

// read_dirty's closure_sync(&cl) returns: every dirty_io has finished.
void WorkqueueModel::read_dirty_sync(State& s) const { set_wb_pc(s, WB_DONE); }

// read_dirty_endio -> dirty_endio -> closure_put: the closure's last ref is
// gone, closure_queue puts write_dirty on the queue.
void WorkqueueModel::read_dirty_endio(State& s, int k) const {
  set_key(s, k, K_QWRITE);
  queue_work(s, writeback_queue(), std::uint8_t(kKeyItem + k));
}

// dirty_endio (write bio) -> closure_put: write_dirty_finish is queued.
void WorkqueueModel::dirty_endio(State& s, int k) const {
  set_key(s, k, K_QFINISH);
  queue_work(s, writeback_queue(), std::uint8_t(kKeyItem + k));
}

// journal_write_endio -> closure_put -> journal_write_done (continue_at with
// no workqueue: runs right there): __closure_wake_up(&w->wait) wakes the
// written entry's waiters, then continue_at_nobarrier(cl, journal_write,
// system_wq).
void WorkqueueModel::journal_write_done(State& s) const {
  if (gc_wait(s) == W_WRITE) set_gc_wait(s, W_NONE);
  queue_work(s, SYS, kJournalItem);
  set_journal_io(s, J_QUEUED);
}

// A kworker runs write_dirty: the write bio is submitted, continue_at(cl,
// write_dirty_finish, wq). Never sleeps: one step.
void WorkqueueModel::write_dirty(State& s, int k) const {
  pop_work(s, writeback_queue());
  set_key(s, k, K_WRITE);
}

// A kworker starts write_dirty_finish -> bch_btree_insert ->
// bch_btree_map_leaf_nodes -> btree_root: rw_lock(false, root) is
// down_read. Granted, or the kworker sleeps in it, and the item stays
// active on its queue (it keeps its max_active slot).
void WorkqueueModel::write_dirty_finish(State& s, int k) const {
  pop_work(s, writeback_queue());
  set_key(s, k, read_lock_free(s) ? K_FLOCKED : K_FWAIT);
}

// bch_btree_insert_node on the leaf, rw_unlock(false, root) (up_read),
// bch_keybuf_del, up(&dc->in_flight), closure_return: the item returns and
// its worker is free.
void WorkqueueModel::bch_btree_insert(State& s, int k) const { set_key(s, k, K_DONE); }

// A kworker of system_wq runs journal_write -> journal_write_unlocked: with
// no entry pending, closure_return_with_destructor(cl, journal_write_unlock)
// ends the journal io (io_in_flight = 0); else it writes the pending entry
// (space was reclaimed before this requeue: never full here).
void WorkqueueModel::journal_write(State& s) const {
  pop_work(s, SYS);
  if (!need_write(s)) {
    set_journal_io(s, J_IDLE);
    return;
  }
  journal_write_unlocked(s, false);
}

bool WorkqueueModel::finished(const State& s) const {
  if (gc_pc(s) != GC_DONE || wb_pc(s) != WB_DONE || journal_io(s) != J_IDLE) return false;
  for (int k = 0; k < keys_; ++k)
    if (key(s, k) != K_DONE) return false;
  for (int q = SYS; q < actors(); ++q)
    if (queue_len(s, q) != 0) return false;
  return true;
}

// Both properties are decided by the explorer from the state graph
// (Deadlock: a stuck state; Progress: no finished state reachable), never
// by an invariant.
bool WorkqueueModel::violates(int, const State&) const { return false; }

std::string WorkqueueModel::actor_name(int actor) const {
  switch (actor) {
    case GC:
      return "gc thread";
    case WB:
      return "writeback";
    case IRQ:
      return "bio endio";
    case SYS:
      return "system_wq";
    default:
      return "writeback_wq";
  }
}

std::string WorkqueueModel::item_name(const State& s, std::uint8_t item) const {
  if (item == kJournalItem) return "journal_write";
  const int k = item - kKeyItem;
  return fmt::format("{}(k{})", key(s, k) == K_QWRITE ? "write_dirty" : "write_dirty_finish", k);
}

std::string WorkqueueModel::queue_text(const State& s, int q) const {
  std::string active, queued;
  if (q == writeback_queue())
    for (int k = 0; k < keys_; ++k) {
      if (key(s, k) == K_FWAIT)
        active += fmt::format("{}write_dirty_finish(k{}) asleep in down_read",
                              active.empty() ? "" : ", ", k);
      else if (key(s, k) == K_FLOCKED)
        active += fmt::format("{}write_dirty_finish(k{}) holds R", active.empty() ? "" : ", ", k);
    }
  for (int i = 0; i < queue_len(s, q); ++i) queued += (i ? ", " : "") + item_name(s, slot(s, q, i));
  return fmt::format("{} {}/{} busy [{}] queued [{}]", actor_name(q), busy(s, q), workers_, active,
                     queued);
}

std::string WorkqueueModel::lock_text(const State& s) const {
  std::string out = "root ";
  if (writer_holds(s)) {
    out += "W by gc";
  } else if (readers(s)) {
    out += "R by";
    for (int k = 0; k < keys_; ++k)
      if (key(s, k) == K_FLOCKED) out += fmt::format(" k{}", k);
  } else {
    out += "free";
  }
  if (writer_waits(s)) out += ", gc waits for W";
  return out;
}

std::string WorkqueueModel::describe(const State& s, const Step& st) const {
  const int k = st.arg;
  const std::string wq =
      st.actor == WBQ || writeback_queue() == WBQ ? "writeback_write_wq" : "system_wq";
  State n = s;
  apply(s, st, n);  // the state after, for queue contents
  switch (st.action) {
    case DOWN_WRITE:
      if (gc_pc(s) == GC_LOCK_WAIT)
        return "down_write(root) returns: the last reader left; gc holds the btree root write "
               "lock";
      if (readers(s) == 0)
        return fmt::format(
            "bch_btree_gc -> btree_root(gc_root): down_write(root) takes the "
            "btree root write lock (round {} of {})",
            gc_round(s) + 1, rounds_);
      {
        std::string who;
        for (int i = 0; i < keys_; ++i)
          if (key(s, i) == K_FLOCKED)
            who += fmt::format("{}write_dirty_finish(k{})", who.empty() ? "" : ", ", i);
        return fmt::format(
            "bch_btree_gc -> btree_root(gc_root): down_write(root) sleeps: {} "
            "holds the read lock; new readers now queue behind gc",
            who);
      }
    case SET_ROOT: {
      std::string head =
          "bch_btree_gc_root -> bch_btree_set_root -> bch_journal_meta: closure_wait on the "
          "journal entry, journal_try_write (need_write)";
      std::string tail = "; gc sleeps in closure_sync holding the root write lock";
      if (journal_io(s) == J_IDLE && st.arg)
        return head +
               fmt::format(
                   "; journal_write_unlocked finds journal_full(): journal_reclaim, "
                   "btree_flush_write, continue_at(journal_write, system_wq) -> {}",
                   queue_text(n, SYS)) +
               tail;
      if (journal_io(s) == J_IDLE)
        return head + "; journal_write_unlocked submits the journal bio with gc's entry" + tail;
      if (journal_io(s) == J_QUEUED)
        return head +
               fmt::format(
                   "; journal io already in flight: only the queued journal_write can "
                   "write the entry ({})",
                   queue_text(s, SYS)) +
               tail;
      return head +
             "; journal io in flight: the entry waits for the journal_write that "
             "journal_write_done will queue" +
             tail;
    }
    case CLOSURE_SYNC: {
      std::string woken;
      for (int i = 0; i < keys_; ++i)
        if (key(s, i) == K_FWAIT)
          woken += fmt::format("{}write_dirty_finish(k{})", woken.empty() ? "" : ", ", i);
      return fmt::format(
          "closure_sync returns (gc's journal entry is written); btree_root: "
          "rw_unlock(true, root){}; gc round {} of {} done",
          woken.empty() ? "" : ", up_write hands the read lock to " + woken, gc_round(s) + 1,
          rounds_);
    }
    case REFILL_DIRTY:
      return fmt::format(
          "bch_writeback_thread -> refill_dirty -> bch_refill_keybuf: btree walk "
          "under the root read lock finds {} dirty key(s)",
          keys_);
    case READ_DIRTY:
      return fmt::format(
          "read_dirty: closure_call(read_dirty_submit) for k{}: read bio "
          "submitted, continue_at(write_dirty, {})",
          k, wq);
    case READ_DIRTY_SYNC:
      return "read_dirty: closure_sync returns, every dirty_io closure has finished";
    case READ_DIRTY_ENDIO:
      return fmt::format("read_dirty_endio(k{}) -> closure_put: write_dirty queued -> {}", k,
                         queue_text(n, writeback_queue()));
    case DIRTY_ENDIO:
      return fmt::format("dirty_endio(k{}) -> closure_put: write_dirty_finish queued -> {}", k,
                         queue_text(n, writeback_queue()));
    case JOURNAL_WRITE_ENDIO:
      return fmt::format(
          "journal_write_endio -> journal_write_done: {}; "
          "continue_at_nobarrier(journal_write, system_wq) -> {}",
          gc_wait(s) == W_WRITE ? "wakes gc's closure (closure_sync may return)" : "no waiter",
          queue_text(n, SYS));
    case WRITE_DIRTY:
      return fmt::format(
          "kworker runs write_dirty(k{}): write bio submitted, "
          "continue_at(write_dirty_finish, {})",
          k, wq);
    case WRITE_DIRTY_FINISH:
      if (read_lock_free(s))
        return fmt::format(
            "kworker runs write_dirty_finish(k{}) -> bch_btree_insert -> "
            "btree_root: down_read(root) takes the read lock",
            k);
      return fmt::format(
          "kworker runs write_dirty_finish(k{}) -> bch_btree_insert -> btree_root: "
          "down_read(root) SLEEPS ({}); the item keeps its worker -> {}",
          k, writer_holds(s) ? "gc holds the write lock" : "gc waits for it",
          queue_text(n, writeback_queue()));
    case BTREE_INSERT:
      return fmt::format(
          "write_dirty_finish(k{}): bch_btree_insert_node done, rw_unlock(false, "
          "root), closure_return; its worker is free",
          k);
    case JOURNAL_WRITE:
      if (!need_write(s))
        return "kworker runs journal_write -> journal_write_unlocked: nothing pending, "
               "journal_write_unlock (io_in_flight = 0)";
      return fmt::format(
          "kworker runs journal_write -> journal_write_unlocked: submits the "
          "journal bio with the pending entry{}",
          gc_wait(s) == W_ENTRY ? " (gc's)" : "");
    default:
      return "?";
  }
}

Footprint WorkqueueModel::footprint(const State&, const Step& st) const {
  Footprint f;
  // The gc thread (pc, round), its closure, the journal io, the writeback
  // thread, every key, the queues (every slot); flat indices of fl_.
  auto gc = [&](Bits& b) { b.set(std::size_t(fl_.pc)).set(std::size_t(fl_.round)); };
  auto gccl = [&](Bits& b) { b.set(std::size_t(fl_.waits)); };
  auto jn = [&](Bits& b) { b.set(std::size_t(fl_.io)).set(std::size_t(fl_.need_write)); };
  auto wb = [&](Bits& b) { b.set(std::size_t(fl_.wb_pc)).set(std::size_t(fl_.issued)); };
  auto all_keys = [&](Bits& b) { this->all_keys(b); };
  auto sys = [&](Bits& b) { slots(b, SYS); };
  auto wq = [&](Bits& b) { slots(b, writeback_queue()); };
  const auto k = std::size_t(fl_.key + st.arg);
  switch (st.action) {
    case DOWN_WRITE:
      gc(f.reads);
      all_keys(f.reads);  // readers
      gc(f.writes);
      break;
    case SET_ROOT:
      for (Bits* b : {&f.reads, &f.writes}) gc(*b), gccl(*b), jn(*b), sys(*b);
      break;
    case CLOSURE_SYNC:
      gc(f.reads), gccl(f.reads), all_keys(f.reads);
      gc(f.writes);
      all_keys(f.writes);  // up_write wakes the sleeping readers
      break;
    case REFILL_DIRTY:
      wb(f.reads), gc(f.reads);
      wb(f.writes);
      break;
    case READ_DIRTY:
      wb(f.reads), f.reads.set(k);
      wb(f.writes), f.writes.set(k);
      break;
    case READ_DIRTY_SYNC:
      wb(f.reads), all_keys(f.reads);
      wb(f.writes);
      break;
    case READ_DIRTY_ENDIO:
    case DIRTY_ENDIO:
      f.reads.set(k), wq(f.reads);
      f.writes.set(k), wq(f.writes);
      break;
    case JOURNAL_WRITE_ENDIO:
      for (Bits* b : {&f.reads, &f.writes}) jn(*b), gccl(*b), sys(*b);
      break;
    case WRITE_DIRTY:
    case WRITE_DIRTY_FINISH:
      wq(f.reads);
      all_keys(f.reads);  // busy workers, the head item's closure
      if (st.action == WRITE_DIRTY_FINISH) gc(f.reads);
      wq(f.writes), f.writes.set(k);
      break;
    case BTREE_INSERT:
      f.reads.set(k);
      f.writes.set(k);
      // The queue's other steps: its head item and its free workers.
      wq(f.reads), all_keys(f.reads);
      break;
    case JOURNAL_WRITE:
      sys(f.reads), jn(f.reads), gccl(f.reads);
      if (writeback_queue() == SYS) all_keys(f.reads);  // busy workers
      sys(f.writes), jn(f.writes), gccl(f.writes);
      break;
    default:
      break;
  }
  // The irq actor's steps read what enables any of them: every key's bio
  // and the journal bio (a bio submitted elsewhere adds a completion).
  if (st.actor == IRQ) all_keys(f.reads), f.reads.set(std::size_t(fl_.io));
  return f;
}

void WorkqueueModel::all_keys(Bits& b) const {
  for (int k = 0; k < keys_; ++k) b.set(std::size_t(fl_.key + k));
}

void WorkqueueModel::slots(Bits& b, int q) const {
  const int first = q == SYS ? fl_.sys : fl_.wbq;
  for (int i = 0; i < queue_capacity(q); ++i) b.set(std::size_t(first + i));
}

Influence WorkqueueModel::influence() const {
  InfluenceBuilder b(schema_, static_info().props.size());
  b.maybe({"writeback_wq"});
  // The guards: gc's pc, what its closure waits for, the journal io (the
  // journal_full choice), the writeback thread, every key's closure, the
  // queues; finished() reads the same.
  b.control({"pc", "waits", "io", "wb_pc", "issued", "key", "system_wq", "writeback_wq"});
  b.flow("pc", {"pc", "round", "key"})  // down_write: readers; closure_sync: the last round
      .flow("round", {"round"})
      .flow("waits", {"waits", "io", "need_write"})
      .flow("io", {"io", "need_write"})
      .flow("need_write", {"need_write", "io"})
      .flow("wb_pc", {"wb_pc", "issued"})
      .flow("issued", {"issued"})
      // down_read granted or not (gc's pc); read_dirty's key (issued); the
      // head item names the key a kworker runs.
      .flow("key", {"key", "pc", "issued", "system_wq", "writeback_wq"})
      .flow("system_wq", {"system_wq", "key", "io"})
      .flow("writeback_wq", {"writeback_wq", "key"});
  // deadlock and all-work-runs are decided on the graph: no state variable.
  return b.done();
}

void WorkqueueModel::rename(State& s, const std::vector<int>& perm) const {
  for (int q = SYS; q < actors(); ++q)
    for (int i = 0; i < queue_capacity(q); ++i)
      if (const int it = slot(s, q, i); it >= kKeyItem)
        set_slot(s, q, i, kKeyItem + perm[std::size_t(it - kKeyItem)]);
}

Footprint WorkqueueModel::actor_future(const State& s, int actor) const {
  Footprint f;
  auto rw = [&](int first) {
    f.reads.set(std::size_t(first));
    f.writes.set(std::size_t(first));
  };
  // A key whose bios are still to come (read_dirty, the read and write bio).
  auto bio_ahead = [&](int k) { return key(s, k) <= K_WRITE; };
  bool any_bio = false, any_key = false;
  for (int k = 0; k < keys_; ++k) {
    any_bio = any_bio || bio_ahead(k);
    any_key = any_key || key(s, k) != K_DONE;
  }
  // Journal io may still start or is under way.
  const bool journal = gc_sets_root(s) || journal_io(s) != J_IDLE;
  const int wq = writeback_queue();
  switch (actor) {
    case GC:
      if (gc_pc(s) == GC_DONE) break;
      rw(fl_.pc), rw(fl_.round);
      f.reads.set(std::size_t(fl_.waits));
      all_keys(f.reads), all_keys(f.writes);  // readers; up_write wakes sleepers
      if (gc_sets_root(s)) {
        rw(fl_.waits), rw(fl_.io), rw(fl_.need_write);
        slots(f.reads, SYS), slots(f.writes, SYS);
      }
      break;
    case WB:
      if (wb_pc(s) == WB_DONE) break;
      rw(fl_.wb_pc), rw(fl_.issued);
      all_keys(f.reads);  // read_dirty's closure_sync
      for (int k = wb_issued(s); k < keys_; ++k) rw(fl_.key + k);
      if (wb_pc(s) == WB_REFILL) f.reads.set(std::size_t(fl_.pc)).set(std::size_t(fl_.round));
      break;
    case IRQ:
      if (!any_bio && !journal) break;
      all_keys(f.reads), f.reads.set(std::size_t(fl_.io));
      if (any_bio) {
        for (int k = 0; k < keys_; ++k)
          if (bio_ahead(k)) rw(fl_.key + k);
        slots(f.reads, wq), slots(f.writes, wq);
      }
      if (journal) {
        rw(fl_.io), rw(fl_.need_write), rw(fl_.waits);
        slots(f.reads, SYS), slots(f.writes, SYS);
      }
      break;
    default: {  // a queue: its key items (writeback's queue), journal_write (system_wq)
      const bool keys_here = actor == wq && any_key, journal_here = actor == SYS && journal;
      if (!keys_here && !journal_here) break;
      slots(f.reads, actor), slots(f.writes, actor);
      if (keys_here || actor == wq) all_keys(f.reads);  // busy workers, head items
      if (keys_here) {
        for (int k = 0; k < keys_; ++k)
          if (key(s, k) != K_DONE) f.writes.set(std::size_t(fl_.key + k));
        f.reads.set(std::size_t(fl_.pc)).set(std::size_t(fl_.round));  // down_read
      }
      if (journal_here) rw(fl_.io), rw(fl_.need_write), rw(fl_.waits);
      break;
    }
  }
  return f;
}

std::string WorkqueueModel::summary(const State& s) const {
  std::string gc = workqueue::kGcPcNames[gc_pc(s)];
  if (gc_pc(s) == GC_SYNC)
    gc += gc_wait(s) == W_ENTRY   ? " (waits for its journal entry to be written)"
          : gc_wait(s) == W_WRITE ? " (waits for the journal bio)"
                                  : " (woken)";
  std::string keys;
  for (int k = 0; k < keys_; ++k)
    keys += fmt::format("{}k{}:{}", k ? " " : "", k, workqueue::kKeyNames[key(s, k)]);
  std::string out =
      fmt::format("{} | gc {} r{}/{} | writeback {} | ", lock_text(s), gc,
                  std::min<int>(gc_round(s) + 1, rounds_), rounds_,
                  workqueue::kWbPcNames[wb_pc(s)]);
  for (int q = SYS; q < actors(); ++q) out += queue_text(s, q) + " | ";
  out += fmt::format("journal io {}{} | {}", workqueue::kJournalIoNames[journal_io(s)],
                     need_write(s) ? ", entry pending" : "", keys);
  if (seed_cycle(s))
    out +=
        " | CYCLE: gc holds root W in closure_sync -> waits for journal_write -> queued "
        "behind system_wq's workers -> all held by write_dirty_finish asleep in down_read -> "
        "waits for root W";
  return out;
}

nlohmann::json WorkqueueModel::state_json(const State& s) const {
  // gc, journal and writeback from the schema; the keys as a list of names,
  // the queues as the items queued, and the root lock, derived.
  nlohmann::json j = schema_.json(s);
  auto& wb = j["writeback"];
  wb["pc"] = std::move(wb["wb_pc"]);
  wb.erase("wb_pc");
  auto& ks = j["keys"] = nlohmann::json::array();
  const int key_id = schema_.find("key");
  for (int k = 0; k < keys_; ++k) ks.push_back(schema_.value_text(key_id, key(s, k)));
  j["root"] = {{"writer", writer_holds(s)   ? "holds"
                          : writer_waits(s) ? "waits"
                                            : "none"},
               {"readers", readers(s)}};
  for (int q = SYS; q < actors(); ++q) {
    auto& arr = j[q == SYS ? "system_wq" : "writeback_wq"] = nlohmann::json::array();
    for (int i = 0; i < queue_len(s, q); ++i) arr.push_back(item_name(s, slot(s, q, i)));
  }
  return j;
}

}  // namespace blkmc
