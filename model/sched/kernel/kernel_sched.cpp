#include "model/sched/kernel/kernel_sched.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "common/errors.hpp"

namespace blkmc::sched {

namespace {

const char* const kPrio[] = {"RT", "BE", "IDLE"};
const char* const kDir[] = {"READ", "WRITE"};

std::atomic<std::uint64_t> g_serial{1};

void say(Why* why, const std::string& text) {
  if (!why) return;
  if (!why->empty()) *why += "; ";
  *why += text;
}

// Formats only when a story is wanted (the search passes no Why).
template <class... Args>
void say(Why* why, fmt::format_string<Args...> f, Args&&... args) {
  if (why) say(why, fmt::format(f, std::forward<Args>(args)...));
}

// The ioprio a workload process submits with (IOPRIO_PRIO_VALUE).
std::uint16_t ioprio_of(const WlProc& p) {
  const int cls = p.prio == RT ? 1 : p.prio == IDLE ? 3 : 2;
  return std::uint16_t((cls << 13) | (p.level & 7));
}

}  // namespace

// Tunables: the hand model's, with its defaults, set through the file's
// sysfs attributes of the same names.
std::vector<ParamInfo> DeadlineCode::tunables() {
  return {
      {"fifo_batch", 16, 0, 64, "sysfs fifo_batch, through the file's own store function"},
      {"writes_starved", 2, 0, 15, "sysfs writes_starved"},
      {"read_expire", 2, 0, 60, "sysfs read_expire in ticks (a tick is a jiffy of HZ=1000: 1 ms)"},
      {"write_expire", 20, 0, 60, "sysfs write_expire in ticks"},
      {"prio_aging_expire", 40, 0, 60, "sysfs prio_aging_expire in ticks"},
  };
}

const char* DeadlineCode::summary() {
  return "the kernel's own mq-deadline (the user's block/mq-deadline.c, compiled against blkmc's shim and driven "
         "through its elevator_mq_ops), over a workload and a blk-mq device";
}

void DeadlineCode::times(const Params& p, int& read_expire, int& write_expire, int& age_cap, std::int64_t& clamp,
                         int& learn_span) {
  read_expire = p.at("read_expire");
  write_expire = p.at("write_expire");
  age_cap = std::max({read_expire, write_expire, p.at("prio_aging_expire"), 1});
  clamp = p.at("time_cap") ? p.at("time_cap") : age_cap + 1;
  learn_span = age_cap + 1;
}

// The kernel's defaults (a tick is a millisecond), each through its sysfs
// attribute.
std::vector<ParamInfo> BfqCode::tunables() {
  return {
      {"low_latency", 1, 0, 1, "sysfs low_latency: weight raising of interactive and soft real-time queues"},
      {"slice_idle", 8, 0, 1000, "sysfs slice_idle in ms (ticks): how long the device idles for the "
                                 "in-service queue's next request (0: never)"},
      {"strict_guarantees", 0, 0, 1, "sysfs strict_guarantees"},
      {"timeout_sync", 125, 1, 10000, "sysfs timeout_sync in ms (ticks): the budget timeout"},
      {"max_budget", 0, 0, 1 << 20, "sysfs max_budget in sectors (0: from the estimated peak rate)"},
      {"back_seek_max", 16384, 0, 1 << 20, "sysfs back_seek_max in KiB"},
      {"back_seek_penalty", 2, 1, 1000, "sysfs back_seek_penalty"},
      {"fifo_expire_sync", 125, 1, 10000, "sysfs fifo_expire_sync in ms (ticks)"},
      {"fifo_expire_async", 250, 1, 10000, "sysfs fifo_expire_async in ms (ticks)"},
  };
}

const char* BfqCode::summary() {
  return "the kernel's own BFQ (the user's block/bfq-iosched.c, bfq-wf2q.c and bfq-cgroup.c without group "
         "scheduling, compiled against blkmc's shim and driven through its elevator_mq_ops; its idle-slice timer "
         "fired at its expiry), over a workload and a blk-mq device";
}

// BFQ's deadlines are its own (rq->fifo_time): the framework's ages do not
// matter (as in blkmc's BFQ model), and times are kept whole unless
// time_cap says (weight raising compares times seconds apart).
void BfqCode::times(const Params& p, int& read_expire, int& write_expire, int& age_cap, std::int64_t& clamp,
                    int& learn_span) {
  read_expire = write_expire = 256;
  age_cap = 1;
  clamp = p.at("time_cap") ? p.at("time_cap") : std::int64_t(1) << 40;
  // Past the idle slice and the budget timeout, now and then.
  learn_span = 2 * std::max({p.at("slice_idle"), p.at("timeout_sync"), 1}) + 1;
}

template <class Code>
struct KernelSched<Code>::Instance {
  kernel::Region region;
  bool dirty = false;            // a call failed: its redzones and every word are restored next
  kernel::Codec::Mirror mirror;  // the state the region holds
  Instance(const kernel::Module& m, int nrqs, int state_words) : region(m, nrqs, state_words) {}
};

template <class Code>
const std::vector<VariantInfo>& KernelSched<Code>::variants() {
  static std::mutex mu;
  static std::vector<VariantInfo> v;
  static unsigned gen = ~0u;
  std::lock_guard<std::mutex> lock(mu);
  if (gen != kernel::source_generation()) {
    v = kernel::source_variants(name());
    gen = kernel::source_generation();
  }
  return v;
}

template <class Code>
unsigned KernelSched<Code>::variants_generation() { return kernel::source_generation(); }

template <class Code>
std::vector<ParamInfo> KernelSched<Code>::params() {
  std::vector<ParamInfo> v = Code::tunables();
  const std::vector<ParamInfo> state{
      {"kernel_state", 0, 0, 1,
       "how states are stored: key (canonical: rb-tree shapes, counters rebased, old times capped) or raw "
       "(the region's words as the code left them)",
       {"key", "raw"}},
      {"time_cap", 0, 0, 255,
       Code::kCanonTrees ? "kernel_state=key: times older than this many ticks are one (0: 1 + the largest time "
                           "tunable)"
                         : "kernel_state=key: times older than this many ticks are one (0: none)"},
  };
  v.insert(v.end(), state.begin(), state.end());
  return v;
}

template <class Code>
std::vector<PropInfo> KernelSched<Code>::extra_props() {
  return {{"kernel-bug", PropKind::Invariant,
           "no call of the kernel code ends in BUG, WARN, a fault, a call that does not return, or a request "
           "pointer that is no request"},
          {"kernel-in-model", PropKind::Invariant,
           "the kernel code does only what blkmc's harness models: no merge, no allocation after init, no write "
           "to a global or to a request field blkmc keeps constant"}};
}

template <class Code>
KernelSched<Code>::KernelSched(int variant, const Params& p, const RqTable& t)
    : t_(t), src_(kernel::source_at(name(), variant)), serial_(g_serial.fetch_add(1)) {
  built_ = kernel::build_source(src_);
  mod_ = &kernel::Module::load(built_.so);
  key_ = p.at("kernel_state") == 0;
  Code::times(p, read_expire_, write_expire_, age_cap_, clamp_, learn_span_);
  const Workload& wl = t.workload();
  if (t.size() > BLKMC_MAX_RQS)
    throw UsageError(fmt::format("{} (kernel code): more requests than the harness holds ({})", name(), BLKMC_MAX_RQS));
  if (wl.procs.size() > BLKMC_MAX_PROCS)
    throw UsageError(fmt::format("{} (kernel code): more processes than the harness holds ({})", name(),
                                 BLKMC_MAX_PROCS));
  for (const WlProc& pr : wl.procs) {
    blkmc_proc_spec ps{};
    ps.ioprio = ioprio_of(pr);
    procs_.push_back(ps);
  }
  clock_ = p.at("clock") != 0;
  for (int r = 0; r < t.size(); ++r) {
    const WlRequest& q = t.info(r);
    const WlProc& pr = t.proc_of(r);
    blkmc_rq_spec sp{};
    sp.sector = std::uint64_t(q.sector);
    sp.sectors = std::uint32_t(q.size);
    sp.ioprio = ioprio_of(pr);
    sp.write = q.dir == WRITE;
    sp.sync = pr.sync || pr.req_sync;
    sp.kind = pr.bypass ? BLKMC_RQ_BYPASS : pr.head ? BLKMC_RQ_HEAD : BLKMC_RQ_NORMAL;
    sp.proc = std::uint8_t(q.proc);
    specs_.push_back(sp);
  }
  depth_ = wl.dev.depth;
  rotational_ = wl.dev.rotational;
  const auto& attrs = mod_->attrs();
  for (const ParamInfo& tp : Code::tunables()) {
    const auto it = std::find(attrs.begin(), attrs.end(), tp.name);
    const int v = p.at(tp.name);
    if (it == attrs.end()) {
      if (v != tp.def) throw UsageError(fmt::format("{} ({}) has no sysfs attribute {}", src_.file, src_.name, tp.name));
      continue;
    }
    tunables_.push_back({int(it - attrs.begin()), std::to_string(v)});
  }
  // The first region: init, the tunables, the layout every state follows.
  const std::vector<bool> fixed = learn_fixed();
  Instance& in = instance();
  codec_ = std::make_unique<kernel::Codec>(in.region, *mod_, fixed, Code::kExtraWide);
  if (codec_->bytes() > State::capacity)
    throw UsageError(fmt::format("{} (kernel code): the workload's {} requests need {} bytes of kernel "
                                 "state ({} words, {} of them fixed), more than the {} a state holds",
                                 name(), t.size(), codec_->bytes(), codec_->words(), codec_->fixed_words(),
                                 State::capacity));
  init_words_.resize(codec_->bytes());
  long res = 0;
  const int flags = BLKMC_AFTER_HAS_WORK | BLKMC_AFTER_BOOKS | (key_ ? BLKMC_AFTER_CANON : 0);
  const int st = mod_->call(in.region.hdr(), BLKMC_OP_HAS_WORK, 0, 0, BLKMC_J0, flags, &res);
  if (st != BLKMC_OK)
    throw UsageError(fmt::format("{} ({}): the scheduler fails right after init ({}: {})", src_.file, src_.name,
                                 kernel::status_name(st), in.region.hdr()->what));
  codec_->encode(in.region, init_words_.data(), BLKMC_J0, key_, clamp_);
  init_has_work_ = in.region.hdr()->has_work;
  init_books_valid_ = in.region.hdr()->books_valid;
  for (int i = 0; i < 3; ++i) init_books_[i] = in.region.hdr()->books[i];
}

template <class Code>
KernelSched<Code>::~KernelSched() = default;

// This thread's region, set up as the first: init, then the tunables.
template <class Code>
typename KernelSched<Code>::Instance& KernelSched<Code>::instance() const {
  thread_local std::unordered_map<std::uint64_t, Instance*> mine;
  if (auto it = mine.find(serial_); it != mine.end()) return *it->second;
  auto in = make_instance();
  in->region.protect_constants();
  Instance* p = in.get();
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool_.push_back(std::move(in));
  }
  mine[serial_] = p;
  return *p;
}

