#include "model/sched/bfq/bfq.hpp"
#include "model/sched/hw_tag_key.hpp"
#include "model/sched/say.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace blkmc::sched {

namespace {
const char* const kReason[] = {"TOO_IDLE", "BUDGET_TIMEOUT", "BUDGET_EXHAUSTED",
                               "NO_MORE_REQUESTS", "PREEMPTED"};
const char* const kClass[] = {"RT", "BE", "IDLE"};

std::uint8_t u8(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }
}  // namespace

const std::vector<VariantInfo>& BfqScheduler::variants() {
  static const std::vector<VariantInfo> v{
      {"v4.13", "v4.13",
       "BFQ of 4.13, before seed 003: bfq_bfqq_may_idle on idle_window (cleared for seeky queues "
       "on queueing devices), slice_idle tested in bfq_bfqq_must_idle",
       "seeds/003_b6080861c1d4707e.txt (context); block/bfq-iosched.c 4.13.4"},
      {"refactor", "seed 003 PATCH V2 1/2",
       "\"block,bfq: refactor device-idling logic\": slice_idle == 0, async and idle class "
       "tested in may_idle; idle_window becomes has_short_ttime, updated on every enqueue",
       "seeds/003_b6080861c1d4707e.txt (PATCH BUGFIX/IMPROVEMENT V2 1/2); mainline d5be3fefb8ee "
       "[id unconfirmed]"},
      {"flash-boost", "seed 003 PATCH V2 2/2",
       "\"block, bfq: boost throughput with flash-based non-queueing devices\": "
       "rot_without_queueing || ((rot || !hw_tag) && !SEEKY && IO_bound && has_short_ttime)",
       "seeds/003_b6080861c1d4707e.txt (PATCH BUGFIX/IMPROVEMENT V2 2/2); in 4.14.5; mainline "
       "edaf94285bbe [id unconfirmed]"},
      {"better-to-idle", "v4.19",
       "\"block, bfq: give a better name to bfq_bfqq_may_idle\": bfq_better_to_idle (4.14 "
       "formula) with 4.19's SEEKY threshold (19 of 32) and async charge factor 3",
       "block/bfq-iosched.c 4.19.1; mainline 277a4a9b56cd [id unconfirmed]"},
      {"v6.12", "5.13+ (6.12)",
       "BFQ as of 6.12: stable merging of a new sync queue into the last one created "
       "(bfq_do_or_sched_stable_merge, 5.13), async queues shared per ioprio, B-WF2Q+ with the "
       "kernel's budgets and timestamps (ties to the earlier activation), bfq_better_to_idle "
       "with idling for service guarantees (asymmetric scenario, a sole busy queue), 6.12's "
       "preemption and charge",
       "block/bfq-iosched.c, bfq-wf2q.c 6.12 (Debian linux-source-6.12); stable merging "
       "mainline 430a67f9d616 [id unconfirmed]"},
  };
  return v;
}

std::vector<ParamInfo> BfqScheduler::params() {
  return {
      {"low_latency", 1, 0, 1, "weight raising of interactive queues (sysfs low_latency)"},
      {"slice_idle", 2, 0, 8, "idle slice in ticks (kernel 8 ms; 0 disables idling)"},
      {"max_budget", 32, 4, 64, "bfqd max budget in sectors (kernel 16384, scaled)"},
      {"strict_guarantees", 0, 0, 1, "sysfs strict_guarantees"},
      {"hw_tag", -1, -1, 1, "initial hw_tag: -1 unknown (detected from samples), 0 or 1"},
      {"hw_samples", 3, 1, 64, "qualifying completions before hw_tag is decided (kernel 32)"},
      {"hw_queue_thr", 2, 1, 8,
       "a sample needs rq_in_driver + queued >= this; hw_tag = max in driver > this (kernel 4)"},
      {"timeout", 8, 1, 64, "budget timeout in ticks (kernel HZ/8 = 125 ms, scaled)"},
      {"wr_ticks", 12, 1, 200, "duration of interactive weight raising in ticks (scaled)"},
      {"wr_min_idle", 8, 1, 200, "ticks idle before a queue is interactive again (kernel 2 s)"},
      {"seek_dist", 4, 0, 255, "a request farther than this from the last one is seeky (800)"},
      {"shadow", -1, -1, 3,
       "-1: off; V: at every idling decision also evaluate variant V's decision functions (and "
       "keep V's flag); conservation fails where the two differ"},
  };
}

const char* BfqScheduler::summary() {
  return "BFQ (block/bfq-iosched.c, seed 003): per-process queues with weights, classes and "
         "budgets, reduced B-WF2Q+, in-service queue, expiration reasons, device idling with the "
         "idle timer, hw_tag detection, weight raising, the idling decision per version";
}

BfqScheduler::BfqScheduler(int variant, const Params& p, const RqTable& t)
    : t_(t),
      variant_(variant),
      nq_(static_cast<int>(t.workload().procs.size())),
      clock_(p.at("clock") != 0),
      low_latency_(p.at("low_latency")),
      slice_idle_(p.at("slice_idle")),
      max_budget_(p.at("max_budget")),
      strict_(p.at("strict_guarantees")),
      hw_tag0_(p.at("hw_tag")),
      hw_samples_(p.at("hw_samples")),
      hw_queue_thr_(p.at("hw_queue_thr")),
      timeout_(p.at("timeout")),
      wr_ticks_(p.at("wr_ticks")),
      wr_min_idle_(p.at("wr_min_idle")),
      seek_dist_(p.at("seek_dist")),
      shadow_(p.at("shadow")) {
  // v6.12 takes the kernel's numbers, in sectors as the kernel-source harness
  // gives them (a model sector is one): hw_tag after 32 samples over a
  // threshold of 3 (BFQ_HW_QUEUE_SAMPLES, _THRESHOLD), seeky beyond 800
  // sectors (BFQQ_SEEK_THR).
  if (variant == V6_12) {
    hw_samples_ = 32;
    hw_queue_thr_ = 3;
    seek_dist_ = 800;
  }
  if (variant < V4_13 || variant > V6_12) throw UsageError("bfq: bad variant index");
  // bfq_bfqq_sync, from op_is_sync: the process waits, its writes carry
  // REQ_SYNC (req_sync), or it reads: a read is sync whether or not its
  // process waits for it.
  const Workload& wl = t.workload();
  for (int q = 0; q < nq_; ++q) {
    const WlProc& pr = wl.procs[std::size_t(q)];
    sync_.push_back(pr.sync || pr.req_sync || wl.proc_has(q, READ));
  }
}

// bfq_init_queue + bfq_init_bfqq (queues exist from the start here): sync
// queues start with idle_window / has_short_ttime set (also an IDLE-class
// one: the class is still 0 when the flag is set), IO_bound set, max_budget
// 2/3 of the device's, seek_history 1, budget_timeout far in the past (so
// the first activation is interactive).
namespace {
const char* const kQByteNames[] = {"budget", "service",  "max_budget", "start",   "finish",
                                   "seek_history", "last_pos", "since", "wr_left", "idle_since"};
const char* const kQFlagNames[] = {"busy", "idle_tree", "flag", "io_bound", "shadow_flag", "non_blocking_wait_rq"};
}  // namespace

