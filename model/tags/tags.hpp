// model/tags/tags: blk-mq driver tags and busy-tag iteration (block/blk-mq-tag.c).
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

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/params.hpp"
#include "model/schema.hpp"
#include "model/schema_model.hpp"
#include "model/tags/tags_logic.hpp"

namespace blkmc {

namespace tags {
// The state variables, declared once: per tag the bitmap bit, its owner and
// tags->rqs[]; per submitter its pc, round, tag (and pool object); the
// iterator's position, count and ghost flags.
Schema schema(const Config& c);
}  // namespace tags

class TagsModel : public SchemaModel<TagsModel> {
 public:
  static constexpr int kMaxTags = 16, kMaxSubmitters = 8, kMaxRounds = 15, kMaxPool = 8;
  using State = ByteState<2 + 2 * kMaxTags + 4 * kMaxSubmitters + 3>;

  // The variants, properties and pcs of tags_logic.hpp (one list each).
  using Variant = tags::Variant;
  using enum tags::Variant;
  using Prop = tags::Prop;
  using enum tags::Prop;
  // Submitter program counter; also the Step::action of submitter steps.
  using Pc = tags::Pc;
  using enum tags::Pc;
  static constexpr int VISIT = tags::VISIT;  // the iterator's action
  // Iterator flags (ghost variables for the properties).
  static constexpr std::uint8_t kOops = 1, kStaleFn = 2, kStaleCount = 4;

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  TagsModel(int variant, const Params& params);

  State initial() const;

  template <class F>
  void for_each_successor(const State& s, F&& emit) const;
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;

  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const;
  Footprint footprint(const State& s, const Step& step) const;

  // --- for the reductions (explorer/reduced_model.hpp) ---
  // What each variable is computed from, what the guards and properties read.
  Influence influence() const;
  // The submitters are interchangeable for every property (none names one).
  int symmetric_block(const std::vector<int>& props) const;
  // After the submitters' blocks moved (copy c to perm[c]): the request ids
  // in owner[] and rqs[] name the moved submitters (pool = 0: an id is
  // submitter * rounds + round + 1; pool objects are nobody's).
  void rename(State& s, const std::vector<int>& perm) const;
  int actors() const { return nsub_ + 1; }
  // Everything the actor may read or write from s on.
  Footprint actor_future(const State& s, int actor) const;
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;

  int ntags() const { return ntags_; }
  int submitters() const { return nsub_; }
  int rounds() const { return rounds_; }
  int pool() const { return pool_; }
  int variant() const { return variant_; }
  const tags::Config& config() const { return cfg_; }
  int iterator_actor() const { return nsub_; }

  // --- state accessors: slots of tags::schema(), resolved once ---
  std::uint16_t bits(const State& s) const {
    std::uint16_t v = 0;
    for (int t = 0; t < ntags_; ++t) v = std::uint16_t(v | (bit_.get(s, t) << t));
    return v;
  }
  bool test_bit(const State& s, int t) const { return bit_.test(s, t); }
  int owner(const State& s, int t) const { return owner_.get(s, t); }
  int rqs(const State& s, int t) const { return rqs_.get(s, t); }
  int pc(const State& s, int sub) const { return pc_.get(s, sub); }
  int round(const State& s, int sub) const { return round_.get(s, sub); }
  int tag(const State& s, int sub) const { return tag_.get(s, sub); }
  // Pool object held (pool >= 1 only; there is no variable for it otherwise).
  int obj(const State& s, int sub) const { return pool_ ? obj_.get(s, sub) : 0; }
  int iter_pos(const State& s) const { return pos_.get(s); }
  int iter_count(const State& s) const { return count_.get(s); }
  std::uint8_t iter_flags(const State& s) const {
    return std::uint8_t((oops_.test(s) ? kOops : 0) | (stale_fn_.test(s) ? kStaleFn : 0) |
                        (stale_count_.test(s) ? kStaleCount : 0));
  }

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

  // The concrete views the templates of tags_logic.hpp run on: the state's
  // variables as int and bool. ConstView reads (guards, properties); View
  // also writes (steps).
  class ConstView {
   public:
    ConstView(const TagsModel& m, const State& s) : m_(m), s_(s) {}
    static int ic(int v) { return v; }
    static bool bc(bool v) { return v; }
    bool bit(int t) const { return m_.bit_.test(s_, t); }
    int owner(int t) const { return m_.owner_.get(s_, t); }
    int rqs(int t) const { return m_.rqs_.get(s_, t); }
    int pc(int sub) const { return m_.pc_.get(s_, sub); }
    int round(int sub) const { return m_.round_.get(s_, sub); }
    int tag(int sub) const { return m_.tag_.get(s_, sub); }
    int obj(int sub) const { return m_.obj(s_, sub); }
    int pos() const { return m_.pos_.get(s_); }
    int count() const { return m_.count_.get(s_); }
    bool oops() const { return m_.oops_.test(s_); }
    bool stale_fn() const { return m_.stale_fn_.test(s_); }
    bool stale_count() const { return m_.stale_count_.test(s_); }

