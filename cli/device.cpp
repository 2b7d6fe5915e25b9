// blkmc device run|check, blkmc export --fio: see README "Real devices".
#include "cli/device.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/instances.hpp"
#include "device/analysis.hpp"
#include "device/conformance.hpp"
#include "device/env.hpp"
#include "device/fio_export.hpp"
#include "device/io_engine.hpp"
#include "device/loop.hpp"
#include "device/plan.hpp"
#include "device/replay_io.hpp"
#include "device/stress.hpp"
#include "device/inflight_check.hpp"
#include "model/inflight/inflight.hpp"
#include "device/tracefs.hpp"
#include "explorer/limits.hpp"
#include "explorer/checks.hpp"
#include "app/registry.hpp"
#include "props/verdict.hpp"

namespace blkmc {

using namespace device;

namespace {

// The real stack and its tracefs instance, built once per command.
struct Session {
  std::unique_ptr<Stack> stack;
  std::unique_ptr<TraceInstance> trace;
  explicit Session(int partitions = 0) {
    install_device_signal_handlers();
    const auto stale = cleanup_stale(true);
    if (!stale.empty())
      std::cerr << fmt::format("blkmc: device: {} leftover(s) of a killed run (e.g. {}): `blkmc device cleanup` "
                               "removes them\n", stale.size(), stale.front());
    stack = std::make_unique<Stack>(2u << 20, "/dev/shm", partitions);
    trace = std::make_unique<TraceInstance>(stack->dut().major, stack->dut().minor,
                                            stack->tmpdir() + "/tracefs-mounted");
  }
  ~Session() {
    trace.reset();  // the instance first, then the stack (reverse order)
    stack.reset();
  }
};

struct RunResult {
  std::vector<int> order;
  Conformance conf;
  bool gate_ok = true;
  int unmatched = 0, merges = 0;
  SubmitJoin submits;
  double seconds = 0;
};

struct CaseResult {
  std::string workload, scheduler, variant, tunables;
  std::vector<std::string> notes;
  std::vector<int> predicted;
  std::vector<RunResult> runs;
  Modal modal;
  int tracked = -1, model_wait = -1, kernel_wait = -1;
  int worst_wait = -1;  // max-wait over every interleaving the model allows (-1: not found)
  bool worst_exact = false;
  int conforming = 0;
  int kernel_max_wait = -1;  // the largest wait over the runs (conforming runs)
  bool comparable = false;   // a gated burst: every request below the gate pending at once
  bool order_match = false, wait_match = false;
  double seconds = 0;
  bool match() const {
    if (conforming != int(runs.size())) return false;
    // A wait above the model's worst case departs only when that worst case
    // is one (a complete search); every run's issues were the model's anyway.
    if (tracked >= 0 && (kernel_max_wait < 0 || (worst_exact && kernel_max_wait > worst_wait))) return false;
    // Orders are compared only for gated bursts (real-devices.md): never
    // ungated or sync orders, which follow thread timing.
    return !comparable || (order_match && (tracked < 0 || wait_match));
  }
  // Why the row does not match, in one line ("" when it does).
  std::string first_departure() const {
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (!runs[i].conf.ok) return fmt::format("run {}: {}", i + 1, runs[i].conf.message);
    if (tracked >= 0 && worst_exact && kernel_max_wait > worst_wait)
      return fmt::format("a wait of {} above the model's worst {}", kernel_max_wait, worst_wait);
    if (comparable && !order_match) return "the kernel's modal order is not the model's";
    if (comparable && tracked >= 0 && !wait_match)
      return fmt::format("wait {}, the model's {}", kernel_wait, model_wait);
    return "";
  }
};

bool gate_held(const Plan& plan, const std::vector<Event>& ev) {
  if (!plan.gated) return true;
  int last_insert = -1, first_issue = -1;
  for (int i = 0; i < int(ev.size()); ++i) {
    const auto& p = plan.procs[std::size_t(plan.rqs[std::size_t(ev[std::size_t(i)].rq)].proc)];
    if (p.pre_gate) continue;
    if (ev[std::size_t(i)].kind == EvKind::Insert && !p.sync) last_insert = i;
    if (ev[std::size_t(i)].kind == EvKind::Issue && first_issue < 0) first_issue = i;
  }
  return first_issue < 0 || last_insert < first_issue;
}

std::string tunable_text(const std::vector<std::pair<std::string, int>>& t) {
  std::string s;
  for (const auto& [k, v] : t) {
    if (!s.empty()) s += ' ';
    s += fmt::format("{}={}", k, v);
  }
  return s.empty() ? "-" : s;
}

template <class Sched>
CaseResult run_case(Session& ses, const Plan& plan, const std::string& sched_name, int variant,
                    const Params& params, int repeat, bool verbose, const std::string& engine) {
  CaseResult c;
  c.workload = plan.wl.name;
  c.scheduler = sched_name;
  c.notes = plan.notes;
  const sched::SchedModel<Sched> m(variant, params, plan.wl);
  c.variant = m.info().variants[std::size_t(variant)].name;
  RunOptions opt;
  opt.scheduler = sched_name;
  opt.engine = engine;
  const Offers& offers = model_of_elevator(sched_name).offers();
  for (const auto& k : offers.tunables) opt.tunables.emplace_back(k, params.at(k));
  opt.async_depth_16ths = offers.async_depth_16ths;
  opt.depth_limit = offers.depth_limit;
  c.tunables = tunable_text(opt.tunables);
  std::vector<Event> predicted_events;
  c.predicted = predict_order(m, &predicted_events);
  c.tracked = plan.wl.track;
  if (c.tracked >= 0) {
    c.model_wait = check_conformance(m, predicted_events).wait;
    // The bound: the tracked request's worst wait over every interleaving
    // of submissions, dispatches and completions, with completions in issue
    // order (spindles=1): any completion order multiplies the states by
    // orders of magnitude (9 s instead of 1 ms for gated-write) and changes
    // only when a tag frees, not what mq-deadline picks.
    sched::Workload fifo_wl = plan.wl;
    fifo_wl.dev.spindles = 1;
    const sched::SchedModel<Sched> mb(variant, params, fifo_wl);
    SearchOptions so;
    so.bfs = false;
    so.progress = false;
    so.props = {sched::SchedModel<Sched>::MaxWait};
    so.limits.seconds = 10;
    so.limits.max_states = 2000000;
    so.limits.memory_bytes = default_memory_limit() / 4;
    so.reduce = ReduceOptions::all();
    const auto res = explore(mb, so);
    if (!res.props.empty() && res.props[0].value) {
      c.worst_wait = *res.props[0].value;
      c.worst_exact = res.props[0].value_exact;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  prepare_queue(*ses.stack, plan);
  std::vector<std::vector<int>> orders;
  for (int i = 0; i < repeat; ++i) {
    const RunData d = run_once(*ses.stack, *ses.trace, plan, opt);
    const Joined j = join_events(plan, parse_trace_text(d.trace_text));
    RunResult r;
    r.order = issue_order(j.events);
    r.conf = check_conformance(m, j.events);
    r.gate_ok = gate_held(plan, j.events);
    r.unmatched = j.unmatched;
    r.merges = j.merges;
    r.seconds = d.seconds;
    r.submits = join_submissions(d.submit_us, j.events);
    c.conforming += r.conf.ok;
    if (verbose) {
      std::cerr << fmt::format("  run {}: {:.3f} s, {} issues, submit->insert <= {} us, {}{}{}{}\n", i + 1,
                               r.seconds, r.order.size(), r.submits.max_delay_us,
                               r.conf.ok ? "conforms" : "DOES NOT CONFORM: " + r.conf.message,
                               r.gate_ok ? "" : ", gate did not hold",
                               r.unmatched ? fmt::format(", {} unmatched events", r.unmatched) : "",
                               r.submits.missing ? fmt::format(", {} submissions without an insert event",
                                                               r.submits.missing)
                                                 : "");
    }
    orders.push_back(r.order);
    c.runs.push_back(std::move(r));
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.modal = modal_order(orders);
  c.order_match = c.modal.order == c.predicted;
  c.comparable = plan.gated;
  for (const auto& p : plan.procs) c.comparable = c.comparable && (p.pre_gate || !p.sync);
  if (c.tracked >= 0) {
    for (const auto& r : c.runs) {
      c.kernel_max_wait = std::max(c.kernel_max_wait, r.conf.wait);
      if (r.order == c.modal.order && c.kernel_wait < 0) c.kernel_wait = r.conf.wait;
    }
    if (c.kernel_wait < 0 && c.comparable) c.kernel_wait = gated_before(plan, c.modal.order, c.tracked);
    c.wait_match = c.kernel_wait == c.model_wait;
  }
  return c;
}

// The tracked request's largest wait on the device against the model's
// worst case: a bound only from a complete search, and no wait at all where
// no run conformed up to its issue.
std::string bound_text(const CaseResult& c) {
  if (c.kernel_max_wait < 0) return "not measured (no run conformed to the model up to the tracked request's issue)";
  if (c.worst_wait < 0)
    return fmt::format("the kernel's largest wait over the runs {}; the model's search found no worst case",
                       c.kernel_max_wait);
  if (!c.worst_exact)
    return fmt::format("the kernel's largest wait over the runs {}; the model's search was incomplete (largest found "
                       "{}), so that is no bound",
                       c.kernel_max_wait, c.worst_wait);
  return fmt::format("the kernel's largest wait over the runs {} {} the model's worst case {}", c.kernel_max_wait,
                     c.kernel_max_wait <= c.worst_wait ? "<=" : "EXCEEDS", c.worst_wait);
}

nlohmann::json names(const Plan& plan, const std::vector<int>& order) {
  nlohmann::json a = nlohmann::json::array();
  for (int r : order)
    a.push_back(fmt::format("{}.{}", plan.procs[std::size_t(plan.rqs[std::size_t(r)].proc)].name,
                            plan.rqs[std::size_t(r)].index));
  return a;
}

nlohmann::json case_json(const Plan& plan, const CaseResult& c) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : c.runs)
    runs.push_back({{"order", names(plan, r.order)},
                    {"conforms", r.conf.ok},
                    {"nonconformance", r.conf.message},
                    {"gate_held", r.gate_ok},
                    {"unmatched_events", r.unmatched},
                    {"merges", r.merges},
                    {"submissions_without_insert", r.submits.missing},
                    {"max_submit_to_insert_us", r.submits.max_delay_us},
                    {"seconds", r.seconds}});
  nlohmann::json j{{"workload", c.workload},
                   {"scheduler", c.scheduler},
                   {"model_variant", c.variant},
                   {"tunables", c.tunables},
                   {"notes", c.notes},
                   {"model_order", names(plan, c.predicted)},
                   {"modal_order", names(plan, c.modal.order)},
                   {"modal_count", c.modal.count},
                   {"runs_total", c.modal.runs},
                   {"kendall_to_mode", c.modal.distance},
                   {"conforming_runs", c.conforming},
                   {"first_departure", c.first_departure()},
                   {"order_match", c.order_match},
                   {"orders_comparable", c.comparable},
                   {"match", c.match()},
                   {"seconds", c.seconds},
                   {"runs", runs}};
  if (c.tracked >= 0) {
    j["tracked"] = names(plan, {c.tracked})[0];
    j["model_wait"] = c.model_wait;
    j["kernel_wait"] = c.kernel_wait;
    j["kernel_max_wait"] = c.kernel_max_wait;  // -1: not measured
    j["bound"] = bound_text(c);
    j["model_worst_wait"] = c.worst_wait;
    j["model_worst_exact"] = c.worst_exact;
  }
  return j;
}

void print_case(const Plan& plan, const CaseResult& c) {
  std::cout << fmt::format("{} on {} ({}), model {} variant {}\n", c.workload, c.scheduler, c.tunables,
                           model_of_scheduler(c.scheduler), c.variant);
  for (const auto& n : c.notes) std::cout << "  note: " << n << '\n';
  std::cout << fmt::format("  kernel, modal order ({}/{} runs, Kendall distance to it max {}): {}\n",
                           c.modal.count, c.modal.runs, c.modal.max_distance(),
                           order_text(plan, c.modal.order));
  std::cout << fmt::format("  model order: {}\n", order_text(plan, c.predicted));
  if (c.order_match)
    std::cout << "  orders: identical\n";
  else {
    std::size_t k = 0;
    while (k < c.modal.order.size() && k < c.predicted.size() && c.modal.order[k] == c.predicted[k]) ++k;
    std::cout << fmt::format("  orders: differ from position {} (Kendall distance {})\n", k,
                             kendall_distance(c.modal.order, c.predicted));
  }
  if (c.tracked >= 0)
    std::cout << fmt::format("  tracked {}: waited {} dispatches in the model's schedule (worst case over "
                             "every interleaving: {}{}), {}\n",
                             names(plan, {c.tracked})[0].get<std::string>(), c.model_wait, c.worst_wait,
                             c.worst_exact ? "" : ", search incomplete",
                             c.kernel_wait < 0 ? std::string("not measured in the kernel's runs")
                                               : fmt::format("{} in the kernel's modal run", c.kernel_wait));
  if (c.tracked >= 0) std::cout << "  bound: " << bound_text(c) << '\n';
  if (!c.comparable)
    std::cout << "  orders not compared: not a gated burst (sync or ungated processes follow thread timing)\n";
  std::cout << fmt::format("  conformance: {}/{} runs conform", c.conforming, c.runs.size());
  for (const auto& r : c.runs)
    if (!r.conf.ok) {
      std::cout << "; first failure: " << r.conf.message;
      break;
    }
  std::cout << fmt::format("\n  {:.2f} s, {}\n", c.seconds, c.match() ? "MATCH" : "MISMATCH");
}

struct Resolved {
  Plan plan;
  std::string scheduler;
  int variant = 0;
  Params params;
  std::string engine = "libaio";
  bool kernel_code = false;  // the prediction comes from the kernel's own code (variant: a source)
};

Resolved resolve(const Source& src, const std::string& sched_opt, const std::string& variant_opt,
                 const std::vector<std::string>& kvs, const KernelArgs& code = {}) {
  Resolved r;
  r.scheduler = !sched_opt.empty() ? sched_opt : !src.scheduler.empty() ? src.scheduler : "mq-deadline";
  const ModelHandle* chosen = &model_of_elevator(r.scheduler);
  r.scheduler = chosen->offers().elevator;  // "deadline" -> "mq-deadline"
  // The kernel's own code: given here, or the trace's.
  std::string code_variant;
  if (code.given()) {
    if (!variant_opt.empty()) throw UsageError("device run: --variant or the kernel's code, not both");
    const KernelChoice kc = choose_kernel(chosen->info().name, code);
    chosen = kc.model;
    code_variant = kc.variant;
  } else if (!src.code.is_null()) {
    Trace t;
    t.model = chosen->info().name;
    t.source = src.code;
    chosen = &model_for_trace(t, {});
    code_variant = src.model_variant;
  }
  r.kernel_code = !code_variant.empty();
  const ModelHandle& mh = *chosen;
  Params given = src.scheduler.empty() || src.scheduler == r.scheduler ? src.params : Params{};
  Params p = resolve_params(mh.info(), kvs);
  for (const auto& [k, v] : resolve_params(mh.info(), given)) {
    const bool named = std::any_of(kvs.begin(), kvs.end(), [&](const std::string& kv) {
      return kv.substr(0, kv.find('=')) == k;
    });
    if (!named && given.count(k)) p[k] = v;
  }
  r.plan = make_plan(src.text, src.name);
  if (r.scheduler == "none" && r.plan.gated)
    throw UsageError(fmt::format("{}: a gated run needs a scheduler: under `none` a request waits for a "
                                 "driver tag before it exists, so nothing queues behind the gate",
                                 src.name));
  if (p.count("clock") && p["clock"] != 0) r.plan.notes.push_back("clock=1 ignored: the model runs untimed (clock=0)");
  p["clock"] = 0;
  const std::string v = r.kernel_code ? code_variant : !variant_opt.empty() ? variant_opt : src.model_variant;
  const auto& vars = mh.info().variants;
  const int def = mh.offers().device_variant;
  r.variant = !v.empty() ? find_variant_index(mh.info(), v) : def < 0 ? int(vars.size()) + def : def;
  r.params = p;
  return r;
}

// The scheduler class behind the elevator's model (by the model's own name).
template <class... Sched>
CaseResult run_case_of(Session& ses, const Resolved& r, int repeat, bool verbose) {
  const std::string& model = model_of_elevator(r.scheduler).info().name;
  std::optional<CaseResult> c;
  ((!c && sched::SchedModel<Sched>::static_info().name == model
        ? (void)(c = run_case<Sched>(ses, r.plan, r.scheduler, r.variant, r.params, repeat, verbose, r.engine))
        : void()),
   ...);
  if (!c) throw std::logic_error("device: no scheduler class for model " + model);
  return *c;
}

CaseResult dispatch_case(Session& ses, const Resolved& r, int repeat, bool verbose) {
  if (r.kernel_code) return run_case_of<sched::KernelScheduler, sched::KernelBfqScheduler>(ses, r, repeat, verbose);
  return run_case_of<sched::DeadlineScheduler, sched::BfqScheduler, sched::NoneScheduler>(ses, r, repeat,
                                                                                         verbose);
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const EnvError& e) {
    std::cerr << "blkmc: device: " << e.what() << " (exit 5: the environment lacks support)\n";
    return kExitUnsupported;
  } catch (const GateError& e) {
    std::cerr << "blkmc: device: " << e.what() << " (exit 3: the run could not be made)\n";
    return kExitIncomplete;
  } catch (const Interrupted&) {
    std::cerr << "blkmc: device: interrupted; everything set up was removed\n";
    return 130;
  }
}

}  // namespace

int run_device_run(const DeviceRunArgs& a) {
  if (!known_io_engine(a.engine))
    throw UsageError(fmt::format("--engine {}: unknown (libaio or io_uring)", a.engine));
  if (a.repeat < 1 || a.repeat > 1000) throw UsageError("--repeat must be 1..1000");
  Resolved r = resolve(load_source(a.source), a.scheduler, a.variant, a.params, a.code);
  r.engine = a.engine;
  return guarded([&] {
    Session ses;
    if (!a.quiet && !a.json)
      std::cerr << fmt::format("device {} ({}), backing file in {}\n", ses.stack->dut().name(),
                               r.scheduler, ses.stack->tmpdir());
    const CaseResult c = dispatch_case(ses, r, a.repeat, !a.quiet && !a.json);
    if (a.json)
      std::cout << case_json(r.plan, c).dump(2) << '\n';
    else
      print_case(r.plan, c);
    return kExitHolds;
  });
}

namespace {

// One line of device check's table (the head too), and the row's first
// departure under it when there is one.
void print_row(const std::string& workload, const std::string& sched, const std::string& tunables,
               const std::string& model, const std::string& kernel, const std::string& conf,
               const std::string& match, const std::string& departure = "") {
  std::cout << fmt::format("{:<22} {:<12} {:<33} {:<40} {:<27} {:<5} {}\n", workload, sched, tunables, model,
                           kernel, conf, match);
  if (!departure.empty()) std::cout << "  first departure: " << departure << '\n';
  std::cout << std::flush;
}

// The inflight model's rows on a disk with two partitions (docs/devices.md):
// the held rows, then the live row. Returns the rows that do not match.
int run_inflight_rows(int repeat, bool json, bool quiet, nlohmann::json& all) {
  Session ses(2);
  int bad = 0;
  for (const InflightRow& row : inflight_rows()) {
    if (!quiet && !json) std::cerr << fmt::format("inflight {}\n", row.name);
    const InflightCase c = run_inflight_case(*ses.stack, *ses.trace, row, repeat, !quiet && !json);
    bad += !c.match();
    if (json) {
      all.push_back(inflight_case_json(c));
      continue;
    }
    const int files = int(c.runs.empty() ? 0 : c.runs.front().size());
    print_row("inflight " + row.name, "mq-deadline",
              fmt::format("drv {} q {}", targets_string(row.driver), targets_string(row.queued)),
              fmt::format("{} reads, exact", files),
              c.first_departure.empty() ? fmt::format("{} reads equal", files) : "departs",
              fmt::format("{}/{}", c.conforming, c.runs.size()), c.match() ? "yes" : "NO", c.first_departure);
  }
  // Live reads: random I/O to the disk and both partitions while every file
  // is sampled; each read must stay within the model's live bound
  // (device/stress.hpp).
  if (!quiet && !json) std::cerr << "inflight live\n";
  int ok_runs = 0;
  long long samples = 0;
  std::string first_bad;
  for (int run = 0; run < repeat; ++run) {
    StressOptions o;
    o.seconds = 0.3;
    const StressResult r = run_stress(*ses.stack, o);
    samples += static_cast<long long>(r.samples);
    ok_runs += r.ok();
    if (!r.ok() && first_bad.empty()) first_bad = fmt::format("run {}: {}", run + 1, r.first_bad);
  }
  bad += ok_runs != repeat;
  if (json)
    all.push_back({{"model", "inflight"},
                   {"workload", "live"},
                   {"scheduler", "mq-deadline"},
                   {"runs", repeat},
                   {"conforming", ok_runs},
                   {"samples", samples},
                   {"first_departure", first_bad},
                   {"match", ok_runs == repeat}});
  else
    print_row("inflight live", "mq-deadline", "random I/O to D,p1,p2", "bounded (live-read-bounded)",
              fmt::format("{} samples", samples), fmt::format("{}/{}", ok_runs, repeat),
              ok_runs == repeat ? "yes" : "NO", first_bad);
  return bad;
}

}  // namespace

int run_device_check(int repeat, bool json, bool quiet, const std::string& only, const std::string& only_model,
                     const std::string& kernel_where) {
  struct Row {
    const char* workload;  // a shipped workload, or the name of the inline text
    const char* sched;
    std::vector<std::string> params;
    const char* text = nullptr;
  };
  // Three ioprio classes in one gated burst: mq-deadline serves RT, BE
  // (reads, then the write batch), then IDLE.
  static const char* const kPrioBurst =
      "# A gated burst of three ioprio classes.\n"
      "device depth=4 slot=1 spindles=1\n"
      "proc idle dir=R sync=0 prio=idle reqs=0,1,2,3\n"
      "proc be dir=R sync=0 prio=be:4 reqs=10,11,12,13\n"
      "proc rt dir=R sync=0 prio=rt:0 reqs=20,21,22,23\n"
      "proc bew dir=W sync=0 prio=be:4 reqs=30,31\n"
      "track idle:0\n";
  const std::vector<Row> rows{
      {"gated-write", "mq-deadline", {"fifo_batch=16", "writes_starved=2"}},
      {"gated-write", "mq-deadline", {"fifo_batch=1", "writes_starved=2"}},
      {"gated-write", "mq-deadline", {"fifo_batch=4", "writes_starved=2"}},
      {"gated-write", "mq-deadline", {"fifo_batch=8", "writes_starved=1"}},
      {"gated-write", "mq-deadline", {"fifo_batch=4", "writes_starved=3"}},
      {"gated-write", "mq-deadline", {"fifo_batch=1", "writes_starved=0"}},
      {"gated-write-idle", "mq-deadline", {"fifo_batch=16", "writes_starved=2"}},
      {"gated-write-idle", "mq-deadline", {"fifo_batch=4", "writes_starved=2"}},
      {"stream-write", "mq-deadline", {}},
      {"fair-read-write", "mq-deadline", {}},
      {"fair-read-write", "mq-deadline", {"fifo_batch=1"}},
      {"prio-burst", "mq-deadline", {}, kPrioBurst},
      {"seed002-readers-writer", "mq-deadline", {}},
      {"fair-sync-reader", "mq-deadline", {}},
      // BFQ: a queue's requests in bfq_choose_req's order, the queues by
      // B-WF2Q+ (docs/devices.md). strict_guarantees=1 is left out: BFQ
      // then keeps the blockers in the scheduler while the device is
      // frozen, so the gate cannot hold its order. Every write is O_DIRECT
      // and so sync (REQ_SYNC). The hand model's v6.12 variant predicts
      // every row (stable and close-cooperator merging of the processes'
      // queues included), as --kernel does from BFQ's own code.
      {"gated-write", "bfq", {"low_latency=1"}},
      {"gated-write", "bfq", {"low_latency=0"}},
      {"gated-write-idle", "bfq", {}},
      {"bfq-idle-class", "bfq", {}},
      {"bfq-reader-writer", "bfq", {}},
      {"seed002-readers-writer", "bfq", {}},
      {"bfq-flash-readers", "bfq", {}},
  };
  if (repeat < 1 || repeat > 1000) throw UsageError("--repeat must be 1..1000");
  if (!only.empty() && !only_model.empty())
    throw UsageError("device check: give --scheduler or --model, not both");
  // --model: a scheduler model's rows (by its elevator), or the inflight
  // model's.
  std::string by_model;
  bool inflight_only = false;
  if (!only_model.empty()) {
    const ModelHandle& mh = find_model(only_model);
    by_model = mh.offers().elevator;
    inflight_only = &mh.info() == &InflightModel::static_info();
    if (!inflight_only && (by_model.empty() ||
                           std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return by_model == r.sched; })))
      throw UsageError(fmt::format("device check: no rows for model '{}' (deadline, bfq, inflight)", only_model));
  }
  const std::string only_elevator = !by_model.empty() ? by_model
                                    : only.empty()    ? ""
                                                      : model_of_elevator(only).offers().elevator;
  if (!only.empty() && std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return only_elevator == r.sched; }))
    throw UsageError(fmt::format("device check: no rows for scheduler '{}' (mq-deadline, bfq)", only));
  const bool sched_rows = !inflight_only, inflight = only.empty() && by_model.empty();
  KernelArgs code;
  code.kernel = kernel_where;
  return guarded([&] {
    nlohmann::json all = nlohmann::json::array();
    int bad = 0, ran = 0, skipped = 0;
    std::string missing;  // why rows were skipped
    // The head goes out with the first row, after any error in resolving it.
    bool headed = json;
    auto head = [&] {
      if (!headed) print_row("workload", "scheduler", "tunables", "model", "kernel (modal)", "conf", "match");
      headed = true;
    };
    if (sched_rows) {
      Session ses;
      for (const auto& row : rows) {
        if (!only_elevator.empty() && only_elevator != row.sched) continue;
        Source src;
        if (row.text) {
          src.name = row.workload;
          src.text = row.text;
        } else {
          src = load_source(row.workload);
        }
        const Resolved r = resolve(src, row.sched, "", row.params, code);
        head();
        if (!quiet && !json) std::cerr << fmt::format("{} {} {}\n", row.workload, row.sched, fmt::join(row.params, " "));
        CaseResult c;
        try {
          c = dispatch_case(ses, r, repeat, !quiet && !json);
        } catch (const device::SchedulerMissing& e) {
          // Not this machine's kernel: the row is listed, not held against
          // the model.
          ++skipped;
          missing = e.what();
          if (json)
            all.push_back({{"workload", row.workload}, {"scheduler", row.sched}, {"skipped", e.what()}});
          else
            print_row(row.workload, row.sched, fmt::format("{}", fmt::join(row.params, " ")), "-", "-", "-", "skip");
          continue;
        }
        ++ran;
        bad += !c.match();
        if (json) {
          all.push_back(case_json(r.plan, c));
          continue;
        }
        std::string model, kernel;
        const std::string ord = !c.comparable ? "order n/a"
                                : fmt::format("{} {}/{}", c.order_match ? "same order" : "OTHER order",
                                              c.modal.count, c.modal.runs);
        if (c.tracked >= 0) {
          model = fmt::format("wait {} (worst {}{}), {} rqs", c.model_wait, c.worst_wait, c.worst_exact ? "" : "?",
                              c.predicted.size());
          kernel = c.kernel_max_wait < 0 ? fmt::format("wait not measured, {}", ord)
                   : c.comparable        ? fmt::format("wait {}, {}", c.kernel_wait, ord)
                                         : fmt::format("wait <= {}, {}", c.kernel_max_wait, ord);
        } else {
          model = fmt::format("{} rqs", c.predicted.size());
          kernel = ord;
        }
        if (r.kernel_code) model = fmt::format("code {}: {}", c.variant.substr(0, c.variant.find('@')), model);
        print_row(c.workload, c.scheduler, c.tunables, model, kernel,
                  fmt::format("{}/{}", c.conforming, c.runs.size()), c.match() ? "yes" : "NO",
                  c.match() ? "" : c.first_departure());
      }
    }
    if (inflight) {
      head();
      bad += run_inflight_rows(repeat, json, quiet, all);
      ++ran;
    }
    if (json) std::cout << all.dump(2) << '\n';
    if (skipped) std::cerr << fmt::format("blkmc: device: {} row(s) skipped: {}\n", skipped, missing);
    if (!ran) return kExitUnsupported;  // nothing could run here
    return bad ? kExitViolated : kExitHolds;
  });
}

