#include "model/sched/cfq/cfq.hpp"
#include "model/sched/hw_tag_key.hpp"
#include "model/sched/say.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "model/sched/cfq/cfq_decide.hpp"

namespace blkmc::sched {

namespace {
const char* const kWl[] = {"ASYNC", "SYNC_NOIDLE", "SYNC"};
const char* const kPrio[] = {"RT", "BE", "IDLE"};

std::uint8_t sat(int v, int cap = 255) { return static_cast<std::uint8_t>(std::clamp(v, 0, cap)); }
}  // namespace

const std::vector<VariantInfo>& CfqScheduler::variants() {
  static const std::vector<VariantInfo> v{
      {"2.6.33", "v2.6.33",
       "CFQ of 2.6.33: seekiness by the EWMA seek mean (CFQQ_SEEK_THR on seek_mean, valid after "
       "3 samples), quantum 4, no group_idle, no un-deepening, slice used -> expire",
       "docs/models/bfq-cfq-facts.md B (linux-2.6.33 block/cfq-iosched.c); seeds/001 baseline"},
      {"seeky-rework", "seed 001 RFC PATCH 1/2 + 2/2 on 2.6.33",
       "\"cfq-iosched: rework seeky detection\" + \"rethink seeky detection for SSDs\" (Corrado "
       "Zoccolo, Feb 2010, merged for 2.6.34): seek_history bits, SEEKY = more than 1/8 of them "
       "set; a bit is distance > CFQQ_SEEK_THR (rotational) or size < CFQQ_SECT_THR_NONROT "
       "(non-rotational); everything else as 2.6.33",
       "seeds/001_9f796ab897a4e97e.txt (Vivek Goyal's tables, 2010-03-01)"},
      {"3.1-rc5", "v3.1-rc5",
       "CFQ of 3.1: seek history, quantum 8, group_idle, slice_idle == 0 in cfq_should_idle, the "
       "un-deepening block in cfq_select_queue, keep an empty sole queue whose slice is used",
       "docs/models/bfq-cfq-facts.md B (linux-3.1 block/cfq-iosched.c); seeds/000 and 004 baseline"},
      {"deep-fix-v1", "seed 000: Shaohua Li's first patch (code not in the seeds; reconstructed)",
       "fast device = a strictly seeky queue's request completes within a jiffy (per-request "
       "completion time, as the thread describes it); deep only while not fast; un-deepening "
       "block deleted. Reconstructed from the thread: the v2 code with the batch count fixed at 1",
       "seeds/000_065b25f1b3cd583c.txt (Shaohua Li, 2011-09-13, describing v1), "
       "seeds/004 (Maxim Patlasov's figures for it)"},
      {"deep-fix-v2", "seed 000: \"Re: [PATCH 1/1] CFQ: fix handling 'deep' cfqq\" (v2)",
       "fast device detection from strictly seeky queues: a batch of N strictly seeky requests "
       "drained in < N jiffies is a fast sample; CFQD_FAST after fast_valid samples (kernel 81), "
       "never expired; deep only while not fast; un-deepening block deleted (never merged)",
       "seeds/000_065b25f1b3cd583c.txt (Shaohua Li, 2011-09-13), seeds/004 (Maxim Patlasov)"},
  };
  return v;
}

std::vector<ParamInfo> CfqScheduler::params() {
  return {
      {"slice_sync", 4, 1, 60, "sync time slice in ticks (kernel HZ/10 = 100 ms)"},
      {"slice_async", 2, 1, 60, "async time slice in ticks (kernel HZ/25 = 40 ms)"},
      {"slice_idle", 2, 0, 30, "idle window in ticks (kernel HZ/125 = 8 ms); 0 disables idling"},
      {"group_idle", 2, 0, 30,
       "group idle in ticks (3.1 only; kernel HZ/125); one group, so only a sole busy queue"},
      {"quantum", 0, 0, 16, "cfq_quantum; 0: the version's (2.6.33: 4, 3.1: 8)"},
      {"target_latency", 12, 1, 120, "cfq_target_latency in ticks (kernel HZ*3/10 = 300 ms)"},
      {"seek_thr", 8, 0, 255,
       "3.1 CFQQ_SEEK_THR: a request farther than this many sectors from the last is seeky "
       "(kernel 800 sectors)"},
      {"seek_mean_thr", 8, 0, 255, "2.6.33 CFQQ_SEEK_THR on the seek mean (kernel 8192 sectors)"},
      {"nonrot_size", 2, 0, 255,
       "CFQQ_SECT_THR_NONROT: on a non-rotational device a request smaller than this is seeky "
       "(kernel 64 sectors)"},
      {"seek_window", 8, 1, 8, "bits of seek_history (kernel 32)"},
      {"seeky_bits", 1, 0, 8, "SEEKY when more than this many history bits are set (kernel 32/8)"},
      {"close_thr", 4, 0, 255, "CFQQ_CLOSE_THR for preemption (kernel 8192 sectors)"},
      {"hw_queue_min", 3, 1, 16, "CFQ_HW_QUEUE_MIN (kernel 5)"},
      {"hw_tag_samples", 4, 0, 100, "samples before hw_tag is decided (kernel 50)"},
      {"fast_valid", 2, 1, 50,
       "deep-fix: fast samples that make CFQD_FAST (kernel sample_valid: 81)"},
      {"ghost_check", 0, 0, 2,
       "the ghost behind stale-deep and stale-fast: 1 = no deep flag set before the "
       "device was judged fast (CFQD_FAST) stays set for ghost_ticks ticks (seed 004 concern "
       "1); 2 = the device is not still judged fast after ghost_ticks slow samples in a row "
       "(concern 2); when set, the fast-device detector runs as a ghost in every variant"},
      {"ghost_ticks", 8, 1, 255, "the bound of ghost_check"},
      {"shadow", -1, -1, 4,
       "with same-decisions: at every mark_deep, keeps_deep, fast_sample, should_idle and seeky "
       "decision also compute what this variant index would decide on the same inputs (-1: off)"},
      {"shadow_fn", 0, 0, 5,
       "with shadow: compare only this decision (1 mark_deep, 2 keeps_deep, 3 fast_sample, 4 "
       "should_idle, 5 seeky; 0: all)"},
      {"share_while_deep", 0, 0, 1,
       "1: fair-ratio's long-run share counts only the runs on which the first of the fair "
       "pair keeps its deep flag from some point on (seed 004: how little the queue stuck "
       "deep is served)"},
  };
}

const char* CfqScheduler::summary() {
  return "CFQ (block/cfq-iosched.c, 2.6.33 and 3.1, one group): service trees per class and "
         "workload type, time slices, slice_idle/group_idle, think time, seek history, the deep "
         "flag, hw_tag; seed 000/004's fast-device detection";
}

CfqScheduler::CfqScheduler(int variant, const Params& p, const RqTable& t)
    : t_(t),
      variant_(variant),
      nq_(static_cast<int>(t.workload().procs.size())),
      slice_sync_(p.at("slice_sync")),
      slice_async_(p.at("slice_async")),
      slice_idle_(p.at("slice_idle")),
      group_idle_(p.at("group_idle")),
      quantum_(p.at("quantum")),
      target_latency_(p.at("target_latency")),
      seek_thr_(p.at("seek_thr")),
      seek_mean_thr_(p.at("seek_mean_thr")),
      nonrot_size_(p.at("nonrot_size")),
      seek_window_(p.at("seek_window")),
      seeky_bits_(p.at("seeky_bits")),
      close_thr_(p.at("close_thr")),
      hw_queue_min_(p.at("hw_queue_min")),
      hw_tag_samples_(p.at("hw_tag_samples")),
      fast_valid_(p.at("fast_valid")),
      ghost_(p.at("ghost_check")),
      ghost_ticks_(p.at("ghost_ticks")),
      shadow_(p.at("shadow")),
      shadow_fn_(p.at("shadow_fn")),
      shadow_seek_bytes_(0),
      share_deep_(p.at("share_while_deep") != 0),
      clock_(p.at("clock") != 0) {
  if (variant < V2633 || variant > DeepFixV2) throw UsageError("cfq: bad variant index");
  if (shadow_ > DeepFixV2) throw UsageError("cfq: bad shadow variant index");
  // The shadow keeps its own seek state only where it judges seekiness the
  // other way (2.6.33's mean: samples + 16-bit total; the history: 1 byte).
  if (shadow_ >= 0 && history_seek_of(shadow_) != history_seek())
    shadow_seek_bytes_ = history_seek_of(shadow_) ? 1 : 3;
  if (nq_ > 8) throw UsageError("cfq: at most 8 processes");
  if (quantum_ == 0) quantum_ = v31() ? 8 : 4;
  if (!v31()) group_idle_ = 0;  // 2.6.33 has no group_idle
}

// cfq_init_queue / cfq_init_cfqq: hw_tag = -1, every sync queue starts with
// an idle window (idle class excepted), slice_new on no active queue.
namespace {
const char* const kQFlagNames[] = {"on_rr",        "idle_window", "deep",    "must_dispatch",
                                   "wait_request", "sampling",    "has_pos", "created"};
}  // namespace

void CfqScheduler::declare(Schema& sc, SchemaSlots& slots) {
  slots.byte(active_, sc.integer("active", -1, nq_ - 1));
  slots.bit(slice_new_, sc.bit("slice_new"));
  slots.bit(wait_busy_, sc.bit("wait_busy"));
  slots.byte(slice_left_, sc.integer("slice_left", 0, 255));
  slots.byte(slice_elapsed_, sc.integer("slice_elapsed", 0, 255));
  slots.byte(slice_dispatch_, sc.integer("slice_dispatch", 0, 255));
  slots.byte(idle_timer_, sc.integer("idle_timer", 0, 255));
  slots.byte(serving_type_, sc.enumeration("serving_type", {kWl[ASYNC], kWl[SYNC_NOIDLE], kWl[SYNC]}));
  slots.byte(serving_prio_, sc.enumeration("serving_prio", {kPrio[RT], kPrio[BE], kPrio[IDLE]}));
  slots.byte(workload_left_, sc.integer("workload_left", 0, 255));
  slots.byte(hw_tag_, sc.integer("hw_tag", -1, 1));
  slots.byte(hw_tag_samples_v_, sc.integer("hw_tag_samples", 0, 255));
  slots.byte(est_depth_, sc.integer("est_depth", 0, 255));
  slots.byte(fast_samples_, sc.integer("fast_samples", 0, 255));
  if (ghost_ != 0) slots.byte(ghost_v_, sc.integer("ghost", 0, 255));
  slots.byte(last_position_, sc.integer("last_position", 0, 255));
  if (shadow_ >= 0) {
    std::vector<std::string> names;
    for (int d = 0; d <= kSeeky; ++d) names.push_back(decision_name(d));
    slots.byte(differed_, sc.enumeration("shadow_differed", names));
  }
  const int q = sc.block("cfqq", nq_);
  for (int f = 0; f < 8; ++f) slots.bit(qflag_[f], sc.bit(kQFlagNames[f], q));
  if (ghost_ == 1) slots.bit(stale_deep_, sc.bit("stale_deep", q));
  slots.byte(order_, sc.integer("order", 0, 31, q));
  slots.byte(tree_type_, sc.enumeration("tree_type", {kWl[ASYNC], kWl[SYNC_NOIDLE], kWl[SYNC]}, q));
  slots.byte(last_pos_, sc.integer("last_pos", 0, 255, q));
  slots.byte(seek_, sc.integer(history_seek() ? "seek_history" : "seek_samples", 0, 255, q));
  if (!history_seek()) {
    slots.byte(seek_total_lo_, sc.integer("seek_total_lo", 0, 255, q));
    slots.byte(seek_total_hi_, sc.integer("seek_total_hi", 0, 255, q));
  }
  slots.byte(ttime_since_, sc.integer("ttime_since", 0, 255, q));
  slots.byte(ttime_samples_, sc.integer("ttime_samples", 0, 255, q));
  slots.byte(ttime_total_lo_, sc.integer("ttime_total_lo", 0, 255, q));
  slots.byte(ttime_total_hi_, sc.integer("ttime_total_hi", 0, 255, q));
  slots.byte(sample_elapsed_, sc.integer("sample_elapsed", 0, 255, q));
  slots.byte(sample_count_, sc.integer("sample_count", 0, 255, q));
  if (shadow_seek_bytes_ == 1) slots.byte(shadow_seek_, sc.integer("shadow_seek_history", 0, 255, q));
  if (shadow_seek_bytes_ == 3) {
    slots.byte(shadow_seek_, sc.integer("shadow_seek_samples", 0, 255, q));
    slots.byte(shadow_seek_total_lo_, sc.integer("shadow_seek_total_lo", 0, 255, q));
    slots.byte(shadow_seek_total_hi_, sc.integer("shadow_seek_total_hi", 0, 255, q));
  }
}

void CfqScheduler::rename(SchedState& s, const SchedState& before, const std::vector<int>& proc_perm,
                          const std::vector<int>&) const {
  move_copies(qlayout_, before, s, proc_perm);
  if (const int q = active(before); q >= 0) set_active(s, proc_perm[std::size_t(q)]);
}

// Queue a's record against queue b's: its bytes, then its flags.
int CfqScheduler::compare_procs(const SchedState& s, int a, int b) const {
  return compare_copies(qlayout_, s, a, b);
}

// cfq_init_queue / cfq_init_cfqq: hw_tag = -1, every sync queue starts with
// an idle window (idle class excepted), slice_new on no active queue;
// everything else kzalloc'd (serving type/prio: SYNC_NOIDLE, BE).
void CfqScheduler::init(SchedState& s) const {
  set_active(s, -1);
  set_dflag(s, kSliceNew, false);
  set_dflag(s, kWaitBusy, false);
  for (const ByteVar* v : {&slice_left_, &slice_elapsed_, &slice_dispatch_, &idle_timer_,
                           &workload_left_, &hw_tag_samples_v_, &est_depth_, &fast_samples_,
                           &last_position_})
    v->set(s, 0);
  hw_tag_.set(s, -1);
  serving_type_.set(s, SYNC_NOIDLE);
  serving_prio_.set(s, BE);
  if (ghost_ != 0) ghost_v_.set(s, 0);
  if (shadow_ >= 0) differed_.set(s, 0);
  for (int q = 0; q < nq_; ++q) {
    for (int f = 0; f < 8; ++f) qflag_[f].set(s, q, 0);
    if (ghost_ == 1) stale_deep_.set(s, q, 0);
    for (const ByteVar* v : {&order_, &tree_type_, &last_pos_, &seek_, &ttime_since_,
                             &ttime_samples_, &ttime_total_lo_, &ttime_total_hi_,
                             &sample_elapsed_, &sample_count_})
      v->set(s, q, 0);
    if (!history_seek()) set_seek_total(s, q, 0);
    if (shadow_seek_bytes_ != 0) shadow_seek_.set(s, q, 0);
    if (shadow_seek_bytes_ == 3) set_shadow_seek_total(s, q, 0);
    if (sync_q(q) && qprio(q) != IDLE) set_qflag(s, q, kIdleWindow, true);
  }
}

// --- derived facts ---

bool CfqScheduler::sync_q(int q) const {
  const WlProc& p = t_.workload().procs[std::size_t(q)];
  return p.dir == READ || p.sync || p.req_sync;
}
int CfqScheduler::qprio(int q) const { return t_.workload().procs[std::size_t(q)].prio; }

void CfqScheduler::set_qflag(SchedState& s, int q, std::uint8_t f, bool on) const {
  qflag_[std::countr_zero(unsigned(f))].set(s, q, on);
}

int CfqScheduler::qflags(const SchedState& s, int q) const {
  int m = 0;
  for (int f = 0; f < 8; ++f)
    if (qflag_[f].test(s, q)) m |= 1 << f;
  return m;
}

// queued[0] + queued[1]: requests in CFQ's sort lists (not the request
// queue's dispatch list of requeues and at-head inserts).
int CfqScheduler::queued(const SchedState& s, int q) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r) n += t_.info(r).proc == q && t_.status(s, r) == St::Sched;
  return n;
}
int CfqScheduler::dispatched(const SchedState& s, int q) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r) {
    const St st = t_.status(s, r);
    n += t_.info(r).proc == q && (st == St::Hctx || st == St::Driver);
  }
  return n;
}
int CfqScheduler::in_driver(const SchedState& s, int sync) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r)
    n += t_.status(s, r) == St::Driver && (sync < 0 || int(sync_q(t_.info(r).proc)) == sync);
  return n;
}
int CfqScheduler::rq_queued(const SchedState& s) const {
  int n = 0;
  for (int r = 0; r < t_.size(); ++r) n += t_.status(s, r) == St::Sched;
  return n;
}
int CfqScheduler::busy_queues(const SchedState& s, int prio, int type) const {
  int n = 0;
  for (int q = 0; q < nq_; ++q)
    n += qflag(s, q, kOnRr) && (prio < 0 || qprio(q) == prio) &&
         (type < 0 || prio == IDLE || tree_type(s, q) == type);
  return n;
}
int CfqScheduler::tree_count(const SchedState& s, int prio, int type) const {
  return busy_queues(s, prio, prio == IDLE ? -1 : type);
}
// nr_tasks: a finite process whose every request has completed has exited.
bool CfqScheduler::has_task(const SchedState& s, int q) const {
  const WlProc& p = t_.workload().procs[std::size_t(q)];
  if (p.cyclic) return true;
  for (int r = p.first; r < p.first + p.count; ++r)
    if (t_.status(s, r) != St::Done) return true;
  return false;
}
int CfqScheduler::seek_mean(const SchedState& s, int q) const {
  return cfq::seek_mean_v2633(seek_samples(s, q), seek_total(s, q));
}
int CfqScheduler::ttime_mean(const SchedState& s, int q) const {
  const int n = ttime_samples(s, q);
  return n ? (ttime_total(s, q) + 128) / n : 0;
}
bool CfqScheduler::seeky(const SchedState& s, int q) const {
  if (!history_seek())
    return cfq::seeky_mean_v2633<bool, int>(seek_valid(s, q), seek_mean(s, q), seek_mean_thr_);
  return cfq::seeky_hist_v31<bool, int>(std::popcount(unsigned(seek_history(s, q))), seeky_bits_);
}
bool CfqScheduler::strict_seeky(const SchedState& s, int q) const {
  if (!history_seek()) return false;
  return cfq::strict_seeky<bool, int>(std::popcount(unsigned(seek_history(s, q))), seek_window_);
}
bool CfqScheduler::device_fast(const SchedState& s) const {
  return cfq::device_fast<bool, int>(fast_samples(s), fast_valid_);
}
// cfq_slice_used: a new slice is never used; else now >= slice_end.
bool CfqScheduler::slice_used(const SchedState& s) const {
  return !(dflags(s) & kSliceNew) && slice_left(s) == 0;
}
int CfqScheduler::cfqq_type(const SchedState& s, int q) const {
  if (!sync_q(q)) return ASYNC;
  return qflag(s, q, kIdleWindow) ? SYNC : SYNC_NOIDLE;
}

