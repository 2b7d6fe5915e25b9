#include "model/sched/deadline/deadline.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/sched/deadline/deadline_decide.hpp"

namespace blkmc::sched {

namespace {
const char* const kDir[] = {"READ", "WRITE"};
const char* const kPrio[] = {"RT", "BE", "IDLE"};

void say(Why* why, const std::string& text) {
  if (!why) return;
  if (!why->empty()) *why += "; ";
  *why += text;
}

// A request's name, formatted only when printed.
struct RqName {
  const RqTable* t;
  int r;
};
}  // namespace
}  // namespace blkmc::sched

template <>
struct fmt::formatter<blkmc::sched::RqName> : fmt::formatter<std::string> {
  auto format(const blkmc::sched::RqName& n, format_context& ctx) const {
    return fmt::formatter<std::string>::format(n.r < 0 ? std::string("NULL") : n.t->name(n.r), ctx);
  }
};

namespace blkmc::sched {
namespace {
// Formats only when a story is wanted (the search passes no Why).
template <class... Args>
void say(Why* why, fmt::format_string<Args...> f, Args&&... args) {
  if (why) say(why, fmt::format(f, std::forward<Args>(args)...));
}
}  // namespace

const std::vector<VariantInfo>& DeadlineScheduler::variants() {
  static const std::vector<VariantInfo> v{
      {"v6.18", "v6.18",
       "mq-deadline of v6.18: global dispatch list, per-priority sort/fifo lists and latest_pos, "
       "batches of fifo_batch, writes_starved, expiry checked when a batch starts, aged pass with "
       ">= 2 priority levels",
       "block-layer.md E; block/mq-deadline.c (v6.18)"},
      {"head-request", "seed 002 PATCH v2 2/2",
       "\"block/mq-deadline: Prioritize first request\": no deadline expired and nothing at/after "
       "latest_pos: start the batch at the lowest sector (deadline_head_request), not the fifo "
       "head "
       "(with nr_sched_batch = 1: one request per queue run, as the model always does)",
       "seeds/002_1c64cb3f32818c3d.txt (Wang You, 2022-07-22, not merged)"},
      {"prio-5.14", "fb926032b320",
       "\"block/mq-deadline: Prioritize high-priority requests\" (5.14-rc1, on c807ab520fc3 \"Add "
       "I/O "
       "priority support\"; reverted by 7b05bf771084): aged pass on every dispatch, per-priority "
       "dispatch lists, next_rq; inserted counted per insert, completed per finish",
       "block-layer.md E; commits fb926032b320, c807ab520fc3, 7b05bf771084, b6d2b054e8ba"},
      {"prio-5.16", "322cff70d46c",
       "\"block/mq-deadline: Prioritize high-priority requests\" (5.16): jiffies, aged pass only "
       "with "
       ">= 2 levels; at-head inserts leave fifo_time unset (725f22a1477c), a requeue counts "
       "inserted "
       "twice (e2c7275dc0fe)",
       "block-layer.md E; commits 322cff70d46c, 725f22a1477c, e2c7275dc0fe"},
      {"v6.1", "v6.1",
       "mq-deadline of 6.1: prio-5.16's per-priority dispatch lists and next_rq, with an at-head insert "
       "stamping fifo_time (725f22a1477c) and a request counted once per life (e2c7275dc0fe)",
       "Debian's linux-source-6.1 (6.1.192): blkmc conform holds it against that file"},
  };
  return v;
}

std::vector<ParamInfo> DeadlineScheduler::params() {
  return {
      {"fifo_batch", 16, 0, 64, "requests per batch (sysfs fifo_batch)"},
      {"writes_starved", 2, 0, 15, "how often reads may be preferred over waiting writes"},
      {"read_expire", 2, 0, 60, "read deadline in ticks (kernel: HZ/2)"},
      {"write_expire", 20, 0, 60, "write deadline in ticks (kernel: 5*HZ)"},
      {"prio_aging_expire", 40, 0, 60,
       "ticks after which lower-priority requests are dispatched anyway (kernel: 10*HZ)"},
      {"shadow", -1, -1, 4,
       "with same-choice: compare every dispatch choice with what this variant index would "
       "choose on the same state (-1: off)"},
  };
}

std::vector<PropInfo> DeadlineScheduler::extra_props() {
  return {{"same-choice", PropKind::Invariant,
           "with shadow=V: every dispatch choice (direction and request, dd_choose) equals what "
           "variant V's __dd_dispatch_request would take on the same state; the reachable "
           "counterpart of blkmc diff's dispatch_choice"}};
}

const char* DeadlineScheduler::summary() {
  return "mq-deadline (block/mq-deadline.c): sort/fifo lists per priority and direction, batches, "
         "writes_starved, expiry and priority aging, over a workload and a blk-mq device";
}

DeadlineScheduler::DeadlineScheduler(int variant, const Params& p, const RqTable& t)
    : t_(t),
      variant_(variant),
      fifo_batch_(p.at("fifo_batch")),
      writes_starved_(p.at("writes_starved")),
      read_expire_(p.at("read_expire")),
      write_expire_(p.at("write_expire")),
      prio_aging_expire_(p.at("prio_aging_expire")),
      shadow_(p.at("shadow")) {
  if (variant < V6_18 || variant > V6_1) throw UsageError("deadline: bad variant index");
  age_cap_ = std::max({read_expire_, write_expire_, prio_aging_expire_, 1});
}

void DeadlineScheduler::declare(Schema& sc, SchemaSlots& slots) {
  slots.byte(last_dir_, sc.enumeration("last_dir", {kDir[READ], kDir[WRITE]}));
  slots.byte(batching_, sc.integer("batching", 0, 255));
  slots.byte(starved_, sc.integer("starved", 0, 255));
  const int prio = sc.block("dd_prio", 3);  // RT, BE, IDLE
  slots.byte(queued_, sc.integer("dd_queued", -128, 127, prio));
  if (uses_next_rq()) {
    slots.byte(pos_[READ], sc.integer("next_rq_read", -1, kMaxRqs - 1, prio));
    slots.byte(pos_[WRITE], sc.integer("next_rq_write", -1, kMaxRqs - 1, prio));
  } else {
    slots.byte(pos_[READ], sc.integer("latest_pos_read", 0, 255, prio));
    slots.byte(pos_[WRITE], sc.integer("latest_pos_write", 0, 255, prio));
  }
  pos_bias_ = uses_next_rq() ? 1 : 0;
  if (shadow_ >= 0) slots.bit(differed_, sc.bit("dd_differed"));
}

void DeadlineScheduler::rename(SchedState& s, const SchedState& before, const std::vector<int>&,
                               const std::vector<int>& rq_perm) const {
  if (!uses_next_rq()) return;  // latest_pos is a sector, the same for interchangeable processes
  for (int prio = RT; prio <= IDLE; ++prio)
    for (int dir = READ; dir <= WRITE; ++dir)
      if (const int next = pos(before, prio, dir); next > 0) set_pos(s, prio, dir, rq_perm[std::size_t(next - 1)] + 1);
}

// dd_init_sched: kzalloc, then last_dir = DD_WRITE.
void DeadlineScheduler::init(SchedState& s) const {
  set_last_dir(s, WRITE);
  set_batching(s, 0);
  set_starved(s, 0);
  for (int p = RT; p <= IDLE; ++p) {
    queued_.set(s, p, 0);
    for (int d = READ; d <= WRITE; ++d) set_pos(s, p, d, 0);
  }
  if (shadow_ >= 0) differed_.set(s, 0);
}

// dd_queued() is a u32 difference in the kernel: a negative count reads as huge.
std::string DeadlineScheduler::queued_text(const SchedState& s, int prio) const {
  const int q = dd_queued(s, prio);
  return q >= 0 ? std::to_string(q) : fmt::format("{} (as u32: {})", q, 4294967296LL + q);
}

void DeadlineScheduler::add_queued(SchedState& s, int prio, int delta) const {
  const int v = std::clamp(dd_queued(s, prio) + delta, -128, 127);
  queued_.set(s, prio, v);
}

bool DeadlineScheduler::accounting_ok(const SchedState& s) const {
  int truth[3] = {0, 0, 0};
  for (int r = 0; r < t_.size(); ++r)
    if (t_.outstanding(s, r)) ++truth[t_.prio(r)];
  for (int p = 0; p < 3; ++p)
    if (dd_queued(s, p) != truth[p]) return false;
  return true;
}

// --- lists, as queries over the request table ---

int DeadlineScheduler::deadline_from_pos(const SchedState& s, int prio, int dir, int p) const {
  // The rb-tree is keyed by sector; equal sectors keep insertion order.
  int best = -1;
  for (int r = 0; r < t_.size(); ++r) {
    if (t_.status(s, r) != St::Sched || t_.prio(r) != prio || t_.dir(r) != dir) continue;
    if (t_.sector(r) < p) continue;
    if (best < 0 || t_.sector(r) < t_.sector(best) ||
        (t_.sector(r) == t_.sector(best) && t_.seq(s, r) < t_.seq(s, best)))
      best = r;
  }
  return best;
}

int DeadlineScheduler::deadline_next_request(const SchedState& s, int prio, int dir) const {
  if (uses_next_rq()) return pos(s, prio, dir) - 1;  // per_prio->next_rq[dir]
  return deadline_from_pos(s, prio, dir, pos(s, prio, dir));
}

int DeadlineScheduler::deadline_fifo_request(const SchedState& s, int prio, int dir) const {
  int best = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.status(s, r) == St::Sched && t_.prio(r) == prio && t_.dir(r) == dir &&
        (best < 0 || t_.seq(s, r) < t_.seq(s, best)))
      best = r;
  return best;
}

