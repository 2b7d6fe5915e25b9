#include "model/sched/kernel/kernel_module.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "common/run_command.hpp"
#include "common/scratch_dir.hpp"

namespace blkmc::kernel {

namespace {

constexpr std::size_t kPage = 4096;


// What the signal handlers and the watchdog know of a thread's calls.
struct CallRecord {
  const Module* active = nullptr;
  const blkmc_region* region = nullptr;
  std::atomic<std::uint64_t> seq{0};
  std::atomic<int> in_call{0};
  pthread_t tid{};
  std::vector<char> altstack;
  char text[160] = {0};
};

std::mutex& records_mutex() {
  static std::mutex m;
  return m;
}
std::vector<CallRecord*>& records() {
  static std::vector<CallRecord*> v;
  return v;
}

thread_local CallRecord* t_rec = nullptr;

struct sigaction g_old[65];
int timeout_signal() { return SIGRTMIN + 4; }

void on_fault(int sig, siginfo_t* si, void*) {
  CallRecord* c = t_rec;
  if (c && c->active && c->in_call.load(std::memory_order_relaxed)) {
    const Module* m = c->active;
    const auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
    const blkmc_region* r = c->region;
    const auto base = reinterpret_cast<std::uintptr_t>(r);
    if (sig == SIGSEGV && r && addr >= base + r->slots_off && addr < base + r->size) {
      const std::uint64_t at = addr - base - r->slots_off - r->slot_lead;
      std::snprintf(c->text, sizeof c->text,
                    "the code wrote request %llu's field at offset %llu of struct request, which blkmc keeps "
                    "constant for this scheduler (shim/blkmc_shim.h)",
                    static_cast<unsigned long long>(at / r->slot_stride),
                    static_cast<unsigned long long>(at % r->slot_stride));
      m->fault(BLKMC_HARNESS, c->text);
    }
    if (sig == SIGSEGV && addr >= m->rw_lo() && addr < m->rw_hi()) {
      const char* sym = m->object_at(addr);
      if (!sym) sym = "?";
      std::snprintf(c->text, sizeof c->text,
                    "the code wrote its global '%s' after init: blkmc's state holds no writable globals", sym);
      m->fault(BLKMC_HARNESS, c->text);
    }
    std::snprintf(c->text, sizeof c->text, "%s at address %#lx", strsignal(sig), static_cast<unsigned long>(addr));
    m->fault(BLKMC_FAULT, c->text);
  }
  // Not the kernel code's: whoever handled it before (the default: a core).
  sigaction(sig, &g_old[sig], nullptr);
}

void on_timeout(int) {
  CallRecord* c = t_rec;
  if (c && c->active && c->in_call.load(std::memory_order_relaxed))
    c->active->fault(BLKMC_TIMEOUT, "the call did not return (a step limit of 2 s)");
}

void watchdog() {
  std::map<CallRecord*, std::pair<std::uint64_t, std::chrono::steady_clock::time_point>> seen;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(records_mutex());
    std::map<CallRecord*, std::pair<std::uint64_t, std::chrono::steady_clock::time_point>> next;
    for (CallRecord* c : records()) {
      const std::uint64_t s = c->seq.load();
      auto it = seen.find(c);
      auto since = it != seen.end() && it->second.first == s ? it->second.second : now;
      if (c->in_call.load() && std::chrono::duration<double>(now - since).count() > kStepTimeout) {
        pthread_kill(c->tid, timeout_signal());
        since = now;
      }
      next[c] = {s, since};
    }
    seen.swap(next);
  }
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, &g_old[sig]);
    struct sigaction st {};
    st.sa_handler = on_timeout;
    st.sa_flags = SA_NODEFER | SA_ONSTACK;
    sigemptyset(&st.sa_mask);
    sigaction(timeout_signal(), &st, nullptr);
    std::thread(watchdog).detach();
  });
}