template <class Code>
std::unique_ptr<typename KernelSched<Code>::Instance> KernelSched<Code>::make_instance() const {
  auto in = std::make_unique<Instance>(*mod_, t_.size(), kernel::family_rq_state_words(name()));
  blkmc_region* h = in->region.hdr();
  for (int r = 0; r < t_.size(); ++r) h->rqs[r] = specs_[std::size_t(r)];
  h->depth = depth_;
  h->nr_requests = 2 * depth_;  // blk_mq_init_sched: twice the queue depth
  h->rotational = rotational_;
  h->clock = clock_;
  h->canon_trees = Code::kCanonTrees;
  h->nprocs = int(procs_.size());
  std::copy(procs_.begin(), procs_.end(), h->procs);
  // A pool per slab cache: a sync and an async queue per process, shared
  // async queues and queues split off merged ones (BFQ), an io_cq each.
  h->pool_objs = std::min(2 * h->nprocs + 4, BLKMC_MAX_POOL_OBJS);
  long res = 0;
  int st = mod_->call(h, BLKMC_OP_INIT, 0, 0, BLKMC_J0, 0, &res);
  if (st != BLKMC_OK)
    throw UsageError(fmt::format("{} ({}): init failed: {}: {}", src_.file, src_.name, kernel::status_name(st), h->what));
  for (const auto& [a, v] : tunables_) {
    std::snprintf(h->what, sizeof h->what, "%s", v.c_str());
    st = mod_->call(h, BLKMC_OP_STORE, a, 0, BLKMC_J0, 0, &res);
    const std::string& attr = mod_->attrs()[std::size_t(a)];
    if (st != BLKMC_OK || res < 0)
      throw UsageError(fmt::format("{} ({}): echo {} > {} failed ({}, {})", src_.file, src_.name, v, attr,
                                   kernel::status_name(st), res));
    st = mod_->call(h, BLKMC_OP_SHOW, a, 0, BLKMC_J0, 0, &res);
    std::string shown = h->what;
    while (!shown.empty() && (shown.back() == '\n' || shown.back() == ' ')) shown.pop_back();
    if (st != BLKMC_OK || shown != v)
      throw UsageError(fmt::format("{} ({}): {} reads back '{}' after echo {} (blkmc sets tunables in ticks of "
                                   "1 ms)",
                                   src_.file, src_.name, attr, shown, v));
  }
  // Every region is laid out as the first: its states fit any of them.
  const std::vector<blkmc_obj> objs(h->objs, h->objs + h->nobjs);
  if (layout_.empty()) {
    layout_ = objs;
  } else if (objs.size() != layout_.size() ||
             !std::equal(objs.begin(), objs.end(), layout_.begin(), [](const blkmc_obj& a, const blkmc_obj& b) {
               return a.off == b.off && a.size == b.size;
             })) {
    throw std::runtime_error(fmt::format("{} ({}): init allocated differently in a second region", src_.file,
                                         src_.name));
  }
  return in;
}

