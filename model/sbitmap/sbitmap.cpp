#include "model/sbitmap/sbitmap.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace blkmc {

static_assert(std::size(sbitmap::kPcNames) == SbitmapModel::kNumPc);

namespace {
const char* const kClearNames[] = {
    "clear_bit in the word (before ea86ea2cdced)",
    "deferred cleared mask, sbitmap_deferred_clear under swap_lock (ea86ea2cdced, 5.0)",
    "deferred cleared mask, lockless xchg + andnot (661d4f55a794 removed swap_lock)",
    "deferred cleared mask under swap_lock, re-checking the word (72d04bdcf3f7, 6.11)"};

std::string bits_string(unsigned v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (v >> i) & 1 ? '1' : '0';
  return out;
}
}  // namespace

Schema sbitmap::schema(const Config& c) {
  Schema sc;
  const int full = (1 << c.tags) - 1, floor = -(c.tasks + 1);
  const bool six_two = c.variant >= SbitmapModel::K4f8126;
  sc.integer("word", 0, full);
  sc.integer("cleared", 0, full);
  sc.integer("wake_index", 0, c.nr_ws - 1);
  sc.integer("wait_index", 0, c.nr_ws - 1);
  if (six_two) {
    // One count per put that found waiters; wakeup_cnt stays at or below it.
    sc.integer("completion_cnt", 0, c.tasks * c.rounds);
    sc.integer("wakeup_cnt", 0, c.tasks * c.rounds);
  }
  const int irq = sc.group("irq");
  sc.integer("owner", -1, c.tasks - 1, irq);
  sc.integer("victim", -1, c.tasks - 1, irq);
  sc.boolean("wasted_wakeup");
  const int ws = sc.block("ws", c.nr_ws);
  if (!six_two) sc.integer("wait_cnt", floor, c.batch, ws);
  sc.integer("wait", 0, c.tasks, sc.block("wait", c.nr_ws * c.tasks));
  const int task = sc.block("tasks", c.tasks);
  sc.enumeration("pc", {std::begin(kPcNames), std::end(kPcNames)}, task);
  sc.integer("round", 0, c.rounds, task);
  sc.integer("tag", 0, c.tags - 1, task);
  sc.integer("ws", 0, c.nr_ws - 1, task);
  sc.integer("mask", 0, full, task);
  sc.integer("waker_ws", -1, c.nr_ws - 1, task);
  // wait_cnt after the waker's decrement, or (6.2) the wakeup_cnt it read.
  sc.integer("cnt", floor, std::max(c.batch, c.tasks * c.rounds), task);
  sc.integer("phase", 0, 2, task);
  sc.boolean("woken", task);
  sc.boolean("prepared", task);
  sc.layout();
  return sc;
}

const ModelInfo& SbitmapModel::static_info() {
  static const ModelInfo info{
      "sbitmap",
      "sbitmap_queue wake-ups for blk-mq tags: tasks that free tags (wakers) against tasks "
      "sleeping for one (lost wake-ups = I/O hangs)",
      {
          {"tags", 2, 1, kMaxTags, "tags in the bitmap (one sbitmap word)"},
          {"tasks", 3, 1, kMaxTasks, "tasks that allocate and free tags"},
          {"rounds", 1, 1, kMaxRounds, "get-tag / put-tag cycles per task"},
          {"nr_ws", 2, 1, kMaxWs, "wait queues (SBQ_WAIT_QUEUES, 8 in the kernel)"},
          {"batch", 0, 0, 8,
           "wake_batch; 0: clamp(tags / nr_ws, 1, 8), the kernel's rule with nr_ws queues"},
          {"clear", -1, -1, 3,
           "-1: the variant's kernel; 0: clear_bit; 1: deferred cleared mask under swap_lock "
           "(5.0); 2: lockless deferred clear (5.7..6.10); 3: 72d04bdcf3f7's locked re-check"},
          {"irq", 0, 0, 1,
           "1: a put may run as an interrupt on the CPU of a task inside its wake-up path"},
      },
      {
          {"pre-c854ab5773be", "4e5dff41be7b..c854ab5773be^ (4.17)",
           "sbq_wake_up: at wait_cnt <= 0 cmpxchg(wait_cnt, c, c + batch), then every caller "
           "advances wake_index and wakes a batch (concurrent wakers drive wait_cnt down, "
           "advance the index twice, wake on an emptied queue)",
           "commit c854ab5773be (message); lib/sbitmap.c before it"},
          {"c854ab5773be", "c854ab5773be (4.18..6.0)",
           "\"sbitmap: fix race in wait batch accounting\": reset wait_cnt to batch by cmpxchg; "
           "the winner advances wake_index and wakes, the loser retries (still: decrements on "
           "an emptied queue and a double index advance, 040b83fcecfb)",
           "commit c854ab5773be; lib/sbitmap.c __sbq_wake_up 4.18..6.0"},
          {"040b83fcecfb", "040b83fcecfb (6.1-rc1)",
           "\"sbitmap: fix possible io hung due to lost wakeup\": wake first, then advance "
           "wake_index, then atomic_set(wait_cnt, batch); retry when wait_cnt < 0 or the queue "
           "is empty (leaves wait_cnt at 0 when the queue emptied, 48c033314f37)",
           "commit 040b83fcecfb; lib/sbitmap.c at 040b83fcecfb"},
          {"48c033314f37", "48c033314f37 on 4acb83417cad (6.1-rc3..rc7)",
           "\"sbitmap: Avoid leaving waitqueue in invalid state in __sbq_wake_up()\": reset "
           "wait_cnt even if nobody was woken; with 4acb83417cad's conditional decrement a "
           "waker retries while wait_cnt is 0 (spins under an interrupt, 30514bd2dd4e)",
           "commits 48c033314f37, 4acb83417cad; lib/sbitmap.c 6.1 without 30514bd2dd4e"},
          {"30514bd2dd4e", "30514bd2dd4e (6.1)",
           "\"sbitmap: fix lockup while swapping\": sbq_wake_ptr skips a queue whose wait_cnt "
           "is 0 (its own message: can lose wake-ups, e.g. with one waiting queue)",
           "commit 30514bd2dd4e; lib/sbitmap.c v6.1"},
          {"4f8126bb2308", "4f8126bb2308 (6.2-rc as merged)",
           "\"sbitmap: Use single per-bitmap counting to wake up queued tags\": completion_cnt "
           "/ wakeup_cnt; the queue chosen by sbq_wake_ptr can empty before wake_up_nr (Jan "
           "Kara, fixed by 26edb30dd1c0)",
           "commit 4f8126bb2308; review of the patch; 976570b4ecd3 and 26edb30dd1c0 diffs"},
          {"26edb30dd1c0", "976570b4ecd3 + ee7dc86b6d3e + 26edb30dd1c0 (6.2)",
           "\"sbitmap: Try each queue to wake up at least one waiter\": scan every queue from "
           "wake_index until one wakes somebody (a batch may wake only one waiter, "
           "106397376c03)",
           "commits 976570b4ecd3, 26edb30dd1c0"},
          {"106397376c03", "106397376c03 (6.5..6.10) = pre-72d04bdcf3f7",
           "\"sbitmap: fix batching wakeup\": keep scanning until a whole batch is woken (still: "
           "lockless sbitmap_deferred_clear, 72d04bdcf3f7)",
           "commit 106397376c03; lib/sbitmap.c 6.5"},
          {"72d04bdcf3f7", "72d04bdcf3f7 (6.11)",
           "\"sbitmap: fix io hung due to race on sbitmap_word::cleared\": swap_lock around "
           "sbitmap_deferred_clear, which retries when the word has free bits",
           "commit 72d04bdcf3f7 (stable 6.10 backport)"},
      },
      {
          {"no-lost-wakeup", PropKind::Progress,
           "every task completes all its rounds from every reachable state: no task sleeps "
           "with no wake-up left to reach it, no waker busy-loops"},
          {"deadlock", PropKind::Deadlock,
           "some step is enabled while a task has not finished (a sleeper no step can wake)"},
          {"wait-cnt-reset", PropKind::Invariant,
           "before 6.2: whenever no waker is between its decrement of a wait_cnt and the end of "
           "its reset, every wait_cnt is at least 1 (c854ab5773be: driven to 0 or below; "
           "48c033314f37: left at 0)"},
          {"no-wasted-wakeup", PropKind::Invariant,
           "a waker that completed a batch wakes at least one task whenever tasks wait on some "
           "queue (040b83fcecfb: a second index advance wakes an emptied queue; 26edb30dd1c0: "
           "the chosen queue emptied before wake_up_nr)"},
      },
      {"get", "dclear", "andnot", "prepare", "schedule", "finish", "finish-got", "put",
       "wake-ptr", "wake-dec", "wake-check", "wake-cmpxchg", "wake-up-nr", "wake-inc", "wake-set",
       "wake-active", "wake-add", "wake-cmp", "wake-xchg", "wake-scan", "done"},
  };
  return info;
}

