// model/inflight: in-flight accounting of a partitioned disk (block/genhd.c,
// block/blk-mq.c, include/linux/part_stat.h) and the readers behind
// /proc/diskstats and /sys/block/<disk>[/<part>]/inflight.
//
// A disk sda with part0 (the whole disk) and P partitions sda1..sdaP.
// Submitters issue `rounds` requests each, one after another, each to a
// target chosen nondeterministically: a partition, or (whole = 1) the whole
// disk, i.e. rq->part == part0. A request's life:
//   submit    blk_account_io_start: the request enters the scheduler; it holds
//             a scheduler tag only, so tag walks cannot see it
//   dispatch  blk_mq_get_driver_tag + blk_mq_start_request: driver tag held,
//             request started (REQ_ATOM_STARTED, later MQ_RQ_IN_FLIGHT)
//   complete  blk_mq_complete_request / blk_account_io_done: no longer in
//             flight (REQ_ATOM_COMPLETE); the driver tag is still held
//   free      blk_mq_free_request: driver tag released, REQ_ATOM_STARTED
//             cleared; the submitter moves on to its next round
// Where each variant accounts:
//   legacy-atomic, percpu, 7be835694dae: counters incremented at submit and
//     decremented at complete (the "accounting window" is submit..complete);
//   tag walks: no counters; a reader walks the driver tags, and the window a
//     kernel developer means is started..completed (MQ_RQ_IN_FLIGHT).
// One reader performs `reads` reads of one target (parameter, or any), step
// by step: one atomic read (legacy), one step per driver tag (tag walks),
// one step per CPU (per-CPU counters).
//
// Abstractions: one driver tag per submitter (tag t is submitter t's while it
// holds one): which free tag a request gets, tag contention and the stale
// rqs[] races are the tags model's business; a tag walk here sees exactly the
// request holding the tag. Directions (in_flight[READ]/[WRITE]) are merged:
// every counter in the kernel is kept per direction and summed, and nothing
// here depends on the direction. Legacy part_inc_in_flight does two
// atomic_inc()s (partition, part0); they are one step here, so that a
// "quiescent" read never finds a submitter stopped between them.
//
// Ghost state for the properties: whether any submitter stepped during the
// read (a quiescent read), and how many distinct requests were inside the
// variant's accounting window for the target at some moment during the read
// (the bound for a live read).
#pragma once

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/params.hpp"
#include "model/inflight/inflight_logic.hpp"

namespace blkmc {

class InflightModel {
 public:
  static constexpr int kMaxParts = 3, kMaxSubmitters = 4, kMaxRounds = 3, kMaxReads = 3,
                       kMaxCpus = 3;
  // submitters (2 bytes each) + counters ((parts + 1) x cpus) + reader (8 bytes)
  using State = ByteState<2 * kMaxSubmitters + (kMaxParts + 1) * kMaxCpus + 8>;

  // The variants and properties are inflight_logic.hpp's (one list for the
  // explorer and the symbolic semantics).
  using Variant = inflight::Variant;
  using Prop = inflight::Prop;
  using enum inflight::Variant;
  using enum inflight::Prop;
  // Submitter program counter (the next step); also the Step::action of
  // submitter steps. SUBMIT: idle; DISPATCH: in the scheduler; COMPLETE:
  // started; FREE: completed, still holding its driver tag.
  using Pc = inflight::Pc;
  using enum inflight::Pc;
  // Reader actions: READ begins a read (arg: target) and reads element 0;
  // VISIT reads element arg (a driver tag or a CPU).
  static constexpr std::uint8_t READ = DONE + 1, VISIT = DONE + 2;
  // Reader flags. kLive: a submitter stepped during the current read. The
  // others are sticky ghost verdicts, set when a read ends.
  static constexpr std::uint8_t kLive = 1, kPartWrong = 2, kPart0Wrong = 4, kOverBound = 8,
                                kNegative = 16, kMissedQueued = 32;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  InflightModel(int variant, const Params& params);

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