int run_device_stress(const DeviceStressArgs& a) {
  if (a.depth < kMinDepth || a.depth > 128) throw UsageError("--depth must be 4..128");
  if (a.threads < 1 || a.threads > 64) throw UsageError("--threads must be 1..64");
  if (a.per_thread < 1 || a.per_thread > 64) throw UsageError("--per-thread must be 1..64");
  if (a.seconds <= 0 || a.seconds > 600) throw UsageError("--seconds must be in (0, 600]");
  if (a.partitions < 0 || a.partitions > Stack::kMaxPartitions)
    throw UsageError(fmt::format("--partitions must be 0..{}", Stack::kMaxPartitions));
  model_of_scheduler(a.scheduler == "kyber" ? "none" : a.scheduler);  // validates the name
  return guarded([&] {
    install_device_signal_handlers();
    Stack st(2u << 20, "/dev/shm", a.partitions);
    StressOptions o;
    o.scheduler = a.scheduler;
    o.depth = a.depth;
    o.threads = a.threads;
    o.per_thread = a.per_thread;
    o.seconds = a.seconds;
    const StressResult r = run_stress(st, o);
    nlohmann::json targets = nlohmann::json::array();
    for (const StressTarget& t : r.targets)
      targets.push_back({{"name", t.name},
                         {"inflight_min", t.inflight_min},
                         {"inflight_max", t.inflight_max},
                         {"diskstats_min", t.diskstats_min},
                         {"diskstats_max", t.diskstats_max},
                         {"diskstats_over_outstanding", t.diskstats_over_outstanding}});
    if (a.json) {
      std::cout << nlohmann::json{{"device", st.dut().name()},
                                  {"scheduler", a.scheduler},
                                  {"depth", a.depth},
                                  {"threads", a.threads},
                                  {"per_thread", a.per_thread},
                                  {"seconds", a.seconds},
                                  {"ios", r.ios},
                                  {"samples", r.samples},
                                  {"inflight_min", r.inflight_min},
                                  {"inflight_max", r.inflight_max},
                                  {"diskstats_min", r.diskstats_min},
                                  {"diskstats_max", r.diskstats_max},
                                  {"diskstats_over_outstanding", r.diskstats_over_outstanding},
                                  {"targets", targets},
                                  {"bad_samples", r.bad_samples},
                                  {"first_bad", r.first_bad},
                                  {"ok", r.ok()}}
                       .dump(2)
                << '\n';
    } else {
      std::cout << fmt::format(
          "stress {} ({}, {} driver tags): {} threads x {} in flight for {:.1f} s, {} I/Os\n"
          "  {} samples: /sys/block/{}/inflight {}..{}, /proc/diskstats in progress {}..{}\n"
          "  bounds (0 <= inflight <= {} driver tags; 0 <= in progress <= {} outstanding + the "
          "submissions begun during the read): {}\n"
          "  in progress above {} outstanding (the per-CPU sum's overcount, within its bound): {} samples\n",
          st.dut().name(), a.scheduler, a.depth, a.threads, a.per_thread, a.seconds, r.ios, r.samples,
          st.dut().name(), r.inflight_min, r.inflight_max, r.diskstats_min, r.diskstats_max, a.depth,
          a.threads * a.per_thread, r.ok() ? "hold" : fmt::format("VIOLATED in {} samples, first: {}", r.bad_samples, r.first_bad),
          a.threads * a.per_thread, r.diskstats_over_outstanding);
      for (std::size_t i = 1; i < r.targets.size(); ++i)
        std::cout << fmt::format("  {}: inflight {}..{}, diskstats in progress {}..{}\n", r.targets[i].name,
                                 r.targets[i].inflight_min, r.targets[i].inflight_max, r.targets[i].diskstats_min,
                                 r.targets[i].diskstats_max);
    }
    return r.ok() ? kExitHolds : kExitViolated;
  });
}