void BfqScheduler::declare(Schema& sc, SchemaSlots& slots) {
  slots.byte(in_service_, sc.integer("in_service", -1, nq_ - 1));
  slots.byte(idle_timer_, sc.integer("idle_timer", 0, 255));
  slots.byte(timeout_left_, sc.integer("budget_timeout_in", 0, 255));
  slots.byte(hw_tag_, sc.integer("hw_tag", -1, 1));
  slots.byte(hw_tag_samples_, sc.integer("hw_tag_samples", 0, 255));
  slots.byte(max_rq_in_driver_, sc.integer("max_rq_in_driver", 0, 255));
  if (shadow_ >= 0) slots.bit(differed_, sc.bit("decision_differed"));
  slots.byte(vtime_, sc.integer("vtime", 0, 255));
  slots.byte(in_service_ticks_, sc.integer("in_service_ticks", 0, 255));
  const int q = sc.block("bfqq", nq_);
  for (int f = 0; f < 5; ++f)
    if (f < 4 || shadow_ >= 0) slots.bit(qflag_[f], sc.bit(kQFlagNames[f], q));
  for (int f = 0; f < kNumQBytes; ++f) slots.byte(qv_[f], sc.integer(kQByteNames[f], 0, 255, q));
  slots.byte(ttime_mean_, sc.integer("ttime_mean", 0, 63, q));
  slots.byte(ttime_samples_, sc.integer("ttime_samples", 0, 3, q));
  slots.byte(next_rq_, sc.integer("next_rq", -1, t_.size() - 1, q));
  slots.byte(last_position_, sc.integer("last_position", 0, 255));
  if (variant_ != V6_12) return;
  slots.bit(qflag_[5], sc.bit(kQFlagNames[5], q));
  slots.bit(qflag_[6], sc.bit("ttime_ended", q));
  slots.bit(qflag_[7], sc.bit("coop", q));
  // Queue merging: each request's queue, each queue's scheduled merge
  // (new_bfqq), its place in the rq_pos_tree, bfqd->in_serv_last_pos.
  slots.byte(rq_bfqq_, sc.integer("rq_bfqq", -1, nq_ - 1, sc.block("rq", t_.size())));
  slots.byte(new_bfqq_, sc.integer("new_bfqq", -1, nq_ - 1, q));
  slots.byte(pos_node_, sc.integer("pos_node", 0, 255, q));
  slots.byte(in_serv_last_pos_, sc.integer("in_serv_last_pos", 0, 255));
  slots.byte(tt_samples_, sc.integer("ttime_samples256", 0, 255, q));
  slots.byte(inject_limit_, sc.integer("inject_limit", 0, 255, q));
  slots.byte(active_, sc.integer("active_list", 0, 255, q));
  slots.byte(tt_total_, sc.integer("ttime_total.0", 0, 255, q));
  for (int b = 1; b <= 4; ++b) slots.byte(tt_total_hi_[b - 1], sc.integer(fmt::format("ttime_total.{}", b), 0, 255, q));
  // v6.12: the high bytes of the wide numbers, each process's queue (bic),
  // each queue's place among equal finishes, bfqd->last_bfqq_created.
  for (int f = 0; f <= kFinish; ++f)
    for (int b = 1; b <= hi_bytes(f); ++b)
      slots.byte(qhi_[f][b - 1], sc.integer(fmt::format("{}.{}", kQByteNames[f], b), 0, 255, q));
  for (int b = 1; b <= hi_bytes(kStart); ++b) slots.byte(vtime_hi_[b - 1], sc.integer(fmt::format("vtime.{}", b), 0, 255));
  slots.byte(order_, sc.integer("tree_order", 0, 255, q));
  slots.byte(bic_, sc.integer("bic_bfqq", -1, nq_ - 1, sc.block("bic", nq_)));
  slots.byte(last_created_, sc.integer("last_bfqq_created", -1, nq_ - 1));
  slots.byte(next_, sc.integer("next_in_service", -1, nq_ - 1));
}

void BfqScheduler::resolve(const Schema& sc) {
  qlayout_ = sc.block_layout(sc.find_place("bfqq"));
  if (variant_ == V6_12) biclayout_ = sc.block_layout(sc.find_place("bic"));
}

// The blocks "bfqq" and "bic" have moved with their processes (the model
// moved the requests); now the values that name a queue or a request.
void BfqScheduler::rename(SchedState& s, const SchedState& before, const std::vector<int>& perm,
                          const std::vector<int>& rq_perm) const {
  if (variant_ != V6_12) return;  // renames_procs(): never asked
  move_copies(qlayout_, before, s, perm);
  move_copies(biclayout_, before, s, perm);
  auto queue = [&](int q) { return q < 0 ? q : perm[std::size_t(q)]; };
  set_in_service(s, queue(in_service(before)));
  last_created_->set(s, queue(last_created_->get(before)));
  next_->set(s, queue(next_->get(before)));
  for (int q = 0; q < nq_; ++q) {
    bic_->set(s, q, queue(bic_->get(s, q)));
    new_bfqq_->set(s, q, queue(new_bfqq_->get(s, q)));
    if (const int r = next_rq(s, q); r >= 0) next_rq_.set(s, q, rq_perm[std::size_t(r)]);
    int code = pos_node_->get(s, q);
    if (const int parent = (code & PosTree::kParentMask) - 1; (code & PosTree::kOn) && parent >= 0)
      code = (code & ~PosTree::kParentMask) | (queue(parent) + 1);
    pos_node_->set(s, q, code);
  }
  for (int r = 0; r < t_.size(); ++r) rq_bfqq_->set(s, r, queue(rq_bfqq_->get(s, r)));
}

// Queue a's record against queue b's, then their processes' bics. The
// names they hold (next_rq, new_bfqq, the tree's parents) compare as
// numbers: an order that a renaming may change costs reduction, not
// soundness (explorer/symmetry.hpp keeps the smallest renamed state).
int BfqScheduler::compare_procs(const SchedState& s, int a, int b) const {
  if (int d = compare_copies(qlayout_, s, a, b)) return d;
  return variant_ == V6_12 ? compare_copies(biclayout_, s, a, b) : 0;
}

void BfqScheduler::init(SchedState& s) const {
  set_in_service(s, -1);
  set_timer(s, 0);
  timeout_left_.set(s, 0);
  hw_tag_.set(s, hw_tag0_);
  hw_tag_samples_.set(s, 0);
  max_rq_in_driver_.set(s, 0);
  if (shadow_ >= 0) differed_.set(s, 0);
  in_service_ticks_.set(s, 0);
  last_position_.set(s, 0);
  set_vtime(s, 0);  // with v6.12's high bytes
  if (last_created_) last_created_->set(s, -1);
  if (next_) next_->set(s, -1);
  if (in_serv_last_pos_) in_serv_last_pos_->set(s, 0);
  if (rq_bfqq_)
    for (int r = 0; r < t_.size(); ++r) rq_bfqq_->set(s, r, -1);
  for (int q = 0; q < nq_; ++q) {
    if (bic_) bic_->set(s, q, -1);  // queues are made at a process's first request
    if (order_) order_->set(s, q, 0);
    if (variant_ == V6_12) {
      tt_samples_->set(s, q, 0);
      inject_limit_->set(s, q, 0);
      active_->set(s, q, 0);
      set_wide(s, *tt_total_, tt_total_hi_, q, 4, 0);
      new_bfqq_->set(s, q, -1);
      pos_node_->set(s, q, 0);
    }
    next_rq_.set(s, q, -1);
    for (int f = 0; f < kNumQBytes; ++f) set_qb(s, q, QByte(f), 0);  // also the high bytes
    ttime_mean_.set(s, q, 0);
    ttime_samples_.set(s, q, 0);
    for (std::uint8_t f : {kBusy, kIdleTree, kFlag, kIOBound, kShadowFlag, kNbWait, kEnded, kCoop}) set_qflag(s, q, f, false);
    set_qflag(s, q, kIOBound, true);
    set_qflag(s, q, kFlag, sync(q) && (variant_ != V6_12 || klass(q) != IDLE));  // 6.12: not for IDLE
    set_qflag(s, q, kShadowFlag, sync(q));
    set_qb(s, q, kMaxBudget, max_budget() * 2 / 3);
    set_qb(s, q, kSeekHist, 1);
    set_qb(s, q, kIdleSince, u8(wr_min_idle_));
  }
}

// Without a shadow there is no shadow flag: it keeps its initial value,
// sync(q) (nothing updates it).
bool BfqScheduler::qflag(const SchedState& s, int q, std::uint8_t f) const {
  if (f == kShadowFlag && shadow_ < 0) return sync(q);
  if ((f == kNbWait || f == kEnded || f == kCoop) && variant_ != V6_12) return false;
  return qflag_[std::countr_zero(unsigned(f))].test(s, q);
}

void BfqScheduler::set_qflag(SchedState& s, int q, std::uint8_t f, bool on) const {
  if (f == kShadowFlag && shadow_ < 0) return;
  if ((f == kNbWait || f == kEnded || f == kCoop) && variant_ != V6_12) return;
  qflag_[std::countr_zero(unsigned(f))].set(s, q, on);
}

int BfqScheduler::qflags(const SchedState& s, int q) const {
  int m = 0;
  for (std::uint8_t f : {kBusy, kIdleTree, kFlag, kIOBound, kShadowFlag, kNbWait, kCoop})
    if (qflag(s, q, f)) m |= f;
  return m;
}

// --- derived facts ---

