#include "device/stress.hpp"

#include <fcntl.h>
#include <libaio.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "device/env.hpp"

namespace blkmc::device {

namespace {

// Reads a small sysfs/procfs file with pread (fast, no allocation per call).
long long read_inflight(int fd) {
  char buf[128];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = 0;
  long long r = 0, w = 0;
  if (std::sscanf(buf, "%lld %lld", &r, &w) != 2) return -1;
  return r + w;
}

// The in-progress field (the 9th after the name) of `name` in /proc/diskstats.
long long read_diskstats(int fd, const std::string& name) {
  static thread_local std::vector<char> buf(1 << 16);
  const ssize_t n = ::pread(fd, buf.data(), buf.size() - 1, 0);
  if (n <= 0) return -1;
  buf[std::size_t(n)] = 0;
  std::istringstream in(std::string(buf.data(), std::size_t(n)));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    unsigned maj = 0, min = 0;
    std::string dev;
    ls >> maj >> min >> dev;
    if (dev != name) continue;
    long long f[9] = {};
    for (auto& x : f) ls >> x;
    return f[8];
  }
  return -1;
}

}  // namespace

StressResult run_stress(Stack& st, const StressOptions& opt) {
  st.set_depth(opt.depth);
  st.fresh_scheduler(opt.scheduler);
  st.set_queue("rq_affinity", "2");
  StressResult res;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> ios{0};
  // io_submit calls begun: a request can enter the accounting window only
  // after its submission began.
  std::atomic<std::uint64_t> begun{0};
  std::vector<std::string> errors;
  std::mutex em;
  const std::string dev = st.dut().path();
  const std::uint64_t blocks = (2u << 20) / 4096;
  auto worker = [&](int seed) {
    const int fd = ::open(dev.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    io_context_t ctx{};
    if (fd < 0 || io_setup(opt.per_thread, &ctx) != 0) {
      std::lock_guard<std::mutex> l(em);
      errors.push_back(fmt::format("cannot open {} / io_setup: {}", dev, std::strerror(errno)));
      if (fd >= 0) ::close(fd);
      return;
    }
    std::mt19937_64 rng{static_cast<std::uint64_t>(seed)};
    std::vector<iocb> cbs(std::size_t(opt.per_thread));
    std::vector<void*> bufs(std::size_t(opt.per_thread));
    for (auto& b : bufs) {
      if (posix_memalign(&b, 4096, 4096) != 0) b = nullptr;
      else std::memset(b, 0, 4096);
    }
    auto submit = [&](int k) {
      iocb* cb = &cbs[std::size_t(k)];
      const long long off = static_cast<long long>((rng() % blocks) * 4096);
      if (rng() & 1)
        io_prep_pwrite(cb, fd, bufs[std::size_t(k)], 4096, off);
      else
        io_prep_pread(cb, fd, bufs[std::size_t(k)], 4096, off);
      cb->data = reinterpret_cast<void*>(std::intptr_t(k));
      int rc;
      begun.fetch_add(1);
      while ((rc = io_submit(ctx, 1, &cb)) == -EINTR || rc == -EAGAIN) {
      }
      return rc == 1;
    };
    int out = 0;
    for (int k = 0; k < opt.per_thread; ++k) out += submit(k);
    io_event ev[64];
    while (out > 0) {
      timespec to{5, 0};
      const int got = io_getevents(ctx, 1, 64, ev, &to);
      if (got == -EINTR) continue;
      if (got <= 0) break;
      out -= got;
      ios += std::uint64_t(got);
      if (!stop)
        for (int k = 0; k < got; ++k) out += submit(int(reinterpret_cast<std::intptr_t>(ev[k].data)));
    }
    io_destroy(ctx);
    ::close(fd);
    for (void* b : bufs) std::free(b);
  };
  const int ifd = ::open(fmt::format("/sys/block/{}/inflight", st.dut().name()).c_str(), O_RDONLY | O_CLOEXEC);
  const int dfd = ::open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
  if (ifd < 0 || dfd < 0) {
    if (ifd >= 0) ::close(ifd);
    if (dfd >= 0) ::close(dfd);
    throw EnvError("cannot read /sys/block/*/inflight or /proc/diskstats");
  }
  std::vector<std::thread> threads;
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  for (int t = 0; t < opt.threads; ++t) threads.emplace_back(worker, t + 1);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  bool first = true;
  const long long outstanding = static_cast<long long>(opt.threads) * opt.per_thread;
  auto check = [&](long long v, long long& lo, long long& hi, const char* what, long long bound) {
    if (first) lo = hi = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (v < 0 || v > bound) {
      if (res.bad_samples++ == 0) res.first_bad = fmt::format("{} = {} (bound {})", what, v, bound);
    }
  };
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.seconds);
  try {
    while (std::chrono::steady_clock::now() < end && !interrupted()) {
      const long long a = read_inflight(ifd);
      const std::uint64_t before = begun.load();
      const long long b = read_diskstats(dfd, st.dut().name());
      const long long during = static_cast<long long>(begun.load() - before);
      check(a, res.inflight_min, res.inflight_max, "inflight", opt.depth);
      check(b, res.diskstats_min, res.diskstats_max, "diskstats in progress", outstanding + during);
      if (b > outstanding && b <= outstanding + during) ++res.diskstats_over_outstanding;
      first = false;
      ++res.samples;
    }
  } catch (...) {
  }
  stop = true;
  for (auto& t : threads) t.join();
  ::close(ifd);
  ::close(dfd);
  res.ios = ios;
  check_interrupt();
  if (!errors.empty()) throw std::runtime_error(errors.front());
  return res;
}

}  // namespace blkmc::device