bool CfqScheduler::cfq_should_idle(const SchedState& s, int q) const {
  const int prio = qprio(q);
  return cfq::should_idle<bool, int>(v31(), slice_idle_, prio == IDLE, qflag(s, q, kIdleWindow),
                                     !t_.workload().dev.rotational, hw_tag(s) != 0,
                                     tree_count(s, prio, tree_type(s, q)), sync_q(q), false);
}

bool CfqScheduler::shadow_should_idle(const SchedState& s, int q) const {
  const int prio = qprio(q);
  return cfq::should_idle<bool, int>(v31_of(shadow_), slice_idle_, prio == IDLE,
                                     qflag(s, q, kIdleWindow), !t_.workload().dev.rotational,
                                     hw_tag(s) != 0, tree_count(s, prio, tree_type(s, q)),
                                     sync_q(q), false);
}

bool CfqScheduler::shadow_seeky(const SchedState& s, int q) const {
  if (shadow_seek_bytes_ == 0) return seeky(s, q);  // the same state, the same template
  if (shadow_seek_bytes_ == 1)
    return cfq::seeky_hist_v31<bool, int>(std::popcount(unsigned(shadow_seek(s, q))), seeky_bits_);
  const int samples = shadow_seek(s, q), total = shadow_seek_total(s, q);
  return cfq::seeky_mean_v2633<bool, int>(samples > 80, cfq::seek_mean_v2633(samples, total),
                                          seek_mean_thr_);
}

