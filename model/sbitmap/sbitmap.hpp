// model/sbitmap/sbitmap: lost wake-ups in sbitmap_queue (lib/sbitmap.c) as used by
// blk-mq tag allocation (block/blk-mq-tag.c).
//
// Each task does `rounds` get-tag / put-tag cycles, as blk_mq_get_tag() and
// blk_mq_put_tag() do:
//   get:  __sbitmap_queue_get; on failure bt_wait_ptr picks a wait queue
//         (round robin over the hctx's wait_index); loop { try again;
//         sbitmap_prepare_to_wait (ws_active++, exclusive wait at the tail);
//         try again; io_schedule (sleeps until a wake-up removes the entry);
//         sbitmap_finish_wait; pick the next wait queue }.
//   put:  sbitmap_queue_clear: clear the bit (or, since 5.0, set it in the
//         word's deferred `cleared` mask), then sbitmap_queue_wake_up, the
//         waker path, split into the atomic steps its races need.
// The variants are the successive versions of the waker path (per-queue
// wait_cnt before 6.2, completion_cnt/wakeup_cnt from 6.2) and of the
// deferred clear (sbitmap_deferred_clear).
//
// Abstracted, and why:
// - One sbitmap word of `tags` bits; allocation takes the lowest free bit
//   (the per-cpu hint only picks among equivalent free bits).
// - One hctx: one wait_index for bt_wait_ptr, no hctx migration (so no fake
//   wake-up of the previous queue).
// - A wait queue is a FIFO of exclusive waiters; wake_up_nr(n) removes the
//   first n entries and wakes them (autoremove_wake_function), also a task
//   that has prepared but not yet called io_schedule (it then does not
//   sleep).
// - sbq_wake_ptr's scan, sbq_index_atomic_inc, a try_cmpxchg loop and
//   __sbitmap_queue_wake_up's scan are each one atomic step.
// - wait_cnt saturates at -(tasks + 1), below anything concurrent
//   decrements reach without a retry, so a waker that decrements it forever
//   (a busy loop) cycles through finitely many states.
// - irq=1: a task may run its whole put path as an interrupt on the CPU of a
//   task that is inside its own wake-up path; the interrupted task cannot
//   step until the interrupt's wake-up returns (30514bd2dd4e's lockup).
// - wake_batch defaults to the kernel's clamp(depth / SBQ_WAIT_QUEUES, 1, 8)
//   with nr_ws queues instead of 8, which keeps the kernel's sizing rule
//   (the full depth is enough to wake every queue once).
#pragma once

#include <nlohmann/json.hpp>

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "model/schema.hpp"
#include "model/schema_model.hpp"

namespace blkmc {

namespace sbitmap {
// Task program counters by name, indexed by SbitmapModel::Pc.
inline constexpr const char* kPcNames[] = {
    "get",      "dclear",      "andnot",   "prepare",    "schedule",     "finish",     "finish-got",
    "put",      "wake-ptr",    "wake-dec", "wake-check", "wake-cmpxchg", "wake-up-nr", "wake-inc",
    "wake-set", "wake-active", "wake-add", "wake-cmp",   "wake-xchg",    "wake-scan",  "done"};
struct Config {
  int variant, tags, tasks, rounds, nr_ws, batch;  // batch: the resolved wake_batch
};
// The state variables, declared once: the sbitmap word and its deferred
// `cleared` mask (bitmaps as integers), wake_index and the hctx wait_index,
// completion_cnt and wakeup_cnt (6.2 on), the interrupt in progress (irq:
// owner and victim, -1 none), the wasted-wakeup ghost; per wait queue its
// wait_cnt (before 6.2); the wait queues' FIFO slots, a block over queue
// slots (slot q * tasks + i is entry i of queue q: task + 1, 0 past the
// end); per task pc, round, tag, ws, mask, waker_ws (-1 none), cnt, phase,
// woken, prepared.
Schema schema(const Config& c);
}  // namespace sbitmap

class SbitmapModel : public SchemaModel<SbitmapModel> {
 public:
  static constexpr int kMaxTags = 8, kMaxTasks = 6, kMaxWs = 8, kMaxRounds = 4;
  // The schema's layout at the maxima: 6 shared bytes, 8 wait_cnt (or 2
  // counts from 6.2 on), 48 queue slots, 8 bytes per task and 2 bytes of
  // bits: 112 (the constructor checks).
  static constexpr int kTaskBytes = 8;
  using State = ByteState<9 + kMaxWs + kMaxWs * kMaxTasks + kTaskBytes * kMaxTasks>;

