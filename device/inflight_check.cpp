#include "device/inflight_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "device/counters.hpp"
#include "device/env.hpp"
#include "device/io_engine.hpp"
#include "device/replay_io.hpp"
#include "model/inflight/inflight.hpp"

namespace blkmc::device {

namespace {

constexpr int kDepth = 4;  // driver tags: the fewest nr_requests allows
constexpr const char* kWalkVariant = "b0d97557ebfc";     // sysfs inflight
constexpr const char* kCounterVariant = "7be835694dae";  // stat, diskstats

std::string target_dev(const std::string& disk, int t) { return t == 0 ? disk : fmt::format("{}p{}", disk, t); }

// The model after the row's requests: submitted (blk_account_io_start) on
// CPU 0, the driver ones also started; drained: every one completed and
// freed.
int model_read(const char* variant, const InflightRow& row, int target, bool drained) {
  const ModelInfo& info = InflightModel::static_info();
  const int n = int(row.driver.size() + row.queued.size());
  const Params p = resolve_params(info, Params{{"parts", row.parts}, {"submitters", n}, {"rounds", 1},
                                               {"reads", 1}, {"whole", 1}, {"cpus", 1}});
  const InflightModel m(find_variant_index(info, variant), p);
  InflightModel::State s = m.initial();
  auto step = [&](int sub, std::uint8_t action, int arg) {
    InflightModel::State next{};
    if (!m.apply(s, Step{std::uint8_t(sub), action, std::uint8_t(arg)}, next))
      throw std::logic_error(fmt::format("inflight: step {} of submitter {} not enabled", int(action), sub));
    s = next;
  };
  for (int i = 0; i < n; ++i) {
    const int t = i < int(row.driver.size()) ? row.driver[std::size_t(i)] : row.queued[i - row.driver.size()];
    step(i, InflightModel::SUBMIT, t);  // arg: target | cpu << 4, cpu 0
    if (i < int(row.driver.size()) || drained) step(i, InflightModel::DISPATCH, 0);
    if (drained) {
      step(i, InflightModel::COMPLETE, 0);
      step(i, InflightModel::FREE, 0);
    }
  }
  return m.quiescent_read(s, target);
}

int checked(long long v, const std::string& what) {
  if (v < 0) throw std::runtime_error(fmt::format("{}: not the counters expected", what));
  return int(v);
}

// The files of one target, in the order predict_inflight lists them.
struct FileSpec {
  std::string name, variant;
  int target;
  std::string dev;
  int kind;          // 0 inflight, 1 stat, 2 diskstats
  std::string path;  // the sysfs file (kind 0 and 1)
};

std::vector<FileSpec> files_of(const InflightRow& row, const std::string& disk) {
  std::vector<FileSpec> out;
  for (int t = 0; t <= row.parts; ++t) {
    const std::string dev = target_dev(disk, t);
    const std::string dir = t == 0 ? disk : fmt::format("{}/{}", disk, dev);
    out.push_back({dir + "/inflight", kWalkVariant, t, dev, 0, "/sys/block/" + dir + "/inflight"});
    out.push_back({dir + "/stat", kCounterVariant, t, dev, 1, "/sys/block/" + dir + "/stat"});
    out.push_back({"diskstats " + dev, kCounterVariant, t, dev, 2, ""});
  }
  return out;
}

int read_kernel(const FileSpec& f) {
  switch (f.kind) {
    case 0: return checked(inflight_sum(read_file(f.path)), f.path);
    case 1: return checked(stat_in_progress(read_file(f.path)), f.path);
    default:
      return checked(diskstats_in_progress(read_file("/proc/diskstats"), {f.dev}).front(),
                     "/proc/diskstats " + f.dev);
  }
}

struct Counts {
  int inserts = 0, issues = 0, completes = 0;
};

Counts count_events(TraceInstance& tr) {
  Counts c;
  for (const RawEvent& e : parse_trace_text(tr.read())) {
    c.inserts += e.kind == EvKind::Insert;
    c.issues += e.kind == EvKind::Issue;
    c.completes += e.kind == EvKind::Complete;
  }
  return c;
}

// Polls the trace until pred holds for its event counts (5 s at most).
template <class P>
void wait_events(TraceInstance& tr, P pred, const std::string& what) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!pred(count_events(tr))) {
    if (std::chrono::steady_clock::now() > end) {
      const Counts c = count_events(tr);
      throw std::runtime_error(fmt::format("{}: the kernel's events did not come ({} inserted, {} issued, "
                                           "{} completed)",
                                           what, c.inserts, c.issues, c.completes));
    }
    sleep_ms(2);
  }
}

