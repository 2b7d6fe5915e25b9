#include "model/inflight/inflight.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace blkmc {

std::string inflight::part_name(int t) { return t == 0 ? std::string("sda") : fmt::format("sda{}", t); }

Schema inflight::schema(const Config& c, SchemaIds* ids) {
  Schema sc;
  SchemaIds id{};
  const int maxc = c.nsub * c.rounds;
  std::vector<std::string> parts;
  for (int t = 0; t <= c.parts; ++t) parts.push_back(part_name(t));
  const int sub = sc.block("submitters", c.nsub), rd = sc.group("reader");
  id.pc = sc.enumeration("pc", {std::begin(kPcNames), std::end(kPcNames)}, sub);
  id.target = sc.enumeration("target", parts, sub);
  sc.pack({id.pc, id.target});  // 3 + at most 4 bits: one byte per submitter
  id.round = sc.integer("round", 0, c.rounds, sub);
  // The counters, top level: state_json nests them as in_flight (per CPU
  // an array), which a block of objects cannot say.
  id.cnt0 = -1;
  if (!c.uses_tag_walk())
    for (int t = 0; t <= c.parts; ++t)
      for (int cpu = 0; cpu < c.ncnt_cpu(); ++cpu) {
        const int v = sc.integer(c.uses_percpu() ? fmt::format("in_flight[{}]@cpu{}", parts[std::size_t(t)], cpu)
                                                 : fmt::format("in_flight[{}]", parts[std::size_t(t)]),
                                 -maxc, maxc);
        if (t == 0 && cpu == 0) id.cnt0 = v;
      }
  id.pos = sc.integer("pos", 0, c.read_elements(), rd);
  id.done = sc.integer("done", 0, c.reads, rd);
  id.rd_target = sc.enumeration("target", parts, rd);
  id.sum = sc.integer("sum", -maxc, maxc, rd);
  id.sum0 = sc.integer("sum_part0", -maxc, maxc, rd);
  id.seen = sc.integer("seen", 0, maxc, rd);
  id.seen0 = sc.integer("seen_part0", 0, maxc, rd);
  id.live = sc.boolean("live", rd);
  id.part_wrong = sc.boolean("part_wrong", rd);
  id.part0_wrong = sc.boolean("part0_wrong", rd);
  id.over_bound = sc.boolean("over_bound", rd);
  id.negative = sc.boolean("negative", rd);
  id.missed_queued = sc.boolean("not_submitted_count", rd);
  sc.layout();
  if (ids) *ids = id;
  return sc;
}