// The words of init's objects that the code never changed along random
// runs of the workload's requests from init (inserts, dispatches,
// completions, requeues, the clock): the codec keeps them out of the state
// (a word that changes after all takes one of its wide slots). The runs
// are the same for every process, thread and rank: a fixed seed. A call
// that fails on the way leaves every word coded.
template <class Code>
std::vector<bool> KernelSched<Code>::learn_fixed() const {
  auto in = make_instance();
  kernel::Region& r = in->region;
  blkmc_region* h = r.hdr();
  std::vector<std::uint8_t> init(r.at(0), r.at(0) + r.size());
  std::vector<std::uint32_t> offs;
  for (int i = 0; i < h->nobjs; ++i)
    for (std::uint64_t w = 0; w < h->objs[i].size; w += 8) offs.push_back(std::uint32_t(h->objs[i].off + w));
  std::vector<bool> fixed(offs.size(), true);
  std::mt19937_64 rng(0x626c6b6d636b6e6cULL);
  const int flags = BLKMC_AFTER_HAS_WORK | BLKMC_AFTER_BOOKS | (key_ ? BLKMC_AFTER_CANON : 0);
  const int n = t_.size();
  enum { kIdle, kIn, kOut, kDone };
  for (int walk = 0; walk < Code::kLearnWalks; ++walk) {
    std::memcpy(r.at(0), init.data(), init.size());
    std::vector<int> at(std::size_t(n), kIdle);
    std::uint64_t now = BLKMC_J0;
    for (int step = 0; step < 8 * n + 8; ++step) {
      std::vector<int> idle, out;
      for (int q = 0; q < n; ++q) {
        if (at[std::size_t(q)] == kIdle && specs_[std::size_t(q)].kind != BLKMC_RQ_BYPASS) idle.push_back(q);
        if (at[std::size_t(q)] == kOut) out.push_back(q);
      }
      long res = 0;
      int st = BLKMC_OK;
      switch (rng() % 5) {
        case 0:
        case 1:
          if (idle.empty()) continue;
          {
            const int q = idle[rng() % idle.size()];
            st = mod_->call(h, BLKMC_OP_ALLOC, q, 0, now, 0, &res);
            if (st == BLKMC_OK)
              st = mod_->call(h, BLKMC_OP_INSERT, q, specs_[std::size_t(q)].kind == BLKMC_RQ_HEAD, now, flags, &res);
            at[std::size_t(q)] = kIn;
          }
          break;
        case 2:
          st = mod_->call(h, BLKMC_OP_DISPATCH, 0, 0, now, flags, &res);
          if (st == BLKMC_OK && res >= 0 && res < n) at[std::size_t(res)] = kOut;
          break;
        case 3:
          if (out.empty()) continue;
          {
            const int q = out[rng() % out.size()];
            const bool requeue = rng() % 4 == 0;
            st = mod_->call(h, requeue ? BLKMC_OP_REQUEUE : BLKMC_OP_FINISH, q, 0, now, flags, &res);
            at[std::size_t(q)] = requeue ? kIn : kDone;
          }
          break;
        default:
          now += 1 + rng() % std::uint64_t(learn_span_);
          st = mod_->call(h, BLKMC_OP_TIMERS, 0, 0, now, flags, &res);
          break;
      }
      for (std::size_t i = 0; i < offs.size(); ++i)
        if (fixed[i] && std::memcmp(r.at(offs[i]), init.data() + offs[i], 8) != 0) fixed[i] = false;
      // A call that fails (BUG, WARN, a fault) is the search's to find:
      // the walk ends there (what it changed up to then counts), and the
      // next starts from init again. A call that does not return would
      // cost the watchdog's seconds on every walk: learning stops, and no
      // word is fixed.
      if (st == BLKMC_TIMEOUT) return std::vector<bool>(offs.size(), false);
      if (st != BLKMC_OK) break;
    }
  }
  return fixed;
}