// This thread's record, with an alternate signal stack (a runaway
// recursion in the kernel code faults on its own stack).
struct RecordOwner {
  CallRecord rec;
  RecordOwner() {
    rec.tid = pthread_self();
    rec.altstack.resize(64 * 1024);
    stack_t ss{};
    ss.ss_sp = rec.altstack.data();
    ss.ss_size = rec.altstack.size();
    sigaltstack(&ss, nullptr);
    std::lock_guard<std::mutex> lock(records_mutex());
    records().push_back(&rec);
    t_rec = &rec;
  }
  ~RecordOwner() {
    std::lock_guard<std::mutex> lock(records_mutex());
    auto& v = records();
    v.erase(std::remove(v.begin(), v.end(), &rec), v.end());
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
    t_rec = nullptr;
  }
};

CallRecord& record() {
  thread_local RecordOwner owner;
  return owner.rec;
}

struct Mapping {
  std::uintptr_t base = 0;
  std::uintptr_t lo = ~std::uintptr_t(0), hi = 0, rw_lo = 0, rw_hi = 0;
};

int find_mapping(struct dl_phdr_info* info, std::size_t, void* data) {
  auto* m = static_cast<Mapping*>(data);
  if (info->dlpi_addr != m->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t a = info->dlpi_addr + ph.p_vaddr, e = a + ph.p_memsz;
    m->lo = std::min(m->lo, a & ~(kPage - 1));
    m->hi = std::max(m->hi, e);
    if (ph.p_flags & PF_W) {
      m->rw_lo = a & ~(kPage - 1);
      m->rw_hi = (e + kPage - 1) & ~(kPage - 1);
    }
  }
  return 1;
}

// Writable globals made read-only after init, writable again at exit (the
// object's own exit code writes them). Plain arrays: nothing of theirs is
// destroyed before the atexit handler runs.
constexpr int kMaxProtected = 64;
std::uintptr_t g_protected[kMaxProtected][2];
std::atomic<int> g_nprotected{0};
void unprotect_all() {
  for (int i = 0; i < g_nprotected.load(); ++i)
    mprotect(reinterpret_cast<void*>(g_protected[i][0]), g_protected[i][1] - g_protected[i][0], PROT_READ | PROT_WRITE);
}

}  // namespace

const char* status_name(int status) {
  switch (status) {
    case BLKMC_OK: return "ok";
    case BLKMC_BUG: return "BUG";
    case BLKMC_WARN: return "WARN";
    case BLKMC_FAULT: return "fault";
    case BLKMC_TIMEOUT: return "no return";
    case BLKMC_BADPTR: return "bad request pointer";
    case BLKMC_HARNESS: return "outside blkmc's model";
    case BLKMC_MEMORY: return "memory error";
    default: return "?";
  }
}

// The STT_OBJECT symbols of the ELF file at path, placed at base: the
// scheduler's variables, so that a write to one can be named.
void Module::read_objects(std::uintptr_t base) {
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st{};
  void* map = fstat(fd, &st) == 0 && st.st_size > 0 ? mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return;
  const auto* f = static_cast<const std::uint8_t*>(map);
  const std::size_t size = st.st_size;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(f);
  const bool elf64 = size >= sizeof(Elf64_Ehdr) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
                     eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
                     eh->e_shoff + std::size_t(eh->e_shnum) * sizeof(Elf64_Shdr) <= size;
  for (int i = 0; elf64 && i < eh->e_shnum; ++i) {
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(f + eh->e_shoff) + i;
    if (sh->sh_type != SHT_SYMTAB || sh->sh_link >= eh->e_shnum || sh->sh_offset + sh->sh_size > size) continue;
    const auto* strs = reinterpret_cast<const Elf64_Shdr*>(f + eh->e_shoff) + sh->sh_link;
    if (strs->sh_offset + strs->sh_size > size) continue;
    const char* str = reinterpret_cast<const char*>(f + strs->sh_offset);
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(f + sh->sh_offset);
    for (std::size_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); ++k) {
      if (ELF64_ST_TYPE(sym[k].st_info) != STT_OBJECT || sym[k].st_size == 0 || sym[k].st_name >= strs->sh_size)
        continue;
      const char* name = str + sym[k].st_name;
      objects_.push_back({base + sym[k].st_value, base + sym[k].st_value + sym[k].st_size, names_.size()});
      names_.append(name, strnlen(name, strs->sh_size - sym[k].st_name));
      names_.push_back('\0');
    }
  }
  munmap(map, size);
  std::sort(objects_.begin(), objects_.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
}