int SbitmapModel::default_clear(int variant) {
  if (variant <= C854) return ClearBit;
  if (variant == Y72d04b) return DeferredRecheck;
  return DeferredLockless;
}

namespace {
// The pcs a task's step from pc may lead to within its round, over every
// variant (a superset is sound); the end of the round is left out (GET of
// the next round, or DONE).
std::uint32_t next_pcs(int pc) {
  using M = SbitmapModel;
  auto bits = [](std::initializer_list<int> pcs) {
    std::uint32_t b = 0;
    for (int p : pcs) b |= 1u << p;
    return b;
  };
  switch (pc) {
    case M::GET: return bits({M::GET, M::DCLEAR, M::PREPARE, M::SCHEDULE, M::FINISH_GOT, M::PUT});
    case M::DCLEAR: return bits({M::GET, M::ANDNOT, M::PREPARE, M::SCHEDULE});
    case M::ANDNOT: return bits({M::GET});
    case M::PREPARE: return bits({M::GET});
    case M::SCHEDULE: return bits({M::FINISH});
    case M::FINISH: return bits({M::GET});
    case M::FINISH_GOT: return bits({M::PUT});
    case M::PUT: return bits({M::W_PTR, M::W_ACTIVE});
    case M::W_PTR: return bits({M::W_DEC, M::W_XCHG});
    case M::W_DEC: return bits({M::W_CHECK, M::W_CMPXCHG, M::W_PTR});
    case M::W_CHECK: return bits({M::W_PTR, M::W_WAKE});
    case M::W_CMPXCHG: return bits({M::W_INC, M::W_PTR});
    case M::W_WAKE: return bits({M::W_INC});
    case M::W_INC: return bits({M::W_WAKE, M::W_SET});
    case M::W_SET: return 0;
    case M::W_ACTIVE: return bits({M::W_ADD});
    case M::W_ADD: return bits({M::W_CMP});
    case M::W_CMP: return bits({M::W_PTR, M::W_XCHG});
    case M::W_XCHG: return bits({M::W_WAKE, M::W_SCAN, M::W_CMP});
    case M::W_SCAN: return 0;
    default: return 0;
  }
}
}  // namespace