// rb_first(&per_prio->sort_list[dir]) (seed 002).
int DeadlineScheduler::deadline_head_request(const SchedState& s, int prio, int dir) const {
  return deadline_from_pos(s, prio, dir, 0);
}

int DeadlineScheduler::deadline_latter_request(const SchedState& s, int rq) const {
  int best = -1;
  const int prio = t_.prio(rq), dir = t_.dir(rq);
  auto after = [&](int a, int b) {  // a sorts after b in the rb-tree
    return t_.sector(a) > t_.sector(b) ||
           (t_.sector(a) == t_.sector(b) && t_.seq(s, a) > t_.seq(s, b));
  };
  for (int r = 0; r < t_.size(); ++r)
    if (r != rq && t_.status(s, r) == St::Sched && t_.prio(r) == prio && t_.dir(r) == dir &&
        after(r, rq) && (best < 0 || after(best, r)))
      best = r;
  return best;
}

// time_is_before_eq_jiffies(fifo_time): fifo_time = insertion + fifo_expire[dir].
bool DeadlineScheduler::deadline_check_fifo(const SchedState& s, int prio, int dir) const {
  const int rq = deadline_fifo_request(s, prio, dir);
  return t_.age(s, rq) >= expire(dir);
}

// The request started after latest_start = now - min_age. Its start time is
// fifo_time - fifo_expire[dir] (5.16 on; the insertion tick) or the
// allocation time (5.14, ktime): both its insertion here. An unset fifo_time
// (kNoFifoTime) lies in the future.
bool DeadlineScheduler::started_after(const SchedState& s, int rq, int min_age) const {
  if (t_.flag(s, rq, kNoFifoTime)) return true;
  return t_.age(s, rq) < min_age;
}