  // Variants, oldest first: each is the kernel after the named commit.
  enum Variant : int {
    PreC854,     // 4.17: cmpxchg(wait_cnt, c, c + batch), every loser wakes too
    C854,        // c854ab5773be (4.18..6.0): reset to batch, the loser retries
    Y040b83,     // 040b83fcecfb (6.1-rc1): wake first, then index, then reset
    J48c033,     // 48c033314f37 (6.1-rc): reset wait_cnt even if nobody was woken
    H30514,      // 30514bd2dd4e (6.1): sbq_wake_ptr skips a queue whose wait_cnt is 0
    K4f8126,     // 4f8126bb2308 (6.2 as merged): completion_cnt / wakeup_cnt
    K26edb30,    // 26edb30dd1c0 (6.2): wake at least one waiter, trying every queue
    D106397,     // 106397376c03 (6.5..6.10): wake a whole batch across queues
    Y72d04b,     // 72d04bdcf3f7 (6.11): sbitmap_deferred_clear under swap_lock
  };
  enum Prop : int { NoLostWakeup, Deadlock, WaitCntReset, NoWastedWakeup };
  // The bitmap clearing scheme (parameter `clear`; -1 takes the variant's).
  enum Clear : int { ClearBit, DeferredLocked, DeferredLockless, DeferredRecheck };

  // Task program counter; also the Step::action of its steps.
  enum Pc : std::uint8_t {
    GET,         // __sbitmap_queue_get: __sbitmap_get_word (all of it with clear=0)
    DCLEAR,      // sbitmap_deferred_clear
    ANDNOT,      // its atomic_long_andnot(mask, &map->word) (lockless only)
    PREPARE,     // sbitmap_prepare_to_wait
    SCHEDULE,    // io_schedule: enabled once woken
    FINISH,      // sbitmap_finish_wait after sleeping, then bt_wait_ptr
    FINISH_GOT,  // sbitmap_finish_wait after a successful re-try
    PUT,         // blk_mq_put_tag -> sbitmap_queue_clear: clear / deferred-clear the bit
    W_PTR,       // sbq_wake_ptr
    W_DEC,       // atomic_dec_return(&ws->wait_cnt) (6.1: conditional try_cmpxchg)
    W_CHECK,     // the tests after the decrement (waitqueue_active, sign)
    W_CMPXCHG,   // atomic_cmpxchg(&ws->wait_cnt, ...) (before 6.1)
    W_WAKE,      // wake_up_nr(&ws->wait, wake_batch)
    W_INC,       // sbq_index_atomic_inc(&sbq->wake_index)
    W_SET,       // atomic_set(&ws->wait_cnt, wake_batch)
    W_ACTIVE,    // 6.2: if (!atomic_read(&sbq->ws_active)) return
    W_ADD,       // 6.2: atomic_add(nr, completion_cnt); wakeups = wakeup_cnt
    W_CMP,       // 6.2: completion_cnt - wakeups < wake_batch -> return
    W_XCHG,      // 6.2: atomic_try_cmpxchg(&wakeup_cnt, &wakeups, wakeups + batch)
    W_SCAN,      // 6.2: __sbitmap_queue_wake_up over the queues
    DONE,
  };
  static constexpr int kNumPc = DONE + 1;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  SbitmapModel(int variant, const Params& params);

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
  // What each variable is computed from, what the guards and properties read.
  Influence influence() const;
  // The tasks are interchangeable for every property (none names a task).
  int symmetric_block(const std::vector<int>& props) const;
  // After the tasks' blocks moved (copy c to perm[c]): the wait queues'
  // entries (task + 1) and the interrupt's owner and victim name the moved
  // tasks.
  void rename(State& s, const std::vector<int>& perm) const;
  int actors() const { return ntasks_; }
  // Everything task `actor` may read or write in any step from s on.
  Footprint actor_future(const State& s, int actor) const;

  int variant() const { return variant_; }
  int tags() const { return ntags_; }
  int tasks() const { return ntasks_; }
  int rounds() const { return rounds_; }
  int nr_ws() const { return nws_; }
  int batch() const { return batch_; }
  int clear() const { return clear_; }
  int wait_cnt_floor() const { return -(ntasks_ + 1); }
  bool irq() const { return irq_; }
  bool six_two() const { return variant_ >= K4f8126; }  // completion_cnt scheme
  static int default_clear(int variant);