  int parts() const { return parts_; }
  int submitters() const { return nsub_; }
  int rounds() const { return rounds_; }
  int reads() const { return reads_; }
  int cpus() const { return ncpu_; }
  int variant() const { return variant_; }
  int reader_actor() const { return nsub_; }
  bool uses_atomic() const { return variant_ == LegacyAtomic; }
  bool uses_percpu() const { return variant_ == Percpu || variant_ == Be835694; }
  bool uses_tag_walk() const { return !uses_atomic() && !uses_percpu(); }
  // Elements one read visits: 1 atomic counter, one driver tag per
  // submitter, or one per-CPU counter per CPU.
  int read_elements() const { return uses_atomic() ? 1 : uses_tag_walk() ? nsub_ : ncpu_; }
  // Targets a submitter may choose: first_target()..parts (0 = the whole
  // disk). The reader may read any of 0..parts.
  int first_target() const { return whole_ ? 0 : 1; }
  std::string target_name(int t) const;

  // --- state accessors (the layout is computed from the parameters) ---
  std::uint8_t pc(const State& s, int sub) const { return s.b[off_sub_ + 2 * sub] & 0x0f; }
  std::uint8_t target(const State& s, int sub) const { return s.b[off_sub_ + 2 * sub] >> 4; }
  void set_pc(State& s, int sub, int p) const {
    s.b[off_sub_ + 2 * sub] = std::uint8_t((s.b[off_sub_ + 2 * sub] & 0xf0) | p);
  }
  void set_target(State& s, int sub, int t) const {
    s.b[off_sub_ + 2 * sub] = std::uint8_t((s.b[off_sub_ + 2 * sub] & 0x0f) | (t << 4));
  }
  std::uint8_t& round(State& s, int sub) const { return s.b[off_sub_ + 2 * sub + 1]; }
  std::uint8_t round(const State& s, int sub) const { return s.b[off_sub_ + 2 * sub + 1]; }
  // The in_flight counter of part t on CPU c (the atomic counter: c = 0).
  std::int8_t counter(const State& s, int t, int c) const {
    return static_cast<std::int8_t>(s.b[off_cnt_ + t * ncnt_cpu() + c]);
  }
  void add_counter(State& s, int t, int c, int d) const {
    s.b[off_cnt_ + t * ncnt_cpu() + c] = static_cast<std::uint8_t>(counter(s, t, c) + d);
  }
  std::uint8_t& rd_pos(State& s) const { return s.b[off_rd_]; }
  std::uint8_t rd_pos(const State& s) const { return s.b[off_rd_]; }
  std::uint8_t& rd_done(State& s) const { return s.b[off_rd_ + 1]; }
  std::uint8_t rd_done(const State& s) const { return s.b[off_rd_ + 1]; }
  std::uint8_t& rd_target(State& s) const { return s.b[off_rd_ + 2]; }
  std::uint8_t rd_target(const State& s) const { return s.b[off_rd_ + 2]; }
  // Partial sums: for the target, and (tag-walk-double) for part0.
  std::int8_t rd_acc(const State& s) const { return static_cast<std::int8_t>(s.b[off_rd_ + 3]); }
  void set_rd_acc(State& s, int v) const { s.b[off_rd_ + 3] = static_cast<std::uint8_t>(v); }
  std::int8_t rd_acc0(const State& s) const { return static_cast<std::int8_t>(s.b[off_rd_ + 4]); }
  void set_rd_acc0(State& s, int v) const { s.b[off_rd_ + 4] = static_cast<std::uint8_t>(v); }
  // Ghost: distinct requests inside the accounting window during this read,
  // for the target and for the whole disk.
  std::uint8_t& rd_seen(State& s) const { return s.b[off_rd_ + 5]; }
  std::uint8_t rd_seen(const State& s) const { return s.b[off_rd_ + 5]; }
  std::uint8_t& rd_seen0(State& s) const { return s.b[off_rd_ + 6]; }
  std::uint8_t rd_seen0(const State& s) const { return s.b[off_rd_ + 6]; }
  std::uint8_t& rd_flags(State& s) const { return s.b[off_rd_ + 7]; }
  std::uint8_t rd_flags(const State& s) const { return s.b[off_rd_ + 7]; }
  bool reading(const State& s) const { return rd_pos(s) != 0; }
  bool reader_done(const State& s) const { return rd_done(s) >= reads_ && !reading(s); }

