// model/inflight/inflight: in-flight accounting of a partitioned disk (block/genhd.c,
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

#include <array>
#include <bitset>
#include <string>

#include <nlohmann/json.hpp>

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "model/schema.hpp"
#include "model/schema_model.hpp"
#include "model/inflight/inflight_logic.hpp"

namespace blkmc {

namespace inflight {
// A target's name: 0 the whole disk (sda), t partition t (sdaT).
std::string part_name(int t);

// The state variables, declared once. Per submitter: pc, target (rq->part)
// and round; per target and CPU an in_flight counter (one per target in
// legacy-atomic, none in the tag walks); the reader's position, reads done,
// target, partial sums, requests seen and flags (ghost verdicts). `ids`, if
// given, receives the variable ids (the submitters' target and the reader's
// target share a name, as in state_json). The counts (counters, sums, seen)
// range over -nsub x rounds..nsub x rounds, clipped to a byte (127) for the
// symbolic system of prove, which is sized far past the explorer (4 x 3);
// inflight::transition_system widens its integers back.
struct SchemaIds {
  int pc, target, round;
  int cnt0;  // the counter of target 0 on CPU 0, then t * ncnt_cpu + cpu; -1 in tag walks
  int pos, done, rd_target, sum, sum0, seen, seen0;
  int live, part_wrong, part0_wrong, over_bound, negative, missed_queued;
};
Schema schema(const Config& c, SchemaIds* ids = nullptr);
}  // namespace inflight

class InflightModel : public SchemaModel<InflightModel> {
 public:
  static constexpr int kMaxParts = 3, kMaxSubmitters = 8, kMaxRounds = 3, kMaxReads = 3,
                       kMaxCpus = 3;
  static constexpr int kMaxCounters = (kMaxParts + 1) * kMaxCpus;
  // submitters (3 bytes each) + counters ((parts + 1) x cpus) + reader (7
  // bytes and 6 bits): inflight::schema() lays it out.
  using State = ByteState<3 * kMaxSubmitters + kMaxCounters + 8>;

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
  // Reader flags, as rd_flags() composes them from the reader's booleans.
  // kLive: a submitter stepped during the current read. The others are
  // sticky ghost verdicts, set when a read ends.
  static constexpr std::uint8_t kLive = 1, kPartWrong = 2, kPart0Wrong = 4, kOverBound = 8,
                                kNegative = 16, kMissedQueued = 32;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  InflightModel(int variant, const Params& params);

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
  // The submitters are interchangeable where the reader sums counters (no
  // property names one); a tag walk visits driver tag e, submitter e's, in
  // order, so which submitters it has passed is not a function of the
  // submitters' values: -1 there.
  int symmetric_block(const std::vector<int>& props) const;
  // Nothing outside the submitters' block names a submitter.
  void rename(State&, const std::vector<int>&) const {}
  int actors() const { return nsub_ + 1; }
  // Everything the actor may read or write from s on.
  Footprint actor_future(const State& s, int actor) const;

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
  // What a read of target t reports when no submitter steps during it: the
  // sum of its elements (counters, CPUs or driver tags), clamped at 0 as the
  // per-CPU readers clamp. `blkmc device check` compares it with the
  // kernel's files.
  int quiescent_read(const State& s, int t) const;
  int read_elements() const { return uses_atomic() ? 1 : uses_tag_walk() ? nsub_ : ncpu_; }
  // Targets a submitter may choose: first_target()..parts (0 = the whole
  // disk). The reader may read any of 0..parts.
  int first_target() const { return whole_ ? 0 : 1; }
  std::string target_name(int t) const { return inflight::part_name(t); }

  // --- state accessors: slots of inflight::schema(), resolved once ---
  int pc(const State& s, int sub) const { return pc_.get(s, sub); }
  int target(const State& s, int sub) const { return sub_target_.get(s, sub); }
  int round(const State& s, int sub) const { return round_.get(s, sub); }
  // The in_flight counter of part t on CPU c (the atomic counter: c = 0;
  // none in the tag walks).
  int counter(const State& s, int t, int c) const { return cnt_[std::size_t(t * ncnt_cpu() + c)].get(s); }
  int rd_pos(const State& s) const { return pos_.get(s); }
  int rd_done(const State& s) const { return done_.get(s); }
  int rd_target(const State& s) const { return rd_target_.get(s); }
  // Partial sums: for the target, and (tag-walk-double) for part0.
  int rd_acc(const State& s) const { return sum_.get(s); }
  int rd_acc0(const State& s) const { return sum0_.get(s); }
  // Ghost: distinct requests inside the accounting window during this read,
  // for the target and for the whole disk.
  int rd_seen(const State& s) const { return seen_.get(s); }
  int rd_seen0(const State& s) const { return seen0_.get(s); }
  // The reader's booleans as the k* flags.
  std::uint8_t rd_flags(const State& s) const {
    return std::uint8_t((live_.test(s) ? kLive : 0) | (part_wrong_.test(s) ? kPartWrong : 0) |
                        (part0_wrong_.test(s) ? kPart0Wrong : 0) |
                        (over_bound_.test(s) ? kOverBound : 0) | (negative_.test(s) ? kNegative : 0) |
                        (missed_queued_.test(s) ? kMissedQueued : 0));
  }
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