const char* CfqScheduler::decision_name(int d) {
  static const char* const k[] = {"-",           "mark_deep", "keeps_deep", "fast_sample",
                                  "should_idle", "seeky"};
  return d >= 0 && d <= kSeeky ? k[d] : "?";
}

void CfqScheduler::shadow_check(SchedState& s, int fn, int q, bool mine, bool theirs,
                                Why* why) const {
  if (shadow_ < 0 || (shadow_fn_ != 0 && fn != shadow_fn_) || mine == theirs) return;
  if (differed_.get(s) == 0) differed_.set(s, fn);
  static const char* const kYes[] = {"", "marks it deep", "keeps it deep", "takes a fast sample",
                                     "idles", "judges it seeky"};
  static const char* const kNo[] = {"", "does not mark it deep", "clears deep",
                                    "takes no fast sample", "does not idle",
                                    "judges it not seeky"};
  say(why, "DECISION DIFFERS ({}) for {}: {} {}, shadow {} {}", decision_name(fn), qname(q),
      variants()[std::size_t(variant_)].name, mine ? kYes[fn] : kNo[fn],
      variants()[std::size_t(shadow_)].name, theirs ? kYes[fn] : kNo[fn]);
}

bool CfqScheduler::should_idle_taken(SchedState& s, int q, Why* why) const {
  const bool mine = cfq_should_idle(s, q);
  if (shadow_ >= 0) shadow_check(s, kShouldIdle, q, mine, shadow_should_idle(s, q), why);
  return mine;
}

bool CfqScheduler::has_work(const SchedState& s) const {
  for (int r = 0; r < t_.size(); ++r)
    if (t_.queued(s, r)) return true;
  return false;
}