  int request_id(const State& s, int sub) const { return sub * rounds_ + round(s, sub) + 1; }
  // Submitted (blk_account_io_start ran) and not completed.
  bool submitted(const State& s, int sub) const {
    return pc(s, sub) == DISPATCH || pc(s, sub) == COMPLETE;
  }
  bool started(const State& s, int sub) const { return pc(s, sub) == COMPLETE; }
  bool holds_driver_tag(const State& s, int sub) const {
    return pc(s, sub) == COMPLETE || pc(s, sub) == FREE;
  }
  // Inside this variant's accounting window (submit..complete for the
  // counters, started..completed for the tag walks).
  bool in_window(const State& s, int sub) const {
    return uses_tag_walk() ? started(s, sub) : submitted(s, sub);
  }
  // Does a request to target rt count for a read of t? (t = 0: the disk.)
  static bool belongs(int rt, int t) { return t == 0 || rt == t; }
  // The truth: requests inside the window for target t.
  int truth(const State& s, int t) const;
  // The legacy definition: submitted and not completed, for target t.
  int submitted_count(const State& s, int t) const;
  // The value the read of target t has accumulated from tag/CPU `e`, as the
  // variant's code computes it: {for the target, for part0 (double only)}.
  std::pair<int, int> element_value(const State& s, int t, int e) const;

 // The concrete view the templates of inflight_logic.hpp run on: the
  // ByteState's fields as int/bool (the reader flags as bools).
  class View {
   public:
    View(const InflightModel& m, State& s) : m_(m), s_(s) {}
    static int ic(int v) { return v; }
    static bool bc(bool v) { return v; }
    int pc(int sub) const { return m_.pc(s_, sub); }
    int target(int sub) const { return m_.target(s_, sub); }
    int round(int sub) const { return m_.round(s_, sub); }
    int counter(int t, int c) const { return m_.counter(s_, t, c); }
    int rd_pos() const { return m_.rd_pos(s_); }
    int rd_done() const { return m_.rd_done(s_); }
    int rd_target() const { return m_.rd_target(s_); }
    int rd_acc() const { return m_.rd_acc(s_); }
    int rd_acc0() const { return m_.rd_acc0(s_); }
    int rd_seen() const { return m_.rd_seen(s_); }
    int rd_seen0() const { return m_.rd_seen0(s_); }
    bool live() const { return flag(kLive); }
    bool part_wrong() const { return flag(kPartWrong); }
    bool part0_wrong() const { return flag(kPart0Wrong); }
    bool over_bound() const { return flag(kOverBound); }
    bool negative() const { return flag(kNegative); }
    bool missed_queued() const { return flag(kMissedQueued); }

    void set_pc(int sub, int v) { m_.set_pc(s_, sub, v); }
    void set_target(int sub, int v) { m_.set_target(s_, sub, v); }
    void set_round(int sub, int v) { m_.round(s_, sub) = std::uint8_t(v); }
    void set_counter(int t, int c, int v) { m_.add_counter(s_, t, c, v - m_.counter(s_, t, c)); }
    void set_rd_pos(int v) { m_.rd_pos(s_) = std::uint8_t(v); }
    void set_rd_done(int v) { m_.rd_done(s_) = std::uint8_t(v); }
    void set_rd_target(int v) { m_.rd_target(s_) = std::uint8_t(v); }
    void set_rd_acc(int v) { m_.set_rd_acc(s_, v); }
    void set_rd_acc0(int v) { m_.set_rd_acc0(s_, v); }
    void set_rd_seen(int v) { m_.rd_seen(s_) = std::uint8_t(v); }
    void set_rd_seen0(int v) { m_.rd_seen0(s_) = std::uint8_t(v); }
    void set_live(bool v) { set_flag(kLive, v); }
    void set_part_wrong(bool v) { set_flag(kPartWrong, v); }
    void set_part0_wrong(bool v) { set_flag(kPart0Wrong, v); }
    void set_over_bound(bool v) { set_flag(kOverBound, v); }
    void set_negative(bool v) { set_flag(kNegative, v); }
    void set_missed_queued(bool v) { set_flag(kMissedQueued, v); }