template <class Code>
void KernelSched<Code>::declare(Schema& sc, SchemaSlots& slots) {
  // Sized once the first region is laid out (declare runs after the
  // constructor: the constructor has the codec).
  slots.byte(kmem_, sc.integer("kmem", 0, 255, sc.block("kernel", int(codec_->bytes()))));
  slots.bit(has_work_, sc.bit("k_has_work"));
  slots.byte(books_, sc.integer("k_books", -128, 127, sc.block("k_prio", 3)));
  slots.byte(status_, sc.integer("k_status", 0, 255));
}

template <class Code>
void KernelSched<Code>::resolve(const Schema&) {
  if (kmem_.stride != 1) throw std::logic_error("kernel: the region's bytes are not contiguous in the state");
}

template <class Code>
void KernelSched<Code>::init(State& s) const {
  std::memcpy(s.b.data() + kmem_.off, init_words_.data(), init_words_.size());
  has_work_.set(s, init_has_work_);
  for (int i = 0; i < 3; ++i) books_.set(s, i, std::clamp(init_books_[i], -128, 127));
  status_.set(s, BLKMC_OK);
}

template <class Code>
void KernelSched<Code>::restore(Instance& in, const State& s) const {
  if (in.dirty) {
    codec_->restore_redzones(in.region);
    in.dirty = false;
    in.mirror.valid = false;
  }
  codec_->decode(s.b.data() + kmem_.off, in.region, &in.mirror);
}