bool BfqScheduler::sync(int q) const { return sync_[std::size_t(q)]; }
int BfqScheduler::klass(int q) const { return t_.workload().procs[std::size_t(q)].prio; }
int BfqScheduler::orig_weight(int q) const {
  // bfq_set_next_ioprio_data: an IDLE queue takes the lowest level, 7 (v6.12;
  // the older variants keep the process's level).
  if (variant_ == V6_12 && klass(q) == IDLE) return 10;
  return (8 - std::clamp(t_.workload().procs[std::size_t(q)].level, 0, 7)) * 10;
}

int BfqScheduler::queued(const SchedState& s, int q) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r) n += qof(s, r) == q && t_.status(s, r) == St::Sched;
  return n;
}

// bfqq->dispatched / bfqd->rq_in_driver: dispatched by BFQ, not completed.
int BfqScheduler::dispatched(const SchedState& s, int q, int except) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r) {
    const St st = t_.status(s, r);
    n += r != except && qof(s, r) == q && t_.flag(s, r, kInserted) &&
         (st == St::Hctx || st == St::Driver);
  }
  return n;
}

int BfqScheduler::rq_in_driver(const SchedState& s, int except) const {
  int n = 0;
  for (int q = 0; q < nq_; ++q) n += dispatched(s, q, except);
  return n;
}

int BfqScheduler::busy_queues(const SchedState& s) const {
  int n = 0;
  for (int q = 0; q < nq_; ++q) n += busy(s, q);
  return n;
}

int BfqScheduler::wr_busy_queues(const SchedState& s) const {
  int n = 0;
  for (int q = 0; q < nq_; ++q) n += busy(s, q) && raised(s, q);
  return n;
}

// bfq_choose_req: of two requests of one queue, the one to serve first
// from head position `last`. Both are sync or both async and neither is
// REQ_META, so only the positions decide.
int BfqScheduler::bfq_choose_req(int r1, int r2, int last) const {
  if (r1 < 0 || r1 == r2) return r2;
  if (r2 < 0) return r1;
  constexpr int kBackMax = 4096;    // bfq_back_max, 16 MiB in 4 KiB model sectors
  constexpr int kBackPenalty = 2;   // bfq_back_penalty
  const int s1 = t_.sector(r1), s2 = t_.sector(r2);
  // The cost of reaching s from last; a seek back beyond kBackMax wraps.
  auto cost = [&](int s, bool& wrap) {
    if (s >= last) return s - last;
    if (s + kBackMax >= last) return (last - s) * kBackPenalty;
    wrap = true;
    return 0;
  };
  bool wrap1 = false, wrap2 = false;
  const int d1 = cost(s1, wrap1), d2 = cost(s2, wrap2);
  if (!wrap1 && !wrap2) {
    if (d1 != d2) return d1 < d2 ? r1 : r2;
    return s1 >= s2 ? r1 : r2;
  }
  if (!wrap1) return r1;
  if (!wrap2) return r2;
  return s1 <= s2 ? r1 : r2;  // both wrapped: the one further behind the head
}

// bfq_find_next_rq: once `last` leaves queue q, the next request is chosen
// between last's neighbours in the sort list (sector order; an equal
// sector sorts after the earlier arrival): the one after it (or the
// list's first when last was the highest) and the one before it, from
// last's start sector.
int BfqScheduler::bfq_find_next_rq(const SchedState& s, int q, int last) const {
  auto before = [&](int a, int b) {
    return t_.sector(a) != t_.sector(b) ? t_.sector(a) < t_.sector(b) : t_.seq(s, a) < t_.seq(s, b);
  };
  int next = -1, prev = -1, first = -1;
  for (int r = 0; r < t_.size(); ++r) {
    if (r == last || qof(s, r) != q || t_.status(s, r) != St::Sched) continue;
    if (first < 0 || before(r, first)) first = r;
    if (before(last, r) && (next < 0 || before(r, next))) next = r;
    if (before(r, last) && (prev < 0 || before(prev, r))) prev = r;
  }
  if (next < 0) next = first;
  return bfq_choose_req(next, prev, t_.sector(last));
}

bool BfqScheduler::seeky_as(const SchedState& s, int q, int variant) const {
  // v6.12: BFQQ_SEEKY needs more than 19 of a queue's last 32 requests
  // farther than 800 sectors (BFQQ_SEEK_THR) from its previous one's end: a
  // workload's sectors and sizes (at most 255 each) never are. So no queue
  // is seeky, and none that merging shared turns seeky and is split again
  // (bfq_split_bfqq).
  static_assert(kMaxSector + 255 < 800, "v6.12: a request farther than BFQQ_SEEK_THR would be seeky");
  if (variant_ == V6_12) return false;
  return std::popcount(unsigned(qb(s, q, kSeekHist))) > (variant == BetterToIdle ? 4 : 2);
}

// bfq_symmetric_scenario: the weights tree holds the non-raised queues that
// are busy or have requests in flight; symmetric iff at most one weight.
bool BfqScheduler::symmetric(const SchedState& s, int except_rq) const {
  int w = -1;
  for (int q = 0; q < nq_; ++q) {
    if (raised(s, q) || (!busy(s, q) && dispatched(s, q, except_rq) == 0)) continue;
    if (w >= 0 && w != orig_weight(q)) return false;
    w = orig_weight(q);
  }
  return true;
}

// The process still holds the queue (bic / active_ref): a sync process until
// its last request completes, an async one until its last submission; a
// cyclic one forever.
bool BfqScheduler::alive(const SchedState& s, int q, int except_rq) const {
  if (variant_ == V6_12) return true;  // the kernel-source harness has no process exit
  const WlProc& pr = t_.workload().procs[std::size_t(q)];
  if (pr.cyclic) return true;
  for (int r = pr.first; r < pr.first + pr.count; ++r) {
    if (r == except_rq) continue;
    const St st = t_.status(s, r);
    if (st == St::Idle || (pr.sync && st != St::Done)) return true;
  }
  return false;
}

// bfq_serv_to_charge.
BfqScheduler::W BfqScheduler::serv_to_charge(const SchedState& s, int rq) const {
  const int q = qof(s, rq), size = t_.info(rq).size;
  if (sync(q) || raised(s, q)) return size;
  if (variant_ == V6_12) return asymmetric(s, q) ? size : size * 3;
  const int factor = variant_ == BetterToIdle ? 3 : 10;
  return size * factor * (wr_busy_queues(s) > 0 ? 2 : 1);
}

IdleInputs<bool> BfqScheduler::idle_inputs(const SchedState& s, int q, int except_rq,
                                           int variant) const {
  IdleInputs<bool> in{};
  in.sg = strict_ != 0;
  in.si0 = slice_idle_ == 0;
  in.sync = sync(q);
  in.idlec = klass(q) == IDLE;
  in.rot = t_.workload().dev.rotational;
  in.noq = hw_tag(s) == 0;
  in.iob = qflag(s, q, kIOBound);
  in.seeky = seeky_as(s, q, variant);
  in.flag = qflag(s, q, variant == variant_ ? kFlag : kShadowFlag);
  in.wr = raised(s, q);
  in.wrb = wr_busy_queues(s) > 0;
  in.sym = symmetric(s, except_rq);
  in.burst = false;
  if (variant != V6_12) return in;  // the older formulas read none of these
  const int busyq = busy_queues(s);
  in.asym = asymmetric(s, q, except_rq);
  in.tot1 = busyq == 1;
  in.wrlt = wr_busy_queues(s) < busyq;
  in.drv4 = rq_in_driver(s, except_rq) >= dispatched(s, q, except_rq) + 4;
  return in;
}

bool BfqScheduler::may_idle(const SchedState& s, int q, int except_rq, int v) const {
  if (v < 0) v = variant_;
  const IdleInputs<bool> in = idle_inputs(s, q, except_rq, v);
  if (v == V4_13) return bfq_may_idle_v413(in);
  if (v == Refactor) return bfq_may_idle_refactor(in);
  if (v == FlashBoost) return bfq_may_idle_flash_boost(in);
  if (v == V6_12) return bfq_better_to_idle_612(in);
  return bfq_better_to_idle(in);
}

bool BfqScheduler::must_idle(const SchedState& s, int q, int except_rq, int v) const {
  if (v < 0) v = variant_;
  const IdleInputs<bool> in = idle_inputs(s, q, except_rq, v);
  const bool empty = queued(s, q) == 0;
  if (v == V4_13) return bfq_must_idle_v413(empty, in);
  if (v == Refactor) return bfq_must_idle_refactor(empty, in);
  if (v == V6_12) return bfq_must_idle_612(empty, in);
  return bfq_must_idle_flash_boost(empty, in);  // flash-boost, better-to-idle
}