SbitmapModel::SbitmapModel(int variant, const Params& p)
    : variant_(variant),
      ntags_(p.at("tags")),
      ntasks_(p.at("tasks")),
      rounds_(p.at("rounds")),
      nws_(p.at("nr_ws")),
      batch_(p.at("batch")),
      clear_(p.at("clear")),
      irq_(p.at("irq") != 0) {
  if (variant < PreC854 || variant > Y72d04b) throw UsageError("sbitmap: bad variant index");
  if (batch_ == 0) batch_ = std::clamp(ntags_ / nws_, 1, 8);
  if (clear_ < 0) clear_ = default_clear(variant);
  if (ntasks_ * rounds_ > 60) throw UsageError("sbitmap: tasks x rounds must stay below 60");
  schema_ = sbitmap::schema({variant_, ntags_, ntasks_, rounds_, nws_, batch_});
  fit_schema("sbitmap");
  // At the maxima 9 + 8 + 48 + 6 * 10 = 125 flat variables: footprints name
  // them all.
  if (schema_.size() > int(Footprint::kMaxVars))
    throw std::logic_error("sbitmap: more variables than a footprint holds");
  auto byte = [&](const char* n) { return schema_.byte_var(schema_.find(n)); };
  auto bit = [&](const char* n) { return schema_.bit_var(schema_.find(n)); };
  word_ = byte("word"), cleared_ = byte("cleared");
  wake_index_ = byte("wake_index"), wait_index_ = byte("wait_index");
  if (six_two()) completion_cnt_ = byte("completion_cnt"), wakeup_cnt_ = byte("wakeup_cnt");
  else wait_cnt_ = byte("wait_cnt");
  irq_owner_ = byte("owner"), irq_victim_ = byte("victim"), wasted_ = bit("wasted_wakeup");
  wait_ = byte("wait");
  pc_ = byte("pc"), round_ = byte("round"), tag_ = byte("tag"), ws_ = byte("ws");
  mask_ = byte("mask"), waker_ws_ = byte("waker_ws"), cnt_ = byte("cnt"), phase_ = byte("phase");
  woken_ = bit("woken"), prepared_ = bit("prepared");
  auto first = [&](const char* n) { return schema_.index(schema_.find(n)); };
  fl_ = {first("word"),
         first("cleared"),
         first("wake_index"),
         first("wait_index"),
         six_two() ? first("completion_cnt") : -1,
         six_two() ? first("wakeup_cnt") : -1,
         first("owner"),
         first("victim"),
         first("wasted_wakeup"),
         six_two() ? -1 : first("wait_cnt"),
         first("wait"),
         first("pc"),
         first("round"),
         first("tag"),
         first("ws"),
         first("mask"),
         first("waker_ws"),
         first("cnt"),
         first("phase"),
         first("woken"),
         first("prepared")};
  future_table();
}

SbitmapModel::State SbitmapModel::initial() const {
  State s{};
  set_irq(s, -1, -1);
  for (int t = 0; t < ntasks_; ++t) set_wws(s, t, 0), set_cnt(s, t, 0);
  if (!six_two())
    for (int q = 0; q < nws_; ++q) set_wait_cnt(s, q, batch_);
  return s;  // every task at GET, phase 0, round 0
}

int SbitmapModel::list_len(const State& s, int q) const {
  int n = 0;
  while (n < ntasks_ && list_at(s, q, n)) ++n;
  return n;
}

bool SbitmapModel::on_list(const State& s, int task) const {
  for (int q = 0; q < nws_; ++q)
    for (int i = 0; i < ntasks_; ++i)
      if (list_at(s, q, i) == task + 1) return true;
  return false;
}

int SbitmapModel::waiters(const State& s) const {
  int n = 0;
  for (int q = 0; q < nws_; ++q) n += list_len(s, q);
  return n;
}

int SbitmapModel::ws_active(const State& s) const {
  int n = 0;
  for (int t = 0; t < ntasks_; ++t) n += prepared(s, t);
  return n;
}

void SbitmapModel::list_remove(State& s, int q, int task) const {
  int j = 0;
  for (int i = 0; i < ntasks_; ++i)
    if (const int x = list_at(s, q, i); x != task + 1) set_list_at(s, q, j++, x);
  while (j < ntasks_) set_list_at(s, q, j++, 0);
}

int SbitmapModel::wake_list(State& s, int q, int n) const {
  int woke = 0;
  while (woke < n && waitqueue_active(s, q)) {
    const int t = list_at(s, q, 0) - 1;
    list_remove(s, q, t);
    set_woken(s, t, true);
    ++woke;
  }
  return woke;
}

std::string SbitmapModel::ws_name(int q) const { return fmt::format("ws[{}]", q); }

// sbq_wake_ptr: the first queue with waiters from wake_index on (30514bd2dd4e:
// whose wait_cnt is also not 0); -1 when none.
int SbitmapModel::find_wake_ptr(const State& s, bool skip_zero) const {
  if (!ws_active(s)) return -1;
  int idx = wake_index(s);
  for (int i = 0; i < nws_; ++i) {
    if (waitqueue_active(s, idx) && (!skip_zero || wait_cnt(s, idx) != 0)) return idx;
    idx = (idx + 1) % nws_;
  }
  return -1;
}

// bt_wait_ptr -> sbq_wait_ptr: ws[wait_index], then advance wait_index.
void SbitmapModel::bt_wait_ptr(State& s, int t) const {
  set_ws(s, t, wait_index(s));
  set_wait_index(s, (wait_index(s) + 1) % nws_);
}

// Where blk_mq_get_tag goes after one __blk_mq_get_tag.
void SbitmapModel::try_result(State& s, int t, bool got, std::string* text) const {
  const int ph = phase(s, t);
  set_phase(s, t, 0);
  if (got) {
    if (ph < 2) set_ws(s, t, 0);  // sbitmap_finish_wait after the loop has nothing to do
    set_pc(s, t, ph == 2 ? FINISH_GOT : PUT);
    if (text) *text += fmt::format(": got tag {}", static_cast<int>(tag(s, t)));
    return;
  }
  if (ph == 0) {
    bt_wait_ptr(s, t);
    set_phase(s, t, 1);
    set_pc(s, t, GET);
    if (text)
      *text += fmt::format(": no tag; bt_wait_ptr gives {}, run the queue and retry",
                           ws_name(ws(s, t)));
  } else if (ph == 1) {
    set_pc(s, t, PREPARE);
    if (text) *text += ": no tag";
  } else {
    set_pc(s, t, SCHEDULE);
    if (text) *text += woken(s, t) ? ": no tag (already woken)" : ": no tag, will sleep";
  }
}

// __sbitmap_queue_get. With clear=0 the whole allocation; otherwise
// __sbitmap_get_word, falling back to sbitmap_deferred_clear.
void SbitmapModel::sbitmap_get(State& s, int t, std::string* text) const {
  static const char* const kWhich[] = {"", " (loop top)", " (after prepare_to_wait)"};
  if (text)
    *text = fmt::format("__sbitmap_get_word{}: word {}", kWhich[phase(s, t)],
                        bits_string(word(s), ntags_));
  const unsigned freebits = unsigned(~word(s)) & full_mask();
  if (freebits) {
    int b = 0;
    while (!((freebits >> b) & 1)) ++b;
    set_word(s, word(s) | (1 << b));
    set_tag(s, t, std::uint8_t(b));
    try_result(s, t, true, text);
  } else if (clear_ == ClearBit) {
    try_result(s, t, false, text);
  } else {
    set_pc(s, t, DCLEAR);
    if (text) *text += " full: try sbitmap_deferred_clear";
  }
}

