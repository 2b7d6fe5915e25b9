// model/tags: blk-mq driver tags and busy-tag iteration (block/blk-mq-tag.c).
//
// Submitters allocate a tag (set the bitmap bit), publish the request in
// tags->rqs[tag], start, complete and free it; rqs[] keeps the stale pointer
// after the free. One iterator walks the bitmap concurrently, as
// blk_mq_queue_tag_busy_iter() / bt_iter() do, and calls fn (here: the
// blk_mq_in_flight counter) on what it finds in rqs[]. The variants are the
// kernel's successive fixes of the window "bit set, rqs[] not yet assigned".
#pragma once

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/params.hpp"

namespace blkmc {

class TagsModel {
 public:
  static constexpr int kMaxTags = 16, kMaxSubmitters = 8, kMaxRounds = 15, kMaxPool = 8;
  using State = ByteState<2 + 2 * kMaxTags + 4 * kMaxSubmitters + 3>;

  enum Variant : int { V4_11, NullCheck, Refcount, TagMatch };
  enum Prop : int { NoNullDeref, FnSeesOwner, CountOwnerOnly, WalkCountBounded, Deadlock };
  // Submitter program counter; also the Step::action of submitter steps.
  enum Pc : std::uint8_t { GET, ALLOC, ASSIGN, START, COMPLETE, FREE, DONE };
  static constexpr std::uint8_t VISIT = DONE + 1;  // the iterator's action
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
  bool iterator_done(const State& s) const {
    return iter_pos(s) >= ntags_ || (iter_flags(s) & kOops);
  }

 private:
  // The steps, named after the kernel functions they mirror.
  void blk_mq_get_request(State& s, int sub, int object) const;
  void blk_mq_get_tag(State& s, int sub, int t) const;
  void blk_mq_assign_rqs(State& s, int sub) const;
  void blk_mq_start_request(State& s, int sub) const;
  void blk_mq_complete_request(State& s, int sub) const;
  void blk_mq_free_request(State& s, int sub) const;
  void bt_iter(State& s) const;
  void in_flight_fn(State& s, int t, int rq) const;
  bool object_free(const State& s, int object) const;

  int variant_, ntags_, nsub_, rounds_, pool_;
  std::size_t off_owner_, off_rqs_, off_sub_, sub_bytes_, off_iter_, nbytes_;
};

template <class F>
void TagsModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  for (int sub = 0; sub < nsub_; ++sub) {
    const std::uint8_t p = pc(s, sub);
    switch (p) {
      case DONE:
        break;
      case GET:  // a free request object; blocks while the pool is empty
        for (int k = 1; k <= pool_; ++k)
          if (object_free(s, k)) {
            next = s;
            blk_mq_get_request(next, sub, k);
            emit(Step{std::uint8_t(sub), GET, std::uint8_t(k)}, next);
          }
        break;
      case ALLOC:  // any clear bit: over-approximates the allocation hint
        for (int t = 0; t < ntags_; ++t)
          if (!test_bit(s, t)) {
            next = s;
            blk_mq_get_tag(next, sub, t);
            emit(Step{std::uint8_t(sub), ALLOC, std::uint8_t(t)}, next);
          }
        break;
      default:
        next = s;
        if (p == ASSIGN) blk_mq_assign_rqs(next, sub);
        else if (p == START) blk_mq_start_request(next, sub);
        else if (p == COMPLETE) blk_mq_complete_request(next, sub);
        else blk_mq_free_request(next, sub);
        emit(Step{std::uint8_t(sub), p, 0}, next);
    }
  }
  if (!iterator_done(s)) {
    next = s;
    bt_iter(next);
    emit(Step{std::uint8_t(nsub_), VISIT, iter_pos(s)}, next);
  }
}

}  // namespace blkmc