int BfqScheduler::select_action(const SchedState& s, int q, bool fresh, int v) const {
  const int next = next_rq(s, q);
  const bool over = next >= 0 && serv_to_charge(s, next) > budget_left(s, q);
  return bfq_select_action(!fresh && timeout_may_expire(s, q), wait_request(s),
                           must_idle(s, q, -1, v), next >= 0, over, dispatched(s, q) != 0,
                           may_idle(s, q, -1, v));
}

int BfqScheduler::completion_action(const SchedState& s, int q, int rq, int v) const {
  return bfq_completion_action(dispatched(s, q, rq) == 0, must_idle(s, q, rq, v),
                               timeout_may_expire(s, q), queued(s, q) == 0, may_idle(s, q, rq, v));
}

// shadow=V: the same state, V's decision functions (and V's flag).
void BfqScheduler::compare(SchedState& s, const char* where, int q, int mine, int theirs,
                           Why* why) const {
  if (mine == theirs) return;
  static const char* const kSel[] = {"serve it", "plug (return NULL)", "expire BUDGET_TIMEOUT",
                                     "expire BUDGET_EXHAUSTED", "expire NO_MORE_REQUESTS"};
  static const char* const kCompl[] = {"keep it in service", "arm the idle timer",
                                       "expire BUDGET_TIMEOUT", "expire NO_MORE_REQUESTS"};
  const bool sel = where[0] == 's';
  differed_.set(s, 1);
  say(why, "DECISION DIFFERS in {} for bfqq[{}]: {} would {}, {} does {}", where,
      t_.workload().procs[std::size_t(q)].name, variants()[std::size_t(shadow_)].name,
      sel ? kSel[theirs] : kCompl[theirs], variants()[std::size_t(variant_)].name,
      sel ? kSel[mine] : kCompl[mine]);
}

// bfq_may_expire_for_budg_timeout: the budget timeout passed (never without
// a clock) and, while waiting, at least a third of the budget is left.
bool BfqScheduler::timeout_may_expire(const SchedState& s, int q) const {
  if (!clock_ || timeout_left(s) > 0) return false;
  return !wait_request(s) || budget_left(s, q) * 3 >= int(qb(s, q, kBudget));
}

bool BfqScheduler::has_work(const SchedState& s) const {
  for (int r = 0; r < t_.size(); ++r)
    if (t_.queued(s, r)) return true;
  // The timer fires at the next queue run; 6.12's bfq_has_work counts only
  // requests (bfqd->queued, the dispatch list), so a run while idling with
  // nothing queued comes from elsewhere.
  return wait_request(s) && !clock_ && variant_ != V6_12;
}

// --- B-WF2Q+, reduced ---

// Keeps the timestamps small: everything relative to min(V, the smallest
// start of a queue on the tree); with no busy queue the tree is empty: V
// back to 0 and the idle tree forgotten (bfq_forget_idle).
void BfqScheduler::normalize(SchedState& s) const {
  if (variant_ == V6_12) return rebase(s);
  W base = vtime(s);
  bool any = false;
  for (int q = 0; q < nq_; ++q) {
    any = any || busy(s, q);
    if (busy(s, q) || qflag(s, q, kIdleTree)) base = std::min(base, qb(s, q, kStart));
  }
  if (!any) base = vtime(s);
  set_vtime(s, vtime(s) - base);
  for (int q = 0; q < nq_; ++q) {
    if (busy(s, q) || (any && qflag(s, q, kIdleTree) && qb(s, q, kFinish) > vtime(s) + base)) {
      set_qb(s, q, kStart, qb(s, q, kStart) - base);
      set_qb(s, q, kFinish, qb(s, q, kFinish) - base);
    } else {
      set_qflag(s, q, kIdleTree, false);
      set_qb(s, q, kStart, 0);
      set_qb(s, q, kFinish, 0);
    }
  }
  if (!any) set_vtime(s, 0);
}

// The sum of the weights on the tree (busy and idle-tree queues).
int BfqScheduler::wsum(const SchedState& s) const {
  int w = 0;
  for (int q = 0; q < nq_; ++q)
    if (busy(s, q) || qflag(s, q, kIdleTree)) w += weight(s, q);
  return std::max(w, 1);
}

// __bfq_activate_entity: start = max(V, F) off the idle tree, else V;
// finish = start + budget / weight.
void BfqScheduler::bfq_activate_bfqq(SchedState& s, int q) const {
  // v6.12: a queue back in time after its wait (non_blocking_wait_rq)
  // starts from its own finish where V has passed it, and is then moved
  // forward by the gap divided by its raising coefficient (backshifted).
  const bool back = qflag(s, q, kNbWait) && vtime(s) > qb(s, q, kFinish);
  const W v = back ? qb(s, q, kFinish) : vtime(s);
  W start = qflag(s, q, kIdleTree) ? std::max(v, qb(s, q, kFinish)) : v;
  W finish = start + delta(qb(s, q, kBudget), weight(s, q));
  if (back && vtime(s) > finish) {
    const W gap = (vtime(s) - finish) / (raised(s, q) ? 30 : 1);
    start += gap;
    finish += gap;
  }
  set_qb(s, q, kStart, start);
  set_qb(s, q, kFinish, finish);
  if (active_ && !busy(s, q)) to_back(s, *active_, q);  // bfq_add_bfqq_busy: head of bfqd->active_list
  set_qflag(s, q, kNbWait, false);
  set_qflag(s, q, kIdleTree, false);
  set_qflag(s, q, kBusy, true);
  tree_insert(s, q);
  bfq_update_next_in_service(s, q, false);
  normalize(s);
}

// --- enqueue ---

void BfqScheduler::bfq_insert_request(SchedState& s, int rq, bool at_head, Why* why) const {
  int q = qof(s, rq);
  if (q < 0) q = bfq_create_queue(s, t_.info(rq).proc, why);
  // __bfq_insert_request (v6.12): a close cooperator takes the request, and
  // the process's later ones (bfq_setup_cooperator, bfq_merge_bfqqs).
  if (rq_bfqq_ && !at_head) {
    const int p = t_.info(rq).proc, to = bfq_setup_cooperator(s, q, rq, why);
    if (to >= 0) {
      while (queue_of_proc(s, p) == q && q != to) q = bfq_merge_bfqqs(s, p, q, why);
      q = to;
    }
  }
  if (rq_bfqq_) rq_bfqq_->set(s, rq, q);
  t_.set_flag(s, rq, kInserted, true);
  t_.set_age(s, rq, 0);
  if (at_head) {  // bfqd->dispatch: served before any queue
    t_.set_status(s, rq, St::SchedHead);
    say(why, "bfq_insert_request: {} at head of bfqd->dispatch", t_.name(rq));
    return;
  }
  t_.set_status(s, rq, St::Sched);
  say(why, "bfq_insert_request: {} into bfqq[{}] ({} {} w{})", t_.name(rq),
      t_.workload().procs[std::size_t(q)].name, sync(q) ? "sync" : "async", kClass[klass(q)],
      orig_weight(q));
  if (variant_ == V6_12) {
    bfq_update_io_thinktime_612(s, q);
    bfq_update_has_short_ttime_612(s, q, why);
    bfq_update_io_seektime(s, q, rq);
  }
  // bfq_add_request: is the new request a better next one, seen from the head?
  const int was = next_rq(s, q);
  next_rq_.set(s, q, bfq_choose_req(was, rq, last_position(s)));
  if (was >= 0 && next_rq(s, q) != was)
    say(why, "bfq_choose_req: {} now next in bfqq[{}] (head at {})", t_.name(rq),
        t_.workload().procs[std::size_t(q)].name, last_position(s));
  if (pos_node_ && next_rq(s, q) != was && !nonrot_with_queueing(s)) bfq_pos_tree_add_move(s, q);
  // bfq_add_request: an idle queue becomes busy.
  if (!busy(s, q)) bfq_bfqq_handle_idle_busy_switch(s, q, rq, why);
  else if (variant_ == V6_12 && next_rq(s, q) != was) bfq_updated_next_req(s, q, why);
  bfq_rq_enqueued(s, q, rq, why);
}

