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

// Tunables: the hand model's, with its defaults, set through the file's
// sysfs attributes of the same names.
const char* const kTunables[] = {"fifo_batch", "writes_starved", "read_expire", "write_expire",
                                 "prio_aging_expire"};

}  // namespace

struct KernelScheduler::Instance {
  kernel::Region region;
  bool dirty = false;            // a call failed: its redzones and every word are restored next
  kernel::Codec::Mirror mirror;  // the state the region holds
  Instance(const kernel::Module& m, int nrqs, int state_words) : region(m, nrqs, state_words) {}
};

const std::vector<VariantInfo>& KernelScheduler::variants() {
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

unsigned KernelScheduler::variants_generation() { return kernel::source_generation(); }

std::vector<ParamInfo> KernelScheduler::params() {
  return {
      {"fifo_batch", 16, 0, 64, "sysfs fifo_batch, through the file's own store function"},
      {"writes_starved", 2, 0, 15, "sysfs writes_starved"},
      {"read_expire", 2, 0, 60, "sysfs read_expire in ticks (a tick is a jiffy of HZ=1000: 1 ms)"},
      {"write_expire", 20, 0, 60, "sysfs write_expire in ticks"},
      {"prio_aging_expire", 40, 0, 60, "sysfs prio_aging_expire in ticks"},
      {"kernel_state", 0, 0, 1,
       "how states are stored: key (canonical: rb-tree shapes, counters rebased, old times capped) or raw "
       "(the region's words as the code left them)",
       {"key", "raw"}},
      {"time_cap", 0, 0, 255, "kernel_state=key: times older than this many ticks are one (0: 1 + the largest "
                              "time tunable)"},
  };
}

const char* KernelScheduler::summary() {
  return "the kernel's own mq-deadline (the user's block/mq-deadline.c, compiled against blkmc's shim and driven "
         "through its elevator_mq_ops), over a workload and a blk-mq device";
}

std::vector<PropInfo> KernelScheduler::extra_props() {
  return {{"kernel-bug", PropKind::Invariant,
           "no call of the kernel code ends in BUG, WARN, a fault, a call that does not return, or a request "
           "pointer that is no request"},
          {"kernel-in-model", PropKind::Invariant,
           "the kernel code does only what blkmc's harness models: no merge, no allocation after init, no write "
           "to a global or to a request field blkmc keeps constant"}};
}

KernelScheduler::KernelScheduler(int variant, const Params& p, const RqTable& t)
    : t_(t), src_(kernel::source_at(name(), variant)), serial_(g_serial.fetch_add(1)) {
  built_ = kernel::build_source(src_);
  mod_ = &kernel::Module::load(built_.so);
  key_ = p.at("kernel_state") == 0;
  read_expire_ = p.at("read_expire");
  write_expire_ = p.at("write_expire");
  prio_aging_expire_ = p.at("prio_aging_expire");
  age_cap_ = std::max({read_expire_, write_expire_, prio_aging_expire_, 1});
  clamp_ = p.at("time_cap") ? p.at("time_cap") : age_cap_ + 1;
  const Workload& wl = t.workload();
  if (t.size() > BLKMC_MAX_RQS) throw UsageError("deadline (kernel code): more requests than the harness holds");
  for (int r = 0; r < t.size(); ++r) {
    const WlRequest& q = t.info(r);
    const WlProc& pr = t.proc_of(r);
    blkmc_rq_spec sp{};
    sp.sector = std::uint64_t(q.sector);
    sp.sectors = std::uint32_t(q.size);
    sp.ioprio = ioprio_of(pr);
    sp.write = q.dir == WRITE;
    sp.sync = pr.sync;
    sp.kind = pr.bypass ? BLKMC_RQ_BYPASS : pr.head ? BLKMC_RQ_HEAD : BLKMC_RQ_NORMAL;
    specs_.push_back(sp);
  }
  depth_ = wl.dev.depth;
  rotational_ = wl.dev.rotational;
  const auto& attrs = mod_->attrs();
  const auto defaults = params();
  for (const char* name : kTunables) {
    const auto it = std::find(attrs.begin(), attrs.end(), name);
    const int v = p.at(name);
    if (it == attrs.end()) {
      const auto d = std::find_if(defaults.begin(), defaults.end(), [&](const ParamInfo& pi) { return pi.name == name; });
      if (d != defaults.end() && v != d->def)
        throw UsageError(fmt::format("{} ({}) has no sysfs attribute {}", src_.file, src_.name, name));
      continue;
    }
    tunables_.push_back({int(it - attrs.begin()), std::to_string(v)});
  }
  // The first region: init, the tunables, the layout every state follows.
  const std::vector<bool> fixed = learn_fixed();
  Instance& in = instance();
  codec_ = std::make_unique<kernel::Codec>(in.region, *mod_, fixed);
  if (codec_->bytes() > State::capacity)
    throw UsageError(fmt::format("deadline (kernel code): the workload's {} requests need {} bytes of kernel "
                                 "state, more than the {} a state holds",
                                 t.size(), codec_->bytes(), State::capacity));
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

KernelScheduler::~KernelScheduler() = default;

// This thread's region, set up as the first: init, then the tunables.
KernelScheduler::Instance& KernelScheduler::instance() const {
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

std::unique_ptr<KernelScheduler::Instance> KernelScheduler::make_instance() const {
  auto in = std::make_unique<Instance>(*mod_, t_.size(), kernel::family_rq_state_words(name()));
  blkmc_region* h = in->region.hdr();
  for (int r = 0; r < t_.size(); ++r) h->rqs[r] = specs_[std::size_t(r)];
  h->depth = depth_;
  h->nr_requests = 2 * depth_;  // blk_mq_init_sched: twice the queue depth
  h->rotational = rotational_;
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
std::vector<bool> KernelScheduler::learn_fixed() const {
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
  for (int walk = 0; walk < kLearnWalks; ++walk) {
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
          now += 1 + rng() % std::uint64_t(age_cap_ + 1);
          st = mod_->call(h, BLKMC_OP_HAS_WORK, 0, 0, now, flags, &res);
          break;
      }
      for (std::size_t i = 0; i < offs.size(); ++i)
        if (fixed[i] && std::memcmp(r.at(offs[i]), init.data() + offs[i], 8) != 0) fixed[i] = false;
      // A call that fails (BUG, no return, ...) is the search's to find:
      // learning stops there, and no word is fixed.
      if (st != BLKMC_OK) return std::vector<bool>(offs.size(), false);
    }
  }
  return fixed;
}

void KernelScheduler::declare(Schema& sc) const {
  // Sized once the first region is laid out (resolve runs after the
  // constructor, declare before: the constructor has the codec).
  sc.integer("kmem", 0, 255, sc.block("kernel", int(codec_->bytes())));
  sc.bit("k_has_work");
  sc.integer("k_books", -128, 127, sc.block("k_prio", 3));
  sc.integer("k_status", 0, 255);
}

void KernelScheduler::resolve(const Schema& sc) {
  kmem_ = sc.byte_var(sc.find("kmem"));
  books_ = sc.byte_var(sc.find("k_books"));
  status_ = sc.byte_var(sc.find("k_status"));
  has_work_ = sc.bit_var(sc.find("k_has_work"));
  if (kmem_.stride != 1) throw std::logic_error("kernel: the region's bytes are not contiguous in the state");
}

void KernelScheduler::init(State& s) const {
  std::memcpy(s.b.data() + kmem_.off, init_words_.data(), init_words_.size());
  has_work_.set(s, init_has_work_);
  for (int i = 0; i < 3; ++i) books_.set(s, i, std::clamp(init_books_[i], -128, 127));
  status_.set(s, BLKMC_OK);
}

void KernelScheduler::restore(Instance& in, const State& s) const {
  if (in.dirty) {
    codec_->restore_redzones(in.region);
    in.dirty = false;
    in.mirror.valid = false;
  }
  codec_->decode(s.b.data() + kmem_.off, in.region, &in.mirror);
}

long KernelScheduler::run(State& s, int op, int a, int b, bool tick, Why* why, const char* what) const {
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
    say(why, "KERNEL BUG in {} ({}): {}: {}", what, src_.file, kernel::status_name(st), bad.empty() ? h->what : bad);
    res = -1;
  }
  return res;
}

void KernelScheduler::insert(State& s, int rq, bool at_head, bool requeue, Why* why) const {
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

int KernelScheduler::dispatch(State& s, Why* why) const {
  const long r = run(s, BLKMC_OP_DISPATCH, 0, 0, false, why, ".dispatch_request");
  if (status(s) != BLKMC_OK) return -1;
  say(why, "{} {}", src_.file, src_.name);
  if (r < 0) return -1;
  t_.set_status(s, int(r), St::Idle);
  return int(r);
}

void KernelScheduler::completed(State& s, int rq, Why* why) const {
  run(s, BLKMC_OP_FINISH, rq, 0, false, why, ".finish_request");
  if (why) say(why, ".finish_request: {}", t_.name(rq));
}

void KernelScheduler::timer(State& s, Why* why) const {
  run(s, BLKMC_OP_HAS_WORK, 0, 0, true, why, "the clock");
}

bool KernelScheduler::accounting_ok(const State& s) const {
  if (!built_.walker) return true;
  int truth[3] = {0, 0, 0};
  for (int r = 0; r < t_.size(); ++r)
    if (t_.outstanding(s, r)) ++truth[t_.prio(r)];
  for (int p = 0; p < 3; ++p)
    if (books_.get(s, p) != std::clamp(truth[p], -128, 127)) return false;
  return true;
}

blkmc_dd_view KernelScheduler::view(const State& s) const {
  blkmc_dd_view v{};
  if (!built_.walker || status(s) != BLKMC_OK) return v;
  Instance& in = instance();
  restore(in, s);
  long res = 0;
  const int st = mod_->call(in.region.hdr(), BLKMC_OP_VIEW, 0, 0, BLKMC_J0, 0, &res);
  if (st != BLKMC_OK) {
    in.dirty = true;
    in.mirror.valid = false;
    return v;
  }
  return in.region.hdr()->view;
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

std::string KernelScheduler::summary(const State& s) const {
  if (status(s) != BLKMC_OK) return fmt::format("kernel stopped ({})", kernel::status_name(status(s)));
  const blkmc_dd_view v = view(s);
  if (!v.valid) return fmt::format("{} (no walker)", src_.name);
  std::string out = fmt::format("{} batching {} starved {}", kDir[v.last_dir & 1], v.batching, v.starved);
  if (!v.prio_dispatch && v.dispatch.n) out += fmt::format(" dispatch[{}]", names(t_, v.dispatch));
  for (int p = 0; p < 3; ++p) {
    const blkmc_dd_prio& q = v.prio[p];
    const std::int32_t queued = std::int32_t(q.inserted - q.completed);
    if (!queued && !q.fifo[0].n && !q.fifo[1].n && !q.dispatch.n) continue;
    out += fmt::format(" {}[", kPrio[p]);
    if (v.prio_dispatch && q.dispatch.n) out += fmt::format("dispatch {} ", names(t_, q.dispatch));
    out += fmt::format("R {} W {}", names(t_, q.fifo[0]), names(t_, q.fifo[1]));
    if (q.next_rq[0] == -3)
      out += fmt::format(" pos {}/{}", q.latest_pos[0], q.latest_pos[1]);
    else
      out += fmt::format(" next {}/{}", q.next_rq[0] >= 0 ? t_.name(q.next_rq[0]) : "-",
                         q.next_rq[1] >= 0 ? t_.name(q.next_rq[1]) : "-");
    out += fmt::format(" queued {}]", queued);
  }
  return out;
}

nlohmann::json KernelScheduler::json(const State& s) const {
  nlohmann::json j{{"source", src_.name}};
  if (status(s) != BLKMC_OK) {
    j["stopped"] = kernel::status_name(status(s));
    return j;
  }
  const blkmc_dd_view v = view(s);
  if (!v.valid) return j;
  j["last_dir"] = kDir[v.last_dir & 1];
  j["batching"] = v.batching;
  j["starved"] = v.starved;
  if (!v.prio_dispatch) j["dispatch"] = name_list(t_, v.dispatch);
  auto& prios = j["prio"] = nlohmann::json::array();
  for (int p = 0; p < 3; ++p) {
    const blkmc_dd_prio& q = v.prio[p];
    nlohmann::json o{{"fifo_read", name_list(t_, q.fifo[0])},
                     {"fifo_write", name_list(t_, q.fifo[1])},
                     {"queued", std::int32_t(q.inserted - q.completed)}};
    if (v.prio_dispatch) o["dispatch"] = name_list(t_, q.dispatch);
    if (q.next_rq[0] == -3)
      o["latest_pos"] = {q.latest_pos[0], q.latest_pos[1]};
    else
      o["next_rq"] = {q.next_rq[0] >= 0 ? t_.name(q.next_rq[0]) : "NULL", q.next_rq[1] >= 0 ? t_.name(q.next_rq[1]) : "NULL"};
    prios.push_back(o);
  }
  return j;
}

nlohmann::json KernelScheduler::source_json() const {
  return {{"kind", "kernel"}, {"file", src_.file}, {"version", src_.version}, {"sha256", src_.sha256},
          {"name", src_.name}};
}

}  // namespace blkmc::sched