const ModelInfo& InflightModel::static_info() {
  static const ModelInfo info{
      "inflight",
      "in-flight accounting of a partitioned disk: submitters issue requests to partitions "
      "(or the whole disk) while a reader computes the diskstats / sysfs inflight count",
      {
          {"parts", 2, 1, kMaxParts, "partitions sda1..sdaN besides part0 (the whole disk sda)"},
          {"submitters", 2, 1, kMaxSubmitters,
           "concurrent submitters; each owns one driver tag while its request holds one"},
          {"rounds", 1, 1, kMaxRounds, "requests each submitter issues, one after another"},
          {"reads", 1, 1, kMaxReads, "reads the reader performs, one after another"},
          {"target", -1, -1, kMaxParts,
           "what the reader reads: -1 any (chosen per read), 0 part0 (the whole-disk line), "
           "N partition N"},
          {"whole", 0, 0, 1, "1: submitters may also issue to the whole disk (rq->part == part0)"},
          {"cpus", 2, 1, kMaxCpus, "CPUs holding per-CPU counters (percpu, 7be835694dae only)"},
      },
      {
          {"legacy-atomic", "v4.13 (before f299b7c7a9de)",
           "part_inc_in_flight/part_dec_in_flight: atomic in_flight[] of the partition and, for "
           "a partition, of part0, from blk_account_io_start to blk_account_io_done",
           "seeds/003_b6080861c1d4707e.txt PATCH 3/4 (the code it removes); block-layer.md C"},
          {"tag-walk-v1", "seed 003 PATCH 3/4 (merged reworked as f299b7c7a9de)",
           "\"blk-mq: provide internal in-flight variant\" as posted: walk the driver tags, count "
           "rq->part == part; no state check, and part0 only sees rq->part == part0",
           "seeds/003_b6080861c1d4707e.txt (Jens Axboe 2017-08-03; Bart Van Assche's review)"},
          {"tag-walk-double", "seed 003 PATCH 4/4",
           "\"blk-mq: enable checking two part inflight counts at the same time\" as posted: one "
           "walk (part_round_stats) counts REQ_ATOM_STARTED requests of part and of part0; part0 "
           "gets rq->part == part or part0 only",
           "seeds/003_b6080861c1d4707e.txt (Bart: count all requests for part0)"},
          {"bf0ddaba65dd", "bf0ddaba65dd",
           "\"blk-mq: fix sysfs inflight counter\" (4.17) as it stood until b0d97557ebfc: count "
           "MQ_RQ_IN_FLIGHT requests with rq->part == part, for part0 too",
           "commit bf0ddaba65dd; b0d97557ebfc's log: the part0 bug came from bf0ddaba65dd and "
           "f299b7c7a9de"},
          {"b0d97557ebfc", "b0d97557ebfc",
           "\"block: fix inflight statistics of part0\" (5.11): part0 counts every "
           "MQ_RQ_IN_FLIGHT request of the disk, a partition rq->part == part",
           "commit b0d97557ebfc (Jeffle Xu)"},
          {"percpu", "5.0 per-CPU in_flight [id unverified]; c007062188d8 (6.16)",
           "local_t in_flight per CPU: ++ on the submitting CPU, -- on the completing CPU, for the "
           "part and for part0; the reader sums the CPUs and clamps a negative sum to 0",
           "block-layer.md C; commits f5482ee5edb9, c007062188d8 \"block: fix false warning in "
           "bdev_count_inflight_rw()\""},
          {"7be835694dae", "99dc422335d8 + 7be835694dae",
           "\"block: fix that util can be greater than 100%\" (6.10): rq-based disks keep per-CPU "
           "in_flight on req->part only, and diskstats/stat read them, so part0 sees only I/O "
           "issued to the whole disk",
           "commits 99dc422335d8 \"block: support to account io_ticks precisely\", 7be835694dae"},
      },
      {
          {"quiescent-exact-part", PropKind::Invariant,
           "a read of a partition during which no submitter steps reports exactly the requests "
           "of that partition inside the variant's accounting window"},
          {"quiescent-exact-part0", PropKind::Invariant,
           "a part0 count (whole-disk read, or the part0 half of a double walk) during which no "
           "submitter steps reports every request of the disk inside the window (Bart Van "
           "Assche's question, seed 003)"},
          {"live-read-bounded", PropKind::Invariant,
           "a read never reports more than the distinct requests inside the window for its "
           "target at some moment during the read"},
          {"never-negative", PropKind::Invariant,
           "the per-CPU sum a read computes is never negative (checked before the clamp)"},
          {"quiescent-counts-queued", PropKind::Invariant,
           "a quiescent read also counts requests still in the scheduler (the legacy definition: "
           "submitted and not completed); tag walks only see requests holding a driver tag"},
          {"deadlock", PropKind::Deadlock,
           "some step is enabled while a submitter or the reader has not finished"},
          {"progress", PropKind::Progress,
           "from every reachable state every submitter and the reader can still finish (no "
           "step here ever blocks, so no hang is expected)"},
      },
      {"submit", "dispatch", "complete", "free", "done", "read", "visit"},
  };
  return info;
}