// bfq_update_io_thinktime: a sample of the time since the last completion.
void BfqScheduler::bfq_update_io_thinktime(SchedState& s, int q) const {
  const int x = int(std::min<W>(qb(s, q, kSince), 2 * slice_idle_));
  const int n = ttime_samples(s, q);
  const int mean = n == 0 ? x : (ttime_mean(s, q) + x + 1) / 2;
  ttime_mean_.set(s, q, std::min(mean, 63));
  ttime_samples_.set(s, q, std::min(n + 1, 3));
}

// bfq_update_io_seektime: shift in whether this request is far from the
// previous one (and, on non-rotational devices, small).
void BfqScheduler::bfq_update_io_seektime(SchedState& s, int q, int rq) const {
  // get_sdist: 0 while last_request_pos is still 0 (the first request).
  const int last = int(qb(s, q, kLastPos));
  const int dist = last ? std::abs(t_.sector(rq) - last) : 0;
  const bool far = dist > seek_dist_ && (t_.workload().dev.rotational || t_.info(rq).size < 64);
  set_qb(s, q, kSeekHist, ((qb(s, q, kSeekHist) << 1) & 0xff) | (far ? 1 : 0));
  set_qb(s, q, kLastPos, u8(t_.sector(rq) + t_.info(rq).size));
}

// 4.13 bfq_update_idle_window, or bfq_update_has_short_ttime (1/2 on), for
// variant v (this model's flag, or the shadow's).
void BfqScheduler::bfq_update_flag(SchedState& s, int q, int v, Why* why) const {
  const std::uint8_t bit = v == variant_ ? kFlag : kShadowFlag;
  FlagInputs<bool, int> in{};
  in.old = qflag(s, q, bit);
  in.sync = sync(q);
  in.idlec = klass(q) == IDLE;
  in.split_recent = false;
  in.active_ref = alive(s, q);
  in.si0 = slice_idle_ == 0;
  in.hwt = hw_tag(s) != 0;
  in.seeky = seeky_as(s, q, v);
  in.wr = raised(s, q);
  in.valid = ttime_samples(s, q) >= 3;
  in.ttime_mean = ttime_mean(s, q);
  in.slice_idle = slice_idle_;
  const bool now = v == V4_13 ? bfq_update_idle_window(in) : bfq_update_has_short_ttime(in);
  set_qflag(s, q, bit, now);
  if (v != variant_) {
    if (now != in.old)
      say(why, "(shadow {}: {} {})", variants()[std::size_t(v)].name,
          v == V4_13 ? "idle_window" : "has_short_ttime", now ? "set" : "cleared");
    return;
  }
  if (now != in.old)
    say(why, "{}: {} {}", variant_ == V4_13 ? "bfq_update_idle_window" : "bfq_update_has_short_ttime",
        variant_ == V4_13 ? "idle_window" : "has_short_ttime", now ? "set" : "cleared");
}

// bfq_bfqq_handle_idle_busy_switch (interactive weight raising, budget for
// the activation, activation, preemption of the in-service queue).
void BfqScheduler::bfq_bfqq_handle_idle_busy_switch(SchedState& s, int q, int rq,
                                                    Why* why) const {
  // 6.12 raises only a queue of the default weight (ioprio level 4 of its
  // class: the user set no weight of their own).
  const bool interactive = sync(q) && dispatched(s, q) == 0 && qb(s, q, kIdleSince) >= wr_min_idle_ &&
                           (variant_ != V6_12 || orig_weight(q) == 40);
  const bool wr_or_deserves_wr = low_latency_ && (raised(s, q) || interactive);
  // bfq_bfqq_update_budg_for_activation: v6.12 gives a queue whose request
  // arrived in time after its wait (within 3 idle slices of its last
  // completion) what is left of its budget, and lets it preempt; the other
  // variants have no hole recovery.
  const bool in_time = !clock_ || qb(s, q, kSince) <= 3 * slice_idle_;
  const bool wants_to_preempt = qflag(s, q, kNbWait) && in_time && budget_left(s, q) > 0;
  if (wants_to_preempt) {
    set_qb(s, q, kBudget, std::min<W>(budget_left(s, q), qb(s, q, kMaxBudget)));
  } else {
    set_qb(s, q, kBudget, std::max<W>(qb(s, q, kMaxBudget), serv_to_charge(s, rq)));
    set_qflag(s, q, kNbWait, false);
  }
  set_qb(s, q, kService, 0);
  if (low_latency_ && interactive) {
    if (!raised(s, q))
      say(why, "bfqq[{}] is interactive (idle {}+ ticks): weight raised x30 for {} ticks",
          t_.workload().procs[std::size_t(q)].name, wr_min_idle_, wr_ticks_);
    set_qb(s, q, kWrLeft, u8(wr_ticks_));
    set_qb(s, q, kBudget, std::min<W>(qb(s, q, kBudget), 2 * min_budget()));
  }
  bfq_activate_bfqq(s, q);
  say(why, "bfq_add_bfqq_busy: bfqq[{}] busy, budget {}, S={} F={}",
      t_.workload().procs[std::size_t(q)].name, qb(s, q, kBudget), qb(s, q, kStart),
      qb(s, q, kFinish));
  const int in = in_service(s);
  if (variant_ == V6_12) {
    // 6.12: the new busy queue preempts when it recovers its budget with at
    // least the in-service queue's raising, has a higher class or weight, or
    // when idling for the in-service queue is not worth it
    // (next_queue_may_preempt holds: the in-service queue is off the tree).
    if (in < 0 || in == q) return;
    const bool higher = klass(q) < klass(in) || weight(s, q) > weight(s, in);
    if ((wants_to_preempt && weight(s, q) / orig_weight(q) >= weight(s, in) / orig_weight(in)) || higher ||
        !may_idle(s, in)) {
      say(why, "bfqq[{}] preempts in-service bfqq[{}] ({})", t_.workload().procs[std::size_t(q)].name,
          t_.workload().procs[std::size_t(in)].name,
          higher ? "higher class or weight" : wants_to_preempt ? "back in time" : "idling for it is not better");
      bfq_bfqq_expire(s, in, Preempted, why);
    }
    return;
  }
  if (in >= 0 && in != q && wr_or_deserves_wr && !raised(s, in) && raised(s, q)) {
    say(why, "bfqq[{}] (raised) preempts in-service bfqq[{}]",
        t_.workload().procs[std::size_t(q)].name, t_.workload().procs[std::size_t(in)].name);
    bfq_bfqq_expire(s, in, Preempted, why);
  }
}

// bfq_rq_enqueued: think time, seek history and the idling flag (in the
// order of each version); a request for the in-service queue ends a wait.
void BfqScheduler::bfq_rq_enqueued(SchedState& s, int q, int rq, Why* why) const {
  if (variant_ == V6_12) {
    // the think time, has_short_ttime and seek history came before the add;
    // a small awaited request keeps the wait only where idling boosts
    // throughput without issues.
    if (q != in_service(s) || !wait_request(s)) return;
    const bool small = queued(s, q) == 1 && t_.info(rq).size < 32;
    const bool timed_out = clock_ && timeout_left(s) == 0;
    if (small && bfq_idling_boosts_thr_without_issues(idle_inputs(s, q, -1, V6_12)) && !timed_out) return;
    set_timer(s, 0);
    say(why, "bfq_rq_enqueued: idle timer cancelled");
    if (timed_out) bfq_bfqq_expire(s, q, BudgetTimeout, why);
    return;
  }
  bfq_update_io_thinktime(s, q);
  // 1/2 and later: the flag first, on every enqueue; 4.13: after the seek
  // update, and only if service > max_budget/8 or the queue is not seeky.
  const int shadow = shadow_ != variant_ ? shadow_ : -1;
  for (int v : {variant_, shadow})
    if (v > V4_13) bfq_update_flag(s, q, v, why);
  bfq_update_io_seektime(s, q, rq);
  for (int v : {variant_, shadow})
    if (v == V4_13 && (qb(s, q, kService) > max_budget_ / 8 || !seeky_as(s, q, v)))
      bfq_update_flag(s, q, v, why);
  if (q != in_service(s) || !wait_request(s)) return;
  const bool small = queued(s, q) == 1 && t_.info(rq).size < 32;
  const bool timed_out = clock_ && timeout_left(s) == 0;
  if (small && !timed_out) {
    say(why, "bfq_rq_enqueued: the in-service queue's awaited request: the next dispatch serves it");
    return;
  }
  set_timer(s, 0);
  say(why, "bfq_rq_enqueued: idle timer cancelled");
  if (timed_out) bfq_bfqq_expire(s, q, BudgetTimeout, why);
}