std::string CfqScheduler::qname(int q) const { return t_.workload().procs[std::size_t(q)].name; }

// --- service trees (order = rb_key order) ---

void CfqScheduler::renumber(SchedState& s) const {
  std::vector<std::pair<int, int>> v;
  for (int q = 0; q < nq_; ++q)
    if (order(s, q)) v.push_back({order(s, q), q});
  std::sort(v.begin(), v.end());
  int k = 1;
  for (const auto& [o, q] : v) order_.set(s, q, k++);
}

// cfq_service_tree_add: the queue's tree from its current type; key = now
// (+ offset - resid, ignored): the back. add_front (preemption): the kernel's
// key is the tree's first key - HZ; the model puts the queue at the place of
// its tree's first queue (before it), without the extra HZ lead over the
// other trees' queues (an empty tree: before everything).
void CfqScheduler::cfq_service_tree_add(SchedState& s, int q, bool front) const {
  if (front) {
    const int type = cfqq_type(s, q);
    int at = 1;
    bool found = false;
    for (int o = 0; o < nq_; ++o)
      if (order(s, o) && qprio(o) == qprio(q) && (qprio(q) == IDLE || tree_type(s, o) == type) &&
          (!found || order(s, o) < at)) {
        at = order(s, o);
        found = true;
      }
    for (int o = 0; o < nq_; ++o)
      if (order(s, o) >= at && o != q) order_.set(s, o, order(s, o) + 1);
    tree_type_.set(s, q, type);
    order_.set(s, q, at);
  } else {
    tree_type_.set(s, q, cfqq_type(s, q));
    order_.set(s, q, 31);
  }
  renumber(s);
}

void CfqScheduler::cfq_del_cfqq_rr(SchedState& s, int q) const {
  set_qflag(s, q, kOnRr, false);
  tree_type_.set(s, q, 0);
  order_.set(s, q, 0);
  renumber(s);
}

// --- enqueue ---

void CfqScheduler::cfq_insert_request(SchedState& s, int rq, bool at_head, bool requeue,
                                      Why* why) const {
  const int q = t_.info(rq).proc;
  t_.set_flag(s, rq, kInserted, true);
  t_.set_age(s, rq, 0);
  if (at_head || requeue) {
    // elv_requeue_request / at-head: the request queue's dispatch list,
    // ahead of everything CFQ holds.
    t_.set_status(s, rq, St::SchedHead);
    say(why, "{} at the head of the dispatch list (not through CFQ's trees)", t_.name(rq));
    return;
  }
  t_.set_status(s, rq, St::Sched);
  set_qflag(s, q, kCreated, true);
  // cfq_add_rq_rb -> cfq_add_cfqq_rr
  if (!qflag(s, q, kOnRr)) {
    set_qflag(s, q, kOnRr, true);
    cfq_service_tree_add(s, q, false);
    say(why, "cfq_add_cfqq_rr: {} onto the {} {} tree", qname(q), kPrio[qprio(q)],
        kWl[tree_type(s, q)]);
  }
  cfq_rq_enqueued(s, q, rq, why);
}

// __cfq_update_io_thinktime: elapsed since the last sync completion, capped
// at 2*slice_idle, into the EWMA (3.1 skips async queues).
void CfqScheduler::cfq_update_io_thinktime(SchedState& s, int q) const {
  if (!sync_q(q)) return;
  const int elapsed = std::min<int>(ttime_since(s, q), 2 * slice_idle_);
  const int n = (7 * ttime_samples(s, q) + 256) / 8;
  const int total = (7 * ttime_total(s, q) + 256 * elapsed) / 8;
  ttime_samples_.set(s, q, sat(n));
  set_ttime_total(s, q, total & 0xffff);
}

void CfqScheduler::cfq_update_io_seektime(SchedState& s, int q, int rq) const {
  const int pos = t_.sector(rq);
  int sdist = 0;
  if (qflag(s, q, kHasPos)) sdist = std::abs(pos - last_pos(s, q));
  if (shadow_seek_bytes_ == 1) {  // the shadow's seek_history, as the rework keeps it
    const bool bit = cfq::seek_bit_v31<bool, int>(!t_.workload().dev.rotational, t_.info(rq).size,
                                                  sdist, nonrot_size_, seek_thr_);
    shadow_seek_.set(s, q, ((shadow_seek(s, q) << 1) | int(bit)) & ((1 << seek_window_) - 1) & 255);
  } else if (shadow_seek_bytes_ == 3) {  // the shadow's EWMA, as 2.6.33 keeps it
    const int n0 = shadow_seek(s, q), t0 = shadow_seek_total(s, q);
    const int d = cfq::seek_sdist_clamped_v2633(n0, cfq::seek_mean_v2633(n0, t0), sdist,
                                                seek_mean_thr_);
    const int t1 = cfq::seek_total_next_v2633(t0, d);
    shadow_seek_.set(s, q, sat(cfq::seek_samples_next_v2633(n0)));
    set_shadow_seek_total(s, q, t1 & 0xffff);
  }
  if (history_seek()) {
    // 3.1: seek_history <<= 1, the new bit by size (non-rot) or distance.
    const bool bit = cfq::seek_bit_v31<bool, int>(!t_.workload().dev.rotational, t_.info(rq).size,
                                                  sdist, nonrot_size_, seek_thr_);
    const int mask = (1 << seek_window_) - 1;
    seek_.set(s, q, ((seek_history(s, q) << 1) | int(bit)) & mask & 255);
    return;
  }
  // 2.6.33: clamp, then EWMA of samples and total; mean = total / samples.
  const int samples = seek_samples(s, q);
  sdist = cfq::seek_sdist_clamped_v2633(samples, seek_mean(s, q), sdist, seek_mean_thr_);
  const int n = cfq::seek_samples_next_v2633(samples);
  const int total = cfq::seek_total_next_v2633(seek_total(s, q), sdist);
  seek_.set(s, q, sat(n));
  set_seek_total(s, q, total & 0xffff);
}

void CfqScheduler::cfq_update_idle_window(SchedState& s, int q, Why* why) const {
  if (!sync_q(q) || qprio(q) == IDLE) return;
  const bool old_idle = qflag(s, q, kIdleWindow);
  const bool fast = device_fast(s);
  const bool mark = cfq::marks_deep<bool, int>(fast_rule(), queued(s, q), fast);
  if (shadow_ >= 0)
    shadow_check(s, kMarkDeep, q, mark,
                 cfq::marks_deep<bool, int>(fast_rule_of(shadow_), queued(s, q), fast), why);
  if (mark && !qflag(s, q, kDeep)) {
    set_qflag(s, q, kDeep, true);
    say(why, "cfq_update_idle_window: {} holds {} requests: mark deep{}", qname(q), queued(s, q),
        fast_rule() ? " (device not judged fast)" : "");
  }
  const bool sk = seeky(s, q);
  if (shadow_ >= 0) shadow_check(s, kSeeky, q, sk, shadow_seeky(s, q), why);
  const bool idle =
      cfq::idle_window_next<bool, int>(old_idle, has_task(s, q), slice_idle_, qflag(s, q, kDeep),
                                       sk, ttime_valid(s, q), ttime_mean(s, q));
  if (idle != old_idle) {
    set_qflag(s, q, kIdleWindow, idle);
    say(why, "cfq_update_idle_window: {} idle_window {} ({}{}think time {}{})", qname(q),
        idle ? "on" : "off", sk ? "seeky" : "not seeky", qflag(s, q, kDeep) ? ", deep, " : ", ",
        ttime_mean(s, q), ttime_valid(s, q) ? "" : " not yet valid");
  }
}