void SbitmapModel::sbitmap_deferred_clear(State& s, int t, std::string* text) const {
  const int c = cleared(s);
  if (text)
    *text = fmt::format("sbitmap_deferred_clear{}: cleared {}",
                        clear_ == DeferredLockless ? "" : " (swap_lock)", bits_string(c, ntags_));
  if (c == 0) {
    // 72d04bdcf3f7: under the lock, retry if the word has free bits.
    if (clear_ == DeferredRecheck && (word(s) & full_mask()) != full_mask()) {
      set_pc(s, t, GET);
      if (text)
        *text += fmt::format(" is empty but word {} has free bits: retry",
                             bits_string(word(s), ntags_));
      return;
    }
    if (text)
      *text += fmt::format(" is empty, word {}: allocation fails", bits_string(word(s), ntags_));
    try_result(s, t, false, text);
    return;
  }
  if (clear_ == DeferredLockless) {
    set_mask(s, t, c);  // mask = xchg(&map->cleared, 0); the andnot is the next step
    set_cleared(s, 0);
    set_pc(s, t, ANDNOT);
    if (text) *text += fmt::format(": xchg takes {}, cleared = 0, word not yet updated",
                                   bits_string(c, ntags_));
    return;
  }
  set_word(s, word(s) & ~c);
  set_cleared(s, 0);
  set_pc(s, t, GET);
  if (text)
    *text += fmt::format(": moved into the word, now {}; retry", bits_string(word(s), ntags_));
}

void SbitmapModel::deferred_clear_andnot(State& s, int t, std::string* text) const {
  set_word(s, word(s) & ~mask(s, t));
  if (text)
    *text = fmt::format("sbitmap_deferred_clear: atomic_long_andnot({}, word) -> word {}; retry",
                        bits_string(mask(s, t), ntags_), bits_string(word(s), ntags_));
  set_mask(s, t, 0);
  set_pc(s, t, GET);
}

void SbitmapModel::sbitmap_prepare_to_wait(State& s, int t, std::string* text) const {
  const int q = ws(s, t);
  const bool first = !prepared(s, t);
  set_phase(s, t, 2);
  set_woken(s, t, false);
  set_prepared(s, t, true);
  set_list_at(s, q, list_len(s, q), t + 1);
  set_pc(s, t, GET);
  if (text)
    *text = fmt::format("sbitmap_prepare_to_wait: {}queued on {} (exclusive, tail), ws_active {}",
                        first ? "ws_active++, " : "", ws_name(q), ws_active(s));
}

void SbitmapModel::io_schedule(State& s, int t, std::string* text) const {
  set_pc(s, t, FINISH);
  if (text) *text = "io_schedule returns: the task was woken";
}

void SbitmapModel::sbitmap_finish_wait(State& s, int t, bool got, std::string* text) const {
  const int q = ws(s, t);
  const bool was_on = on_list(s, t);
  list_remove(s, q, t);
  set_prepared(s, t, false);
  set_woken(s, t, false);
  set_phase(s, t, 0);
  if (text)
    *text = fmt::format("sbitmap_finish_wait: {}ws_active-- (now {})",
                        was_on ? fmt::format("leaves {} un-woken, ", ws_name(q)) : "",
                        ws_active(s));
  if (got) {
    set_ws(s, t, 0);
    set_pc(s, t, PUT);
    return;
  }
  bt_wait_ptr(s, t);
  set_phase(s, t, 1);
  set_pc(s, t, GET);
  if (text) *text += fmt::format("; bt_wait_ptr gives {}, retry", ws_name(ws(s, t)));
}

void SbitmapModel::blk_mq_put_tag(State& s, int t, int victim, std::string* text) const {
  const int b = tag(s, t);
  if (clear_ == ClearBit) {
    set_word(s, word(s) & ~(1 << b));
  } else {
    set_cleared(s, cleared(s) | (1 << b));
  }
  set_tag(s, t, 0);
  if (victim >= 0) set_irq(s, t, victim);
  set_pc(s, t, six_two() ? W_ACTIVE : W_PTR);
  if (text)
    *text = fmt::format("blk_mq_put_tag({}){}: {}", b,
                        victim >= 0 ? fmt::format(" in an interrupt on task {}'s CPU", victim)
                                    : std::string(),
                        clear_ == ClearBit
                            ? fmt::format("clear_bit -> word {}", bits_string(word(s), ntags_))
                            : fmt::format("deferred: cleared {} (word {})",
                                          bits_string(cleared(s), ntags_),
                                          bits_string(word(s), ntags_)));
}

// __sbq_wake_up returned true: sbitmap_queue_wake_up calls it again.
void SbitmapModel::waker_retry(State& s, int t) const {
  set_wws(s, t, 0);
  set_cnt(s, t, 0);
  set_pc(s, t, W_PTR);
}

void SbitmapModel::waker_done(State& s, int t) const {
  set_wws(s, t, 0);
  set_cnt(s, t, 0);
  if (irq_owner(s) == t) set_irq(s, -1, -1);
  set_round(s, t, round(s, t) + 1);
  set_pc(s, t, round(s, t) == rounds_ ? DONE : GET);
}

void SbitmapModel::sbq_wake_ptr(State& s, int t, std::string* text) const {
  const int before = wake_index(s);
  const int q = find_wake_ptr(s, variant_ == H30514);
  if (text)
    *text = fmt::format("sbq_wake_ptr from wake_index {}{}", before,
                        variant_ == H30514 ? " (skipping wait_cnt 0)" : "");
  if (q < 0) {
    if (text) {
      const int skipped = variant_ == H30514 ? find_wake_ptr(s, false) : -1;
      *text += skipped >= 0
                   ? fmt::format(": {} has {} waiting but wait_cnt 0, skipped; no queue to wake: "
                                 "return (this free's wake-up is lost)",
                                 ws_name(skipped), list_len(s, skipped))
                   : std::string(": no queue to wake: return");
    }
    waker_done(s, t);
    return;
  }
  set_wake_index(s, q);
  set_wws(s, t, q + 1);
  set_pc(s, t, variant_ == K4f8126 ? W_XCHG : W_DEC);
  if (text)
    *text += fmt::format(" -> {} ({} waiting{})", ws_name(q), list_len(s, q),
                         six_two() ? std::string()
                                   : fmt::format(", wait_cnt {}", wait_cnt(s, q)));
}