// --- dispatch ---

int BfqScheduler::bfq_dispatch_request(SchedState& s, Why* why) const {
  int head = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.status(s, r) == St::SchedHead && (head < 0 || t_.seq(s, r) > t_.seq(s, head))) head = r;
  if (head >= 0) {
    t_.set_status(s, head, St::Idle);
    say(why, "{} from bfqd->dispatch", t_.name(head));
    return head;
  }
  if (busy_queues(s) == 0) {
    if (wait_request(s)) bfq_idle_slice_timer_body(s, why);  // clock=0: the timer fires
    say(why, "no busy queues");
    return -1;
  }
  if (strict_ && rq_in_driver(s) > 0) {
    say(why, "strict_guarantees: {} request(s) in the driver", rq_in_driver(s));
    return -1;
  }
  const int q = bfq_select_queue(s, why);
  if (q < 0) return -1;
  const int rq = next_rq(s, q);
  bfq_dispatch_rq_from_bfqq(s, q, rq, why);
  return rq;
}

// bfq_select_queue (facts A5).
int BfqScheduler::bfq_select_queue(SchedState& s, Why* why) const {
  int q = in_service(s);
  bool fresh = false;
  for (int round = 0; round < 2 * nq_ + 2; ++round) {
    if (q < 0) {
      q = bfq_set_in_service_queue(s, why);
      if (q < 0) return -1;
      fresh = true;
    }
    const int next = next_rq(s, q);
    const int act = select_action(s, q, fresh, variant_);
    if (shadow_ >= 0) compare(s, "select_queue", q, act, select_action(s, q, fresh, shadow_), why);
    const std::string name = t_.workload().procs[std::size_t(q)].name;
    switch (act) {
      case kServe:
        if (wait_request(s)) {
          set_timer(s, 0);
          say(why, "bfqq[{}] has its request: idle timer cancelled", name);
        }
        return q;
      case kPlug:
        if (variant_ == V6_12) {
          // 6.12 serves another queue while keeping this one in service
          // (injection) where idling does not boost throughput and the
          // in-service queue is not raised with a short think time.
          const bool boosts = bfq_idling_boosts_thr_without_issues(idle_inputs(s, q, -1, V6_12));
          if (!boosts && (!raised(s, q) || wr_busy_queues(s) > 1 || !qflag(s, q, kFlag))) {
            const int inj = bfq_choose_bfqq_for_injection(s, q);
            if (inj >= 0) {
              say(why, "bfq_choose_bfqq_for_injection: bfqq[{}] served while bfqq[{}] is idled for",
                  t_.workload().procs[std::size_t(inj)].name, name);
              return inj;
            }
          }
        }
        if (wait_request(s)) {
          if (!clock_) {
            say(why, "the idle timer of bfqq[{}] fires", name);
            bfq_idle_slice_timer_body(s, why);
            return -1;
          }
          say(why, "idling: bfqq[{}] waits for its next request ({} tick(s) left)", name,
              idle_timer(s));
        } else {
          say(why, "plugging: bfqq[{}] is empty with {} request(s) in flight and may idle", name,
              dispatched(s, q));
        }
        return -1;
      case kSelExpireTimeout:
        bfq_bfqq_expire(s, q, BudgetTimeout, why);
        break;
      case kSelExpireExhausted:
        say(why, "bfqq[{}]: next request costs {} > budget left {}", name,
            serv_to_charge(s, next), budget_left(s, q));
        bfq_bfqq_expire(s, q, BudgetExhausted, why);
        break;
      default:
        bfq_bfqq_expire(s, q, NoMoreRequests, why);
        break;
    }
    q = -1;
  }
  return -1;
}

// bfq_set_in_service_queue. v6.12 (bfq_get_next_queue): the cached
// next_in_service, taken off the active tree, then the next one looked up
// with a queue in service. The other variants look up here: the highest
// class with a busy queue; V = max(V, smallest start); among the eligible
// queues (start <= V) the smallest finish, ties to the lower process.
int BfqScheduler::bfq_set_in_service_queue(SchedState& s, Why* why) const {
  int best = -1;
  if (next_) {
    best = busy_queues(s) > 0 ? next_->get(s) : -1;
    if (best < 0) return -1;
    set_in_service(s, best);
    order_->set(s, best, 0);
    bfq_update_next_in_service(s, -1, false);
    normalize(s);
  } else {
    int cls = 3;
    for (int q = 0; q < nq_; ++q)
      if (busy(s, q)) cls = std::min(cls, klass(q));
    if (cls == 3) return -1;
    W minstart = -1;
    for (int q = 0; q < nq_; ++q)
      if (busy(s, q) && klass(q) == cls && (minstart < 0 || qb(s, q, kStart) < minstart)) minstart = qb(s, q, kStart);
    set_vtime(s, std::max(vtime(s), minstart));
    for (int q = 0; q < nq_; ++q) {
      if (!busy(s, q) || klass(q) != cls || qb(s, q, kStart) > vtime(s)) continue;
      if (best < 0 || qb(s, q, kFinish) < qb(s, best, kFinish)) best = q;
    }
    set_in_service(s, best);
  }
  timeout_left_.set(s, u8(clock_ ? timeout_ * (raised(s, best) ? 30 : 1) : 0));
  in_service_ticks_.set(s, 0);
  if (in_serv_last_pos_) in_serv_last_pos_->set(s, 0);
  say(why, "bfqq[{}] in service (V={} S={} F={}, budget {}{})",
      t_.workload().procs[std::size_t(best)].name, vtime(s), qb(s, best, kStart),
      qb(s, best, kFinish), qb(s, best, kBudget), raised(s, best) ? ", raised" : "");
  return best;
}

void BfqScheduler::bfq_dispatch_rq_from_bfqq(SchedState& s, int q, int rq, Why* why) const {
  // bfq_update_peak_rate: the head is now at the end of rq (capped at the
  // state's 255); bfq_remove_request: the queue's next request.
  last_position_.set(s, std::min(255, t_.sector(rq) + t_.info(rq).size));
  if (in_serv_last_pos_ && q == in_service(s)) in_serv_last_pos_->set(s, last_position(s));
  next_rq_.set(s, q, bfq_find_next_rq(s, q, rq));
  if (pos_node_) {  // the queue's place in the rq_pos_tree follows its next request
    if (next_rq(s, q) < 0) bfq_pos_tree_erase(s, q);
    else if (!nonrot_with_queueing(s)) bfq_pos_tree_add_move(s, q);
  }
  const W charge = serv_to_charge(s, rq);
  set_qb(s, q, kService, qb(s, q, kService) + charge);
  set_vtime(s, vtime(s) + delta(charge, wsum(s)));  // bfq_bfqq_served
  bfq_forget_idle(s);
  normalize(s);
  t_.set_status(s, rq, St::Idle);
  say(why, "charged {} to bfqq[{}] ({}/{})", charge, t_.workload().procs[std::size_t(q)].name,
      qb(s, q, kService), qb(s, q, kBudget));
  if (q != in_service(s)) {  // injected (v6.12): bfq_remove_request
    if (next_rq(s, q) >= 0) {
      bfq_updated_next_req(s, q, why);
    } else {
      bfq_del_bfqq_busy(s, q);
      say(why, "bfqq[{}] deactivated: its last request injected", t_.workload().procs[std::size_t(q)].name);
    }
    return;
  }
  if (klass(q) == IDLE && busy_queues(s) > 1) bfq_bfqq_expire(s, q, BudgetExhausted, why);
}

// --- completion ---

void BfqScheduler::bfq_completed_request(SchedState& s, int rq, Why* why) const {
  const int q = qof(s, rq);
  bfq_update_hw_tag(s, rq, why);
  if (sync(q)) set_qb(s, q, kSince, 0);  // ttime.last_end_request = now
  set_qflag(s, q, kEnded, true);
  const std::string name = t_.workload().procs[std::size_t(q)].name;
  if (q == in_service(s)) {
    const int act = completion_action(s, q, rq, variant_);
    if (shadow_ >= 0) compare(s, "completed_request", q, act, completion_action(s, q, rq, shadow_), why);
    if (act == kArmTimer) {
      bfq_arm_slice_timer(s, q, why);
    } else if (act == kExpireTimeout) {
      bfq_bfqq_expire(s, q, BudgetTimeout, why);
    } else if (act == kExpireNoMore) {
      bfq_bfqq_expire(s, q, NoMoreRequests, why);
    } else if (queued(s, q) == 0) {
      say(why, "bfqq[{}] kept in service: {} request(s) still in flight and may_idle", name,
          dispatched(s, q, rq));
    }
  }
  // budget_timeout = jiffies once the queue is idle with nothing in flight
  // (here, or in __bfq_bfqq_expire after the dispatched-- above).
  if (dispatched(s, q, rq) == 0 && !busy(s, q)) set_qb(s, q, kIdleSince, 0);
  if (sync(q) && !alive(s, q, rq)) bfq_exit_icq(s, q, why);
  if (rq_bfqq_) rq_bfqq_->set(s, rq, -1);  // the request is gone
}

