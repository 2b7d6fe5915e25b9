#include "device/plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/kernel_select.hpp"
#include "app/registry.hpp"
#include "counterexamples/trace.hpp"

namespace blkmc::device {

namespace {

// The workload text with a blocker process of n writes and a gate line
// inserted before its first process line.
std::string with_gate(const std::string& text, const std::vector<int>& sectors, const std::string& blocker) {
  std::string blk = "proc " + blocker + " dir=W sync=0 reqs=";
  for (std::size_t i = 0; i < sectors.size(); ++i) {
    if (i) blk += ',';
    blk += std::to_string(sectors[i]);
  }
  blk += "\ngate\n";
  std::istringstream in(text);
  std::string line, out;
  bool done = false;
  while (std::getline(in, line)) {
    if (!done && line.rfind("proc ", 0) == 0) {
      out += blk;
      done = true;
    }
    out += line + "\n";
  }
  if (!done) out += blk;
  return out;
}

}  // namespace

int ioprio_value(const PlanProc& p) { return (p.ioprio_class << 13) | p.ioprio_level; }

Plan make_plan(const std::string& workload_text, const std::string& name) {
  sched::Workload wl = sched::parse_workload(workload_text, name);
  Plan plan;
  for (const auto& p : wl.procs) {
    if (p.head) throw UsageError(fmt::format("{}: process {} inserts at head (head=1): not reproducible from user space", name, p.name));
    if (p.bypass) throw UsageError(fmt::format("{}: process {} bypasses the scheduler (bypass=1): not reproducible from user space", name, p.name));
    if (p.cyclic) throw UsageError(fmt::format("{}: process {} is cyclic: a real run needs a finite workload", name, p.name));
  }
  if (wl.dev.requeue > 0) throw UsageError(fmt::format("{}: requeue={}: a loop device does not requeue on demand", name, wl.dev.requeue));
  bool all_async = true;
  for (const auto& p : wl.procs) all_async = all_async && !p.sync;
  if (!wl.gate && all_async) {
    const int depth = std::max(wl.dev.depth, kMinDepth);
    std::set<int> used;
    for (const auto& r : wl.rqs)
      for (int k = 0; k < r.size; ++k) used.insert(r.sector + k);
    std::vector<int> free;
    for (int s = sched::kMaxSector; s >= 0 && int(free.size()) < depth + 1; --s)
      if (!used.count(s)) free.push_back(s);
    std::reverse(free.begin(), free.end());
    if (int(free.size()) < depth + 1 || int(wl.rqs.size()) + depth + 1 > sched::kMaxRqs ||
        int(wl.procs.size()) + 1 > sched::kMaxProcs)
      throw UsageError(fmt::format("{}: no room for the gate's {} blocker writes", name, depth + 1));
    // The gate's process takes a name the workload's processes do not
    // (blocker, else blocker2, ...).
    std::string blocker = "blocker";
    auto taken = [&](const std::string& n) {
      return std::any_of(wl.procs.begin(), wl.procs.end(), [&](const sched::WlProc& p) { return p.name == n; });
    };
    for (int k = 2; taken(blocker); ++k) blocker = fmt::format("blocker{}", k);
    wl = sched::parse_workload(with_gate(workload_text, free, blocker), name);
    plan.synthetic_gate = true;
    plan.notes.push_back(fmt::format("gate added: process {}, {} writes at sectors {}..{}", blocker, depth + 1,
                                     free.front(), free.back()));
  }
  if (wl.dev.depth < kMinDepth) {
    plan.notes.push_back(fmt::format("depth {} raised to {} (the smallest nr_requests)", wl.dev.depth, kMinDepth));
    wl.dev.depth = kMinDepth;
  }
  if (wl.dev.rotational || wl.dev.service != 1 || wl.dev.seek != 0)
    plan.notes.push_back("device service/seek times ignored: a loop device on tmpfs (non-rotational)");
  // The model sees the device the run has: a loop device on tmpfs is
  // non-rotational (BFQ's idling and stable merging ask).
  wl.dev.rotational = false;
  wl.dev.service = 1;
  wl.dev.seek = 0;
  // Every write is O_DIRECT, so it carries REQ_SYNC | REQ_IDLE
  // (blkdev_direct_IO) whether or not its process waits.
  std::vector<std::string> direct;
  for (std::size_t i = 0; i < wl.procs.size(); ++i) {
    auto& p = wl.procs[i];
    if (!p.sync && !p.req_sync && wl.proc_has(int(i), sched::WRITE)) {
      p.req_sync = true;
      direct.push_back(p.name);
    }
  }
  if (!direct.empty())
    plan.notes.push_back(fmt::format("O_DIRECT writes carry REQ_SYNC: req_sync=1 for {}", fmt::join(direct, ", ")));
  // The loop driver serves its requests concurrently (any completion order).
  wl.dev.spindles = wl.dev.depth;
  for (const auto& p : wl.procs)
    if (p.think || p.delay) {
      plan.notes.push_back("think/delay times ignored: real runs submit as soon as allowed");
      break;
    }
  plan.gated = wl.gate;
  plan.depth = wl.dev.depth;
  std::uint64_t end = 0;
  for (std::size_t i = 0; i < wl.procs.size(); ++i) {
    const auto& wp = wl.procs[i];
    PlanProc p;
    p.name = wp.name;
    p.sync = wp.sync;
    p.pre_gate = wp.pre_gate;
    p.ioprio_class = wp.prio == sched::RT ? 1 : wp.prio == sched::IDLE ? 3 : 2;
    p.ioprio_level = wp.prio == sched::IDLE ? 7 : std::clamp(wp.level, 0, 7);
    for (int r = wp.first; r < wp.first + wp.count; ++r) p.rqs.push_back(r);
    plan.procs.push_back(p);
  }
  for (std::size_t i = 0; i < wl.rqs.size(); ++i) {
    const auto& r = wl.rqs[i];
    PlanRq q;
    q.id = int(i);
    q.proc = r.proc;
    q.index = r.index;
    q.dir = r.dir;
    q.offset = std::uint64_t(r.sector) * kUnitBytes;
    q.sector = q.offset / 512;
    q.bytes = std::uint32_t(std::uint64_t(r.size) * kUnitBytes);
    end = std::max(end, q.offset + q.bytes);
    plan.rqs.push_back(q);
  }
  plan.file_bytes = std::max<std::uint64_t>(end, 1 << 20);
  plan.wl = wl;
  return plan;
}

int find_request(const Plan& plan, std::uint64_t sector, int dir, const std::vector<bool>& taken) {
  for (const auto& r : plan.rqs)
    if (r.sector == sector && r.dir == dir && !taken[std::size_t(r.id)]) return r.id;
  return -1;
}

std::string model_of_scheduler(const std::string& sched) { return model_of_elevator(sched).info().name; }

std::string scheduler_of_model(const std::string& model) { return elevator_of_model(model); }

namespace {

// s with workload n's text and its name without ".wl" (iolog and job names).
Source named(Source s, int n) {
  s.name = sched::workload_at(n).name;
  if (s.name.size() > 3 && s.name.compare(s.name.size() - 3, 3, ".wl") == 0) s.name.resize(s.name.size() - 3);
  s.text = sched::workload_text(n);
  return s;
}

}  // namespace

Source load_source(const std::string& arg) {
  Source s;
  const bool is_json = arg.size() > 5 && arg.substr(arg.size() - 5) == ".json";
  if (is_json) {
    const Trace t = read_trace_file(arg);
    s.scheduler = scheduler_of_model(t.model);
    s.model_variant = t.variant;
    s.code = t.source;
    if (!t.source.is_null() && t.source.at("kind").get<std::string>() != "kernel")
      throw UsageError(fmt::format("{}: a trace of {} runs on no device (a trace of one source of the code does)",
                                   arg, t.source.at("kind").get<std::string>() == "conform"
                                            ? "blkmc's model held against the code"
                                            : "two sources of the code"));
    // The trace's parameters, a workload it carries numbered in this process.
    s.params = trace_params((t.source.is_null() ? find_model(t.model) : model_for_trace(t, {})).info(), t);
    const int n = s.params.count("workload") ? s.params.at("workload") : 0;
    return named(s, n);
  }
  // A shipped name, a number or a .wl file: the workload registry reads and
  // checks it (a bad line names the file and line).
  return named(s, sched::find_workload(arg));
}

}  // namespace blkmc::device
