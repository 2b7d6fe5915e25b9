// model/sched/deadline/deadline: the mq-deadline I/O scheduler (block/mq-deadline.c).
//
// Mirrors v6.18: the global dispatch list (at-head inserts, served first),
// per priority (RT, BE, IDLE) a sort list and a fifo list per direction and
// latest_pos[dir]; global last_dir, batching and starved; the priority loop
// with the aged pass (dd_dispatch_prio_aged_requests, only when >= 2
// priority levels have requests, dd_queued = inserted - completed, which
// counts dispatched-but-not-completed requests too); dd_start_request moves
// latest_pos to the start sector of the dispatched request. Initial state as
// dd_init_sched leaves it: last_dir = WRITE, latest_pos = 0, batching =
// starved = 0.
//
// Variants (each a visible `if (variant_ ...)` in deadline.cpp):
//   v6.18         as above.
//   head-request  seed 002 (Wang You, 2022, not merged): when no deadline
//                 expired and nothing lies at/after latest_pos, start the
//                 batch at the lowest sector (deadline_head_request) instead
//                 of the fifo head. The series' other half, nr_sched_batch =
//                 1 (blk-mq pulls one request per queue run), is what the
//                 model always explores: one dispatch per step, inserts and
//                 completions interleaved freely.
//   prio-5.14     fb926032b320 on c807ab520fc3 (5.14-rc1, reverted by
//                 7b05bf771084): per-priority dispatch lists checked against
//                 the aging limit too, next_rq pointers instead of
//                 latest_pos, the aged pass on every dispatch (no >= 2 levels
//                 test), start time = allocation time (ktime), and the 5.14
//                 accounting: inserted counted on every insert (a requeue
//                 counts twice), completed on every finish (also for requests
//                 that bypassed the scheduler; fixed by b6d2b054e8ba).
//   prio-5.16     322cff70d46c (5.16): the aged pass only with >= 2 levels,
//                 jiffies: started_after() reads fifo_time, which an at-head
//                 insert never sets (fixed by 725f22a1477c); completions
//                 counted only for inserted requests (b6d2b054e8ba), but a
//                 requeue still counts inserted twice (fixed by e2c7275dc0fe).
//   v6.1          6.1 (Debian's 6.1.192): prio-5.16 with both fixes, an
//                 at-head insert stamps fifo_time = jiffies and a request is
//                 counted once per life (rq->elv.priv[0]); blkmc conform holds
//                 it against the kernel's own 6.1 file on every interleaving.
//
// Abstractions: time in ticks, ages relative and saturating at
// max(read_expire, write_expire, prio_aging_expire); no merging (the real-
// device runs use nomerges=2), no zoned-device write locking, no async_depth
// (dd_limit_depth); a requeue re-inserts at once (blk_mq_requeue_work), at
// head in every variant (blk_mq_requeue_request has asked for the head,
// RQF_SOFTBARRIER before 6.5, BLK_MQ_INSERT_AT_HEAD since: blkmc conform
// found the tail of earlier versions of this model wrong against 6.1's
// code); a requeued request keeps the fifo_time of its first insert where
// an at-head insert sets none (prio-5.14, prio-5.16); an unset fifo_time
// (prio-5.16) stands for the value 0 during the first five minutes after boot
// (INITIAL_JIFFIES), i.e. a start time in the future for as long as the
// model runs.
#pragma once

#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

class DeadlineScheduler {
 public:
  enum Variant : int { V6_18, HeadRequest, Prio5_14, Prio5_16, V6_1 };

  static const std::vector<VariantInfo>& variants();
  static std::vector<ParamInfo> params();
  static const char* name() { return "deadline"; }
  static const char* dispatch_fn() { return "dd_dispatch_request"; }
  // Fifo order matters only within one priority and direction.
  static constexpr bool kFifoPerClass = true;
  static const char* summary();

  DeadlineScheduler(int variant, const Params& p, const RqTable& t);