  // --- shared state: slots of sbitmap::schema(), resolved once ---
  int word(const State& s) const { return word_.get(s); }
  void set_word(State& s, int v) const { word_.set(s, v); }
  int cleared(const State& s) const { return cleared_.get(s); }
  void set_cleared(State& s, int v) const { cleared_.set(s, v); }
  int wake_index(const State& s) const { return wake_index_.get(s); }
  void set_wake_index(State& s, int v) const { wake_index_.set(s, v); }
  int wait_index(const State& s) const { return wait_index_.get(s); }  // hctx->wait_index
  void set_wait_index(State& s, int v) const { wait_index_.set(s, v); }
  // 6.2 on (there are no such variables before: 0).
  int completion_cnt(const State& s) const { return six_two() ? completion_cnt_.get(s) : 0; }
  void set_completion_cnt(State& s, int v) const {
    if (six_two()) completion_cnt_.set(s, v);
  }
  int wakeup_cnt(const State& s) const { return six_two() ? wakeup_cnt_.get(s) : 0; }
  void set_wakeup_cnt(State& s, int v) const {
    if (six_two()) wakeup_cnt_.set(s, v);
  }
  // The interrupt in progress: -1 when none.
  int irq_owner(const State& s) const { return irq_owner_.get(s); }
  int irq_victim(const State& s) const { return irq_victim_.get(s); }
  void set_irq(State& s, int owner, int victim) const {
    irq_owner_.set(s, owner);
    irq_victim_.set(s, victim);
  }
  // Ghost for the invariants: a completed batch woke nobody while tasks waited.
  bool wasted(const State& s) const { return wasted_.test(s); }
  void set_wasted(State& s, bool v) const { wasted_.set(s, v); }
  // Before 6.2 (from 6.2 on there is no such variable: wake_batch, as set
  // at init).
  int wait_cnt(const State& s, int q) const { return six_two() ? batch_ : wait_cnt_.get(s, q); }
  void set_wait_cnt(State& s, int q, int v) const {
    if (!six_two()) wait_cnt_.set(s, q, v);
  }
  // A waker between its decrement of wait_cnt and the end of its reset.
  bool resetting(const State& s, int t) const {
    const int p = pc(s, t);
    return p == W_CHECK || p == W_CMPXCHG || p == W_WAKE || p == W_INC || p == W_SET;
  }
  int waiters(const State& s) const;  // tasks on any wait queue
  // Wait queue q, FIFO: entry i is task+1, 0 past the end.
  int list_at(const State& s, int q, int i) const { return wait_.get(s, q * ntasks_ + i); }
  void set_list_at(State& s, int q, int i, int v) const { wait_.set(s, q * ntasks_ + i, v); }
  int list_len(const State& s, int q) const;
  bool waitqueue_active(const State& s, int q) const { return list_at(s, q, 0) != 0; }
  int ws_active(const State& s) const;  // tasks with sbq_wait->sbq set
  bool on_list(const State& s, int task) const;

  // --- per task ---
  int pc(const State& s, int t) const { return pc_.get(s, t); }
  void set_pc(State& s, int t, int v) const { pc_.set(s, t, v); }
  int round(const State& s, int t) const { return round_.get(s, t); }
  void set_round(State& s, int t, int v) const { round_.set(s, t, v); }
  int tag(const State& s, int t) const { return tag_.get(s, t); }
  void set_tag(State& s, int t, int v) const { tag_.set(s, t, v); }
  // The wait queue bt_wait_ptr gave the task.
  int ws(const State& s, int t) const { return ws_.get(s, t); }
  void set_ws(State& s, int t, int v) const { ws_.set(s, t, v); }
  // The mask taken by xchg(&map->cleared, 0), not yet and-not'ed into the word.
  int mask(const State& s, int t) const { return mask_.get(s, t); }
  void set_mask(State& s, int t, int v) const { mask_.set(s, t, v); }
  // The waker's wait queue (+1; 0 none): the schema's waker_ws + 1.
  int wws(const State& s, int t) const { return waker_ws_.get(s, t) + 1; }
  void set_wws(State& s, int t, int v) const { waker_ws_.set(s, t, v - 1); }
  // The waker's local count: wait_cnt after its decrement, or (6.2) wakeups.
  int cnt(const State& s, int t) const { return cnt_.get(s, t); }
  void set_cnt(State& s, int t, int v) const { cnt_.set(s, t, v); }
  // Which try: 0 first, 1 loop top, 2 after prepare.
  int phase(const State& s, int t) const { return phase_.get(s, t); }
  void set_phase(State& s, int t, int v) const { phase_.set(s, t, v); }
  // Removed from its wait queue by a wake-up.
  bool woken(const State& s, int t) const { return woken_.test(s, t); }
  void set_woken(State& s, int t, bool v) const { woken_.set(s, t, v); }
  // sbq_wait->sbq set: counted in ws_active.
  bool prepared(const State& s, int t) const { return prepared_.test(s, t); }
  void set_prepared(State& s, int t, bool v) const { prepared_.set(s, t, v); }
  bool waker(const State& s, int t) const { return pc(s, t) >= W_PTR && pc(s, t) <= W_SCAN; }
  bool sleeping(const State& s, int t) const { return pc(s, t) == SCHEDULE && !woken(s, t); }
  // A task may step unless an interrupt runs on its CPU.
  bool runnable(const State& s, int t) const {
    return pc(s, t) != DONE && irq_victim(s) != t && (pc(s, t) != SCHEDULE || woken(s, t));
  }
  std::uint8_t full_mask() const { return std::uint8_t((1u << ntags_) - 1); }