int run_device_cleanup(bool dry_run) {
  return guarded([&] {
    check_environment();
    const auto done = cleanup_stale(dry_run);
    for (const auto& d : done) std::cout << (dry_run ? "would " : "") << d << '\n';
    if (done.empty()) std::cout << "nothing left by earlier runs\n";
    return kExitHolds;
  });
}

int run_export_fio(const std::string& source, const std::string& out, const std::string& target) {
  const Source src = load_source(source);
  const Plan plan = make_plan(src.text, src.name);
  const FioExport fx = export_fio(plan, out, target);
  // Nothing written may be the source itself (export X.wl -o X.wl).
  std::vector<std::string> paths{out};
  for (const auto& [path, text] : fx.iologs) paths.push_back(path);
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::exists(source, ec) && std::filesystem::equivalent(source, p, ec))
      throw UsageError(fmt::format("export: writing '{}' would overwrite the source", p));
  }
  auto write = [](const std::string& path, const std::string& text) {
    std::ofstream f(path);
    // The stream buffers: a full disk shows only when it is flushed.
    if (!f || !(f << text) || !f.flush()) throw UsageError(fmt::format("cannot write '{}'", path));
    f.close();
    if (f.fail()) throw UsageError(fmt::format("cannot write '{}'", path));
  };
  write(out, fx.job);
  for (const auto& [path, text] : fx.iologs) write(path, text);
  std::cout << fmt::format("fio job written to {} ({} jobs, iologs {}.*.iolog)\n", out, plan.procs.size(),
                           out.substr(0, out.rfind('.') == std::string::npos ? out.size() : out.rfind('.')));
  return kExitHolds;
}

}  // namespace blkmc