// Thaws and reaps whatever is still outstanding, whatever happened.
struct Outstanding {
  Stack& st;
  IoEngine& io;
  int left = 0;
  std::vector<int> results;
  void reap(int ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (left > 0 && std::chrono::steady_clock::now() < end) {
      const int got = io.reap(1, 100, [&](int, int res) { results.push_back(res); });
      if (got < 0 && got != -EINTR) break;
      if (got > 0) left -= got;
    }
  }
  ~Outstanding() {
    try {
      st.thaw();
      reap(10000);
    } catch (...) {
    }
  }
};

}  // namespace

const std::vector<InflightRow>& inflight_rows() {
  // Four driver writes hold the four driver tags; the queued ones wait in
  // mq-deadline. Targets: 0 the whole disk, k partition k.
  static const std::vector<InflightRow> rows{
      {"parts", {1, 1, 2, 2}, {1, 2}},
      {"disk+parts", {0, 1, 0, 2}, {0, 1, 2}},
      {"parts-queued", {0, 0, 0, 0}, {1, 1, 2, 0}},
  };
  return rows;
}

std::string targets_string(const std::vector<int>& targets) {
  std::string out;
  for (int t : targets) out += fmt::format("{}{}", out.empty() ? "" : ",", t == 0 ? "D" : fmt::format("p{}", t));
  return out.empty() ? "-" : out;
}

std::vector<InflightRead> predict_inflight(const InflightRow& row, const std::string& disk) {
  std::vector<InflightRead> out;
  for (const bool drained : {false, true})
    for (const FileSpec& f : files_of(row, disk))
      out.push_back({drained ? "drained" : "held", f.name, f.variant, f.target,
                     model_read(f.variant.c_str(), row, f.target, drained), -1});
  return out;
}