void SbitmapModel::wait_cnt_dec(State& s, int t, std::string* text) const {
  const int q = wws(s, t) - 1;
  const int cur = wait_cnt(s, q);
  if (variant_ == J48c033 || variant_ == H30514) {
    // 4acb83417cad: cur = read; if (cur == 0) return true; try_cmpxchg(cur, cur - 1)
    if (cur == 0) {
      if (text) {
        *text = fmt::format("__sbq_wake_up: {}->wait_cnt is 0: return true, call again",
                            ws_name(q));
        const int v = irq_victim(s);
        if (irq_owner(s) == t && v >= 0 && resetting(s, v) && wws(s, v) == wws(s, t))
          *text += fmt::format(" (only task {}, interrupted on this CPU, would reset it)", v);
      }
      waker_retry(s, t);
      return;
    }
    set_wait_cnt(s, q, cur - 1);
    set_cnt(s, t, cur - 1);
    set_pc(s, t, W_CHECK);
    if (text)
      *text = fmt::format("__sbq_wake_up: try_cmpxchg {}->wait_cnt {} -> {}", ws_name(q), cur,
                          cur - 1);
    return;
  }
  const int c = std::max(cur - 1, wait_cnt_floor());
  set_wait_cnt(s, q, c);
  set_cnt(s, t, c);
  if (text)
    *text = fmt::format("atomic_dec_return(&{}->wait_cnt) = {}{}", ws_name(q), c,
                        cur - 1 < wait_cnt_floor() ? " (saturated)" : "");
  if (variant_ == PreC854 || variant_ == C854) {
    if (c > 0) {
      if (text) *text += " > 0: return";
      waker_done(s, t);
    } else {
      set_pc(s, t, W_CMPXCHG);
    }
    return;
  }
  set_pc(s, t, W_CHECK);  // 040b83fcecfb
}

void SbitmapModel::wait_cnt_check(State& s, int t, std::string* text) const {
  const int q = wws(s, t) - 1, c = cnt(s, t);
  const bool active = waitqueue_active(s, q);
  if (text)
    *text = fmt::format("__sbq_wake_up: wait_cnt {}, {} {}", c, ws_name(q),
                        active ? "has waiters" : "is empty");
  if (variant_ == Y040b83) {
    if (c < 0 || !active) {
      if (text) *text += ": return true, call again";
      waker_retry(s, t);
    } else if (c > 0) {
      if (text) *text += ": return";
      waker_done(s, t);
    } else {
      set_pc(s, t, W_WAKE);
      if (text) *text += ": this caller wakes the batch";
    }
    return;
  }
  // 48c033314f37 and 30514bd2dd4e (on 4acb83417cad: c >= 0).
  if (c > 0) {
    if (active) {
      if (text) *text += ": return";
      waker_done(s, t);
    } else {
      if (text) *text += ": decremented an empty queue, return true, call again";
      waker_retry(s, t);
    }
    return;
  }
  // wait_cnt == 0: this caller resets it; *nr is now 0, so even `ret` (the
  // queue was empty) ends the loop: __sbq_wake_up(nr = 0) returns false.
  set_pc(s, t, W_WAKE);
  if (text) *text += ": this caller wakes and must reset wait_cnt";
}

void SbitmapModel::wait_cnt_cmpxchg(State& s, int t, std::string* text) const {
  const int q = wws(s, t) - 1, c = cnt(s, t), cur = wait_cnt(s, q);
  const int want = variant_ == PreC854 ? c + batch_ : batch_;
  const bool ok = cur == c;
  if (ok) set_wait_cnt(s, q, want);
  if (text)
    *text = fmt::format("atomic_cmpxchg(&{}->wait_cnt, {}, {}) {} (wait_cnt was {})", ws_name(q),
                        c, want, ok ? "succeeds" : "fails", cur);
  if (variant_ == PreC854 || ok) {
    set_pc(s, t, W_INC);
    if (text && variant_ == PreC854 && !ok) *text += "; advances and wakes anyway";
    return;
  }
  if (text) *text += ": return true, call again";
  waker_retry(s, t);
}

void SbitmapModel::wake_up_nr(State& s, int t, std::string* text) const {
  const int q = wws(s, t) - 1;
  std::string who;
  for (int i = 0; i < std::min(batch_, list_len(s, q)); ++i)
    who += fmt::format("{}task {}", i ? ", " : "", list_at(s, q, i) - 1);
  const int elsewhere = waiters(s);
  const int n = wake_list(s, q, batch_);
  if (n == 0 && elsewhere > 0) set_wasted(s, true);
  if (text)
    *text = fmt::format("wake_up_nr(&{}->wait, {}) wakes {}", ws_name(q), batch_,
                        n ? who
                        : elsewhere
                            ? fmt::format("nobody: the queue is empty while {} task{} wait{} on "
                                          "another queue: the batch is wasted",
                                          elsewhere, elsewhere > 1 ? "s" : "",
                                          elsewhere > 1 ? "" : "s")
                            : std::string("nobody: the queue is empty"));
  if (variant_ == PreC854 || variant_ == C854 || variant_ == K4f8126) {
    waker_done(s, t);
  } else {
    set_pc(s, t, W_INC);
  }
}

void SbitmapModel::sbq_index_atomic_inc(State& s, int t, std::string* text) const {
  const int before = wake_index(s);
  set_wake_index(s, (before + 1) % nws_);
  if (text)
    *text = fmt::format("sbq_index_atomic_inc: wake_index {} -> {}", before,
                        static_cast<int>(wake_index(s)));
  set_pc(s, t, (variant_ == PreC854 || variant_ == C854) ? W_WAKE : W_SET);
}

void SbitmapModel::wait_cnt_set(State& s, int t, std::string* text) const {
  const int q = wws(s, t) - 1;
  set_wait_cnt(s, q, batch_);
  if (text) *text = fmt::format("atomic_set(&{}->wait_cnt, {})", ws_name(q), batch_);
  waker_done(s, t);
}