// Where a frame chain first reaches the user's code (its files, not the
// shim's or the harness's): "mq-deadline.c:531 (dd_finish_request)", with
// the shim helper it went through when the access was in one.
namespace {
bool shim_file(const std::string& f) {
  return f.rfind("blkmc_", 0) == 0 || f == "harness.c" || f.rfind("walk_", 0) == 0;
}
std::string user_frame(const std::vector<std::vector<kernel::Module::Frame>>& chains) {
  const kernel::Module::Frame* inner = nullptr;
  for (const auto& chain : chains)
    for (const auto& f : chain) {
      if (!inner) inner = &f;
      if (shim_file(f.file)) continue;
      std::string where = fmt::format("{}:{} ({})", f.file, f.line, f.function);
      if (inner != &f) where += fmt::format(", in {} ({}:{})", inner->function, inner->file, inner->line);
      return where;
    }
  return inner ? fmt::format("{}:{} ({})", inner->file, inner->line, inner->function) : "";
}
}  // namespace

// A memory error as KASAN words it: the access, what it hit, the line.
template <class Code>
std::string KernelSched<Code>::memory_error(const blkmc_region& h) const {
  const blkmc_memerr& m = h.mem;
  std::string out = h.what;  // the harness's words: kind, access, object
  // The access and its callers, then a kmalloc'd object's allocation: one
  // run of addr2line.
  std::vector<std::uint64_t> pcs(m.pc, m.pc + std::clamp(m.npc, 0, BLKMC_MEM_PCS));
  const bool alloc = m.obj >= 0 && m.obj < h.nobjs && m.pool < 0 && h.objs[m.obj].pc;
  if (alloc) pcs.push_back(h.objs[m.obj].pc);
  auto chains = mod_->frames(pcs);
  std::vector<std::vector<kernel::Module::Frame>> alloc_chain;
  if (alloc) {
    alloc_chain.push_back(std::move(chains.back()));
    chains.pop_back();
  }
  if (m.slot >= 0 && m.slot < t_.size()) out += fmt::format(" ({})", t_.name(m.slot));
  if (const std::string at = user_frame(chains); !at.empty()) out += " at " + at;
  if (const std::string at = user_frame(alloc_chain); !at.empty()) out += "; allocated at " + at;
  return out;
}

