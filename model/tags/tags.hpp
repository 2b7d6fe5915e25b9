// model/tags: blk-mq driver tags and busy-tag iteration (block/blk-mq-tag.c).
//
// Submitters allocate a tag (set the bitmap bit), publish the request in
// tags->rqs[tag], start, complete and free it; rqs[] keeps the stale pointer
// after the free. One iterator walks the bitmap concurrently, as
// blk_mq_queue_tag_busy_iter() / bt_iter() do, and calls fn (here: the
// blk_mq_in_flight counter) on what it finds in rqs[]. The variants are the
// kernel's successive fixes of the window "bit set, rqs[] not yet assigned".
//
// The guards, steps and properties are the templates of model/tags/tags_logic.hpp
// (one source, two semantics): here instantiated on View, a view over the
// ByteState with int/bool values; model/tags/tags_symbolic.cpp instantiates them
// on z3::expr for blkmc prove.
#pragma once

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/params.hpp"
#include "model/tags/tags_logic.hpp"

namespace blkmc {

class TagsModel {
 public:
  static constexpr int kMaxTags = 16, kMaxSubmitters = 8, kMaxRounds = 15, kMaxPool = 8;
  using State = ByteState<2 + 2 * kMaxTags + 4 * kMaxSubmitters + 3>;

  enum Variant : int { V4_11 = tags::V4_11, NullCheck, Refcount, TagMatch };
  enum Prop : int {
    NoNullDeref = tags::NoNullDeref,
    FnSeesOwner,
    CountOwnerOnly,
    WalkCountBounded,
    Deadlock
  };
  // Submitter program counter; also the Step::action of submitter steps.
  enum Pc : std::uint8_t { GET = tags::GET, ALLOC, ASSIGN, START, COMPLETE, FREE, DONE };
  static constexpr std::uint8_t VISIT = DONE + 1;  // the iterator's action
  static_assert(VISIT == tags::VISIT && int(DONE) == int(tags::DONE) &&
                int(TagMatch) == int(tags::TagMatch) && int(Deadlock) == int(tags::Deadlock));
  // Iterator flags (ghost variables for the properties).
  static constexpr std::uint8_t kOops = 1, kStaleFn = 2, kStaleCount = 4;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  TagsModel(int variant, const Params& params);

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

  int ntags() const { return ntags_; }
  int submitters() const { return nsub_; }
  int rounds() const { return rounds_; }
  int pool() const { return pool_; }
  int variant() const { return variant_; }
  const tags::Config& config() const { return cfg_; }
  int iterator_actor() const { return nsub_; }