InflightModel::InflightModel(int variant, const Params& p)
    : variant_(variant),
      parts_(p.at("parts")),
      nsub_(p.at("submitters")),
      rounds_(p.at("rounds")),
      reads_(p.at("reads")),
      target_(p.at("target")),
      whole_(p.at("whole")),
      ncpu_(p.at("cpus")),
      cfg_{variant, parts_, nsub_, rounds_, reads_, target_, whole_, ncpu_} {
  if (variant < 0 || variant > Be835694) throw UsageError("inflight: bad variant index");
  if (target_ > parts_)
    throw UsageError(fmt::format("inflight: target {} but only {} partitions", target_, parts_));
  inflight::SchemaIds id{};
  schema_ = inflight::schema(cfg_, &id);
  fit_schema("inflight");
  // At the maxima: 4 x 3 submitter, 4 x 3 counter and 13 reader variables.
  if (schema_.size() > int(Footprint::kMaxVars))
    throw std::logic_error("inflight: more variables than a Footprint holds");
  const Schema& sc = schema_;
  pc_ = sc.field_var(id.pc), sub_target_ = sc.field_var(id.target), round_ = sc.byte_var(id.round);
  pos_ = sc.byte_var(id.pos), done_ = sc.byte_var(id.done), rd_target_ = sc.byte_var(id.rd_target);
  sum_ = sc.byte_var(id.sum), sum0_ = sc.byte_var(id.sum0);
  seen_ = sc.byte_var(id.seen), seen0_ = sc.byte_var(id.seen0);
  live_ = sc.bit_var(id.live), part_wrong_ = sc.bit_var(id.part_wrong);
  part0_wrong_ = sc.bit_var(id.part0_wrong), over_bound_ = sc.bit_var(id.over_bound);
  negative_ = sc.bit_var(id.negative), missed_queued_ = sc.bit_var(id.missed_queued);
  if (id.cnt0 >= 0)
    for (int i = 0; i < (parts_ + 1) * ncnt_cpu(); ++i) {
      cnt_[std::size_t(i)] = sc.byte_var(id.cnt0 + i);
      cnt_index_[std::size_t(i)] = sc.index(id.cnt0 + i);
    }
  for (int sub = 0; sub < nsub_; ++sub)
    for (int v : {id.pc, id.target, id.round}) sub_vars_[std::size_t(sub)].set(std::size_t(sc.index(v, sub)));
  for (int v = id.pos; v <= id.missed_queued; ++v) reader_vars_.set(std::size_t(sc.index(v)));
  for (int v : {id.pos, id.rd_target, id.live, id.seen, id.seen0}) note_reads_.set(std::size_t(sc.index(v)));
  for (int v : {id.live, id.seen, id.seen0}) note_writes_.set(std::size_t(sc.index(v)));
  pos_index_ = sc.index(id.pos);
}

InflightModel::State InflightModel::initial() const {
  // Every variable 0: submitters idle (SUBMIT), counters and the reader clear.
  State s{};
  schema_.set_values(s, std::vector<int>(std::size_t(schema_.size()), 0));
  return s;
}

int InflightModel::truth(const State& s, int t) const { return inflight::truth(cfg_, view(s), t); }

int InflightModel::submitted_count(const State& s, int t) const {
  return inflight::submitted_count(cfg_, view(s), t);
}

std::pair<int, int> InflightModel::element_value(const State& s, int t, int e) const {
  return inflight::element_value(cfg_, view(s), t, e);
}

int InflightModel::quiescent_read(const State& s, int t) const {
  int sum = 0;
  for (int e = 0; e < read_elements(); ++e) sum += element_value(s, t, e).first;
  return uses_percpu() && sum < 0 ? 0 : sum;
}

// The steps are the templates of model/inflight/inflight_logic.hpp (blk_account_io_start,
// blk_mq_start_request, blk_account_io_done, blk_mq_free_request,
// part_in_flight, end_read), run on View in for_each_successor.

bool InflightModel::finished(const State& s) const { return inflight::finished(cfg_, view(s)); }

bool InflightModel::violates(int prop, const State& s) const {
  return inflight::violates(cfg_, view(s), prop);
}

std::string InflightModel::actor_name(int actor) const {
  return actor == nsub_ ? "reader" : fmt::format("submitter {}", actor);
}