  // Its variables: last_dir, batching, starved; per priority (the block
  // "dd_prio": RT, BE, IDLE) dd_queued and latest_pos[dir] or next_rq[dir];
  // with shadow=V a ghost bit: a dispatch choice differed from V's
  // (same-choice).
  void declare(Schema& sc, SchemaSlots& slots);
  void init(SchedState& s) const;
  void insert(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const {
    dd_insert_request(s, rq, at_head, requeue, why);
  }
  int dispatch(SchedState& s, Why* why) const { return dd_dispatch_request(s, why); }
  bool has_work(const SchedState& s) const { return dd_has_work(s); }
  void completed(SchedState& s, int rq, Why* why) const { dd_finish_request(s, rq, why); }
  void timer(SchedState&, Why*) const {}  // mq-deadline has no timer
  bool accounting_ok(const SchedState& s) const;
  int expire(int dir) const { return dir == READ ? read_expire_ : write_expire_; }
  int age_cap() const { return age_cap_; }
  std::string summary(const SchedState& s) const;
  nlohmann::json json(const SchedState& s) const;

  // Symmetry (model/sched/sched_symmetry.hpp): the sort lists compare
  // sectors across processes; nothing is kept per process; next_rq names
  // a request.
  static constexpr bool kReadsSectors = true;
  void rename(SchedState& s, const SchedState& before, const std::vector<int>& proc_perm,
              const std::vector<int>& rq_perm) const;
  int compare_procs(const SchedState&, int, int) const { return 0; }
  // Abstraction (model/sched/sched_abstraction.hpp): the sort lists, fifos
  // and dispatch lists hold what is not yet dispatched; no decision reads
  // the driver's order.
  static constexpr bool kReadsServiceOrder = false;

  static std::vector<PropInfo> extra_props();
  bool violates_extra(int i, const SchedState& s) const { return i == 0 && differed(s); }

  int variant() const { return variant_; }
  int fifo_batch() const { return fifo_batch_; }
  int writes_starved() const { return writes_starved_; }
  int prio_aging_expire() const { return prio_aging_expire_; }

  // --- state accessors: slots of the schema, resolved once ---
  int last_dir(const SchedState& s) const { return last_dir_.get(s); }
  void set_last_dir(SchedState& s, int v) const { last_dir_.set(s, v); }
  int batching(const SchedState& s) const { return batching_.get(s); }
  void set_batching(SchedState& s, int v) const { batching_.set(s, v); }
  int starved(const SchedState& s) const { return starved_.get(s); }
  void set_starved(SchedState& s, int v) const { starved_.set(s, v); }
  // latest_pos[prio][dir] (v6.18, head-request); next_rq[prio][dir] as
  // request id + 1, 0 = NULL (prio-5.14, prio-5.16; the variable holds the
  // id, -1 = NULL).
  int pos(const SchedState& s, int prio, int dir) const {
    return pos_[dir].get(s, prio) + pos_bias_;
  }
  void set_pos(SchedState& s, int prio, int dir, int v) const {
    pos_[dir].set(s, prio, v - pos_bias_);
  }
  // dd_queued(prio) = stats.inserted - stats.completed (signed, saturating).
  int dd_queued(const SchedState& s, int prio) const { return queued_.get(s, prio); }
  // shadow=V: a dispatch choice differed from V's.
  bool differed(const SchedState& s) const { return shadow_ >= 0 && differed_.test(s); }
  bool uses_next_rq() const { return variant_ == Prio5_14 || variant_ == Prio5_16 || variant_ == V6_1; }
  // A request counted once per life (rq->elv.priv[0]), not per insert.
  bool counts_once() const { return variant_ == V6_18 || variant_ == HeadRequest || variant_ == V6_1; }

  // --- the kernel's helpers, on the model's state ---
  // First request of (prio, dir) with sector >= pos (deadline_from_pos).
  int deadline_from_pos(const SchedState& s, int prio, int dir, int pos) const;
  int deadline_next_request(const SchedState& s, int prio, int dir) const;
  int deadline_fifo_request(const SchedState& s, int prio, int dir) const;
  int deadline_head_request(const SchedState& s, int prio, int dir) const;  // seed 002
  bool deadline_check_fifo(const SchedState& s, int prio, int dir) const;
  int deadline_latter_request(const SchedState& s, int rq) const;
  bool started_after(const SchedState& s, int rq, int min_age) const;
  int dispatch_list_head(const SchedState& s, int prio) const;  // prio -1: the global list

 private:
  void add_queued(SchedState& s, int prio, int delta) const;
  std::string queued_text(const SchedState& s, int prio) const;
  void dd_insert_request(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const;
  void dd_finish_request(SchedState& s, int rq, Why* why) const;
  bool dd_has_work(const SchedState& s) const;
  int dd_dispatch_request(SchedState& s, Why* why) const;
  int dd_dispatch_prio_aged_requests(SchedState& s, Why* why) const;
  int __dd_dispatch_request(SchedState& s, int prio, int min_age, Why* why) const;
  void deadline_move_request(SchedState& s, int prio, int rq) const;
  void dd_start_request(SchedState& s, int dir, int rq) const;
  bool has_fifo(const SchedState& s, int prio, int dir) const {
    return deadline_fifo_request(s, prio, dir) >= 0;
  }

  const RqTable& t_;
  ByteVar last_dir_, batching_, starved_, pos_[2], queued_;
  BitVar differed_;
  int pos_bias_ = 0;
  int variant_, fifo_batch_, writes_starved_, read_expire_, write_expire_, prio_aging_expire_;
  int age_cap_, shadow_;
};

}  // namespace blkmc::sched