InflightCase run_inflight_case(Stack& st, TraceInstance& tr, const InflightRow& row, int repeat, bool verbose) {
  if (int(row.driver.size()) != kDepth || row.queued.size() > 4 || row.parts != st.partitions())
    throw std::logic_error("inflight row: 4 driver requests, at most 4 queued, the stack's partitions");
  const std::string disk = st.dut().name();
  const std::vector<FileSpec> files = files_of(row, disk);
  const std::vector<InflightRead> predicted = predict_inflight(row, disk);
  InflightCase c;
  c.row = row;
  prepare_queue(st, kDepth);
  // One descriptor per target, O_DIRECT: a write is one request.
  std::vector<int> fds;
  struct Fds {
    std::vector<int>& v;
    ~Fds() {
      for (int fd : v) ::close(fd);
    }
  } close_fds{fds};
  for (int t = 0; t <= row.parts; ++t) {
    const std::string path = t == 0 ? st.dut().path() : st.dut().part_path(t);
    const int fd = ::open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    fds.push_back(fd);
  }
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, 4096) != 0) throw std::bad_alloc();
  std::unique_ptr<void, decltype(&std::free)> hold_buf(buf, &std::free);
  std::memset(buf, 0x5a, 4096);
  const int total = int(row.driver.size() + row.queued.size());
  for (int run = 0; run < repeat; ++run) {
    check_interrupt();
    st.fresh_scheduler("mq-deadline");
    if (std::atoi(st.get_queue("nr_requests").c_str()) < 64) st.set_queue("nr_requests", "64");
    // Nothing of ours or anyone's may be in flight before the run.
    for (int tries = 0;; ++tries) {
      bool idle = true;
      for (const FileSpec& f : files) idle = idle && read_kernel(f) == 0;
      if (idle) break;
      if (tries == 200) throw std::runtime_error(fmt::format("{}: counters not 0 before the run (other I/O?)", disk));
      sleep_ms(5);
    }
    tr.clear();
    tr.on(true);
    auto io = make_io_engine("libaio", total);
    std::vector<InflightRead> reads;
    {
      Outstanding out{st, *io, 0, {}};
      std::vector<int> per_target(std::size_t(row.parts + 1), 0);
      auto submit = [&](int t, int id) {
        // Distinct 4 KiB blocks, clear of the partition table: 64 KiB apart.
        const std::uint64_t off = std::uint64_t(++per_target[std::size_t(t)]) * (64u << 10);
        const int rc = io->submit(fds[std::size_t(t)], true, buf, 4096, off, id, 0);
        if (rc < 0) throw std::runtime_error(fmt::format("io_submit: {}", std::strerror(-rc)));
        ++out.left;
      };
      st.freeze();
      int id = 0;
      for (int t : row.driver) submit(t, id++);
      const int nd = int(row.driver.size());
      wait_events(tr, [&](const Counts& k) { return k.issues >= nd; }, "driver writes");
      for (int t : row.queued) submit(t, id++);
      wait_events(tr, [&](const Counts& k) { return k.inserts >= total; }, "queued writes");
      sleep_ms(30);
      const Counts held = count_events(tr);
      if (held.issues != nd || held.completes != 0)
        throw std::runtime_error(fmt::format("the gate did not hold: {} issued, {} completed while frozen",
                                             held.issues, held.completes));
      for (const FileSpec& f : files) reads.push_back({"held", f.name, f.variant, f.target, 0, read_kernel(f)});
      st.thaw();
      out.reap(10000);
      if (out.left > 0) throw std::runtime_error(fmt::format("{} writes did not complete after the thaw", out.left));
      for (int r : out.results)
        if (r != 4096) throw std::runtime_error(fmt::format("a write returned {}", r));
      wait_events(tr, [&](const Counts& k) { return k.completes >= total; }, "completions");
      sleep_ms(10);
      for (const FileSpec& f : files)
        reads.push_back({"drained", f.name, f.variant, f.target, 0, read_kernel(f)});
    }
    tr.on(false);
    bool ok = true;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      reads[i].model = predicted[i].model;
      if (reads[i].model != reads[i].kernel) {
        if (ok && c.first_departure.empty())
          c.first_departure = fmt::format("run {}: {} {}: model ({}) {}, kernel {}", run + 1, reads[i].phase,
                                          reads[i].file, reads[i].variant, reads[i].model, reads[i].kernel);
        ok = false;
      }
    }
    c.conforming += ok;
    if (verbose) {
      std::string line;
      for (const auto& r : reads)
        if (r.phase == "held") line += fmt::format(" {}={}{}", r.file, r.kernel, r.kernel == r.model ? "" : fmt::format("(model {})", r.model));
      std::fprintf(stderr, "  run %d: %s;%s\n", run + 1, ok ? "conforms" : "DEPARTS", line.c_str());
    }
    c.runs.push_back(std::move(reads));
  }
  return c;
}

nlohmann::json inflight_case_json(const InflightCase& c) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : c.runs) {
    nlohmann::json reads = nlohmann::json::array();
    for (const auto& r : run)
      reads.push_back({{"phase", r.phase}, {"file", r.file}, {"variant", r.variant}, {"model", r.model},
                       {"kernel", r.kernel}, {"equal", r.model == r.kernel}});
    runs.push_back(std::move(reads));
  }
  return {{"model", "inflight"},
          {"workload", c.row.name},
          {"scheduler", "mq-deadline"},
          {"partitions", c.row.parts},
          {"driver", targets_string(c.row.driver)},
          {"queued", targets_string(c.row.queued)},
          {"runs", c.runs.size()},
          {"conforming", c.conforming},
          {"first_departure", c.first_departure},
          {"match", c.match()},
          {"reads", runs}};
}

}  // namespace blkmc::device