std::string InflightModel::describe(const State& s, const Step& st) const {
  if (st.actor == nsub_) {
    const int elem = st.action == READ ? 0 : st.arg;
    const int t = st.action == READ ? st.arg : rd_target(s);
    const std::string tn = target_name(t);
    std::string out;
    if (elem == 0) {
      if (variant_ == TagWalkDouble)
        out = t ? fmt::format("part_round_stats({0}) -> part_in_flight_double({0}, sda): ", tn)
                : std::string("part_round_stats(sda) -> part_in_flight_double(sda, NULL): ");
      else
        out = fmt::format("read of {} (diskstats / sysfs inflight) begins: ", tn);
    }
    const auto [v, v0] = element_value(s, t, elem);
    const int acc = (elem == 0 ? 0 : rd_acc(s)) + v;
    const int acc0 = (elem == 0 ? 0 : rd_acc0(s)) + v0;
    if (uses_atomic()) {
      out += fmt::format("part_in_flight: atomic_read(in_flight[{}]) = {}", tn, v);
    } else if (uses_percpu()) {
      out += fmt::format("part_in_flight: in_flight[{}]@cpu{} = {}, sum {}", tn, elem, v, acc);
    } else if (!holds_driver_tag(s, elem)) {
      out += fmt::format("driver tag {} is free", elem);
      if (submitted(s, elem))
        out += fmt::format(" (rq {} to {} waits in the scheduler without one)",
                           request_id(s, elem), target_name(target(s, elem)));
    } else {
      const int rt = target(s, elem);
      const std::string state = started(s, elem) ? "in flight"
                                                 : "completed, still holding the tag and "
                                                   "REQ_ATOM_STARTED";
      out += fmt::format("blk_mq_check_inflight(tag {}): rq {} (rq->part = {}, {})", elem,
                         request_id(s, elem), target_name(rt), state);
      if (variant_ == TagWalkDouble && t != 0)
        out += fmt::format(": {} += {}, sda += {}", tn, v, v0);
      else
        out += v ? fmt::format(": counted for {}", tn) : fmt::format(": not counted for {}", tn);
    }
    if (elem + 1 < read_elements()) return out;
    // The read returns.
    const bool quiescent = !(rd_flags(s) & kLive) || elem == 0;
    State n{};
    apply(s, st, n);
    const int reported = uses_percpu() && acc < 0 ? 0 : acc;
    out += fmt::format(" => {} read reports {} for {}", quiescent ? "quiescent" : "live",
                       reported, tn);
    if (uses_percpu() && acc < 0) out += fmt::format(" (sum {} clamped to 0)", acc);
    const char* window = uses_tag_walk() ? "started and not completed" : "submitted and not completed";
    out += fmt::format("; {} now: {}", window, truth(n, t));
    if (variant_ == TagWalkDouble && t != 0)
      out += fmt::format("; its sda (part0) count is {}, the disk has {}", acc0, truth(n, 0));
    const std::uint8_t added = std::uint8_t(rd_flags(n) & ~rd_flags(s));
    if (added & kPartWrong) out += " -- WRONG partition count";
    if (added & kPart0Wrong) out += " -- WRONG part0 count";
    if (added & kOverBound) {
      const bool half0 = variant_ == TagWalkDouble && t != 0 && acc0 > rd_seen0(s);
      const int bound = elem == 0 ? truth(s, half0 ? 0 : t) : (half0 ? rd_seen0(s) : rd_seen(s));
      out += fmt::format(" -- MORE than the {} request(s) in flight at any time during the read",
                         bound);
    }
    if (added & kNegative) out += " -- NEGATIVE per-CPU sum";
    if (added & kMissedQueued) {
      out += fmt::format(" -- the legacy count (submitted, not completed, scheduler included) "
                         "is {} for {}",
                         submitted_count(n, t), tn);
      if (variant_ == TagWalkDouble && t != 0)
        out += fmt::format(" and {} for sda", submitted_count(n, 0));
    }
    return out;
  }
  const int sub = st.actor, id = request_id(s, sub);
  const bool bio_based = variant_ == Percpu;  // per-CPU counters from 5.0: bio-based drivers
  switch (st.action) {
    case SUBMIT: {
      const int t = st.arg & 0x0f, c = st.arg >> 4;
      const std::string tn = target_name(t);
      if (uses_atomic())
        return fmt::format("blk_account_io_start: rq {} to {} enters the elevator queue; "
                           "part_inc_in_flight: in_flight[{}]++{}",
                           id, tn, tn, t ? ", in_flight[sda]++" : "");
      if (uses_percpu())
        return fmt::format("{}: rq {} to {} submitted on cpu{}: in_flight[{}]@cpu{}++{}",
                           bio_based ? "generic_start_io_acct" : "blk_account_io_start", id, tn,
                           c, tn, c,
                           t == 0 ? std::string()
                           : bio_based ? fmt::format(", in_flight[sda]@cpu{}++", c)
                                       : std::string(" (req->part only, not sda)"));
      return fmt::format("blk_account_io_start: rq {} to {} enters the scheduler (scheduler tag "
                         "only, no driver tag yet; nothing is counted for blk-mq)",
                         id, tn);
    }
    case DISPATCH: {
      const std::string tn = target_name(target(s, sub));
      if (uses_atomic())
        return fmt::format("blk_start_request: rq {} ({}) dispatched to the driver", id, tn);
      if (bio_based)
        return fmt::format("make_request_fn: the bio-based driver starts rq {} ({})", id, tn);
      return fmt::format("blk_mq_start_request: rq {} ({}) gets driver tag {} and is started", id,
                         tn, sub);
    }
    case COMPLETE: {
      const int t = target(s, sub);
      const std::string tn = target_name(t);
      if (uses_atomic())
        return fmt::format("blk_account_io_done: rq {} ({}) completes; part_dec_in_flight: "
                           "in_flight[{}]--{}",
                           id, tn, tn, t ? ", in_flight[sda]--" : "");
      if (uses_percpu())
        return fmt::format("{}: rq {} ({}) completes on cpu{}: in_flight[{}]@cpu{}--{}",
                           bio_based ? "generic_end_io_acct" : "blk_account_io_done", id, tn,
                           st.arg, tn, st.arg,
                           t && bio_based ? fmt::format(", in_flight[sda]@cpu{}--", st.arg)
                                          : std::string());
      return fmt::format("blk_mq_complete_request: rq {} ({}) completes; it keeps driver tag {} "
                         "(and REQ_ATOM_STARTED) until it is freed",
                         id, tn, sub);
    }
    case FREE:
      if (uses_atomic()) return fmt::format("__blk_put_request: rq {} freed", id);
      if (bio_based) return fmt::format("bio_endio: rq {} done", id);
      return fmt::format("blk_mq_free_request: rq {} releases driver tag {}", id, sub);
    default:
      return "?";
  }
}