const Module& Module::load(const std::string& so) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Module>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[so];
  if (!slot) slot.reset(new Module(so));
  return *slot;
}

Module::Module(std::string so) : path_(std::move(so)) {
  install_handlers();
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw UsageError(fmt::format("cannot load {}: {}", path_, dlerror()));
  auto sym = [&](const char* name) {
    void* p = dlsym(handle_, name);
    if (!p) throw UsageError(fmt::format("{}: no {} (not built by this blkmc)", path_, name));
    return p;
  };
  const auto abi = reinterpret_cast<int (*)()>(sym("blkmc_k_abi"))();
  if (abi != BLKMC_ABI) throw UsageError(fmt::format("{}: harness ABI {} (this blkmc: {})", path_, abi, BLKMC_ABI));
  call_ = reinterpret_cast<CallFn>(sym("blkmc_k_call"));
  fault_ = reinterpret_cast<FaultFn>(sym("blkmc_k_fault"));
  request_size_ = reinterpret_cast<unsigned long (*)()>(sym("blkmc_k_slot_size"))();
  if (request_size_ > kPage) throw UsageError(fmt::format("{}: struct request of {} bytes", path_, request_size_));
  rq_state_bytes_ = reinterpret_cast<unsigned long (*)()>(sym("blkmc_k_state_bytes"))();
  if (rq_state_bytes_ != BLKMC_RQ_STATE_BYTES)
    throw UsageError(fmt::format("{}: {} bytes of request state (this blkmc: {})", path_, rq_state_bytes_,
                                 BLKMC_RQ_STATE_BYTES));
  link_map* lm = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
    throw UsageError(fmt::format("{}: dlinfo: {}", path_, dlerror()));
  Mapping mp;
  mp.base = lm->l_addr;
  base_ = lm->l_addr;
  dl_iterate_phdr(find_mapping, &mp);
  lo_ = mp.lo;
  hi_ = mp.hi;
  rw_lo_ = mp.rw_lo;
  rw_hi_ = mp.rw_hi;
  read_objects(lm->l_addr);
  // module_init and the attribute names, in a region of no requests.
  Region scratch(*this, 0, 0, kPage);
  long res = 0;
  int st = call(scratch.hdr(), BLKMC_OP_MODULE_INIT, 0, 0, BLKMC_J0, 0, &res);
  if (st != BLKMC_OK || res != 0)
    throw UsageError(fmt::format("{}: module init failed ({}: {}; returned {})", path_, status_name(st),
                                 scratch.hdr()->what, res));
  elevator_ = reinterpret_cast<const char* (*)()>(sym("blkmc_k_elevator_name"))();
  for (int a = 0;; ++a) {
    st = call(scratch.hdr(), BLKMC_OP_ATTRS, a, 0, BLKMC_J0, 0, &res);
    if (st != BLKMC_OK || res < 0) break;
    attrs_.push_back(scratch.hdr()->what);
  }
  if (rw_hi_ > rw_lo_ && g_nprotected.load() < kMaxProtected) {
    static std::once_flag at_exit;
    std::call_once(at_exit, [] { std::atexit(unprotect_all); });
    const int i = g_nprotected.load();
    g_protected[i][0] = rw_lo_;
    g_protected[i][1] = rw_hi_;
    g_nprotected.store(i + 1);
    mprotect(reinterpret_cast<void*>(rw_lo_), rw_hi_ - rw_lo_, PROT_READ);
  }
}

int Module::call(blkmc_region* r, int op, int a, int b, std::uint64_t now, int flags, long* result) const {
  CallRecord& c = record();
  c.active = this;
  c.region = r;
  c.seq.fetch_add(1, std::memory_order_relaxed);
  c.in_call.store(1, std::memory_order_relaxed);
  const int st = call_(r, op, a, b, static_cast<unsigned long>(now), flags, result);
  c.in_call.store(0, std::memory_order_relaxed);
  c.active = nullptr;
  return st;
}

