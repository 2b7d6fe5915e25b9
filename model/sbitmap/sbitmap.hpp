// model/sbitmap: lost wake-ups in sbitmap_queue (lib/sbitmap.c) as used by
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

#include "model/model.hpp"
#include "model/params.hpp"

namespace blkmc {

class SbitmapModel {
 public:
  static constexpr int kMaxTags = 8, kMaxTasks = 6, kMaxWs = 8, kMaxRounds = 4;
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

  std::size_t state_bytes() const { return nbytes_; }
  State initial() const;

  template <class F>
  void for_each_successor(const State& s, F&& emit) const;
  bool apply(const State& s, const Step& step, State& next) const;
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;

  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const;
  Footprint footprint(const State& s, const Step& step) const;
  std::vector<std::string> variable_names() const;
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;

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

  // --- shared state ---
  static std::uint8_t word(const State& s) { return s.b[0]; }
  static std::uint8_t& word(State& s) { return s.b[0]; }
  static std::uint8_t cleared(const State& s) { return s.b[1]; }
  static std::uint8_t& cleared(State& s) { return s.b[1]; }
  static std::uint8_t wake_index(const State& s) { return s.b[2]; }
  static std::uint8_t& wake_index(State& s) { return s.b[2]; }
  static std::uint8_t wait_index(const State& s) { return s.b[3]; }  // hctx->wait_index
  static std::uint8_t& wait_index(State& s) { return s.b[3]; }
  static std::uint8_t completion_cnt(const State& s) { return s.b[5]; }
  static std::uint8_t& completion_cnt(State& s) { return s.b[5]; }
  static std::uint8_t wakeup_cnt(const State& s) { return s.b[6]; }
  static std::uint8_t& wakeup_cnt(State& s) { return s.b[6]; }
  // The interrupt in progress: -1 when none.
  static int irq_owner(const State& s) { return (s.b[4] & 15) - 1; }
  static int irq_victim(const State& s) { return (s.b[4] >> 4) - 1; }
  static void set_irq(State& s, int owner, int victim) {
    s.b[4] = std::uint8_t((owner + 1) | ((victim + 1) << 4));
  }
  // Ghost flags for the invariants.
  static constexpr std::uint8_t kWasted = 1;  // a completed batch woke nobody while tasks waited
  static std::uint8_t ghost(const State& s) { return s.b[7]; }
  static std::uint8_t& ghost(State& s) { return s.b[7]; }
  int wait_cnt(const State& s, int q) const { return static_cast<std::int8_t>(s.b[8 + q]); }
  void set_wait_cnt(State& s, int q, int v) const { s.b[8 + q] = std::uint8_t(std::int8_t(v)); }
  // A waker between its decrement of wait_cnt and the end of its reset.
  bool resetting(const State& s, int t) const {
    const int p = pc(s, t);
    return p == W_CHECK || p == W_CMPXCHG || p == W_WAKE || p == W_INC || p == W_SET;
  }
  int waiters(const State& s) const;  // tasks on any wait queue
  // Wait queue q, FIFO: entry i is task+1, 0 past the end.
  std::uint8_t list_at(const State& s, int q, int i) const { return s.b[off_list_ + q * ntasks_ + i]; }
  std::uint8_t& list_at(State& s, int q, int i) const { return s.b[off_list_ + q * ntasks_ + i]; }
  int list_len(const State& s, int q) const;
  bool waitqueue_active(const State& s, int q) const { return list_at(s, q, 0) != 0; }
  int ws_active(const State& s) const;  // tasks with sbq_wait->sbq set
  bool on_list(const State& s, int task) const;

  // --- per task ---
  std::uint8_t pc(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t]; }
  std::uint8_t& pc(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t]; }
  std::uint8_t round(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 1]; }
  std::uint8_t& round(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 1]; }
  std::uint8_t tag(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 2]; }
  std::uint8_t& tag(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 2]; }
  // The wait queue bt_wait_ptr gave the task.
  std::uint8_t ws(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 3]; }
  std::uint8_t& ws(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 3]; }
  // The mask taken by xchg(&map->cleared, 0), not yet and-not'ed into the word.
  std::uint8_t mask(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 4]; }
  std::uint8_t& mask(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 4]; }
  // The waker's wait queue (+1; 0 none).
  std::uint8_t wws(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 5]; }
  std::uint8_t& wws(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 5]; }
  // The waker's local count: wait_cnt after its decrement, or (6.2) wakeups.
  int cnt(const State& s, int t) const {
    return static_cast<std::int8_t>(s.b[off_task_ + kTaskBytes * t + 6]);
  }
  void set_cnt(State& s, int t, int v) const {
    s.b[off_task_ + kTaskBytes * t + 6] = std::uint8_t(std::int8_t(v));
  }
  std::uint8_t flags(const State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 7]; }
  std::uint8_t& flags(State& s, int t) const { return s.b[off_task_ + kTaskBytes * t + 7]; }
  static constexpr std::uint8_t kPhaseMask = 3;  // which try: 0 first, 1 loop top, 2 after prepare
  static constexpr std::uint8_t kWoken = 4;      // removed from its wait queue by a wake-up
  static constexpr std::uint8_t kPrepared = 8;   // sbq_wait->sbq set: counted in ws_active
  int phase(const State& s, int t) const { return flags(s, t) & kPhaseMask; }
  bool woken(const State& s, int t) const { return flags(s, t) & kWoken; }
  bool prepared(const State& s, int t) const { return flags(s, t) & kPrepared; }
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

  int variant_, ntags_, ntasks_, rounds_, nws_, batch_, clear_;
  bool irq_;
  std::size_t off_list_, off_task_, nbytes_;
};

template <class F>
void SbitmapModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  for (int t = 0; t < ntasks_; ++t) {
    if (!runnable(s, t)) continue;
    const std::uint8_t p = pc(s, t);
    const Step st{std::uint8_t(t), p, 0};
    next = s;
    exec(next, st, nullptr);
    emit(st, next);
    // irq=1: the put path may instead run as an interrupt on the CPU of a
    // task that is inside its own wake-up path.
    if (p == PUT && irq_ && irq_owner(s) < 0)
      for (int v = 0; v < ntasks_; ++v)
        if (v != t && waker(s, v)) {
          const Step si{std::uint8_t(t), p, std::uint8_t(v + 1)};
          next = s;
          exec(next, si, nullptr);
          emit(si, next);
        }
  }
}

}  // namespace blkmc