Footprint InflightModel::footprint(const State& s, const Step& st) const {
  Footprint f;
  auto cnt = [&](int t, int c) { return std::size_t(cnt_index_[std::size_t(t * ncnt_cpu() + c)]); };
  auto touch = [&](const Vars& v) {
    f.reads |= v;
    f.writes |= v;
  };
  auto touch1 = [&](std::size_t i) {
    f.reads.set(i);
    f.writes.set(i);
  };
  if (st.actor == nsub_) {
    const int elem = st.action == READ ? 0 : st.arg;
    const int t = st.action == READ ? st.arg : rd_target(s);
    touch(reader_vars_);
    if (uses_atomic()) f.reads.set(cnt(t, 0));
    else if (uses_percpu()) f.reads.set(cnt(t, elem));
    else f.reads |= sub_vars_[std::size_t(elem)];
    // Beginning and ending a read look at every request (the ghost truth).
    if (elem == 0 || elem + 1 == read_elements())
      for (int i = 0; i < nsub_; ++i) f.reads |= sub_vars_[std::size_t(i)];
    return f;
  }
  const int sub = st.actor;
  touch(sub_vars_[std::size_t(sub)]);
  // The ghost (note_submitter_step): whether a read is under way decides
  // whether it is touched; then the live flag and the requests seen.
  f.reads.set(std::size_t(pos_index_));
  if (reading(s)) f.reads |= note_reads_, f.writes |= note_writes_;
  if (!uses_tag_walk() && (st.action == SUBMIT || st.action == COMPLETE)) {
    const int t = st.action == SUBMIT ? (st.arg & 0x0f) : target(s, sub);
    const int c = uses_percpu() ? (st.action == SUBMIT ? st.arg >> 4 : st.arg) : 0;
    touch1(cnt(t, c));
    if (t != 0 && variant_ != Be835694) touch1(cnt(0, c));
  }
  return f;
}