template <class Code>
long KernelSched<Code>::run(State& s, int op, int a, int b, bool tick, Why* why, const char* what) const {
  Instance& in = instance();
  restore(in, s);
  blkmc_region* h = in.region.hdr();
  const std::uint64_t now = BLKMC_J0 + (tick ? 1 : 0);
  long res = 0;
  int st = BLKMC_OK;
  // A new request is allocated before it is inserted (blk_mq_rq_ctx_init).
  if (op == BLKMC_OP_INSERT) {
    st = mod_->call(h, BLKMC_OP_ALLOC, a, 0, now, 0, &res);
    if (st == BLKMC_OK && res > 0) say(why, ".limit_depth: shallow_depth {}", res);
  }
  if (st == BLKMC_OK) {
    const int flags = BLKMC_AFTER_HAS_WORK | BLKMC_AFTER_BOOKS | (key_ ? BLKMC_AFTER_CANON : 0);
    st = mod_->call(h, op, a, b, now, flags, &res);
  }
  std::string bad;  // a redzone the call wrote
  if ((st == BLKMC_OK || st == BLKMC_WARN) && !codec_->redzones_intact(in.region)) {
    st = BLKMC_FAULT;
    bad = codec_->check(in.region);
  }
  if (st == BLKMC_OK || st == BLKMC_WARN) {
    if (tick)
      codec_->encode(in.region, s.b.data() + kmem_.off, now, key_, clamp_, &in.mirror);
    else
      codec_->encode_changes(in.region, s.b.data() + kmem_.off, key_, clamp_, in.mirror);
    has_work_.set(s, h->has_work != 0);
    for (int i = 0; i < 3; ++i) books_.set(s, i, std::clamp(h->books[i], -128, 127));
  }
  if (st != BLKMC_OK) {
    in.dirty = true;
    in.mirror.valid = false;
    status_.set(s, st);
    if (why && st == BLKMC_MEMORY) bad = memory_error(*h);
    say(why, "KERNEL BUG in {} ({}): {}: {}", what, src_.file, kernel::status_name(st), bad.empty() ? h->what : bad);
    res = -1;
  }
  return res;
}

template <class Code>
void KernelSched<Code>::insert(State& s, int rq, bool at_head, bool requeue, Why* why) const {
  if (requeue) {
    run(s, BLKMC_OP_REQUEUE, rq, 0, false, why, ".requeue_request / .insert_requests");
    if (why) say(why, "blk_mq_requeue_work: {} back into .insert_requests at head", t_.name(rq));
  } else {
    run(s, BLKMC_OP_INSERT, rq, at_head, false, why, ".insert_requests");
    if (why) say(why, ".insert_requests{}: {}", at_head ? " at head" : "", t_.name(rq));
  }
  t_.set_flag(s, rq, kInserted, true);
  t_.set_status(s, rq, at_head || requeue ? St::SchedHead : St::Sched);
  t_.set_age(s, rq, 0);
}

template <class Code>
int KernelSched<Code>::dispatch(State& s, Why* why) const {
  const long r = run(s, BLKMC_OP_DISPATCH, 0, 0, false, why, ".dispatch_request");
  if (status(s) != BLKMC_OK) return -1;
  if (why && r < 0 && instance().region.hdr()->fired)
    say(why, "nothing to dispatch, and the armed hrtimer fires (clock=0: before anything else happens)");
  say(why, "{} {}", src_.file, src_.name);
  if (r < 0) return -1;
  t_.set_status(s, int(r), St::Idle);
  return int(r);
}

template <class Code>
void KernelSched<Code>::completed(State& s, int rq, Why* why) const {
  run(s, BLKMC_OP_FINISH, rq, 0, false, why, ".finish_request");
  if (why) say(why, ".finish_request: {}", t_.name(rq));
}

template <class Code>
void KernelSched<Code>::timer(State& s, Why* why) const {
  run(s, BLKMC_OP_TIMERS, 0, 0, true, why, "the clock");
  if (why && instance().region.hdr()->fired) say(why, "an hrtimer fires (BFQ: bfq_idle_slice_timer)");
}