void CfqScheduler::cfq_rq_enqueued(SchedState& s, int q, int rq, Why* why) const {
  cfq_update_io_thinktime(s, q);
  cfq_update_io_seektime(s, q, rq);
  cfq_update_idle_window(s, q, why);
  last_pos_.set(s, q, sat(t_.sector(rq) + t_.info(rq).size));
  set_qflag(s, q, kHasPos, true);
  if (q == active(s)) {
    if (qflag(s, q, kWaitRequest)) {
      if (t_.info(rq).size > 1 || busy_queues(s) > 1) {
        idle_timer_.set(s, 0);  // cfq_del_timer
        set_qflag(s, q, kWaitRequest, false);
        say(why, "{} was idled on: idle timer cancelled", qname(q));
      } else {
        set_qflag(s, q, kMustDispatch, true);
        say(why, "{} was idled on and is the only busy queue: must_dispatch", qname(q));
      }
    }
  } else if (cfq_should_preempt(s, q, rq, why)) {
    cfq_preempt_queue(s, q, why);
  }
}

bool CfqScheduler::cfq_should_preempt(SchedState& s, int q, int rq, Why* why) const {
  const int a = active(s);
  if (a < 0) return false;
  const int np = qprio(q), ap = qprio(a);
  auto yes = [&](const char* rule) {
    say(why, "cfq_should_preempt: {} preempts {}: {}", qname(q), qname(a), rule);
    return true;
  };
  if (np == IDLE) return false;
  if (ap == IDLE) return yes("the active queue is idle class");
  if (ap == RT && np != RT) return false;
  if (sync_q(q) && !sync_q(a)) return yes("a sync request against an async active queue");
  if (slice_used(s)) return yes("the active slice is used");
  if (serving_type(s) == SYNC_NOIDLE && cfqq_type(s, q) == SYNC_NOIDLE &&
      tree_count(s, np, tree_type(s, q)) == 2 && queued(s, a) == 0)
    return yes("both on SYNC_NOIDLE and the active queue is empty");
  if (np == RT && ap != RT) return yes("RT over a non-RT active queue");
  if (v31() && queued(s, a) == 0 && !should_idle_taken(s, a, why))
    return yes("the active queue is empty and would not be idled on");
  if (!qflag(s, a, kWaitRequest)) return false;
  int thr = close_thr_;
  if (!v31()) thr = seek_valid(s, a) ? seek_mean(s, a) : seek_mean_thr_;
  if (std::abs(t_.sector(rq) - last_position(s)) <= thr)
    return yes("the request is close to the last position while idling");
  return false;
}

void CfqScheduler::cfq_preempt_queue(SchedState& s, int q, Why* why) const {
  const int old_type = cfqq_type(s, active(s));
  cfq_slice_expired(s, true, why);
  if (v31() && old_type != cfqq_type(s, q)) workload_left_.set(s, 0);  // saved_workload_slice = 0
  cfq_service_tree_add(s, q, true);
}

// --- dispatch ---

void CfqScheduler::cfq_set_active_queue(SchedState& s, int q, Why* why) const {
  set_active(s, q);
  if (q < 0) return;
  set_dflag(s, kSliceNew, true);  // slice_new, not wait_busy
  set_dflag(s, kWaitBusy, false);
  slice_left_.set(s, 0);
  slice_elapsed_.set(s, 0);
  slice_dispatch_.set(s, 0);  // slice_dispatch
  idle_timer_.set(s, 0);  // cfq_del_timer
  set_qflag(s, q, kWaitRequest, false);
  set_qflag(s, q, kMustDispatch, false);
  if (detector_runs()) set_qflag(s, q, kSampling, false);  // seeky_dispatch_start = 0
  say(why, "cfq_set_active_queue: {} ({} {} tree{}{})", qname(q), kPrio[qprio(q)],
      kWl[tree_type(s, q)], qflag(s, q, kDeep) ? ", deep" : "",
      qflag(s, q, kIdleWindow) ? ", idle_window" : "");
}

void CfqScheduler::cfq_slice_expired(SchedState& s, bool, Why* why) const {
  const int q = active(s);
  if (q < 0) return;
  idle_timer_.set(s, 0);  // cfq_del_timer
  set_qflag(s, q, kWaitRequest, false);
  set_dflag(s, kWaitBusy, false);
  // cfq_group_served: the workload slice left is saved (0 once expired).
  if (workload_left(s) <= 1) workload_left_.set(s, 0);
  if (qflag(s, q, kOnRr) && queued(s, q) == 0)
    cfq_del_cfqq_rr(s, q);
  else if (qflag(s, q, kOnRr))
    cfq_service_tree_add(s, q, false);  // cfq_resort_rr_list
  set_active(s, -1);
  say(why, "cfq_slice_expired: {}", qname(q));
}

int CfqScheduler::cfq_get_next_queue(const SchedState& s) const {
  int best = -1;
  const int prio = serving_prio(s), type = serving_type(s);
  for (int q = 0; q < nq_; ++q)
    if (qflag(s, q, kOnRr) && qprio(q) == prio && (prio == IDLE || tree_type(s, q) == type) &&
        (best < 0 || order(s, q) < order(s, best)))
      best = q;
  return best;
}

void CfqScheduler::choose_service_tree(SchedState& s, Why* why) const {
  const int original = serving_prio(s);
  int prio = IDLE;
  if (busy_queues(s, RT))
    prio = RT;
  else if (busy_queues(s, BE))
    prio = BE;
  serving_prio_.set(s, prio);
  if (prio == IDLE) {
    workload_left_.set(s, 2);  // workload_expires = now + 1
    return;
  }
  const bool force = v31() && original != prio;
  if (!force && tree_count(s, prio, serving_type(s)) && workload_left(s) > 0) return;
  // cfq_choose_wl: the type whose first queue has the lowest key.
  int type = SYNC_NOIDLE, best = 0;
  for (int w = ASYNC; w <= SYNC; ++w)
    for (int q = 0; q < nq_; ++q)
      if (qflag(s, q, kOnRr) && qprio(q) == prio && tree_type(s, q) == w &&
          (best == 0 || order(s, q) < best)) {
        best = order(s, q);
        type = w;
      }
  serving_type_.set(s, type);
  serving_prio_.set(s, prio);
  const int count = tree_count(s, prio, type);
  int slice = target_latency_ * count / std::max(1, busy_queues(s, prio));
  if (type == ASYNC) {
    const int tmp = target_latency_ * busy_queues(s, -1, ASYNC) / std::max(1, busy_queues(s));
    slice = std::min(slice, tmp) * slice_async_ / slice_sync_;
  } else {
    slice = std::max(slice, 2 * slice_idle_);
  }
  slice = std::max(slice, 2);  // CFQ_MIN_TT
  workload_left_.set(s, sat(slice + 1));
  say(why, "choose_service_tree: {} {} workload for {} tick(s)", kPrio[prio], kWl[type], slice);
}