  // --- state accessors (the layout is computed from the parameters) ---
  static std::uint16_t bits(const State& s) { return std::uint16_t(s.b[0] | (s.b[1] << 8)); }
  static void set_bits(State& s, std::uint16_t v) {
    s.b[0] = std::uint8_t(v);
    s.b[1] = std::uint8_t(v >> 8);
  }
  static bool test_bit(const State& s, int t) { return (bits(s) >> t) & 1; }
  std::uint8_t& owner(State& s, int t) const { return s.b[off_owner_ + t]; }
  std::uint8_t owner(const State& s, int t) const { return s.b[off_owner_ + t]; }
  std::uint8_t& rqs(State& s, int t) const { return s.b[off_rqs_ + t]; }
  std::uint8_t rqs(const State& s, int t) const { return s.b[off_rqs_ + t]; }
  std::uint8_t& pc(State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub]; }
  std::uint8_t pc(const State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub]; }
  std::uint8_t& round(State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub + 1]; }
  std::uint8_t round(const State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub + 1]; }
  std::uint8_t& tag(State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub + 2]; }
  std::uint8_t tag(const State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub + 2]; }
  // Pool object held (pool >= 1 only; there is no byte for it otherwise).
  std::uint8_t& obj(State& s, int sub) const { return s.b[off_sub_ + sub_bytes_ * sub + 3]; }
  std::uint8_t obj(const State& s, int sub) const {
    return pool_ ? s.b[off_sub_ + sub_bytes_ * sub + 3] : 0;
  }
  std::uint8_t& iter_pos(State& s) const { return s.b[off_iter_]; }
  std::uint8_t iter_pos(const State& s) const { return s.b[off_iter_]; }
  std::uint8_t& iter_count(State& s) const { return s.b[off_iter_ + 1]; }
  std::uint8_t iter_count(const State& s) const { return s.b[off_iter_ + 1]; }
  std::uint8_t& iter_flags(State& s) const { return s.b[off_iter_ + 2]; }
  std::uint8_t iter_flags(const State& s) const { return s.b[off_iter_ + 2]; }

  // The request a submitter is working on: a fresh id per round (pool = 0)
  // or the pool object it holds.
  int request_id(const State& s, int sub) const {
    return pool_ ? obj(s, sub) : sub * rounds_ + round(s, sub) + 1;
  }
  // Which submitter currently works on request id (-1: none). With pool = 0
  // that is only true in the round the id was made for.
  int holder(const State& s, int id) const;
  // rq->ref > 0: the request was initialised and not yet freed.
  bool rq_alive(const State& s, int id) const;
  // rq->state == MQ_RQ_IN_FLIGHT: started and not yet completed.
  bool rq_in_flight(const State& s, int id) const;
  // rq->tag (-1 when the request holds no driver tag).
  int rq_tag(const State& s, int id) const;
  bool iterator_done(const State& s) const { return tags::iterator_done(cfg_, view(s)); }

 // The concrete view the templates of tags_logic.hpp run on: the
  // ByteState's variables as int and bool.
  class View {
   public:
    View(const TagsModel& m, State& s) : m_(m), s_(s) {}
    static int ic(int v) { return v; }
    static bool bc(bool v) { return v; }
    bool bit(int t) const { return test_bit(s_, t); }
    int owner(int t) const { return m_.owner(s_, t); }
    int rqs(int t) const { return m_.rqs(s_, t); }
    int pc(int sub) const { return m_.pc(s_, sub); }
    int round(int sub) const { return m_.round(s_, sub); }
    int tag(int sub) const { return m_.tag(s_, sub); }
    int obj(int sub) const { return m_.obj(static_cast<const State&>(s_), sub); }
    int pos() const { return m_.iter_pos(static_cast<const State&>(s_)); }
    int count() const { return m_.iter_count(static_cast<const State&>(s_)); }
    bool oops() const { return m_.iter_flags(static_cast<const State&>(s_)) & kOops; }
    bool stale_fn() const { return m_.iter_flags(static_cast<const State&>(s_)) & kStaleFn; }
    bool stale_count() const { return m_.iter_flags(static_cast<const State&>(s_)) & kStaleCount; }
    void set_bit(int t, bool v) {
      set_bits(s_, std::uint16_t(v ? bits(s_) | (1u << t) : bits(s_) & ~(1u << t)));
    }
    void set_owner(int t, int v) { m_.owner(s_, t) = std::uint8_t(v); }
    void set_rqs(int t, int v) { m_.rqs(s_, t) = std::uint8_t(v); }
    void set_pc(int sub, int v) { m_.pc(s_, sub) = std::uint8_t(v); }
    void set_round(int sub, int v) { m_.round(s_, sub) = std::uint8_t(v); }
    void set_tag(int sub, int v) { m_.tag(s_, sub) = std::uint8_t(v); }
    void set_obj(int sub, int v) { m_.obj(s_, sub) = std::uint8_t(v); }
    void set_pos(int v) { m_.iter_pos(s_) = std::uint8_t(v); }
    void set_count(int v) { m_.iter_count(s_) = std::uint8_t(v); }
    void set_oops(bool v) { flag(kOops, v); }
    void set_stale_fn(bool v) { flag(kStaleFn, v); }
    void set_stale_count(bool v) { flag(kStaleCount, v); }

   private:
    void flag(std::uint8_t f, bool v) {
      auto& x = m_.iter_flags(s_);
      x = std::uint8_t(v ? x | f : x & ~f);
    }
    const TagsModel& m_;
    State& s_;
  };
  // A read-only view (the guards and properties only read).
  View view(const State& s) const { return View(*this, const_cast<State&>(s)); }

 private:
  int variant_, ntags_, nsub_, rounds_, pool_;
  tags::Config cfg_;
  std::size_t off_owner_, off_rqs_, off_sub_, sub_bytes_, off_iter_, nbytes_;
};

template <class F>
void TagsModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  const View v = view(s);
  for (int sub = 0; sub < nsub_; ++sub) {
    const std::uint8_t p = pc(s, sub);
    switch (p) {
      case DONE:
        break;
      case GET:  // a free request object; blocks while the pool is empty
        for (int k = 1; k <= pool_; ++k)
          if (tags::may_get_request(cfg_, v, sub, k)) {
            next = s;
            View n(*this, next);
            tags::blk_mq_get_request(cfg_, n, sub, k);
            emit(Step{std::uint8_t(sub), GET, std::uint8_t(k)}, next);
          }
        break;
      case ALLOC:  // any clear bit: over-approximates the allocation hint
        for (int t = 0; t < ntags_; ++t)
          if (tags::may_get_tag(cfg_, v, sub, t)) {
            next = s;
            View n(*this, next);
            tags::blk_mq_get_tag(cfg_, n, sub, t);
            emit(Step{std::uint8_t(sub), ALLOC, std::uint8_t(t)}, next);
          }
        break;
      default: {
        // ASSIGN and FREE index by the tag held (not recorded in the Step).
        const int t = tag(s, sub);
        if (!tags::may_step_at(cfg_, v, sub, p, t)) break;
        next = s;
        View n(*this, next);
        if (p == ASSIGN) tags::blk_mq_assign_rqs(cfg_, n, sub, t);
        else if (p == START) tags::blk_mq_start_request(cfg_, n, sub);
        else if (p == COMPLETE) tags::blk_mq_complete_request(cfg_, n, sub);
        else tags::blk_mq_free_request(cfg_, n, sub, t);
        emit(Step{std::uint8_t(sub), p, 0}, next);
      }
    }
  }
  const int t = iter_pos(s);
  if (t < ntags_ && tags::may_bt_iter(cfg_, v, t)) {
    next = s;
    View n(*this, next);
    tags::bt_iter(cfg_, n, t);
    emit(Step{std::uint8_t(nsub_), VISIT, std::uint8_t(t)}, next);
  }
}

}  // namespace blkmc
