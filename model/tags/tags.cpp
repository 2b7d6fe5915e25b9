#include "model/tags/tags.hpp"

#include <fmt/format.h>

namespace blkmc {

Schema tags::schema(const tags::Config& c) {
  Schema sc;
  const int maxid = c.pool ? c.pool : c.nsub * c.rounds;
  const int tag = sc.block("tags", c.ntags), sub = sc.block("submitters", c.nsub),
            it = sc.group("iterator");
  sc.bit("bit", tag);
  sc.integer("owner", 0, maxid, tag);
  sc.integer("rqs", 0, maxid, tag);
  sc.enumeration("pc", {std::begin(tags::kPcNames), std::end(tags::kPcNames)}, sub);
  sc.integer("round", 0, c.rounds, sub);
  sc.integer("tag", 0, c.ntags - 1, sub);
  if (c.pool) sc.integer("obj", 0, c.pool, sub);
  sc.integer("pos", 0, c.ntags, it);
  sc.integer("count", 0, c.ntags, it);
  sc.boolean("oops", it);
  sc.boolean("stale_fn", it);
  sc.boolean("stale_count", it);
  sc.layout();
  return sc;
}

const ModelInfo& TagsModel::static_info() {
  static const ModelInfo info{
      "tags",
      "blk-mq driver tags: allocation (bit set, then rqs[] assigned) racing with busy-tag "
      "iteration (bt_iter / blk_mq_in_flight)",
      {
          {"ntags", 2, 1, kMaxTags, "driver tags in the bitmap"},
          {"submitters", 2, 1, kMaxSubmitters, "concurrent submitting contexts"},
          {"rounds", 1, 1, kMaxRounds, "requests each submitter issues, one after another"},
          {"pool", 0, 0, kMaxPool,
           "0: a fresh request per round; N: N reusable request objects (static_rqs behind a "
           "scheduler) whose driver tag is taken separately"},
      },
      {
          {"v4.11", "2af8cbe30531",
           "tags->rqs[] assigned dynamically; bt_iter dereferences rqs[bitnr] unchecked",
           "block-layer.md A; commit 2af8cbe30531 (4.11)"},
          {"null-check", "seed 003 PATCH 1/4",
           "\"blk-mq-tag: check for NULL rq when iterating tags\": skip NULL, but a stale "
           "previous owner is still passed to fn",
           "seeds/003_b6080861c1d4707e.txt (Jens Axboe, 2017-08-03)"},
          {"refcount", "2e315dc07df0 + bd63141d585b",
           "read rqs[] and take rq->ref with inc_not_zero under tags->lock; fn only on a live "
           "request",
           "block-layer.md A; commits 2e315dc07df0, bd63141d585b (5.14)"},
          {"tag-match", "67f3b2f822b7",
           "additionally require rq->tag == bitnr, so a live request seen through a stale slot "
           "is skipped",
           "block-layer.md A; commit 67f3b2f822b7 (5.15)"},
      },
      {
          {"no-null-deref", PropKind::Invariant,
           "the iterator never dereferences a NULL tags->rqs[] entry"},
          {"fn-sees-owner", PropKind::Invariant,
           "fn only runs on the request that currently owns the tag"},
          {"count-owner-only", PropKind::Invariant,
           "fn counts an in-flight request only through the tag it owns (67f3b2f822b7: one "
           "seen through a stale slot is counted twice)"},
          {"walk-count-bounded", PropKind::Invariant,
           "the in-flight count one walk returns never exceeds the number of submitters"},
          {"deadlock", PropKind::Deadlock,
           "some step is enabled while a submitter or the iterator has not finished"},
      },
      {"get", "alloc", "assign", "start", "complete", "free", "done", "visit"},
  };
  return info;
}

TagsModel::TagsModel(int variant, const Params& p)
    : variant_(variant),
      ntags_(p.at("ntags")),
      nsub_(p.at("submitters")),
      rounds_(p.at("rounds")),
      pool_(p.at("pool")),
      cfg_{variant, ntags_, nsub_, rounds_, pool_} {
  if (variant < 0 || variant > TagMatch) throw UsageError("tags: bad variant index");
  if (pool_ == 0 && nsub_ * rounds_ > 250)
    throw UsageError("tags: submitters x rounds must stay below 250 request ids");
  schema_ = tags::schema(cfg_);
  fit_schema("tags");
  auto byte = [&](const char* n) { return schema_.byte_var(schema_.find(n)); };
  auto bit = [&](const char* n) { return schema_.bit_var(schema_.find(n)); };
  bit_ = bit("bit"), oops_ = bit("oops"), stale_fn_ = bit("stale_fn"), stale_count_ = bit("stale_count");
  owner_ = byte("owner"), rqs_ = byte("rqs"), pc_ = byte("pc"), tag_ = byte("tag");
  pos_ = byte("pos"), count_ = byte("count");
  round_ = byte("round");
  if (pool_) obj_ = byte("obj");
  auto first = [&](const char* n) { return schema_.index(schema_.find(n)); };
  fl_ = {first("bit"),   first("owner"), first("rqs"),      first("pc"),
         first("round"), first("tag"),   pool_ ? first("obj") : -1, first("pos"),
         first("count"), first("oops"),  first("stale_fn"), first("stale_count")};
}

TagsModel::State TagsModel::initial() const {
  State s{};
  View v(*this, s);
  for (int sub = 0; sub < nsub_; ++sub) v.set_pc(sub, pool_ ? GET : ALLOC);
  return s;
}

int TagsModel::holder(const State& s, int id) const {
  if (id <= 0) return -1;
  if (pool_) {
    for (int sub = 0; sub < nsub_; ++sub)
      if (obj(s, sub) == id) return sub;
    return -1;
  }
  const int sub = (id - 1) / rounds_, r = (id - 1) % rounds_;
  if (sub >= nsub_ || round(s, sub) != r || pc(s, sub) == DONE) return -1;
  return sub;
}

bool TagsModel::rq_alive(const State& s, int id) const {
  return tags::rq_alive(cfg_, view(s), id);
}

bool TagsModel::rq_in_flight(const State& s, int id) const {
  return tags::rq_in_flight(cfg_, view(s), id);
}

int TagsModel::rq_tag(const State& s, int id) const { return tags::rq_tag(cfg_, view(s), id); }

bool TagsModel::finished(const State& s) const { return tags::finished(cfg_, view(s)); }

bool TagsModel::violates(int prop, const State& s) const {
  return tags::violates(cfg_, view(s), prop);
}

std::string TagsModel::actor_name(int actor) const {
  return actor == nsub_ ? "iterator" : fmt::format("submitter {}", actor);
}

std::string TagsModel::describe(const State& s, const Step& st) const {
  const int sub = st.actor;
  if (st.actor == nsub_) {
    const int t = st.arg;
    if (!test_bit(s, t)) return fmt::format("bt_iter: tag {} is clear, skip", t);
    const int rq = rqs(s, t);
    const std::string who = rq == 0 ? "NULL" : fmt::format("rq {}", rq);
    const std::string owns =
        owner(s, t) == 0 ? "nobody" : fmt::format("rq {}", static_cast<int>(owner(s, t)));
    std::string head = fmt::format("bt_iter: tag {} set (owner {}), rqs[{}] = {}", t, owns, t, who);
    if (rq == 0)
      return head + (variant_ == V4_11 ? ": NULL pointer dereference (oops)" : ": skip NULL");
    const bool live = rq_alive(s, rq);
    if ((variant_ == Refcount || variant_ == TagMatch) && !live)
      return head + ": ref is 0, skip";
    if (variant_ == TagMatch && rq_tag(s, rq) != t)
      return head + fmt::format(": rq->tag is {}, not {}, skip", rq_tag(s, rq), t);
    const bool stale = rq != owner(s, t), in_flight = rq_in_flight(s, rq);
    return head + fmt::format(": fn(rq {}){}{}", rq, stale ? " on a STALE request" : "",
                              !in_flight ? ", not in flight"
                              : stale    ? fmt::format(", in flight (under tag {}): count++, "
                                                       "counted twice",
                                                       rq_tag(s, rq))
                                         : ", in flight: count++");
  }
  const int id = request_id(s, sub);
  switch (st.action) {
    case GET:
      return fmt::format("blk_mq_get_request: takes request object {} (ref = 1)", st.arg);
    case ALLOC:
      return fmt::format("blk_mq_get_tag: sets bit {} for rq {}; rqs[{}] still {}", st.arg, id,
                         st.arg,
                         rqs(s, st.arg) ? fmt::format("rq {}", static_cast<int>(rqs(s, st.arg)))
                                        : std::string("NULL"));
    case ASSIGN:
      return fmt::format("rqs[{}] = rq {}", static_cast<int>(tag(s, sub)), id);
    case START:
      return fmt::format("blk_mq_start_request: rq {} in flight", id);
    case COMPLETE:
      return fmt::format("blk_mq_complete_request: rq {} completed", id);
    case FREE:
      return fmt::format("blk_mq_free_request: clears bit {}, drops rq {} (rqs[{}] left as is)",
                         static_cast<int>(tag(s, sub)), id, static_cast<int>(tag(s, sub)));
    default:
      return "?";
  }
}

// Footprint bits: the flat index of element i of a variable.
static std::size_t el(int first, int i = 0) { return std::size_t(first + i); }

void TagsModel::submitter_vars(std::bitset<Footprint::kMaxVars>& b, int sub) const {
  b.set(el(fl_.pc, sub)).set(el(fl_.round, sub)).set(el(fl_.tag, sub));
  if (pool_) b.set(el(fl_.obj, sub));
}

void TagsModel::iterator_vars(std::bitset<Footprint::kMaxVars>& b) const {
  for (int v : {fl_.pos, fl_.count, fl_.oops, fl_.stale_fn, fl_.stale_count}) b.set(el(v));
}

Footprint TagsModel::footprint(const State& s, const Step& st) const {
  Footprint f;
  const int sub = st.actor;
  if (sub == nsub_) {
    const int t = st.arg;
    iterator_vars(f.reads);
    iterator_vars(f.writes);
    f.reads.set(el(fl_.bit, t)).set(el(fl_.rqs, t)).set(el(fl_.owner, t));
    for (int i = 0; i < nsub_; ++i) submitter_vars(f.reads, i);  // ref, state and tag of rqs[t]
    return f;
  }
  submitter_vars(f.reads, sub);
  submitter_vars(f.writes, sub);
  switch (st.action) {
    case GET:  // which pool objects are free
      for (int i = 0; i < nsub_; ++i) f.reads.set(el(fl_.obj, i));
      break;
    case ALLOC:
      for (int t = 0; t < ntags_; ++t) f.reads.set(el(fl_.bit, t));  // which bits are clear
      f.writes.set(el(fl_.bit, st.arg)).set(el(fl_.owner, st.arg));
      break;
    case ASSIGN:
      f.writes.set(el(fl_.rqs, tag(s, sub)));
      break;
    case FREE:
      f.writes.set(el(fl_.bit, tag(s, sub))).set(el(fl_.owner, tag(s, sub)));
      break;
    default:
      break;
  }
  return f;
}

std::string TagsModel::summary(const State& s) const {
  std::string bitstr, rq;
  for (int t = 0; t < ntags_; ++t) {
    bitstr += test_bit(s, t) ? '1' : '0';
    rq += fmt::format("{}{}", t ? "," : "", rqs(s, t) ? std::to_string(rqs(s, t)) : "-");
  }
  std::string out = fmt::format("bits {} rqs[{}] |", bitstr, rq);
  for (int sub = 0; sub < nsub_; ++sub) {
    out += fmt::format(" s{}:{}", sub, tags::kPcNames[pc(s, sub)]);
    if (pc(s, sub) != DONE && pc(s, sub) != GET && pc(s, sub) != ALLOC)
      out += fmt::format("(rq {} tag {})", request_id(s, sub), static_cast<int>(tag(s, sub)));
  }
  out += fmt::format(" | iter pos {} count {}", static_cast<int>(iter_pos(s)),
                     static_cast<int>(iter_count(s)));
  if (iter_flags(s) & kOops) out += " OOPS";
  if (iter_flags(s) & kStaleFn) out += " STALE-FN";
  if (iter_flags(s) & kStaleCount) out += " STALE-COUNT";
  return out;
}

nlohmann::json TagsModel::state_json(const State& s) const { return schema_.json(s); }

Influence TagsModel::influence() const {
  InfluenceBuilder b(schema_, static_info().props.size());
  b.maybe({"obj"});
  // Which steps are enabled: pcs, the held tag, the clear bits, the free
  // pool objects, the walk's position and whether it died; finished() too.
  b.control({"pc", "tag", "bit", "obj", "pos", "oops"});
  b.flow("bit", {"bit", "tag"})
      .flow("owner", {"owner", "tag", "round", "obj", "pc"})
      .flow("rqs", {"rqs", "tag", "round", "obj"})
      .flow("pc", {"pc", "round"})
      .flow("round", {"round"})
      .flow("tag", {"tag"})
      .flow("obj", {"obj"})
      .flow("pos", {"pos", "oops", "bit", "rqs"})
      .flow("oops", {"oops", "bit", "rqs"})
      // fn's call and its count read the request behind rqs[t]: its owner,
      // whether it is alive, in flight, and its tag (the submitters' state).
      .flow("stale_fn", {"stale_fn", "bit", "rqs", "owner", "pc", "round", "tag", "obj"})
      .flow("count", {"count", "bit", "rqs", "owner", "pc", "round", "tag", "obj"})
      .flow("stale_count", {"stale_count", "bit", "rqs", "owner", "pc", "round", "tag", "obj"});
  b.reads(NoNullDeref, {"oops"})
      .reads(FnSeesOwner, {"stale_fn"})
      .reads(CountOwnerOnly, {"stale_count"})
      .reads(WalkCountBounded, {"count"});
  return b.done();
}

int TagsModel::symmetric_block(const std::vector<int>&) const {
  return schema_.find_place("submitters");
}

void TagsModel::rename(State& s, const std::vector<int>& perm) const {
  if (pool_) return;
  auto moved = [&](int id) {
    if (id == 0) return 0;
    const int sub = (id - 1) / rounds_, r = (id - 1) % rounds_;
    return perm[std::size_t(sub)] * rounds_ + r + 1;
  };
  for (int t = 0; t < ntags_; ++t) {
    owner_.set(s, t, moved(owner_.get(s, t)));
    rqs_.set(s, t, moved(rqs_.get(s, t)));
  }
}

Footprint TagsModel::actor_future(const State& s, int actor) const {
  Footprint f;
  if (actor == nsub_) {
    if (iterator_done(s)) return f;
    iterator_vars(f.reads);
    iterator_vars(f.writes);
    for (int t = iter_pos(s); t < ntags_; ++t)
      f.reads.set(el(fl_.bit, t)).set(el(fl_.rqs, t)).set(el(fl_.owner, t));
    for (int i = 0; i < nsub_; ++i) submitter_vars(f.reads, i);
    return f;
  }
  const int sub = actor, p = pc(s, sub);
  if (p == DONE) return f;
  submitter_vars(f.reads, sub);
  submitter_vars(f.writes, sub);
  if (pool_)
    for (int i = 0; i < nsub_; ++i) f.reads.set(el(fl_.obj, i));
  if (p <= ALLOC || round(s, sub) + 1 < rounds_) {  // it allocates again: any tag
    for (int t = 0; t < ntags_; ++t) {
      f.reads.set(el(fl_.bit, t));
      f.writes.set(el(fl_.bit, t)).set(el(fl_.owner, t)).set(el(fl_.rqs, t));
    }
  } else {
    const int t = tag(s, sub);  // the last round, past its allocation
    if (p <= ASSIGN) f.writes.set(el(fl_.rqs, t));
    f.writes.set(el(fl_.bit, t)).set(el(fl_.owner, t));
  }
  return f;
}

}  // namespace blkmc