   private:
    bool flag(std::uint8_t f) const { return (m_.rd_flags(s_) & f) != 0; }
    void set_flag(std::uint8_t f, bool v) {
      std::uint8_t& b = m_.rd_flags(s_);
      b = std::uint8_t(v ? (b | f) : (b & ~f));
    }
    const InflightModel& m_;
    State& s_;
  };
  // A read-only view (the guards and properties only read).
  View view(const State& s) const { return View(*this, const_cast<State&>(s)); }
  const inflight::Config& config() const { return cfg_; }

 private:
  int ncnt_cpu() const { return uses_percpu() ? ncpu_ : 1; }

  int variant_, parts_, nsub_, rounds_, reads_, target_, whole_, ncpu_;
  inflight::Config cfg_;
  std::size_t off_sub_, off_cnt_, off_rd_, nbytes_;
};

template <class F>
void InflightModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  const View v = view(s);
  const int cpus_for_step = uses_percpu() ? ncpu_ : 1;
  for (int sub = 0; sub < nsub_; ++sub) {
    const std::uint8_t p = pc(s, sub);
    switch (p) {
      case inflight::DONE:
        break;
      case inflight::SUBMIT:  // any target, on any CPU (per-CPU variants)
        if (!inflight::may_submit(cfg_, v, sub)) break;
        for (int t = first_target(); t <= parts_; ++t)
          for (int c = 0; c < cpus_for_step; ++c) {
            next = s;
            View n(*this, next);
            inflight::blk_account_io_start(cfg_, n, sub, t, c);
            emit(Step{std::uint8_t(sub), inflight::SUBMIT, std::uint8_t(t | (c << 4))}, next);
          }
        break;
      case inflight::COMPLETE: {  // completes on any CPU, not necessarily the submitting one
        const int t = target(s, sub);
        if (!inflight::may_complete(cfg_, v, sub, t)) break;
        for (int c = 0; c < cpus_for_step; ++c) {
          next = s;
          View n(*this, next);
          inflight::blk_account_io_done(cfg_, n, sub, t, c);
          emit(Step{std::uint8_t(sub), inflight::COMPLETE, std::uint8_t(c)}, next);
        }
        break;
      }
      case inflight::DISPATCH:
        if (!inflight::may_dispatch(cfg_, v, sub)) break;
        next = s;
        {
          View n(*this, next);
          inflight::blk_mq_start_request(cfg_, n, sub);
        }
        emit(Step{std::uint8_t(sub), p, 0}, next);
        break;
      default:
        if (!inflight::may_free(cfg_, v, sub)) break;
        next = s;
        {
          View n(*this, next);
          inflight::blk_mq_free_request(cfg_, n, sub);
        }
        emit(Step{std::uint8_t(sub), p, 0}, next);
    }
  }
  if (reading(s)) {
    const int t = rd_target(s), e = rd_pos(s);
    if (inflight::may_visit(cfg_, v, t, e)) {
      next = s;
      View n(*this, next);
      inflight::part_in_flight(cfg_, n, t, e);
      emit(Step{std::uint8_t(nsub_), VISIT, std::uint8_t(e)}, next);
    }
  } else {
    for (int t = 0; t <= parts_; ++t)
      if (inflight::may_read(cfg_, v, t)) {
        next = s;
        View n(*this, next);
        inflight::part_in_flight(cfg_, n, t, 0);
        emit(Step{std::uint8_t(nsub_), READ, std::uint8_t(t)}, next);
      }
  }
}

}  // namespace blkmc