template <class Code>
bool KernelSched<Code>::accounting_ok(const State& s) const {
  if (!built_.walker) return true;
  Truth truth;
  for (int r = 0; r < t_.size(); ++r) {
    if (t_.outstanding(s, r)) ++truth.outstanding[t_.prio(r)];
    truth.sched += t_.status(s, r) == St::Sched;
    truth.head += t_.status(s, r) == St::SchedHead;
  }
  int books[3];
  for (int p = 0; p < 3; ++p) books[p] = books_.get(s, p);
  return Code::books_ok(books, truth);
}

// mq-deadline's books: dd_queued per priority (inserted - completed)
// counts every request inserted and not completed.
bool DeadlineCode::books_ok(const int books[3], const Truth& t) {
  for (int p = 0; p < 3; ++p)
    if (books[p] != std::clamp(t.outstanding[p], -128, 127)) return false;
  return true;
}

// BFQ's: bfqd->queued counts the requests in its queues, bfqd->dispatch
// holds those inserted at head.
bool BfqCode::books_ok(const int books[3], const Truth& t) {
  return books[0] == std::clamp(t.sched, -128, 127) && books[1] == std::clamp(t.head, -128, 127);
}

template <class Code>
const blkmc_region* KernelSched<Code>::viewed(const State& s) const {
  if (!built_.walker || status(s) != BLKMC_OK) return nullptr;
  Instance& in = instance();
  restore(in, s);
  long res = 0;
  const int st = mod_->call(in.region.hdr(), BLKMC_OP_VIEW, 0, 0, BLKMC_J0, 0, &res);
  if (st != BLKMC_OK) {
    in.dirty = true;
    in.mirror.valid = false;
    return nullptr;
  }
  return in.region.hdr();
}

namespace {
std::string names(const RqTable& t, const blkmc_idlist& l) {
  std::string out;
  for (int i = 0; i < l.n; ++i) {
    if (!out.empty()) out += ' ';
    out += l.id[i] >= 0 && l.id[i] < t.size() ? t.name(l.id[i]) : "?";
  }
  return out;
}
nlohmann::json name_list(const RqTable& t, const blkmc_idlist& l) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < l.n; ++i) a.push_back(l.id[i] >= 0 && l.id[i] < t.size() ? t.name(l.id[i]) : "?");
  return a;
}
}  // namespace

std::string DeadlineCode::story(const RqTable& t, const blkmc_region& r) {
  const blkmc_dd_view& v = r.view;
  std::string out = fmt::format("{} batching {} starved {}", kDir[v.last_dir & 1], v.batching, v.starved);
  if (!v.prio_dispatch && v.dispatch.n) out += fmt::format(" dispatch[{}]", names(t, v.dispatch));
  for (int p = 0; p < 3; ++p) {
    const blkmc_dd_prio& q = v.prio[p];
    const std::int32_t queued = std::int32_t(q.inserted - q.completed);
    if (!queued && !q.fifo[0].n && !q.fifo[1].n && !q.dispatch.n) continue;
    out += fmt::format(" {}[", kPrio[p]);
    if (v.prio_dispatch && q.dispatch.n) out += fmt::format("dispatch {} ", names(t, q.dispatch));
    out += fmt::format("R {} W {}", names(t, q.fifo[0]), names(t, q.fifo[1]));
    if (q.next_rq[0] == -3)
      out += fmt::format(" pos {}/{}", q.latest_pos[0], q.latest_pos[1]);
    else
      out += fmt::format(" next {}/{}", q.next_rq[0] >= 0 ? t.name(q.next_rq[0]) : "-",
                         q.next_rq[1] >= 0 ? t.name(q.next_rq[1]) : "-");
    out += fmt::format(" queued {}]", queued);
  }
  return out;
}

void DeadlineCode::story_json(const RqTable& t, const blkmc_region& r, nlohmann::json& j) {
  const blkmc_dd_view& v = r.view;
  j["last_dir"] = kDir[v.last_dir & 1];
  j["batching"] = v.batching;
  j["starved"] = v.starved;
  if (!v.prio_dispatch) j["dispatch"] = name_list(t, v.dispatch);
  auto& prios = j["prio"] = nlohmann::json::array();
  for (int p = 0; p < 3; ++p) {
    const blkmc_dd_prio& q = v.prio[p];
    nlohmann::json o{{"fifo_read", name_list(t, q.fifo[0])},
                     {"fifo_write", name_list(t, q.fifo[1])},
                     {"queued", std::int32_t(q.inserted - q.completed)}};
    if (v.prio_dispatch) o["dispatch"] = name_list(t, q.dispatch);
    if (q.next_rq[0] == -3)
      o["latest_pos"] = {q.latest_pos[0], q.latest_pos[1]};
    else
      o["next_rq"] = {q.next_rq[0] >= 0 ? t.name(q.next_rq[0]) : "NULL", q.next_rq[1] >= 0 ? t.name(q.next_rq[1]) : "NULL"};
    prios.push_back(o);
  }
}