int DeadlineScheduler::dispatch_list_head(const SchedState& s, int prio) const {
  // list_add() at head, list_first_entry() to dispatch: the newest first.
  int best = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.status(s, r) == St::SchedHead && (prio < 0 || t_.prio(r) == prio) &&
        (best < 0 || t_.seq(s, r) > t_.seq(s, best)))
      best = r;
  return best;
}

// --- the kernel's functions ---

void DeadlineScheduler::dd_insert_request(SchedState& s, int rq, bool at_head, bool requeue,
                                          Why* why) const {
  const int prio = t_.prio(rq), dir = t_.dir(rq);
  // Statistics: 6.1 and 6.18 count a request once per life
  // (rq->elv.priv[0]); 5.14 and 5.16 on every insert, so a requeued request
  // counts twice.
  if (counts_once()) {
    if (!t_.flag(s, rq, kInserted)) add_queued(s, prio, 1);
  } else {
    add_queued(s, prio, 1);
  }
  t_.set_flag(s, rq, kInserted, true);
  // Requeues go back at head (blk_mq_requeue_work).
  const bool head = at_head || requeue;
  t_.set_age(s, rq, 0);
  t_.set_flag(s, rq, kNoFifoTime, false);
  if (head) {
    t_.set_status(s, rq, St::SchedHead);
    // 322cff70d46c reads fifo_time of dispatch-list requests but never sets
    // it there (725f22a1477c adds rq->fifo_time = jiffies): a request first
    // inserted at head has none; a requeued one keeps its first insert's.
    const bool unset = variant_ == Prio5_16 && !requeue;
    if (unset) t_.set_flag(s, rq, kNoFifoTime, true);
    say(why, "dd_insert_request: {} at head of the {}dispatch list{}", RqName{&t_, rq},
        uses_next_rq() ? kPrio[prio] + std::string(" ") : std::string(), unset ? " (fifo_time left unset)" : "");
  } else {
    t_.set_status(s, rq, St::Sched);
    say(why,
        "dd_insert_request: {} onto {} sort_list/fifo_list[{}], expires in {} "
        "tick(s)",
        RqName{&t_, rq}, kPrio[prio], kDir[dir], expire(dir));
  }
  if (why)
    say(why, "dd_queued({}) = {}{}", kPrio[prio], queued_text(s, prio),
        requeue && !counts_once() ? " (counted again: a requeued request is inserted twice)"
            : "");
}