int CfqScheduler::cfq_select_queue(SchedState& s, Why* why) const {
  const int q = active(s);
  auto expire = [&]() -> int {
    cfq_slice_expired(s, false, why);
    choose_service_tree(s, why);  // cfq_choose_cfqg
    const int n = cfq_get_next_queue(s);
    cfq_set_active_queue(s, n, why);
    return n;
  };
  if (q < 0) return expire();
  if (rq_queued(s) == 0) return -1;
  const bool empty = queued(s, q) == 0;
  if ((dflags(s) & kWaitBusy) && !empty) {
    say(why, "{} waited busy and has a request again: expire", qname(q));
    return expire();
  }
  const bool v31_group_idle = [&] {
    return v31() && group_idle_ && busy_queues(s) == 1 && dispatched(s, q) > 0;
  }();
  if (slice_used(s) && !qflag(s, q, kMustDispatch)) {
    if (!v31()) {
      say(why, "{}'s slice is used: expire", qname(q));
      return expire();
    }
    if (busy_queues(s) == 1 && empty && dispatched(s, q) > 0 && should_idle_taken(s, q, why)) {
      say(why, "{}'s slice is used but it is the sole queue with requests in flight: keep, NULL",
          qname(q));
      return -1;
    }
    if (v31_group_idle) {
      say(why, "{}'s slice is used; group_idle: NULL", qname(q));
      return -1;
    }
    say(why, "{}'s slice is used: expire", qname(q));
    return expire();
  }
  if (!empty) return q;
  if (idle_timer(s)) {
    if (!clock_) {  // no time: the pending timer fires at this queue run
      say(why, "no clock: the idle timer on {} fires now (cfq_idle_slice_timer); NULL", qname(q));
      idle_timer_.set(s, 0);
      cfq_idle_slice_timer(s);
      return -1;
    }
    say(why, "idling on {} (timer pending): NULL", qname(q));
    return -1;
  }
  if (shadow_ >= 0) {  // keeps_deep: only 3.1-rc5 has the un-deepening block
    const bool undeepen =
        cfq::undeepen_v31<bool, int>(seeky(s, q), qflag(s, q, kIdleWindow),
                                     bool(dflags(s) & kSliceNew), slice_left(s), slice_elapsed(s));
    const bool deep = qflag(s, q, kDeep);
    shadow_check(s, kKeepsDeep, q, deep && !(variant_ == V31rc5 && undeepen),
                 deep && !(shadow_ == V31rc5 && undeepen), why);
  }
  if (variant_ == V31rc5 &&
      cfq::undeepen_v31<bool, int>(seeky(s, q), qflag(s, q, kIdleWindow),
                                   bool(dflags(s) & kSliceNew), slice_left(s), slice_elapsed(s))) {
    set_qflag(s, q, kDeep, false);
    set_qflag(s, q, kIdleWindow, false);
    say(why, "{} is seeky with more than half its slice left: clear deep and idle_window",
        qname(q));
  }
  if (dispatched(s, q) > 0 && should_idle_taken(s, q, why)) {
    say(why, "{} is empty with requests in flight and should be idled on: NULL", qname(q));
    return -1;
  }
  if (v31_group_idle) {
    say(why, "{} is the group's only queue with requests in flight: group_idle, NULL", qname(q));
    return -1;
  }
  say(why, "{} is empty: expire", qname(q));
  return expire();
}

bool CfqScheduler::cfq_may_dispatch(SchedState& s, int q, Why* why) const {
  const bool idle_class = qprio(q) == IDLE;
  const int disp = dispatched(s, q);
  if (should_idle_taken(s, q, why) && in_driver(s, 0)) {
    say(why, "cfq_may_dispatch: {} would be idled on and async requests are in flight: no",
        qname(q));
    return false;
  }
  if (in_driver(s, 1) && !sync_q(q)) {
    say(why, "cfq_may_dispatch: async {} waits for the sync requests in flight", qname(q));
    return false;
  }
  int max = v31() ? std::max(quantum_ / 2, 1) : quantum_;
  if (idle_class) max = 1;
  if (disp >= max) {
    if (idle_class) return false;
    if (v31()) {
      int busy_sync = 0;
      for (int o = 0; o < nq_; ++o) busy_sync += qflag(s, o, kOnRr) && sync_q(o);
      const bool promote_sync = sync_q(q) && busy_sync == 1;
      const bool soon = (dflags(s) & kSliceNew) || slice_idle_ * disp > slice_left(s);
      if (busy_queues(s) > 1 && soon && !promote_sync) {
        say(why, "cfq_may_dispatch: {} has {} in flight and its slice ends soon: no", qname(q),
            disp);
        return false;
      }
      max = (busy_queues(s) == 1 || promote_sync) ? 255 : quantum_;
    } else {
      if (busy_queues(s) > 1) {
        say(why, "cfq_may_dispatch: {} has quantum {} in flight: no", qname(q), disp);
        return false;
      }
      max = 255;
    }
  }
  if (disp >= max) say(why, "cfq_may_dispatch: {} has {} in flight: no", qname(q), disp);
  return disp < max;
}

void CfqScheduler::cfq_fast_device_detect_start(SchedState& s, int q) const {
  if (device_fast(s) && ghost_ != 2) return;
  const bool strict = strict_seeky(s, q);
  if (dispatched(s, q) == 0 && strict) {
    set_qflag(s, q, kSampling, true);
    sample_elapsed_.set(s, q, 0);
    sample_count_.set(s, q, 1);
    return;
  }
  if (qflag(s, q, kSampling)) {
    if (!strict) {
      set_qflag(s, q, kSampling, false);
      sample_elapsed_.set(s, q, 0);
      sample_count_.set(s, q, 0);
    } else if (detector_variant() != DeepFixV1 ||
               (shadow_ >= 0 && fast_rule_of(shadow_) && shadow_ != DeepFixV1)) {
      // v1 times single requests; the batch is counted for v2 (also when v2
      // is only the shadow: its decision needs it).
      sample_count_.set(s, q, sat(sample_count(s, q) + 1, 15));
    }
  }
}

void CfqScheduler::cfq_fast_device_detect_end(SchedState& s, int q, Why* why) const {
  if (!qflag(s, q, kSampling) || dispatched(s, q) != 0) return;
  // fast_sample per variant: v1 counts one request, variants without the
  // detector take no sample (as cfq_decisions() composes it).
  auto sample_of = [&](int v) {
    return fast_rule_of(v) && cfq::fast_sample<bool, int>(sample_elapsed(s, q),
                                                          v == DeepFixV1 ? 1 : sample_count(s, q));
  };
  const int dv = detector_variant();
  const bool fast = cfq::fast_sample<bool, int>(sample_elapsed(s, q),
                                                dv == DeepFixV1 ? 1 : sample_count(s, q));
  if (shadow_ >= 0) shadow_check(s, kFastSample, q, sample_of(variant_), sample_of(shadow_), why);
  const bool was_fast = device_fast(s);
  if (fast) fast_samples_.set(s, sat(fast_samples(s) + 1, fast_valid_));
  if (ghost_ == 1 && !was_fast && device_fast(s)) {
    // Ghost: the deep flags set before the device was judged fast.
    for (int o = 0; o < nq_; ++o)
      if (qflag(s, o, kDeep)) stale_deep_.set(s, o, 1);
  }
  if (ghost_ == 2 && was_fast) ghost_v_.set(s, fast ? 0 : sat(ghost(s) + 1));
  say(why,
      "fast device detection: {} drained {} strictly seeky request(s) in {} tick(s): {} "
      "sample ({} of {}{})",
      qname(q), sample_count(s, q), sample_elapsed(s, q), fast ? "fast" : "slow", fast_samples(s),
      fast_valid_, device_fast(s) ? ", the device is judged fast" : "");
  set_qflag(s, q, kSampling, false);
  sample_elapsed_.set(s, q, 0);
  sample_count_.set(s, q, 0);
}