namespace {
// A BFQ queue by the process that made it: "reader" (sync), "reader:async",
// "async" (shared by the processes of a class and level), "shared" (sync
// queues merged: bfq_merge_bfqqs sets the pid to -1).
std::string queue_name(const RqTable& t, const blkmc_bfq_queue& q) {
  const auto& procs = t.workload().procs;
  if (q.proc < 0 || q.proc >= int(procs.size())) return q.sync ? "shared" : "async";
  return procs[std::size_t(q.proc)].name + (q.sync ? "" : ":async");
}
}  // namespace

std::string BfqCode::story(const RqTable& t, const blkmc_region& r) {
  const blkmc_bfq_view& v = r.bfq;
  std::string out = fmt::format("queued {}", v.queued);
  if (v.in_service >= 0) out += fmt::format(" in service {}", queue_name(t, v.q[v.in_service]));
  if (v.timer) out += " idling";
  if (v.dispatch.n) out += fmt::format(" dispatch[{}]", names(t, v.dispatch));
  for (int i = 0; i < v.nq; ++i) {
    const blkmc_bfq_queue& q = v.q[i];
    if (!q.busy && !q.fifo.n) continue;
    out += fmt::format(" {}[{}{}{}]", queue_name(t, q), names(t, q.fifo), q.fifo.n ? " " : "",
                       q.wr_coeff > 1 ? fmt::format("w {}x{}", q.weight, q.wr_coeff) : fmt::format("w {}", q.weight));
  }
  return out;
}

void BfqCode::story_json(const RqTable& t, const blkmc_region& r, nlohmann::json& j) {
  const blkmc_bfq_view& v = r.bfq;
  j["queued"] = v.queued;
  j["in_service"] = v.in_service >= 0 ? nlohmann::json(queue_name(t, v.q[v.in_service])) : nlohmann::json(nullptr);
  j["idle_timer"] = v.timer != 0;
  j["dispatch"] = name_list(t, v.dispatch);
  auto& qs = j["queues"] = nlohmann::json::array();
  for (int i = 0; i < v.nq; ++i) {
    const blkmc_bfq_queue& q = v.q[i];
    qs.push_back({{"queue", queue_name(t, q)},
                  {"busy", q.busy != 0},
                  {"fifo", name_list(t, q.fifo)},
                  {"weight", q.weight},
                  {"wr_coeff", q.wr_coeff},
                  {"ref", q.ref},
                  {"has_short_ttime", q.short_ttime != 0},
                  {"io_bound", q.io_bound != 0},
                  {"wait_request", q.wait_request != 0},
                  {"dispatched", q.dispatched},
                  {"waker", q.waker >= 0 ? nlohmann::json(queue_name(t, v.q[q.waker])) : nlohmann::json(nullptr)},
                  {"budget", q.budget},
                  {"service", q.service},
                  {"start", q.start},
                  {"finish", q.finish},
                  {"vtime", q.vtime}});
  }
}

template <class Code>
std::string KernelSched<Code>::summary(const State& s) const {
  if (status(s) != BLKMC_OK) return fmt::format("kernel stopped ({})", kernel::status_name(status(s)));
  const blkmc_region* r = viewed(s);
  return r ? Code::story(t_, *r) : fmt::format("{} (no walker)", src_.name);
}

template <class Code>
nlohmann::json KernelSched<Code>::json(const State& s) const {
  nlohmann::json j{{"source", src_.name}};
  if (status(s) != BLKMC_OK) {
    j["stopped"] = kernel::status_name(status(s));
    return j;
  }
  if (const blkmc_region* r = viewed(s)) Code::story_json(t_, *r, j);
  return j;
}

template <class Code>
nlohmann::json KernelSched<Code>::source_json() const {
  return {{"kind", "kernel"}, {"file", src_.file}, {"version", src_.version}, {"sha256", src_.sha256},
          {"name", src_.name}};
}

template class KernelSched<DeadlineCode>;
template class KernelSched<BfqCode>;

}  // namespace blkmc::sched