// bfq_update_hw_tag (before rq_in_driver--).
void BfqScheduler::bfq_update_hw_tag(SchedState& s, int rq, Why* why) const {
  (void)rq;
  const int in_drv = rq_in_driver(s);
  max_rq_in_driver_.set(s, u8(std::max(max_rq_in_driver(s), in_drv)));
  if (hw_tag(s) == 1) return;
  int queued_all = 0;
  for (int q = 0; q < nq_; ++q) queued_all += queued(s, q);
  if (in_drv + queued_all < hw_queue_thr_) return;
  const int n = hw_tag_samples(s);
  hw_tag_samples_.set(s, u8(n + 1));
  if (n < hw_samples_) return;
  const int v = max_rq_in_driver(s) > hw_queue_thr_ ? 1 : 0;
  if (v != hw_tag(s))
    say(why, "bfq_update_hw_tag: hw_tag = {} (at most {} in the driver)", v, max_rq_in_driver(s));
  hw_tag_.set(s, v);
  hw_tag_samples_.set(s, 0);
  max_rq_in_driver_.set(s, 0);
}

// The key's classes of the hw_tag detector's state (model/sched/hw_tag_key.hpp).
// Its numbers: a decision at the sample after hw_samples, 1 when the maximum
// is above hw_queue_thr. rq_in_driver counts the requests holding a driver
// tag and the one blk-mq parks on hctx->dispatch (it calls the scheduler
// only while that list is empty).
static HwTagDetector detector(const DeviceSpec& dev, int hw_samples, int hw_queue_thr) {
  return {hw_samples, hw_queue_thr + 1, dev.depth + (dev.slot ? 1 : 0)};
}

std::vector<std::string> BfqScheduler::abstractions() const {
  const Workload& wl = t_.workload();
  return {hw_tag_key_text("max_rq_in_driver", "above", hw_queue_thr_, detector(wl.dev, hw_samples_, hw_queue_thr_),
                          finite_workload(wl))};
}

void BfqScheduler::abstract_key(SchedState& s) const {
  key_hw_tag_detector(s, t_, hw_tag(s), hw_tag_samples_, max_rq_in_driver_,
                      detector(t_.workload().dev, hw_samples_, hw_queue_thr_));
}

// bfq_arm_slice_timer: BFQ_MIN_TT (1 tick) for a seeky non-raised queue in a
// symmetric scenario.
void BfqScheduler::bfq_arm_slice_timer(SchedState& s, int q, Why* why) const {
  int sl = slice_idle_;
  if (seeky(s, q) && !raised(s, q) && symmetric(s)) sl = std::min(sl, 1);
  sl = std::max(sl, 1);
  set_timer(s, sl);
  say(why, "bfq_arm_slice_timer: bfqq[{}] empty, idling {} tick(s) for its next request",
      t_.workload().procs[std::size_t(q)].name, sl);
}

// bfq_idle_slice_timer_body.
void BfqScheduler::bfq_idle_slice_timer_body(SchedState& s, Why* why) const {
  set_timer(s, 0);
  const int q = in_service(s);
  if (q < 0) return;
  if (clock_ && timeout_left(s) == 0) {
    bfq_bfqq_expire(s, q, BudgetTimeout, why);
  } else if (queued(s, q) > 0) {
    say(why, "idle timer: bfqq[{}] has requests, dispatch kicked",
        t_.workload().procs[std::size_t(q)].name);
  } else {
    bfq_bfqq_expire(s, q, TooIdle, why);
  }
}

void BfqScheduler::timer(SchedState& s, Why* why) const {
  for (int q = 0; q < nq_; ++q) {
    if (!sync(q)) continue;
    set_qb(s, q, kSince, std::min<W>(qb(s, q, kSince) + 1, 2 * slice_idle_));
    if (!busy(s, q)) set_qb(s, q, kIdleSince, std::min<W>(qb(s, q, kIdleSince) + 1, wr_min_idle_));
    if (qb(s, q, kWrLeft) > 0) {
      set_qb(s, q, kWrLeft, qb(s, q, kWrLeft) - 1);
      if (!raised(s, q))
        say(why, "weight raising of bfqq[{}] ends", t_.workload().procs[std::size_t(q)].name);
    }
  }
  if (in_service(s) >= 0)
    in_service_ticks_.set(s, u8(std::min(in_service_ticks(s) + 1, std::max(timeout_, 6))));
  if (in_service(s) >= 0 && timeout_left(s) > 0) {
    timeout_left_.set(s, u8(timeout_left(s) - 1));
    if (timeout_left(s) == 0)
      say(why, "the budget timeout of bfqq[{}] passes",
          t_.workload().procs[std::size_t(in_service(s))].name);
  }
  if (idle_timer(s) > 0) {
    set_timer(s, idle_timer(s) - 1);
    if (idle_timer(s) == 0) {
      say(why, "bfq_idle_slice_timer fires");
      bfq_idle_slice_timer_body(s, why);
    }
  }
}

// --- expiration ---

void BfqScheduler::bfq_bfqq_expire(SchedState& s, int q, Reason reason, Why* why) const {
  const std::string name = t_.workload().procs[std::size_t(q)].name;
  say(why, "bfq_bfqq_expire(bfqq[{}], {}) after {}/{} served", name, kReason[reason],
      qb(s, q, kService), qb(s, q, kBudget));
  int elapsed = 0;
  const bool slow = bfq_bfqq_is_slow(s, q, reason, &elapsed);
  if (clock_ && !raised(s, q) &&
      (slow || (reason == BudgetTimeout && budget_left(s, q) * 3 >= int(qb(s, q, kBudget)))))
    bfq_bfqq_charge_time(s, q, elapsed, why);
  if (reason == TooIdle && qb(s, q, kService) * 10 <= qb(s, q, kBudget) * 2 &&
      qflag(s, q, kIOBound)) {
    set_qflag(s, q, kIOBound, false);
    say(why, "bfqq[{}] loses IO_bound", name);
  }
  bfq_recalc_budget(s, q, reason);
  __bfq_bfqq_expire(s, q, reason, why);
}

// bfq_bfqq_is_slow: async queues never are; elapsed ticks since the budget
// started (until the idling started, when the timer expired it).
bool BfqScheduler::bfq_bfqq_is_slow(const SchedState& s, int q, Reason reason,
                                    int* elapsed) const {
  if (!sync(q) || !clock_) return false;
  int e = in_service_ticks(s);
  if (reason == TooIdle) e = std::max(0, e - std::max(1, slice_idle_));
  if (e == 0) {
    *elapsed = t_.workload().dev.rotational ? 2 : 1;  // 8 * BFQ_MIN_TT or BFQ_MIN_TT
    return seeky(s, q);
  }
  *elapsed = e;
  if (e > 5) return qb(s, q, kService) < max_budget() / 2;
  return seeky(s, q);
}

// bfq_bfqq_charge_time: a slow queue pays for the time it held the device.
void BfqScheduler::bfq_bfqq_charge_time(SchedState& s, int q, int elapsed, Why* why) const {
  W tot = qb(s, q, kService);
  if (elapsed > 0 && elapsed < timeout_) tot = max_budget() * elapsed / timeout_;
  tot = std::max(tot, qb(s, q, kService));
  if (tot > qb(s, q, kBudget)) set_qb(s, q, kBudget, tot);
  const W extra = tot - qb(s, q, kService);
  if (extra <= 0) return;
  set_qb(s, q, kService, tot);
  set_vtime(s, vtime(s) + delta(extra, wsum(s)));
  say(why, "bfq_bfqq_charge_time: slow, charged {} sectors for {} tick(s) of service", tot,
      elapsed);
}