 private:
  // One step of task t; `text` (when not null) gets what the kernel did.
  void exec(State& s, const Step& st, std::string* text) const;
  // Named after the kernel functions they mirror.
  void sbitmap_get(State& s, int t, std::string* text) const;
  void sbitmap_deferred_clear(State& s, int t, std::string* text) const;
  void deferred_clear_andnot(State& s, int t, std::string* text) const;
  void sbitmap_prepare_to_wait(State& s, int t, std::string* text) const;
  void io_schedule(State& s, int t, std::string* text) const;
  void sbitmap_finish_wait(State& s, int t, bool got, std::string* text) const;
  void blk_mq_put_tag(State& s, int t, int victim, std::string* text) const;
  void sbq_wake_ptr(State& s, int t, std::string* text) const;
  void wait_cnt_dec(State& s, int t, std::string* text) const;
  void wait_cnt_check(State& s, int t, std::string* text) const;
  void wait_cnt_cmpxchg(State& s, int t, std::string* text) const;
  void wake_up_nr(State& s, int t, std::string* text) const;
  void sbq_index_atomic_inc(State& s, int t, std::string* text) const;
  void wait_cnt_set(State& s, int t, std::string* text) const;
  void ws_active_check(State& s, int t, std::string* text) const;
  void completion_add(State& s, int t, std::string* text) const;
  void completion_cmp(State& s, int t, std::string* text) const;
  void wakeup_cmpxchg(State& s, int t, std::string* text) const;
  void sbitmap_queue_wake_scan(State& s, int t, std::string* text) const;

  // Helpers.
  void try_result(State& s, int t, bool got, std::string* text) const;
  void bt_wait_ptr(State& s, int t) const;
  int wake_list(State& s, int q, int n) const;  // wakes up to n waiters, returns how many
  void list_remove(State& s, int q, int task) const;
  void waker_retry(State& s, int t) const;  // __sbq_wake_up returned true: call it again
  void waker_done(State& s, int t) const;   // sbitmap_queue_wake_up returned
  int find_wake_ptr(const State& s, bool skip_zero) const;
  std::string ws_name(int q) const;
  // The footprint of task t's step `action` (PUT: `arg` as in its Step) from
  // s, or, with s null, from any state (any queue, any interrupt).
  void step_footprint(Footprint& f, int t, int action, int arg, const State* s) const;

  // Flat (footprint) index of each variable's first element; -1 when the
  // variant has no such variable.
  struct Flat {
    int word, cleared, wake_index, wait_index, completion_cnt, wakeup_cnt, owner, victim, wasted,
        wait_cnt, wait, pc, round, tag, ws, mask, waker_ws, cnt, phase, woken, prepared;
  } fl_{};
  // actor_future by task, pc and whether it is the task's last round.
  std::vector<Footprint> futures_;
  void future_table();

  int variant_, ntags_, ntasks_, rounds_, nws_, batch_, clear_;
  bool irq_;
  ByteVar word_, cleared_, wake_index_, wait_index_, completion_cnt_, wakeup_cnt_, irq_owner_,
      irq_victim_, wait_cnt_, wait_;
  ByteVar pc_, round_, tag_, ws_, mask_, waker_ws_, cnt_, phase_;
  BitVar wasted_, woken_, prepared_;
};

template <class F>
void SbitmapModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  for (int t = 0; t < ntasks_; ++t) {
    if (!runnable(s, t)) continue;
    const int p = pc(s, t);
    const Step st{std::uint8_t(t), std::uint8_t(p), 0};
    next = s;
    exec(next, st, nullptr);
    emit(st, next);
    // irq=1: the put path may instead run as an interrupt on the CPU of a
    // task that is inside its own wake-up path.
    if (p == PUT && irq_ && irq_owner(s) < 0)
      for (int v = 0; v < ntasks_; ++v)
        if (v != t && waker(s, v)) {
          const Step si{std::uint8_t(t), std::uint8_t(p), std::uint8_t(v + 1)};
          next = s;
          exec(next, si, nullptr);
          emit(si, next);
        }
  }
}

}  // namespace blkmc