void DeadlineScheduler::dd_finish_request(SchedState& s, int rq, Why* why) const {
  const int prio = t_.prio(rq);
  // 5.14 counts every finish, also of requests that never went through
  // dd_insert_request (bypass inserts); b6d2b054e8ba on only inserted ones.
  if (variant_ == Prio5_14 || t_.flag(s, rq, kInserted)) {
    add_queued(s, prio, -1);
    if (why)
      say(why, "dd_finish_request: stats.completed++ for {}{}: dd_queued({}) = {}", kPrio[prio],
          t_.flag(s, rq, kInserted)
              ? ""
              : fmt::format(" although {} never went through dd_insert_request", RqName{&t_, rq}),
          kPrio[prio], queued_text(s, prio));
  } else {
    say(why, "dd_finish_request: not inserted here, not counted");
  }
}

bool DeadlineScheduler::dd_has_work(const SchedState& s) const {
  for (int r = 0; r < t_.size(); ++r)
    if (t_.queued(s, r)) return true;
  return false;
}

// Takes rq off the sort and fifo lists (5.x: and moves next_rq past it).
void DeadlineScheduler::deadline_move_request(SchedState& s, int prio, int rq) const {
  if (uses_next_rq()) {
    const int latter = deadline_latter_request(s, rq);
    set_pos(s, prio, READ, 0);
    set_pos(s, prio, WRITE, 0);
    set_pos(s, prio, t_.dir(rq), latter + 1);
  }
  t_.set_status(s, rq, St::Idle);  // the caller hands it to blk-mq
}

// dd_start_request: latest_pos[dir] = blk_rq_pos(rq) (6.18).
void DeadlineScheduler::dd_start_request(SchedState& s, int dir, int rq) const {
  if (!uses_next_rq()) set_pos(s, t_.prio(rq), dir, t_.sector(rq));
}