// __bfq_bfqq_recalc_budget (facts A3).
void BfqScheduler::bfq_recalc_budget(SchedState& s, int q, Reason reason) const {
  // A preempted queue keeps its budget; 6.12 only a sync non-raised one
  // (the switch's default), a raised or async queue gets its new budget.
  if (reason == Preempted && (variant_ != V6_12 || (sync(q) && !raised(s, q)))) return;
  const W mn = min_budget(), mx = max_budget();
  W b = qb(s, q, kMaxBudget);
  if (raised(s, q)) {
    b = 2 * mn;
  } else if (sync(q)) {
    switch (reason) {
      case TooIdle:
        b = dispatched(s, q) > 0 ? std::min(2 * b, mx) : (b > 5 * mn ? b - 4 * mn : mn);
        break;
      case BudgetTimeout:
        b = std::min(2 * b, mx);
        break;
      case BudgetExhausted:
        b = std::min(4 * b, mx);
        break;
      default:
        b = std::max(qb(s, q, kService), mn);
        break;
    }
  } else {
    b = mx;
  }
  set_qb(s, q, kMaxBudget, std::min(b, mx));
  const int next = next_rq(s, q);
  if (next >= 0) set_qb(s, q, kBudget, std::max<W>(qb(s, q, kMaxBudget), serv_to_charge(s, next)));
}

// __bfq_bfqq_expire: deactivate an empty queue (its finish kept on the idle
// tree), requeue one with requests; no queue in service, no timer.
void BfqScheduler::__bfq_bfqq_expire(SchedState& s, int q, Reason reason, Why* why) const {
  const int w = weight(s, q);
  const W served_to = qb(s, q, kStart) + delta(qb(s, q, kService), w);
  // 6.12 keeps an empty queue preempted while idling is needed for its
  // service guarantees busy: it is requeued, not deactivated.
  bool keep = false;
  if (variant_ == V6_12 && reason == Preempted) {
    keep = bfq_idling_needed_for_service_guarantees(idle_inputs(s, q, -1, V6_12));
  }
  if (queued(s, q) == 0 && !keep) {
    set_qb(s, q, kFinish, served_to);
    set_qflag(s, q, kBusy, false);
    if (active_) active_->set(s, q, 0);
    if (order_) bfq_idle_insert(s, q);
    else set_qflag(s, q, kIdleTree, served_to > vtime(s));
    if (dispatched(s, q) == 0) set_qb(s, q, kIdleSince, 0);  // budget_timeout = jiffies
    say(why, "bfqq[{}] deactivated", t_.workload().procs[std::size_t(q)].name);
  } else {
    set_qb(s, q, kStart, served_to);
    set_qb(s, q, kFinish, served_to + delta(qb(s, q, kBudget), w));
    tree_insert(s, q);
    if (pos_node_ && queued(s, q) > 0 && !nonrot_with_queueing(s)) bfq_pos_tree_add_move(s, q);
    set_in_service(s, -1);  // bfq_update_next_in_service(.., expiration): V may jump
    bfq_update_next_in_service(s, q, true);
    set_in_service(s, q);
    say(why, "bfqq[{}] requeued: S={} F={}", t_.workload().procs[std::size_t(q)].name,
        qb(s, q, kStart), qb(s, q, kFinish));
  }
  // v6.12 (bfq_bfqq_expire): an empty queue expired for no more requests or
  // too idle keeps its service, for a request that arrives in time.
  const bool wait = !busy(s, q) && reason != BudgetTimeout && reason != BudgetExhausted;
  set_qflag(s, q, kNbWait, wait);
  if (!wait || variant_ != V6_12) set_qb(s, q, kService, 0);
  set_in_service(s, -1);
  if (in_serv_last_pos_) in_serv_last_pos_->set(s, 0);  // read only with a queue in service
  set_timer(s, 0);
  timeout_left_.set(s, 0);
  in_service_ticks_.set(s, 0);
  normalize(s);
}

// bfq_exit_icq -> bfq_exit_bfqq: the process exits; its in-service sync
// queue is expired at once (no budget recalculation).
void BfqScheduler::bfq_exit_icq(SchedState& s, int q, Why* why) const {
  say(why, "process {} exits (bfq_exit_icq)", t_.workload().procs[std::size_t(q)].name);
  if (q == in_service(s)) __bfq_bfqq_expire(s, q, BudgetTimeout, why);
}

// --- the books ---

// Queued requests make their queue busy; the in-service queue is busy; a
// busy queue out of service has requests.
bool BfqScheduler::accounting_ok(const SchedState& s) const {
  const int in = in_service(s);
  if (in >= nq_) return false;
  for (int q = 0; q < nq_; ++q) {
    const bool has = queued(s, q) > 0;
    if (has && !busy(s, q)) return false;
    if (busy(s, q) && !has && q != in && variant_ != V6_12) return false;  // 6.12 may requeue it empty
  }
  return in < 0 || busy(s, in);
}

std::vector<PropInfo> BfqScheduler::extra_props() {
  return {
      {"same-decisions", PropKind::Invariant,
       "with shadow=V: every idling and expiry decision equals what variant V's decision "
       "functions (and V's idling flag) give on the same state (a patch that should change "
       "nothing)"},
      {"no-orphan-idling", PropKind::Invariant,
       "the idle timer is armed only for the in-service queue of a process that still holds "
       "it (no idling on a queue without process references)"},
  };
}

bool BfqScheduler::violates_extra(int i, const SchedState& s) const {
  if (i == 0) return decision_differed(s);
  const int in = in_service(s);
  return i == 1 && wait_request(s) && (in < 0 || !alive(s, in));
}

std::string BfqScheduler::summary(const SchedState& s) const {
  const int in = in_service(s);
  std::string out = fmt::format(
      "bfq in_service={} V={}", in >= 0 ? t_.workload().procs[std::size_t(in)].name : "-",
      vtime(s));
  if (wait_request(s)) out += fmt::format(" idle_timer={}", idle_timer(s));
  if (clock_ && in >= 0) out += fmt::format(" budget_timeout_in={}", timeout_left(s));
  out += fmt::format(" hw_tag={}", hw_tag(s));
  for (int q = 0; q < nq_; ++q) {
    out += fmt::format(" | {}:{}{}{}{} b={}/{} max={} S={} F={}", t_.workload().procs[std::size_t(q)].name,
                       busy(s, q) ? "busy" : (qflag(s, q, kIdleTree) ? "idle-tree" : "idle"),
                       qflag(s, q, kFlag) ? (variant_ == V4_13 ? ",iw" : ",st") : "",
                       qflag(s, q, kIOBound) ? ",iob" : "", seeky(s, q) ? ",seeky" : "",
                       qb(s, q, kService), qb(s, q, kBudget), qb(s, q, kMaxBudget),
                       qb(s, q, kStart), qb(s, q, kFinish));
    if (raised(s, q)) out += fmt::format(" wr={}", qb(s, q, kWrLeft));
  }
  if (decision_differed(s))
    out += fmt::format(" | a decision differed from {}", variants()[std::size_t(shadow_)].name);
  return out;
}

nlohmann::json BfqScheduler::json(const SchedState& s) const {
  nlohmann::json j{{"in_service", in_service(s)}, {"idle_timer", idle_timer(s)},
                   {"budget_timeout_in", timeout_left(s)}, {"hw_tag", hw_tag(s)},
                   {"hw_tag_samples", hw_tag_samples(s)}, {"max_rq_in_driver", max_rq_in_driver(s)},
                   {"vtime", vtime(s)}, {"last_position", last_position(s)}};
  auto& qs = j["queues"] = nlohmann::json::array();
  for (int q = 0; q < nq_; ++q)
    qs.push_back({{"name", t_.workload().procs[std::size_t(q)].name},
                  {"flags", qflags(s, q)},
                  {"budget", qb(s, q, kBudget)},
                  {"service", qb(s, q, kService)},
                  {"max_budget", qb(s, q, kMaxBudget)},
                  {"start", qb(s, q, kStart)},
                  {"finish", qb(s, q, kFinish)},
                  {"seek_history", qb(s, q, kSeekHist)},
                  {"ttime_mean", ttime_mean(s, q)},
                  {"ttime_samples", ttime_samples(s, q)},
                  {"since", qb(s, q, kSince)},
                  {"wr_left", qb(s, q, kWrLeft)},
                  {"idle_since", qb(s, q, kIdleSince)},
                  {"next_rq", next_rq(s, q) < 0 ? nlohmann::json() : nlohmann::json(t_.name(next_rq(s, q)))}});
  return j;
}

}  // namespace blkmc::sched