std::string InflightModel::summary(const State& s) const {
  std::string out;
  for (int sub = 0; sub < nsub_; ++sub) {
    out += fmt::format("{}s{}:{}", sub ? " " : "", sub, inflight::kPcNames[pc(s, sub)]);
    if (pc(s, sub) != SUBMIT && pc(s, sub) != DONE)
      out += fmt::format("(rq {} {})", request_id(s, sub), target_name(target(s, sub)));
  }
  if (!uses_tag_walk()) {
    out += " | in_flight";
    for (int t = 0; t <= parts_; ++t) {
      out += fmt::format(" {}=", target_name(t));
      if (!uses_percpu()) {
        out += std::to_string(counter(s, t, 0));
        continue;
      }
      for (int c = 0; c < ncpu_; ++c) out += fmt::format("{}{}", c ? "," : "[", counter(s, t, c));
      out += "]";
    }
  }
  out += fmt::format(" | reads {}/{}", rd_done(s), reads_);
  if (reading(s))
    out += fmt::format(" reading {} next {} sum {}{} seen {}{}", target_name(rd_target(s)),
                       rd_pos(s), rd_acc(s),
                       variant_ == TagWalkDouble && rd_target(s)
                           ? fmt::format(" sda-sum {}", rd_acc0(s))
                           : std::string(),
                       rd_seen(s), rd_flags(s) & kLive ? " LIVE" : "");
  const std::uint8_t f = rd_flags(s);
  if (f & kPartWrong) out += " PART-WRONG";
  if (f & kPart0Wrong) out += " PART0-WRONG";
  if (f & kOverBound) out += " OVER-BOUND";
  if (f & kNegative) out += " NEGATIVE";
  if (f & kMissedQueued) out += " NOT-SUBMITTED-COUNT";
  return out;
}

nlohmann::json InflightModel::state_json(const State& s) const {
  // The schema's json, but the counters nested as before: in_flight, by
  // target a number (legacy-atomic) or an array over the CPUs (per-CPU).
  nlohmann::json j = schema_.json(s);
  if (!uses_tag_walk()) {
    const auto names = variable_names();
    for (int i = 0; i < (parts_ + 1) * ncnt_cpu(); ++i) j.erase(names[std::size_t(cnt_index_[std::size_t(i)])]);
    auto& cnt = j["in_flight"] = nlohmann::json::object();
    for (int t = 0; t <= parts_; ++t) {
      if (!uses_percpu()) {
        cnt[target_name(t)] = counter(s, t, 0);
        continue;
      }
      auto& a = cnt[target_name(t)] = nlohmann::json::array();
      for (int c = 0; c < ncpu_; ++c) a.push_back(counter(s, t, c));
    }
  }
  return j;
}