  // The concrete views the templates of inflight_logic.hpp run on: the
  // state's variables as int and bool. ConstView reads (guards,
  // properties); View also writes (steps).
  class ConstView {
   public:
    ConstView(const InflightModel& m, const State& s) : m_(m), s_(s) {}
    static int ic(int v) { return v; }
    static bool bc(bool v) { return v; }
    int pc(int sub) const { return m_.pc_.get(s_, sub); }
    int target(int sub) const { return m_.sub_target_.get(s_, sub); }
    int round(int sub) const { return m_.round_.get(s_, sub); }
    int counter(int t, int c) const { return m_.counter(s_, t, c); }
    int rd_pos() const { return m_.pos_.get(s_); }
    int rd_done() const { return m_.done_.get(s_); }
    int rd_target() const { return m_.rd_target_.get(s_); }
    int rd_acc() const { return m_.sum_.get(s_); }
    int rd_acc0() const { return m_.sum0_.get(s_); }
    int rd_seen() const { return m_.seen_.get(s_); }
    int rd_seen0() const { return m_.seen0_.get(s_); }
    bool live() const { return m_.live_.test(s_); }
    bool part_wrong() const { return m_.part_wrong_.test(s_); }
    bool part0_wrong() const { return m_.part0_wrong_.test(s_); }
    bool over_bound() const { return m_.over_bound_.test(s_); }
    bool negative() const { return m_.negative_.test(s_); }
    bool missed_queued() const { return m_.missed_queued_.test(s_); }

   protected:
    const InflightModel& m_;
    const State& s_;
  };
  class View : public ConstView {
   public:
    View(const InflightModel& m, State& s) : ConstView(m, s), w_(s) {}
    void set_pc(int sub, int v) { m_.pc_.set(w_, sub, v); }
    void set_target(int sub, int v) { m_.sub_target_.set(w_, sub, v); }
    void set_round(int sub, int v) { m_.round_.set(w_, sub, v); }
    void set_counter(int t, int c, int v) { m_.cnt_[std::size_t(t * m_.ncnt_cpu() + c)].set(w_, v); }
    void set_rd_pos(int v) { m_.pos_.set(w_, v); }
    void set_rd_done(int v) { m_.done_.set(w_, v); }
    void set_rd_target(int v) { m_.rd_target_.set(w_, v); }
    void set_rd_acc(int v) { m_.sum_.set(w_, v); }
    void set_rd_acc0(int v) { m_.sum0_.set(w_, v); }
    void set_rd_seen(int v) { m_.seen_.set(w_, v); }
    void set_rd_seen0(int v) { m_.seen0_.set(w_, v); }
    void set_live(bool v) { m_.live_.set(w_, v); }
    void set_part_wrong(bool v) { m_.part_wrong_.set(w_, v); }
    void set_part0_wrong(bool v) { m_.part0_wrong_.set(w_, v); }
    void set_over_bound(bool v) { m_.over_bound_.set(w_, v); }
    void set_negative(bool v) { m_.negative_.set(w_, v); }
    void set_missed_queued(bool v) { m_.missed_queued_.set(w_, v); }

   private:
    State& w_;
  };
  ConstView view(const State& s) const { return ConstView(*this, s); }
  const inflight::Config& config() const { return cfg_; }

 private:
  int ncnt_cpu() const { return uses_percpu() ? ncpu_ : 1; }

  int variant_, parts_, nsub_, rounds_, reads_, target_, whole_, ncpu_;
  inflight::Config cfg_;
  FieldVar pc_, sub_target_;  // one byte per submitter
  ByteVar round_, pos_, done_, rd_target_, sum_, sum0_, seen_, seen0_;
  std::array<ByteVar, kMaxCounters> cnt_{};
  BitVar live_, part_wrong_, part0_wrong_, over_bound_, negative_, missed_queued_;
  // Footprints: the flat indices of each submitter's, the reader's and each
  // counter's variables.
  using Vars = std::bitset<Footprint::kMaxVars>;
  std::array<Vars, kMaxSubmitters> sub_vars_{};
  Vars reader_vars_;
  // What a submitter's step reads of the reader (whether a read is under
  // way, its target, the ghost it updates) and writes there (the ghost).
  Vars note_reads_, note_writes_;
  int pos_index_ = 0;
  std::array<int, kMaxCounters> cnt_index_{};
  // The counters a submitter may still move from its pc and round on.
  void future_counters(const State& s, int sub, Vars& b) const;
};

template <class F>
void InflightModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  const ConstView v = view(s);
  const int cpus_for_step = uses_percpu() ? ncpu_ : 1;
  for (int sub = 0; sub < nsub_; ++sub) {
    const int p = pc(s, sub);
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
        emit(Step{std::uint8_t(sub), std::uint8_t(p), 0}, next);
        break;
      default:
        if (!inflight::may_free(cfg_, v, sub)) break;
        next = s;
        {
          View n(*this, next);
          inflight::blk_mq_free_request(cfg_, n, sub);
        }
        emit(Step{std::uint8_t(sub), std::uint8_t(p), 0}, next);
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