int CfqScheduler::cfq_dispatch_request(SchedState& s, int q, Why* why) const {
  int rq = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.info(r).proc == q && t_.status(s, r) == St::Sched &&
        (rq < 0 || t_.seq(s, r) < t_.seq(s, rq)))
      rq = r;
  if (rq < 0 || !cfq_may_dispatch(s, q, why)) return -1;
  // cfq_dispatch_insert
  if (detector_runs()) cfq_fast_device_detect_start(s, q);
  t_.set_status(s, rq, St::Idle);
  last_position_.set(s, sat(t_.sector(rq) + t_.info(rq).size));  // last_position
  return rq;
}

int CfqScheduler::cfq_dispatch_requests(SchedState& s, Why* why) const {
  // The request queue's own dispatch list first (requeues, at-head).
  int h = -1;
  for (int r = 0; r < t_.size(); ++r)
    if (t_.status(s, r) == St::SchedHead && (h < 0 || t_.seq(s, r) < t_.seq(s, h))) h = r;
  if (h >= 0) {
    t_.set_status(s, h, St::Idle);
    say(why, "request queue dispatch list: {}", t_.name(h));
    return h;
  }
  if (busy_queues(s) == 0) return -1;
  const int q = cfq_select_queue(s, why);
  if (q < 0) return -1;
  const int rq = cfq_dispatch_request(s, q, why);
  if (rq < 0) return -1;
  slice_dispatch_.set(s, sat(slice_dispatch(s) + 1));
  set_qflag(s, q, kMustDispatch, false);
  say(why, "{} dispatches {}", qname(q), t_.name(rq));
  const int maxrq = 4 * (8 - t_.workload().procs[std::size_t(q)].level);
  if (busy_queues(s) > 1 && ((!sync_q(q) && slice_dispatch(s) >= maxrq) || qprio(q) == IDLE)) {
    say(why, "{} dispatched its share with other queues busy", qname(q));
    cfq_slice_expired(s, false, why);
  }
  return rq;
}

// --- completion ---

void CfqScheduler::cfq_update_hw_tag(SchedState& s, int q) const {
  const int drv = in_driver(s);
  est_depth_.set(s, sat(std::max<int>(est_depth(s), drv)));
  if (hw_tag(s) == 1) return;
  const int a = active(s);
  const bool aiw = a >= 0 && qflag(s, a, kIdleWindow);
  const int load = a >= 0 ? dispatched(s, a) + queued(s, a) : 0;
  if (!cfq::hw_tag_sample<bool, int>(rq_queued(s), drv, aiw, load, hw_queue_min_)) return;
  (void)q;
  const int n = hw_tag_samples(s);
  hw_tag_samples_v_.set(s, sat(n + 1, hw_tag_samples_ + 1));
  if (n < hw_tag_samples_) return;
  hw_tag_.set(s, cfq::hw_tag_value<bool, int>(est_depth(s), hw_queue_min_) ? 1 : 0);
}

// The key's classes of the hw_tag detector's state (model/sched/hw_tag_key.hpp).
// Its numbers: a decision at the sample after hw_tag_samples, 1 when
// est_depth is at least hw_queue_min; in_driver counts the requests holding
// a driver tag, at most the depth.
static HwTagDetector detector(const DeviceSpec& dev, int hw_tag_samples, int hw_queue_min) {
  return {hw_tag_samples, hw_queue_min, dev.depth};
}

std::vector<std::string> CfqScheduler::abstractions() const {
  const Workload& wl = t_.workload();
  return {hw_tag_key_text("est_depth", "at least", hw_queue_min_, detector(wl.dev, hw_tag_samples_, hw_queue_min_),
                          finite_workload(wl)),
          "slice_dispatch: none while no queue or a sync queue is active"};
}

void CfqScheduler::abstract_key(SchedState& s) const {
  key_hw_tag_detector(s, t_, hw_tag(s), hw_tag_samples_v_, est_depth_,
                      detector(t_.workload().dev, hw_tag_samples_, hw_queue_min_));
  // slice_dispatch is read only after an async active queue dispatches
  // (its share with others busy), and a queue becomes active only through
  // cfq_set_active_queue, which zeroes it: with no active queue or a sync
  // one, its value is never read.
  if (const int a = active(s); a < 0 || sync_q(a)) slice_dispatch_.set(s, 0);
}

int CfqScheduler::prio_slice(int q) const {
  const int base = sync_q(q) ? slice_sync_ : slice_async_;
  return base + base / 5 * (4 - t_.workload().procs[std::size_t(q)].level);
}

void CfqScheduler::cfq_set_prio_slice(SchedState& s, int q) const {
  int slice = prio_slice(q);
  const int iq = std::max(1, busy_queues(s, qprio(q)));
  const int expect = slice_sync_ * iq, group_slice = target_latency_;
  if (expect > group_slice) {
    const int low = std::min(slice, 2 * slice_idle_ * slice / slice_sync_);
    slice = std::max(slice * group_slice / expect, low);
  }
  slice_left_.set(s, sat(slice));
  slice_elapsed_.set(s, 0);
}

bool CfqScheduler::cfq_should_wait_busy(const SchedState& s, int q) const {
  if (busy_queues(s) > 1) return false;
  if (v31() && queued(s, q) > 0) return false;
  if (slice_used(s)) return true;
  if (ttime_valid(s, q) && slice_left(s) < ttime_mean(s, q)) return true;
  return slice_left(s) == 1;
}

void CfqScheduler::cfq_arm_slice_timer(SchedState& s, Why* why) const {
  const int q = active(s);
  if (!t_.workload().dev.rotational && hw_tag(s) != 0) {
    say(why, "non-rotational with queueing (hw_tag {}): no idling", hw_tag(s));
    return;
  }
  bool group = false;
  if (!v31() && slice_idle_ == 0) return;
  if (!should_idle_taken(s, q, why)) {
    if (!group_idle_) {
      say(why, "{} should not be idled on", qname(q));
      return;
    }
    group = true;
  }
  if (dispatched(s, q) > 0) return;
  if (!has_task(s, q)) return;
  if (ttime_valid(s, q) && slice_left(s) < ttime_mean(s, q)) {
    say(why, "{}'s think time exceeds the slice left: no idling", qname(q));
    return;
  }
  if (group && busy_queues(s) > 1) return;
  set_qflag(s, q, kWaitRequest, true);
  const int sl = group ? group_idle_ : slice_idle_;
  idle_timer_.set(s, sat(sl));
  say(why, "cfq_arm_slice_timer: idle {} tick(s) on {}{}", sl, qname(q),
      group ? " (group_idle)" : "");
}

void CfqScheduler::cfq_completed_request(SchedState& s, int rq, Why* why) const {
  const int q = t_.info(rq).proc;
  if (t_.status(s, rq) == St::Driver) cfq_update_hw_tag(s, q);
  // rq_in_driver-- / dispatched--: the framework moves rq out of the driver
  // after this call; count it out now.
  const St was = t_.status(s, rq);
  t_.set_status(s, rq, St::Done);
  if (detector_runs()) cfq_fast_device_detect_end(s, q, why);
  const bool sync = sync_q(q);
  if (sync) ttime_since_.set(s, q, 0);  // last_end_request = now
  if (q == active(s)) {
    const bool empty = queued(s, q) == 0;
    if (dflags(s) & kSliceNew) {
      cfq_set_prio_slice(s, q);
      set_dflag(s, kSliceNew, false);
      say(why, "{}'s first completion: slice of {} tick(s)", qname(q), slice_left(s));
    }
    if (cfq_should_wait_busy(s, q)) {
      slice_left_.set(s, sat(slice_idle_ ? slice_idle_ : group_idle_));
      set_dflag(s, kWaitBusy, true);
      say(why, "{} is the only busy queue: wait busy", qname(q));
    }
    if (slice_used(s) || qprio(q) == IDLE) {
      say(why, "{}'s slice is used", qname(q));
      cfq_slice_expired(s, true, why);
    } else if (sync && empty) {
      cfq_arm_slice_timer(s, why);
    }
  }
  t_.set_status(s, rq, was);
}