Influence InflightModel::influence() const {
  InfluenceBuilder b(schema_, static_info().props.size());
  // The counters are the top-level variables (none in the tag walks).
  std::vector<std::string> cnt;
  for (const Schema::Var& v : schema_.vars())
    if (v.place < 0) cnt.push_back(v.name);
  auto with = [&](std::vector<std::string> v) {
    v.insert(v.end(), cnt.begin(), cnt.end());
    return v;
  };
  // The guards: each submitter's pc and rq->part (complete indexes the
  // counter by it), the reader's position, reads done and target;
  // finished() reads pc, pos and done.
  b.control({"pc", "submitters.target", "pos", "done", "reader.target"});
  b.flow("pc", {"pc", "round"}).flow("round", {"round"});
  // blk_account_io_start / _done move the counter of rq->part and part0's.
  for (const std::string& c : cnt) b.flow(c, {c, "submitters.target"});
  // What the read sums (a counter, or a driver tag's request), and the
  // ghost: requests in the window (pc, rq->part) at the read's start and
  // entering it during the read.
  b.flow("sum", with({"sum", "pc", "submitters.target", "reader.target", "pos"}))
      .flow("sum_part0", with({"sum_part0", "pc", "submitters.target", "reader.target", "pos"}))
      .flow("seen", {"seen", "pc", "submitters.target", "reader.target", "pos"})
      .flow("seen_part0", {"seen_part0", "pc", "submitters.target", "pos"})
      .flow("live", {"live", "pos"});
  // end_read settles the verdicts from the sums (with the last element's
  // value), whether the read was quiescent and the truth now.
  b.flow("part_wrong", with({"part_wrong", "live", "sum", "pc", "submitters.target", "reader.target", "pos"}))
      .flow("part0_wrong", with({"part0_wrong", "live", "sum", "sum_part0", "pc", "submitters.target",
                                 "reader.target", "pos"}))
      .flow("not_submitted_count", with({"not_submitted_count", "live", "sum", "sum_part0", "pc",
                                         "submitters.target", "reader.target", "pos"}))
      .flow("over_bound", with({"over_bound", "sum", "sum_part0", "seen", "seen_part0", "pc",
                                "submitters.target", "reader.target", "pos"}))
      .flow("negative", with({"negative", "sum", "pc", "submitters.target", "reader.target", "pos"}));
  b.reads(QuiescentExactPart, {"part_wrong"})
      .reads(QuiescentExactPart0, {"part0_wrong"})
      .reads(LiveReadBounded, {"over_bound"})
      .reads(NeverNegative, {"negative"})
      .reads(QuiescentCountsQueued, {"not_submitted_count"});
  return b.done();
}

int InflightModel::symmetric_block(const std::vector<int>&) const {
  return uses_tag_walk() ? -1 : schema_.find_place("submitters");
}

void InflightModel::future_counters(const State& s, int sub, Vars& b) const {
  if (uses_tag_walk()) return;
  const int p = pc(s, sub);
  const bool last = round(s, sub) + 1 >= rounds_;
  auto of_target = [&](int t) {
    for (int c = 0; c < ncnt_cpu(); ++c) {
      b.set(std::size_t(cnt_index_[std::size_t(t * ncnt_cpu() + c)]));
      b.set(std::size_t(cnt_index_[std::size_t(c)]));  // part0's
    }
  };
  if (p == SUBMIT || (p == FREE && !last)) {  // a submission to come: any target
    for (int t = 0; t <= parts_; ++t) of_target(t);
  } else if (p == DISPATCH || p == COMPLETE) {  // its completion
    of_target(target(s, sub));
    if (!last)
      for (int t = 0; t <= parts_; ++t) of_target(t);
  }
}

Footprint InflightModel::actor_future(const State& s, int actor) const {
  Footprint f;
  if (actor == nsub_) {
    if (reader_done(s)) return f;
    f.reads |= reader_vars_;
    f.writes |= reader_vars_;
    for (int i = 0; i < nsub_; ++i) f.reads |= sub_vars_[std::size_t(i)];  // the truth, the tags
    for (int i = 0; i < (parts_ + 1) * ncnt_cpu() && !uses_tag_walk(); ++i)
      f.reads.set(std::size_t(cnt_index_[std::size_t(i)]));
    return f;
  }
  const int sub = actor;
  if (pc(s, sub) == DONE) return f;
  f.reads |= sub_vars_[std::size_t(sub)];
  f.writes |= sub_vars_[std::size_t(sub)];
  Vars cnt;
  future_counters(s, sub, cnt);
  f.reads |= cnt;
  f.writes |= cnt;
  f.reads.set(std::size_t(pos_index_));
  if (!reader_done(s)) f.reads |= note_reads_, f.writes |= note_writes_;  // a read may be under way
  return f;
}

}  // namespace blkmc