int DeadlineScheduler::__dd_dispatch_request(SchedState& s, int prio, int min_age, Why* why) const {
  const char* const P = kPrio[prio];
  // 5.x: the per-priority dispatch list comes first, subject to aging too.
  if (uses_next_rq()) {
    const int h = dispatch_list_head(s, prio);
    if (h >= 0) {
      if (started_after(s, h, min_age)) {
        say(why, "{}: dispatch list head {} started after the limit{}: NULL", P, RqName{&t_, h},
            t_.flag(s, h, kNoFifoTime) ? " (fifo_time never set)" : "");
        return -1;
      }
      say(why, "{}: dispatch list head {}", P, RqName{&t_, h});
      t_.set_status(s, h, St::Idle);
      return h;
    }
  }
  // The choice itself is dd_choose() (deadline_decide.hpp), shared with
  // blkmc diff; here it is applied to the state and explained.
  const int was = starved(s);
  const bool has_r = has_fifo(s, prio, READ), has_w = has_fifo(s, prio, WRITE);
  const int next_r = deadline_next_request(s, prio, READ);
  const int next_w = deadline_next_request(s, prio, WRITE);
  const dd::DdView<bool, int> view{batching(s),
                                   fifo_batch_,
                                   last_dir(s) == WRITE,
                                   has_r,
                                   has_w,
                                   next_r >= 0,
                                   next_w >= 0,
                                   has_r && deadline_check_fifo(s, prio, READ),
                                   has_w && deadline_check_fifo(s, prio, WRITE),
                                   was,
                                   writes_starved_};
  const dd::Choice<bool, int> c = dd::dd_choose(variant_ == HeadRequest, view);
  // The request a choice names (the batch's next, the fifo head, the lowest).
  auto request_of = [&](const dd::Choice<bool, int>& x) {
    if (x.none) return -1;
    const int dir = x.write ? WRITE : READ;
    if (x.take_lowest) return deadline_head_request(s, prio, dir);
    if (x.take_fifo) return deadline_fifo_request(s, prio, dir);
    return x.write ? next_w : next_r;
  };
  if (shadow_ >= 0 && shadow_ != variant_) {
    const int mine = request_of(c);
    const int theirs = request_of(dd::dd_choose(shadow_ == HeadRequest, view));
    if (mine != theirs) {
      differed_.set(s, 1);
      say(why, "(shadow {} would take {})", variants()[std::size_t(shadow_)].name,
          theirs < 0 ? std::string("nothing") : fmt::format("{}", RqName{&t_, theirs}));
    }
  }
  if (c.none) return -1;
  const int data_dir = c.write ? WRITE : READ;
  const int next_rq = c.write ? next_w : next_r;
  int rq = -1;
  if (!c.new_batch) {
    rq = next_rq;
    say(why, "{}: batch continues in {} ({} of {}): {}", P, kDir[data_dir], batching(s) + 1,
        fifo_batch_, RqName{&t_, rq});
  } else {
    set_starved(s, c.starved);
    if (has_r && has_w && c.write)
      say(why, "{}: new batch: writes starved {} >= {}: WRITE", P, was, writes_starved_);
    else if (has_r && has_w)
      say(why, "{}: new batch: READ (starved {} -> {}, limit {})", P, was, starved(s),
          writes_starved_);
    else if (has_r)
      say(why, "{}: new batch: READ", P);
    else
      say(why, "{}: new batch: no reads, WRITE", P);
    const bool expired = c.write ? view.expired_write : view.expired_read;
    if (c.take_lowest) {
      rq = deadline_head_request(s, prio, data_dir);
      say(why, "nothing at/after {}, none expired: head request {}",
          uses_next_rq() ? "next_rq" : "latest_pos", RqName{&t_, rq});
    } else if (c.take_fifo) {
      rq = deadline_fifo_request(s, prio, data_dir);
      say(why, "{}: fifo head {}",
          expired          ? "deadline expired"
          : uses_next_rq() ? "next_rq is NULL"
                           : "nothing at/after latest_pos",
          RqName{&t_, rq});
    } else {
      rq = next_rq;
      say(why, "next in sector order {}", RqName{&t_, rq});
    }
    if (rq < 0) return -1;
    set_last_dir(s, data_dir);
    set_batching(s, 0);
  }
  // dispatch_request:
  if (started_after(s, rq, min_age)) {
    say(why, "{} is younger than prio_aging_expire: NULL", RqName{&t_, rq});
    return -1;
  }
  set_batching(s, batching(s) + 1);
  deadline_move_request(s, prio, rq);
  dd_start_request(s, data_dir, rq);
  return rq;
}