// --- time ---

void CfqScheduler::cfq_idle_slice_timer(SchedState& s) const {
  const int q = active(s);
  if (q < 0) return;
  if (qflag(s, q, kMustDispatch)) return;  // kick
  if (!slice_used(s)) {
    if (busy_queues(s) == 0) return;
    if (queued(s, q) > 0) return;  // kick
    set_qflag(s, q, kDeep, false);
  }
  cfq_slice_expired(s, false, nullptr);
}

void CfqScheduler::timer(SchedState& s, Why* why) const {
  for (int q = 0; q < nq_; ++q) {
    if (qflag(s, q, kCreated)) ttime_since_.set(s, q, sat(ttime_since(s, q) + 1, 2 * slice_idle_));
    if (qflag(s, q, kSampling)) sample_elapsed_.set(s, q, sat(sample_elapsed(s, q) + 1, 15));
  }
  if (active(s) >= 0 && !(dflags(s) & kSliceNew)) {
    if (slice_left(s)) slice_left_.set(s, slice_left(s) - 1);
    slice_elapsed_.set(s, sat(slice_elapsed(s) + 1, 2 * slice_sync_ + 1));
  }
  if (workload_left(s)) workload_left_.set(s, workload_left(s) - 1);
  if (ghost_ == 1) {
    // Ghost: ticks during which a deep flag set before the device was
    // judged fast is still set (a cleared flag leaves the mask).
    bool stale = false;
    for (int q = 0; q < nq_; ++q) {
      stale_deep_.set(s, q, qflag(s, q, kDeep) && stale_deep(s, q));
      stale = stale || stale_deep(s, q);
    }
    ghost_v_.set(s, stale ? sat(ghost(s) + 1) : 0);
  }
  if (idle_timer(s)) {
    idle_timer_.set(s, idle_timer(s) - 1);
    if (!idle_timer(s)) {
      if (why) *why += " cfq_idle_slice_timer fires;";
      cfq_idle_slice_timer(s);
    }
  }
}

// The books: exactly the queues with requests are on a service tree (the
// active queue may stay there empty), the tree order is 1..n.
bool CfqScheduler::accounting_ok(const SchedState& s) const {
  int n = 0;
  for (int q = 0; q < nq_; ++q) {
    const bool on = qflag(s, q, kOnRr);
    if (queued(s, q) > 0 && !on) return false;
    if (on != (order(s, q) != 0)) return false;
    n += on;
  }
  for (int q = 0; q < nq_; ++q)
    if (order(s, q) > n) return false;
  return true;
}

std::vector<PropInfo> CfqScheduler::extra_props() {
  return {
      {"stale-deep", PropKind::Invariant,
       "with ghost_check=1: no deep flag set before the device was judged fast (CFQD_FAST) "
       "stays set for ghost_ticks ticks (seed 004's first concern)"},
      {"stale-fast", PropKind::Invariant,
       "with ghost_check=2: the device is not still judged fast after ghost_ticks slow samples "
       "in a row (seed 004's second concern: samples that never expire)"},
      {"same-decisions", PropKind::Invariant,
       "with shadow=V: every mark_deep, keeps_deep, fast_sample, should_idle and seeky decision "
       "equals what variant V decides on the same inputs (shadow_fn: only one of them); the "
       "reachable counterpart of blkmc diff cfq"},
  };
}

bool CfqScheduler::violates_extra(int i, const SchedState& s) const {
  if (i == 2) return differed(s) != 0;
  return ghost_ == i + 1 && ghost(s) >= ghost_ticks_;
}

std::string CfqScheduler::qtext(const SchedState& s, int q) const {
  std::string f;
  if (qflag(s, q, kOnRr)) f += fmt::format("#{} {}", order(s, q), kWl[tree_type(s, q)]);
  if (qflag(s, q, kIdleWindow)) f += " iw";
  if (qflag(s, q, kDeep)) f += " deep";
  if (seeky(s, q)) f += " seeky";
  if (qflag(s, q, kWaitRequest)) f += " wait_request";
  if (qflag(s, q, kMustDispatch)) f += " must_dispatch";
  if (ttime_samples(s, q))
    f += fmt::format(" tt={}{}", ttime_mean(s, q), ttime_valid(s, q) ? "" : "?");
  if (qflag(s, q, kSampling))
    f += fmt::format(" sampling {}/{}", sample_elapsed(s, q), sample_count(s, q));
  return f.empty() ? "-" : f;
}

std::string CfqScheduler::summary(const SchedState& s) const {
  std::string out = fmt::format("cfq active={}", active(s) < 0 ? "-" : qname(active(s)));
  if (active(s) >= 0) {
    if (dflags(s) & kSliceNew)
      out += " slice=new";
    else
      out += fmt::format(" slice_left={}", slice_left(s));
    if (dflags(s) & kWaitBusy) out += " wait_busy";
  }
  if (idle_timer(s)) out += fmt::format(" idle_timer={}", idle_timer(s));
  out += fmt::format(" serving={}/{} wl_left={} hw_tag={}", kPrio[serving_prio(s)],
                     kWl[serving_type(s)], int(workload_left(s)) - 1, hw_tag(s));
  if (detector_runs())
    out += fmt::format(" fast_samples={}{}", fast_samples(s), device_fast(s) ? " FAST" : "");
  if (ghost_ == 1) {
    out += fmt::format(" stale_deep_ticks={}", ghost(s));
    for (int q = 0; q < nq_; ++q)
      if (stale_deep(s, q)) out += fmt::format(" (stale deep: {})", qname(q));
  }
  if (ghost_ == 2) out += fmt::format(" slow_samples_since_fast={}", ghost(s));
  for (int q = 0; q < nq_; ++q) out += fmt::format(" {}[{}]", qname(q), qtext(s, q));
  if (differed(s))
    out += fmt::format(" | {} differed from {}", decision_name(differed(s)),
                       variants()[std::size_t(shadow_)].name);
  return out;
}

nlohmann::json CfqScheduler::json(const SchedState& s) const {
  nlohmann::json j{{"active", active(s) < 0 ? std::string("-") : qname(active(s))},
                   {"slice_new", bool(dflags(s) & kSliceNew)},
                   {"slice_left", slice_left(s)},
                   {"idle_timer", idle_timer(s)},
                   {"serving", fmt::format("{}/{}", kPrio[serving_prio(s)], kWl[serving_type(s)])},
                   {"workload_left", int(workload_left(s)) - 1},
                   {"hw_tag", hw_tag(s)},
                   {"fast_samples", fast_samples(s)},
                   {"ghost", ghost(s)}};
  if (shadow_ >= 0) j["shadow_differed"] = decision_name(differed(s));
  auto& qs = j["queues"] = nlohmann::json::object();
  for (int q = 0; q < nq_; ++q) qs[qname(q)] = qtext(s, q);
  return j;
}

}  // namespace blkmc::sched