   protected:
    const TagsModel& m_;
    const State& s_;
  };
  class View : public ConstView {
   public:
    View(const TagsModel& m, State& s) : ConstView(m, s), w_(s) {}
    void set_bit(int t, bool v) { m_.bit_.set(w_, t, v); }
    void set_owner(int t, int v) { m_.owner_.set(w_, t, v); }
    void set_rqs(int t, int v) { m_.rqs_.set(w_, t, v); }
    void set_pc(int sub, int v) { m_.pc_.set(w_, sub, v); }
    void set_round(int sub, int v) { m_.round_.set(w_, sub, v); }
    void set_tag(int sub, int v) { m_.tag_.set(w_, sub, v); }
    void set_obj(int sub, int v) { m_.obj_.set(w_, sub, v); }
    void set_pos(int v) { m_.pos_.set(w_, v); }
    void set_count(int v) { m_.count_.set(w_, v); }
    void set_oops(bool v) { m_.oops_.set(w_, v); }
    void set_stale_fn(bool v) { m_.stale_fn_.set(w_, v); }
    void set_stale_count(bool v) { m_.stale_count_.set(w_, v); }

   private:
    State& w_;
  };
  ConstView view(const State& s) const { return ConstView(*this, s); }

 private:
  int variant_, ntags_, nsub_, rounds_, pool_;
  tags::Config cfg_;
  // Flat (footprint) index of each variable's first element; obj -1 without a pool.
  struct Flat {
    int bit, owner, rqs, pc, round, tag, obj, pos, count, oops, stale_fn, stale_count;
  } fl_{};
  void submitter_vars(std::bitset<Footprint::kMaxVars>& b, int sub) const;
  void iterator_vars(std::bitset<Footprint::kMaxVars>& b) const;
  BitVar bit_, oops_, stale_fn_, stale_count_;
  ByteVar owner_, rqs_, pc_, round_, tag_, obj_, pos_, count_;
};

template <class F>
void TagsModel::for_each_successor(const State& s, F&& emit) const {
  State next;
  const ConstView v = view(s);
  for (int sub = 0; sub < nsub_; ++sub) {
    const int p = pc(s, sub);
    switch (p) {
      case tags::DONE:
        break;
      case tags::GET:  // a free request object; blocks while the pool is empty
        for (int k = 1; k <= pool_; ++k)
          if (tags::may_get_request(cfg_, v, sub, k)) {
            next = s;
            View n(*this, next);
            tags::blk_mq_get_request(cfg_, n, sub, k);
            emit(Step{std::uint8_t(sub), tags::GET, std::uint8_t(k)}, next);
          }
        break;
      case tags::ALLOC:  // any clear bit: over-approximates the allocation hint
        for (int t = 0; t < ntags_; ++t)
          if (tags::may_get_tag(cfg_, v, sub, t)) {
            next = s;
            View n(*this, next);
            tags::blk_mq_get_tag(cfg_, n, sub, t);
            emit(Step{std::uint8_t(sub), tags::ALLOC, std::uint8_t(t)}, next);
          }
        break;
      default: {
        // tags::ASSIGN and tags::FREE index by the tag held (not recorded in the Step).
        const int t = tag(s, sub);
        if (!tags::may_step_at(cfg_, v, sub, p, t)) break;
        next = s;
        View n(*this, next);
        if (p == tags::ASSIGN) tags::blk_mq_assign_rqs(cfg_, n, sub, t);
        else if (p == tags::START) tags::blk_mq_start_request(cfg_, n, sub);
        else if (p == tags::COMPLETE) tags::blk_mq_complete_request(cfg_, n, sub);
        else tags::blk_mq_free_request(cfg_, n, sub, t);
        emit(Step{std::uint8_t(sub), std::uint8_t(p), 0}, next);
      }
    }
  }
  const int t = iter_pos(s);
  if (t < ntags_ && tags::may_bt_iter(cfg_, v, t)) {
    next = s;
    View n(*this, next);
    tags::bt_iter(cfg_, n, t);
    emit(Step{std::uint8_t(nsub_), tags::VISIT, std::uint8_t(t)}, next);
  }
}

}  // namespace blkmc