// Requests of priority other than RT inserted more than prio_aging_expire ago.
int DeadlineScheduler::dd_dispatch_prio_aged_requests(SchedState& s, Why* why) const {
  if (variant_ != Prio5_14) {
    const int prio_cnt =
        (dd_queued(s, RT) != 0) + (dd_queued(s, BE) != 0) + (dd_queued(s, IDLE) != 0);
    if (prio_cnt < 2) return -1;
  }
  std::string w;
  for (int prio = BE; prio <= IDLE; ++prio) {
    const int rq = __dd_dispatch_request(s, prio, prio_aging_expire_, why ? &w : nullptr);
    if (rq >= 0) {
      say(why, "aged pass: " + w);
      return rq;
    }
  }
  if (!w.empty()) say(why, "aged pass: " + w + "; nothing aged");
  return -1;
}

int DeadlineScheduler::dd_dispatch_request(SchedState& s, Why* why) const {
  if (!uses_next_rq()) {
    const int h = dispatch_list_head(s, -1);
    if (h >= 0) {
      t_.set_status(s, h, St::Idle);
      dd_start_request(s, t_.dir(h), h);
      say(why, "dispatch list head {}", RqName{&t_, h});
      return h;
    }
  }
  int rq = dd_dispatch_prio_aged_requests(s, why);
  if (rq >= 0) return rq;
  // Then in priority order; stop at the first level with requests queued
  // (dd_queued counts dispatched-but-not-completed requests too).
  for (int prio = RT; prio <= IDLE; ++prio) {
    rq = __dd_dispatch_request(s, prio, 0, why);
    if (rq >= 0) return rq;
    if (dd_queued(s, prio) != 0) {
      bool queued_here = false;
      for (int r = 0; r < t_.size(); ++r)
        queued_here = queued_here || (t_.queued(s, r) && t_.prio(r) == prio);
      if (why)
        say(why, "dd_queued({}) = {}{}: lower priorities wait", kPrio[prio], queued_text(s, prio),
            queued_here ? "" : " (none of them queued)");
      return -1;
    }
  }
  return -1;
}

std::string DeadlineScheduler::summary(const SchedState& s) const {
  std::string out = fmt::format("dd last_dir={} batching={} starved={}", kDir[last_dir(s)],
                                batching(s), starved(s));
  int truth[3] = {0, 0, 0};
  for (int r = 0; r < t_.size(); ++r)
    if (t_.outstanding(s, r)) ++truth[t_.prio(r)];
  for (int p = RT; p <= IDLE; ++p) {
    const int q = dd_queued(s, p);
    const int pr = pos(s, p, READ), pw = pos(s, p, WRITE);
    if (q == 0 && pr == 0 && pw == 0) continue;
    if (uses_next_rq())
      out += fmt::format(" {}:queued={} next_rq R={} W={}", kPrio[p], q, pr ? t_.name(pr - 1) : "-",
                         pw ? t_.name(pw - 1) : "-");
    else
      out += fmt::format(" {}:queued={} latest_pos R={} W={}", kPrio[p], q, pr, pw);
    if (q != truth[p]) out += fmt::format(" (but {} outstanding)", truth[p]);
  }
  return out;
}

nlohmann::json DeadlineScheduler::json(const SchedState& s) const {
  nlohmann::json j{
      {"last_dir", kDir[last_dir(s)]}, {"batching", batching(s)}, {"starved", starved(s)}};
  for (int p = RT; p <= IDLE; ++p) {
    nlohmann::json pp{{"dd_queued", dd_queued(s, p)}};
    for (int d = READ; d <= WRITE; ++d) {
      if (uses_next_rq())
        pp[d == READ ? "next_rq_read" : "next_rq_write"] = pos(s, p, d) - 1;
      else
        pp[d == READ ? "latest_pos_read" : "latest_pos_write"] = pos(s, p, d);
    }
    j[kPrio[p]] = pp;
  }
  return j;
}

}  // namespace blkmc::sched