const char* Module::object_at(std::uintptr_t addr) const {
  // upper_bound by hand: std:: algorithms are not promised signal-safe.
  std::size_t lo = 0, hi = objects_.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (objects_[mid].lo <= addr) lo = mid + 1; else hi = mid;
  }
  if (lo == 0 || addr >= objects_[lo - 1].hi) return nullptr;
  return names_.c_str() + objects_[lo - 1].name;
}

void Module::fault(int status, const char* text) const { fault_(status, text); }

std::vector<std::vector<Module::Frame>> Module::frames(const std::vector<std::uint64_t>& pcs) const {
  std::vector<std::vector<Frame>> out(pcs.size());
  if (pcs.empty()) return out;
  const ScratchDir dir("", "blkmc-a2l");
  const std::string log = dir.file("out.txt");
  std::vector<std::string> argv{"addr2line", "-a", "-f", "-i", "-e", path_};
  for (const std::uint64_t pc : pcs)  // the call instruction, one byte before its return address
    argv.push_back(fmt::format("{:#x}", pc > base_ ? pc - base_ - 1 : 0));
  if (run_command(argv, log, "/dev/null") != 0) return out;
  std::ifstream in(log);
  std::string line, fn;
  int i = -1;
  while (std::getline(in, line)) {
    if (line.rfind("0x", 0) == 0) {  // -a: the next address
      ++i;
      continue;
    }
    if (i < 0 || i >= int(out.size())) continue;
    if (fn.empty()) {
      fn = line;
      continue;
    }
    Frame f;
    f.function = fn;
    fn.clear();
    const auto colon = line.rfind(':');  // "path/file.c:123" or "path/file.c:123 (discriminator 2)"
    const std::string file = line.substr(0, colon);
    f.file = file.substr(file.rfind('/') + 1);
    if (colon != std::string::npos) f.line = std::atoi(line.c_str() + colon + 1);
    if (f.function != "??" && f.line > 0) out[i].push_back(std::move(f));
  }
  return out;
}

Region::Region(const Module& m, int nrqs, int state_words, std::size_t arena_bytes) {
  const std::size_t hdr = (sizeof(blkmc_region) + kPage - 1) & ~(kPage - 1);
  const std::size_t arena = (arena_bytes + kPage - 1) & ~(kPage - 1);
  if (arena > BLKMC_ARENA_MAX) throw std::logic_error("a kernel region's arena of more than BLKMC_ARENA_MAX bytes");
  size_ = hdr + arena + std::size_t(nrqs) * BLKMC_SLOT_STRIDE;
  (void)m;
  map_bytes_ = size_ + 2 * kPage;
  map_ = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) throw std::bad_alloc();
  auto* p = static_cast<std::uint8_t*>(map_);
  mprotect(p, kPage, PROT_NONE);
  mprotect(p + kPage + size_, kPage, PROT_NONE);
  hdr_ = reinterpret_cast<blkmc_region*>(p + kPage);
  hdr_->magic = BLKMC_REGION_MAGIC;
  hdr_->size = size_;
  hdr_->abi = BLKMC_ABI;
  hdr_->nrqs = nrqs;
  hdr_->arena_off = hdr;
  hdr_->arena_cap = arena;
  hdr_->arena_used = 0;
  hdr_->slots_off = hdr + arena;
  hdr_->slot_stride = BLKMC_SLOT_STRIDE;
  hdr_->slot_lead = BLKMC_PAGE - 8 * std::uint64_t(state_words);
  hdr_->rq_state_words = std::uint32_t(state_words);
}

void Region::protect_constants() {
  for (int i = 0; i < hdr_->nrqs; ++i)
    mprotect(at(hdr_->slots_off + std::uint64_t(i) * hdr_->slot_stride + BLKMC_PAGE), BLKMC_PAGE, PROT_READ);
}

Region::~Region() {
  if (map_) munmap(map_, map_bytes_);
}

}  // namespace blkmc::kernel
