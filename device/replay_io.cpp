#include "device/replay_io.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/env.hpp"
#include "device/io_engine.hpp"

namespace blkmc::device {

namespace {

std::int64_t now_us() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

struct Control {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> submitted_pre{0}, submitted_gated{0};
  std::vector<std::atomic<int>> by_proc;  // submissions per plan process
  explicit Control(std::size_t procs) : by_proc(procs) {}
  std::vector<std::string> errors;
  void error(std::string e) {
    std::lock_guard<std::mutex> l(m);
    errors.push_back(std::move(e));
  }
  void wait_release() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return release; });
  }
  void open_gate() {
    {
      std::lock_guard<std::mutex> l(m);
      release = true;
    }
    cv.notify_all();
  }
};

void pin_cpu0() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  sched_setaffinity(0, sizeof(set), &set);
}

// One process of the plan.
void actor(const Plan& plan, const PlanProc& p, const std::string& dev, const RunOptions& opt,
           Control& ctl, RunData& out) {
  pin_cpu0();
  const int prio = ioprio_value(p);
  syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, prio);
  const bool gated_wait = plan.gated && !p.pre_gate;
  const int fd = ::open(dev.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  const int n = int(p.rqs.size());
  std::unique_ptr<IoEngine> io;
  std::string setup_error = fd < 0 ? fmt::format("cannot open {}: {}", dev, std::strerror(errno)) : "";
  if (fd >= 0) {
    try {
      io = make_io_engine(opt.engine, n);
    } catch (const std::exception& e) {
      setup_error = e.what();
    }
  }
  std::vector<void*> bufs(std::size_t(std::max(n, 1)), nullptr);
  if (gated_wait) ctl.wait_release();
  const std::size_t me = std::size_t(&p - plan.procs.data());
  auto count = [&] {
    (p.pre_gate ? ctl.submitted_pre : ctl.submitted_gated).fetch_add(1);
    ctl.by_proc[me].fetch_add(1);
  };
  if (!io) {
    ctl.error(fmt::format("{}: {}", p.name, setup_error));
    for (int i = 0; i < n; ++i) count();
    if (fd >= 0) ::close(fd);
    return;
  }
  int outstanding = 0;
  auto reap = [&](int min) {
    while (min > 0 || outstanding > 0) {
      const int got = io->reap(min, opt.timeout_ms, [&](int id, int res) {
        out.result[std::size_t(id)] = res;
      });
      if (got <= 0) {
        ctl.error(fmt::format("{}: no completion within {} ms", p.name, opt.timeout_ms));
        return false;
      }
      outstanding -= got;
      min -= got;
      if (min <= 0) return true;
    }
    return true;
  };
  bool ok = true;
  for (int i = 0; i < n && ok; ++i) {
    const PlanRq& r = plan.rqs[std::size_t(p.rqs[std::size_t(i)])];
    void* buf = nullptr;
    if (posix_memalign(&buf, 4096, r.bytes) != 0) {
      ctl.error("out of memory");
      ok = false;
      break;
    }
    std::memset(buf, r.dir ? 0x5a : 0, r.bytes);
    bufs[std::size_t(i)] = buf;
    out.submit_us[std::size_t(r.id)] = now_us();
    const int rc = io->submit(fd, r.dir != 0, buf, r.bytes, r.offset, r.id, prio);
    if (rc != 0) {
      ctl.error(fmt::format("{}: {} submit: {}", p.name, opt.engine, std::strerror(-rc)));
      out.submit_us[std::size_t(r.id)] = -1;
      ok = false;
      break;
    }
    ++outstanding;
    if (p.sync) {
      if (i == 0) count();
      ok = reap(1);
    } else {
      count();
    }
  }
  if (!ok)  // what it did not submit still counts, so that the gate opens
    (p.pre_gate ? ctl.submitted_pre : ctl.submitted_gated).fetch_add(n);
  else
    reap(outstanding);
  io.reset();
  ::close(fd);
  for (void* b : bufs) std::free(b);
}

// Joins the threads and thaws, whatever happened.
struct RunGuard {
  Stack& st;
  Control& ctl;
  std::vector<std::thread>& threads;
  ~RunGuard() {
    ctl.open_gate();
    try {
      st.thaw();
    } catch (...) {
    }
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }
};

// Waits until `counter` reaches `want` (or the deadline); false on timeout.
bool wait_count(const std::atomic<int>& counter, int want, int ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (counter.load() < want) {
    if (std::chrono::steady_clock::now() > end) return false;
    sleep_ms(1);
  }
  return true;
}

}  // namespace

void prepare_queue(Stack& st, const Plan& plan) { prepare_queue(st, plan.depth); }