void SbitmapModel::ws_active_check(State& s, int t, std::string* text) const {
  const int a = ws_active(s);
  if (text) *text = fmt::format("sbitmap_queue_wake_up: ws_active {}", a);
  if (!a) {
    if (text) *text += ": nobody waits, the completion is not counted";
    waker_done(s, t);
    return;
  }
  set_pc(s, t, W_ADD);
}

void SbitmapModel::completion_add(State& s, int t, std::string* text) const {
  set_completion_cnt(s, completion_cnt(s) + 1);
  set_cnt(s, t, wakeup_cnt(s));
  set_pc(s, t, W_CMP);
  if (text)
    *text = fmt::format("atomic_add(1, &completion_cnt) -> {}; wakeups = wakeup_cnt = {}",
                        static_cast<int>(completion_cnt(s)), cnt(s, t));
}

void SbitmapModel::completion_cmp(State& s, int t, std::string* text) const {
  const int d = completion_cnt(s) - cnt(s, t);
  if (text)
    *text = fmt::format("completion_cnt {} - wakeups {} = {} {} wake_batch {}",
                        static_cast<int>(completion_cnt(s)), cnt(s, t), d,
                        d < batch_ ? "<" : ">=", batch_);
  if (d < batch_) {
    if (text) *text += ": return";
    waker_done(s, t);
    return;
  }
  set_pc(s, t, (variant_ == K4f8126 && wws(s, t) == 0) ? W_PTR : W_XCHG);
}

void SbitmapModel::wakeup_cmpxchg(State& s, int t, std::string* text) const {
  const int w = cnt(s, t), cur = wakeup_cnt(s);
  if (cur == w) {
    set_wakeup_cnt(s, w + batch_);
    set_pc(s, t, variant_ == K4f8126 ? W_WAKE : W_SCAN);
    if (text)
      *text = fmt::format("atomic_try_cmpxchg(&wakeup_cnt, {}, {}) succeeds: this caller wakes "
                          "a batch",
                          w, w + batch_);
    return;
  }
  set_cnt(s, t, cur);
  set_pc(s, t, W_CMP);
  if (text)
    *text = fmt::format("atomic_try_cmpxchg(&wakeup_cnt, {}, ...) fails: wakeups = {}", w, cur);
}

// __sbitmap_queue_wake_up(sbq, wake_batch), 26edb30dd1c0 / 106397376c03.
void SbitmapModel::sbitmap_queue_wake_scan(State& s, int t, std::string* text) const {
  if (text) *text = "__sbitmap_queue_wake_up";
  if (!ws_active(s)) {
    if (text) *text += ": ws_active 0, return";
    waker_done(s, t);
    return;
  }
  int idx = wake_index(s), nr = batch_;
  const int before = waiters(s);
  std::string woke;
  for (int i = 0; i < nws_; ++i) {
    const int q = idx;
    idx = (idx + 1) % nws_;
    if (!waitqueue_active(s, q)) continue;
    std::vector<int> who;
    for (int k = 0; k < std::min(nr, list_len(s, q)); ++k) who.push_back(list_at(s, q, k) - 1);
    const int n = wake_list(s, q, nr);
    for (int w : who) woke += fmt::format("{}task {} on {}", woke.empty() ? "" : ", ", w, ws_name(q));
    if (variant_ == K26edb30) {
      if (n) break;
    } else {
      if (n == nr) break;
      nr -= n;
    }
  }
  if (woke.empty() && before > 0) set_wasted(s, true);
  if (text)
    *text += fmt::format(" from wake_index {} (batch {}): wakes {}; wake_index = {}",
                         static_cast<int>(wake_index(s)), batch_,
                         woke.empty() ? std::string("nobody") : woke, idx);
  set_wake_index(s, idx);
  waker_done(s, t);
}

void SbitmapModel::exec(State& s, const Step& st, std::string* text) const {
  const int t = st.actor;
  switch (st.action) {
    case GET: sbitmap_get(s, t, text); break;
    case DCLEAR: sbitmap_deferred_clear(s, t, text); break;
    case ANDNOT: deferred_clear_andnot(s, t, text); break;
    case PREPARE: sbitmap_prepare_to_wait(s, t, text); break;
    case SCHEDULE: io_schedule(s, t, text); break;
    case FINISH: sbitmap_finish_wait(s, t, false, text); break;
    case FINISH_GOT: sbitmap_finish_wait(s, t, true, text); break;
    case PUT: blk_mq_put_tag(s, t, int(st.arg) - 1, text); break;
    case W_PTR: sbq_wake_ptr(s, t, text); break;
    case W_DEC: wait_cnt_dec(s, t, text); break;
    case W_CHECK: wait_cnt_check(s, t, text); break;
    case W_CMPXCHG: wait_cnt_cmpxchg(s, t, text); break;
    case W_WAKE: wake_up_nr(s, t, text); break;
    case W_INC: sbq_index_atomic_inc(s, t, text); break;
    case W_SET: wait_cnt_set(s, t, text); break;
    case W_ACTIVE: ws_active_check(s, t, text); break;
    case W_ADD: completion_add(s, t, text); break;
    case W_CMP: completion_cmp(s, t, text); break;
    case W_XCHG: wakeup_cmpxchg(s, t, text); break;
    case W_SCAN: sbitmap_queue_wake_scan(s, t, text); break;
    default: break;
  }
}

bool SbitmapModel::finished(const State& s) const {
  for (int t = 0; t < ntasks_; ++t)
    if (pc(s, t) != DONE) return false;
  return true;
}

// no-lost-wakeup and deadlock are decided by the explorer from the state
// graph (Progress, Deadlock); the invariants read the state and its ghost.
bool SbitmapModel::violates(int prop, const State& s) const {
  switch (prop) {
    case WaitCntReset: {
      if (six_two()) return false;  // no wait_cnt from 6.2 on
      for (int t = 0; t < ntasks_; ++t)
        if (resetting(s, t)) return false;
      for (int q = 0; q < nws_; ++q)
        if (wait_cnt(s, q) < 1) return true;
      return false;
    }
    case NoWastedWakeup:
      return wasted(s);
    default:
      return false;
  }
}

std::string SbitmapModel::actor_name(int actor) const { return fmt::format("task {}", actor); }

