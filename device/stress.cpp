#include "device/stress.hpp"

#include <fcntl.h>
#include <libaio.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string_view>
#include <mutex>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "device/counters.hpp"
#include "device/env.hpp"

namespace blkmc::device {

namespace {

// A small sysfs/procfs file's text, read with pread (no open per sample).
std::string_view pread_text(int fd, std::vector<char>& buf) {
  const ssize_t n = ::pread(fd, buf.data(), buf.size() - 1, 0);
  return n <= 0 ? std::string_view() : std::string_view(buf.data(), std::size_t(n));
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
  // Targets: the whole disk, then each partition; each target's size bounds
  // its random offsets.
  const int ntargets = 1 + st.partitions();
  std::vector<std::string> names, paths;
  std::vector<std::uint64_t> blocks;
  for (int t = 0; t < ntargets; ++t) {
    names.push_back(t == 0 ? st.dut().name() : st.dut().part_name(t));
    paths.push_back(t == 0 ? st.dut().path() : st.dut().part_path(t));
    const std::string sys = t == 0 ? fmt::format("/sys/block/{}", names[0])
                                   : fmt::format("/sys/block/{}/{}", names[0], names.back());
    const std::uint64_t sectors = std::strtoull(read_file(sys + "/size").c_str(), nullptr, 10);
    blocks.push_back(std::max<std::uint64_t>(1, std::min<std::uint64_t>(sectors * 512, 2u << 20) / 4096));
  }
  auto worker = [&](int seed) {
    std::vector<int> fds;
    io_context_t ctx{};
    const bool have_ctx = io_setup(opt.per_thread, &ctx) == 0;
    bool ok = have_ctx;
    for (int t = 0; ok && t < ntargets; ++t) {
      fds.push_back(::open(paths[std::size_t(t)].c_str(), O_RDWR | O_DIRECT | O_CLOEXEC));
      ok = fds.back() >= 0;
    }
    if (!ok) {
      std::lock_guard<std::mutex> l(em);
      errors.push_back(fmt::format("cannot open {} / io_setup: {}", paths[fds.size() ? fds.size() - 1 : 0],
                                   std::strerror(errno)));
      for (int fd : fds)
        if (fd >= 0) ::close(fd);
      if (have_ctx) io_destroy(ctx);
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
      const std::size_t t = ntargets > 1 ? std::size_t(rng() % std::uint64_t(ntargets)) : 0;
      const long long off = static_cast<long long>((rng() % blocks[t]) * 4096);
      if (rng() & 1)
        io_prep_pwrite(cb, fds[t], bufs[std::size_t(k)], 4096, off);
      else
        io_prep_pread(cb, fds[t], bufs[std::size_t(k)], 4096, off);
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
    for (int fd : fds) ::close(fd);
    for (void* b : bufs) std::free(b);
  };
  std::vector<int> ifds;
  for (int t = 0; t < ntargets; ++t)
    ifds.push_back(::open((t == 0 ? fmt::format("/sys/block/{}/inflight", names[0])
                                  : fmt::format("/sys/block/{}/{}/inflight", names[0], names[std::size_t(t)]))
                              .c_str(),
                          O_RDONLY | O_CLOEXEC));
  const int dfd = ::open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
  auto close_all = [&] {
    for (int fd : ifds)
      if (fd >= 0) ::close(fd);
    if (dfd >= 0) ::close(dfd);
  };
  if (dfd < 0 || std::any_of(ifds.begin(), ifds.end(), [](int fd) { return fd < 0; })) {
    close_all();
    throw EnvError("cannot read /sys/block/*/inflight or /proc/diskstats");
  }
  res.targets.resize(std::size_t(ntargets));
  for (int t = 0; t < ntargets; ++t) res.targets[std::size_t(t)].name = names[std::size_t(t)];
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
  auto check = [&](long long v, long long& lo, long long& hi, const std::string& what, long long bound) {
    if (first) lo = hi = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (v < 0 || v > bound) {
      if (res.bad_samples++ == 0) res.first_bad = fmt::format("{} = {} (bound {})", what, v, bound);
    }
  };
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.seconds);
  std::vector<long long> in_progress;
  std::vector<char> small(128), big(1 << 16);
  try {
    while (std::chrono::steady_clock::now() < end && !interrupted()) {
      for (int t = 0; t < ntargets; ++t) {
        StressTarget& tg = res.targets[std::size_t(t)];
        check(inflight_sum(pread_text(ifds[std::size_t(t)], small)), tg.inflight_min, tg.inflight_max,
              tg.name + " inflight", opt.depth);
      }
      const std::uint64_t before = begun.load();
      in_progress = diskstats_in_progress(pread_text(dfd, big), names);
      const long long during = static_cast<long long>(begun.load() - before);
      for (int t = 0; t < ntargets; ++t) {
        StressTarget& tg = res.targets[std::size_t(t)];
        const long long b = in_progress[std::size_t(t)];
        check(b, tg.diskstats_min, tg.diskstats_max, "diskstats " + tg.name + " in progress", outstanding + during);
        if (b > outstanding && b <= outstanding + during) ++tg.diskstats_over_outstanding;
      }
      first = false;
      ++res.samples;
    }
  } catch (...) {
  }
  stop = true;
  for (auto& t : threads) t.join();
  close_all();
  const StressTarget& disk = res.targets.front();
  res.inflight_min = disk.inflight_min;
  res.inflight_max = disk.inflight_max;
  res.diskstats_min = disk.diskstats_min;
  res.diskstats_max = disk.diskstats_max;
  for (const StressTarget& tg : res.targets) res.diskstats_over_outstanding += tg.diskstats_over_outstanding;
  res.ios = ios;
  check_interrupt();
  if (!errors.empty()) throw std::runtime_error(errors.front());
  return res;
}

}  // namespace blkmc::device