void prepare_queue(Stack& st, int depth) {
  st.set_depth(depth);
  st.set_queue("nomerges", "2");
  st.set_queue("rq_affinity", "2");
  if (st.has_queue("wbt_lat_usec")) {
    try {
      st.set_queue("wbt_lat_usec", "0");
    } catch (const std::exception&) {
      // not every device allows write throttling settings
    }
  }
}

// The submissions a process owes the gate before it opens or the device
// thaws: all of an async process's requests, a sync process's first.
int owed_at_gate(const PlanProc& p) { return p.sync ? std::min<int>(1, int(p.rqs.size())) : int(p.rqs.size()); }

// Why the gated requests did not all enter the scheduler with the device
// frozen: each gated process's count, and the limit that held the rest.
std::string held_back(Stack& st, const Plan& plan, const RunOptions& opt, const Control& ctl) {
  std::vector<std::string> short_of;
  for (std::size_t i = 0; i < plan.procs.size(); ++i) {
    const PlanProc& p = plan.procs[i];
    if (p.pre_gate) continue;
    const int want = owed_at_gate(p);
    const int got = std::min(ctl.by_proc[i].load(), want);
    if (got < want) short_of.push_back(fmt::format("{} {} of {}", p.name, got, want));
  }
  const std::string nr = st.get_queue("nr_requests");
  std::string why = fmt::format("the gated processes did not submit within 2 s with the device frozen ({})",
                                fmt::join(short_of, ", "));
  if (!opt.depth_limit.empty()) return fmt::format("{} (nr_requests={}): {}", why, nr, opt.depth_limit);
  return why + fmt::format(": the scheduler's tags (nr_requests={}) or {}'s limit_depth held them", nr, opt.scheduler);
}

RunData run_once(Stack& st, TraceInstance& tr, const Plan& plan, const RunOptions& opt) {
  check_interrupt();
  RunData out;
  out.submit_us.assign(plan.rqs.size(), -1);
  out.result.assign(plan.rqs.size(), 0);
  st.fresh_scheduler(opt.scheduler);
  if (opt.scheduler != "none") {
    // Scheduler tags: room for every request of the plan (blk_mq_get_tag
    // would otherwise block a submitter, not the scheduler).
    int want = std::max(64, 2 * int(plan.rqs.size()));
    // The scheduler's limit_depth (BFQ: 3/16 of nr_requests for async
    // requests while a queue is weight-raised): room for all of them.
    if (opt.async_depth_16ths < 16) {
      int limited = 0;
      for (const auto& r : plan.rqs) limited += r.dir != 0 || !plan.procs[std::size_t(r.proc)].sync;
      want = std::max(want, (16 * limited + opt.async_depth_16ths - 1) / opt.async_depth_16ths);
    }
    if (std::atoi(st.get_queue("nr_requests").c_str()) < want) {
      try {
        st.set_queue("nr_requests", std::to_string(want));
      } catch (const std::exception&) {
        // above the kernel's most: the gate says what it then held back
      }
    }
  }
  for (const auto& [k, v] : opt.tunables)
    if (st.has_queue("iosched/" + k)) st.set_queue("iosched/" + k, std::to_string(v));
  tr.clear();
  tr.on(true);
  const auto t0 = std::chrono::steady_clock::now();
  Control ctl(plan.procs.size());
  std::vector<std::thread> threads;
  int pre = 0, gated_first = 0;
  for (const auto& p : plan.procs) {
    if (p.pre_gate)
      pre += int(p.rqs.size());
    else
      gated_first += owed_at_gate(p);
  }
  {
    RunGuard guard{st, ctl, threads};
    if (plan.gated) st.freeze();
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    const std::string dev = st.dut().path();
    for (const auto& p : plan.procs)
      threads.emplace_back(actor, std::cref(plan), std::cref(p), dev, std::cref(opt), std::ref(ctl),
                           std::ref(out));
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (plan.gated) {
      if (!wait_count(ctl.submitted_pre, pre, 2000)) throw GateError("the processes above the gate did not submit within 2 s");
      sleep_ms(opt.settle_ms);
      ctl.open_gate();
      if (!wait_count(ctl.submitted_gated, gated_first, 2000)) throw GateError(held_back(st, plan, opt, ctl));
      sleep_ms(opt.settle_ms);
      st.thaw();
    } else {
      ctl.open_gate();
    }
  }  // joins
  tr.on(false);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.trace_text = tr.read();
  if (!ctl.errors.empty()) throw std::runtime_error(ctl.errors.front());
  check_interrupt();
  return out;
}

}  // namespace blkmc::device