std::string SbitmapModel::describe(const State& s, const Step& st) const {
  State next = s;
  std::string text;
  exec(next, st, &text);
  if (irq_owner(s) == st.actor && st.action != PUT) text = "[irq] " + text;
  return text;
}

// Conservative: what each step reads and writes, on the schema's variables.
// Every step reads the interrupt (an interrupt on a task's CPU disables it)
// and its task's pc and local variables. woken is a task's only variable
// other tasks write (a wake-up), so a task's own steps name it only where
// they use it: SCHEDULE is enabled by it, PREPARE and FINISH clear it.
// ws_active is the tasks' `prepared` flags: the steps that count it read
// them all, the steps that change it write their own.
void SbitmapModel::step_footprint(Footprint& f, int t, int action, int arg, const State* s) const {
  // first < 0: a variable this variant does not have (an actor future
  // takes every pc, also those of other variants).
  auto el = [](int first, int i = 0) { return std::size_t(first + i); };
  auto all = [&](std::bitset<Footprint::kMaxVars>& b, int first, int n) {
    if (first >= 0)
      for (int i = 0; i < n; ++i) b.set(el(first, i));
  };
  auto both = [&](int first, int i = 0) {
    if (first < 0) return;
    f.reads.set(el(first, i));
    f.writes.set(el(first, i));
  };
  // A queue's FIFO slots; q < 0: every queue.
  auto list = [&](std::bitset<Footprint::kMaxVars>& b, int q) {
    if (q < 0) all(b, fl_.wait, nws_ * ntasks_);
    else all(b, fl_.wait + q * ntasks_, ntasks_);
  };
  auto wait_cnt = [&](int q) {
    if (q < 0) {
      all(f.reads, fl_.wait_cnt, nws_);
      all(f.writes, fl_.wait_cnt, nws_);
    } else {
      both(fl_.wait_cnt, q);
    }
  };
  f.reads.set(el(fl_.owner)).set(el(fl_.victim));
  for (int v : {fl_.pc, fl_.round, fl_.tag, fl_.ws, fl_.mask, fl_.waker_ws, fl_.cnt, fl_.phase})
    both(v, t);
  const int q = s ? ws(*s, t) : -1, wq = s ? wws(*s, t) - 1 : -1;
  switch (action) {
    case GET:  // bt_wait_ptr when the first try fails
      both(fl_.word), both(fl_.wait_index);
      break;
    case DCLEAR:
      both(fl_.word), both(fl_.cleared), both(fl_.wait_index);
      break;
    case ANDNOT:
      both(fl_.word);
      break;
    case PREPARE:
    case FINISH:
    case FINISH_GOT:
      list(f.reads, q), list(f.writes, q);
      f.writes.set(el(fl_.prepared, t)).set(el(fl_.woken, t));
      if (action == FINISH) both(fl_.wait_index);
      break;
    case SCHEDULE:  // enabled once woken
      f.reads.set(el(fl_.woken, t));
      break;
    case PUT:
      both(fl_.word), both(fl_.cleared);
      if (irq_) {
        // Which interrupts it may run as: the tasks inside their wake-up path.
        all(f.reads, fl_.pc, ntasks_);
        if (!s || arg) f.writes.set(el(fl_.owner)).set(el(fl_.victim));
      }
      break;
    case W_PTR:
      both(fl_.wake_index);
      all(f.reads, fl_.prepared, ntasks_);
      list(f.reads, -1);
      if (!six_two()) all(f.reads, fl_.wait_cnt, nws_);
      break;
    case W_DEC:
    case W_CMPXCHG:
    case W_SET:
      wait_cnt(wq);
      break;
    case W_CHECK:
      list(f.reads, wq);
      break;
    case W_WAKE:
      list(f.reads, -1);  // are tasks waiting elsewhere (the ghost)
      list(f.writes, wq), f.writes.set(el(fl_.wasted));
      all(f.writes, fl_.woken, ntasks_);
      break;
    case W_INC:
      both(fl_.wake_index);
      break;
    case W_ACTIVE:
      all(f.reads, fl_.prepared, ntasks_);
      break;
    case W_ADD:
      both(fl_.completion_cnt), all(f.reads, fl_.wakeup_cnt, 1);
      break;
    case W_CMP:
      all(f.reads, fl_.completion_cnt, 1);
      break;
    case W_XCHG:
      both(fl_.wakeup_cnt);
      break;
    case W_SCAN:
      both(fl_.wake_index);
      all(f.reads, fl_.prepared, ntasks_);
      list(f.reads, -1), list(f.writes, -1);
      f.writes.set(el(fl_.wasted));
      all(f.writes, fl_.woken, ntasks_);
      break;
    default:
      break;
  }
  // Ending a wake-up path clears an interrupt this task owns.
  if (action >= W_PTR && action <= W_SCAN && (s ? irq_owner(*s) == t : irq_))
    f.writes.set(el(fl_.owner)).set(el(fl_.victim));
}

Footprint SbitmapModel::footprint(const State& s, const Step& st) const {
  Footprint f;
  step_footprint(f, st.actor, st.action, st.arg, &s);
  return f;
}

Influence SbitmapModel::influence() const {
  InfluenceBuilder b(schema_, static_info().props.size());
  b.maybe({"completion_cnt", "wakeup_cnt", "wait_cnt"});
  // Which steps are enabled: the pcs, whether a sleeper was woken, the
  // interrupt (its victim cannot step; a put runs as one only while none
  // is in progress); finished() reads the pcs.
  b.control({"pc", "woken", "owner", "victim"});
  // What a waker's branches read (where it goes, whether it returns, ends
  // the interrupt or advances the round), and a tasks's tries (word,
  // cleared, phase): the new pc, round, cnt, waker_ws and interrupt.
  const std::initializer_list<const char*> decide = {
      "pc",   "round",    "word",     "cleared", "phase",          "prepared",  "wake_index",
      "wait", "wait_cnt", "waker_ws", "cnt",     "completion_cnt", "wakeup_cnt"};
  b.flow("pc", decide)
      .flow("round", decide)
      .flow("cnt", decide)
      .flow("waker_ws", decide)
      .flow("owner", decide)
      .flow("victim", decide)
      .flow("word", {"word", "cleared", "mask", "tag", "pc"})
      .flow("cleared", {"cleared", "tag", "word", "pc"})
      .flow("mask", {"mask", "cleared", "word", "pc"})
      .flow("tag", {"tag", "word", "pc"})
      // bt_wait_ptr runs when a try fails.
      .flow("wait_index", {"wait_index", "word", "cleared", "phase", "pc"})
      .flow("ws", {"ws", "wait_index", "word", "cleared", "phase", "pc"})
      .flow("phase", {"phase", "word", "cleared", "pc"})
      .flow("prepared", {"prepared", "pc"})
      // sbq_wake_ptr's and the scan's choice of queue.
      .flow("wake_index", {"wake_index", "prepared", "wait", "wait_cnt", "pc"})
      .flow("wait", {"wait", "ws", "waker_ws", "wake_index", "prepared", "pc"})
      .flow("woken", {"woken", "wait", "ws", "waker_ws", "wake_index", "prepared", "pc"})
      .flow("wait_cnt", {"wait_cnt", "waker_ws", "cnt", "pc"})
      .flow("completion_cnt", {"completion_cnt", "pc"})
      .flow("wakeup_cnt", {"wakeup_cnt", "cnt", "pc"})
      .flow("wasted_wakeup", {"wasted_wakeup", "wait", "waker_ws", "wake_index", "prepared", "pc"});
  // no-lost-wakeup and deadlock read finished() and the successors only.
  b.reads(WaitCntReset, {"pc", "wait_cnt"}).reads(NoWastedWakeup, {"wasted_wakeup"});
  return b.done();
}

// Nothing in a step depends on a task's index: the wait queues are FIFOs
// (order by arrival, not by index), the put's interrupts may hit any task in
// its wake-up path, allocation picks a bit, not a task; the properties
// quantify over all tasks. irq=1 included (owner and victim are renamed).
int SbitmapModel::symmetric_block(const std::vector<int>&) const {
  return schema_.find_place("tasks");
}

void SbitmapModel::rename(State& s, const std::vector<int>& perm) const {
  for (int i = 0; i < nws_ * ntasks_; ++i)
    if (const int x = wait_.get(s, i); x > 0) wait_.set(s, i, perm[std::size_t(x - 1)] + 1);
  const int o = irq_owner(s), v = irq_victim(s);
  set_irq(s, o < 0 ? -1 : perm[std::size_t(o)], v < 0 ? -1 : perm[std::size_t(v)]);
}


// The union of the footprints of every step the task may still take: the
// pcs reachable from its pc in this round, and every pc when a round
// follows; any queue, any interrupt. It depends on the task, its pc and
// whether this is its last round only: computed once (future_table).
Footprint SbitmapModel::actor_future(const State& s, int actor) const {
  const int p = pc(s, actor);
  if (p == DONE) return Footprint{};
  const bool last = round(s, actor) + 1 >= rounds_;
  return futures_[(std::size_t(actor) * kNumPc + std::size_t(p)) * 2 + last];
}

void SbitmapModel::future_table() {
  futures_.assign(std::size_t(ntasks_) * kNumPc * 2, Footprint{});
  for (int t = 0; t < ntasks_; ++t)
    for (int p = 0; p < DONE; ++p)
      for (int last = 0; last < 2; ++last) {
        std::uint32_t reach = 1u << p;
        if (!last) {
          reach = (1u << DONE) - 1;
        } else {
          for (std::uint32_t seen = 0; seen != reach;) {
            seen = reach;
            for (int x = 0; x < DONE; ++x)
              if (reach & (1u << x)) reach |= next_pcs(x);
          }
        }
        Footprint& f = futures_[(std::size_t(t) * kNumPc + std::size_t(p)) * 2 + std::size_t(last)];
        for (int x = 0; x < DONE; ++x)
          if (reach & (1u << x)) step_footprint(f, t, x, 0, nullptr);
      }
}

std::string SbitmapModel::summary(const State& s) const {
  std::string out = fmt::format("word {}", bits_string(word(s), ntags_));
  if (clear_ != ClearBit) out += fmt::format(" cleared {}", bits_string(cleared(s), ntags_));
  out += fmt::format(" | wake_index {}", static_cast<int>(wake_index(s)));
  if (six_two())
    out += fmt::format(" completion {} wakeup {}", static_cast<int>(completion_cnt(s)),
                       static_cast<int>(wakeup_cnt(s)));
  for (int q = 0; q < nws_; ++q) {
    out += fmt::format(" {}{{", ws_name(q));
    if (!six_two()) out += fmt::format("cnt {}: ", wait_cnt(s, q));
    for (int i = 0; i < list_len(s, q); ++i)
      out += fmt::format("{}t{}", i ? "," : "", list_at(s, q, i) - 1);
    out += "}";
  }
  if (wasted(s)) out += " WASTED-WAKEUP";
  out += " |";
  for (int t = 0; t < ntasks_; ++t) {
    const int p = pc(s, t);
    out += fmt::format(" t{}:", t);
    if (sleeping(s, t)) out += "SLEEPING";
    else out += sbitmap::kPcNames[p];
    if (p >= PUT && p <= W_SCAN && wws(s, t))
      out += fmt::format("({})", ws_name(wws(s, t) - 1));
    if (irq_victim(s) == t) out += "[interrupted]";
    if (irq_owner(s) == t) out += "[irq]";
  }
  return out;
}

nlohmann::json SbitmapModel::state_json(const State& s) const {
  // The schema's json, with the bitmaps as bit strings, each queue's FIFO
  // as the list of waiting tasks, and ws_active (the prepared tasks).
  nlohmann::json j = schema_.json(s);
  j["word"] = bits_string(unsigned(word(s)), ntags_);
  j["cleared"] = bits_string(unsigned(cleared(s)), ntags_);
  j["ws_active"] = ws_active(s);
  j.erase("wait");
  auto& wsj = j["ws"];
  for (int q = 0; q < nws_; ++q) {
    auto& w = wsj[std::size_t(q)]["wait"] = nlohmann::json::array();
    for (int i = 0; i < list_len(s, q); ++i) w.push_back(list_at(s, q, i) - 1);
  }
  return j;
}

}  // namespace blkmc
