// The pure parts of the real-device runner (device/): request plans, the
// tracefs line parser, the event join, modal order and spread, the
// conformance checker on synthetic event sequences, and the fio job text.
#include <algorithm>

#include <doctest/doctest.h>

#include "device/analysis.hpp"
#include "device/conformance.hpp"
#include "device/counters.hpp"
#include "device/fio_export.hpp"
#include "device/inflight_check.hpp"
#include "device/plan.hpp"
#include "device/tracefs.hpp"
#include "app/registry.hpp"

namespace device_test {

using namespace blkmc;
using namespace blkmc::device;

std::string shipped_text(const std::string& name) {
  for (const auto& w : sched::shipped_workloads())
    if (name == w.name) return w.text;
  FAIL("no shipped workload " << name);
  return "";
}

Plan plan_of(const std::string& name) { return make_plan(shipped_text(name), name); }

Params deadline_params(int fifo_batch, int writes_starved) {
  Params p = resolve_params(find_model("deadline").info(), std::vector<std::string>{});
  p["fifo_batch"] = fifo_batch;
  p["writes_starved"] = writes_starved;
  return p;
}

int id_of(const Plan& plan, const std::string& proc, int index) {
  for (const auto& r : plan.rqs)
    if (plan.procs[std::size_t(r.proc)].name == proc && r.index == index) return r.id;
  return -1;
}

TEST_CASE("device: plan of the gated write-starvation workload") {
  const Plan p = plan_of("gated-write");
  CHECK(p.gated);
  CHECK_FALSE(p.synthetic_gate);
  CHECK(p.depth == 4);
  REQUIRE(p.procs.size() == 3);
  CHECK(p.procs[0].name == "blocker");
  CHECK(p.procs[0].pre_gate);
  CHECK(p.procs[0].rqs.size() == 5);
  CHECK_FALSE(p.procs[2].pre_gate);
  REQUIRE(p.rqs.size() == 54);
  const PlanRq& w = p.rqs[std::size_t(id_of(p, "writer", 0))];
  CHECK(w.dir == 1);
  CHECK(w.offset == 100 * 4096);
  CHECK(w.sector == 800);
  CHECK(w.bytes == 4096);
  CHECK(p.procs[1].ioprio_class == 2);
  CHECK(ioprio_value(p.procs[1]) == ((2 << 13) | 4));
  CHECK(p.file_bytes >= 205 * 4096);
  // The loop device serves every issued request at once.
  CHECK(p.wl.dev.spindles == 4);
}

TEST_CASE("device: a gate is added to an ungated async workload") {
  const Plan p = plan_of("stream-write");
  CHECK(p.gated);
  CHECK(p.synthetic_gate);
  CHECK(p.depth == 4);  // depth 1 raised to the smallest nr_requests
  REQUIRE(p.procs.size() == 3);
  CHECK(p.procs[0].name == "blocker");
  CHECK(p.procs[0].rqs.size() == 5);
  CHECK(p.wl.track == id_of(p, "writer", 0));
  CHECK(std::any_of(p.notes.begin(), p.notes.end(),
                    [](const std::string& n) { return n.find("gate added") != std::string::npos; }));
  // A workload's own process named blocker keeps its name; the gate's
  // process takes another, and the export writes one job per process.
  const Plan b = make_plan("device depth=2\nproc blocker dir=R sync=0 reqs=0,1\nproc blocker2 dir=R sync=0 reqs=5\n", "h2");
  REQUIRE(b.procs.size() == 3);
  CHECK(b.procs[0].name == "blocker3");
  CHECK(b.procs[1].name == "blocker");
  CHECK(b.procs[1].rqs.size() == 2);
  CHECK(export_fio(b, "j.fio", "t").iologs.size() == 3);
}

TEST_CASE("device: ioprio classes and refusals") {
  const Plan p = plan_of("gated-write-idle");
  CHECK(p.procs[1].name == "idle");
  CHECK(p.procs[1].ioprio_class == 3);
  CHECK_THROWS_AS(plan_of("passthrough-head"), UsageError);  // head=1
  CHECK_THROWS_AS(plan_of("rt-be-cyclic"), UsageError);      // cyclic
  CHECK_THROWS_AS(load_source("no-such-workload"), UsageError);
  CHECK(load_source("gated-write").text == shipped_text("gated-write"));
  CHECK(model_of_scheduler("mq-deadline") == "deadline");
  CHECK_THROWS_AS(model_of_scheduler("kyber"), UsageError);
}

TEST_CASE("device: tracefs lines of 6.18") {
  const auto i = parse_trace_line(
      "              dd-6580    [000] ...1. 26448.281344: block_rq_insert: 7,0 WS 4096 () 24 + 8 be,0,4 [dd]");
  REQUIRE(i);
  CHECK(i->kind == EvKind::Insert);
  CHECK(i->major == 7);
  CHECK(i->minor == 0);
  CHECK(i->rwbs == "WS");
  CHECK(i->dir() == 1);
  CHECK(i->sector == 24);
  CHECK(i->nr_sectors == 8);
  CHECK(i->ts_us == 26448281344LL);
  const auto c = parse_trace_line(
      "     ksoftirqd/1-22      [001] ..s.. 26448.285215: block_rq_complete: 7,0 RS () 40 + 8 be,0,4 [0]");
  REQUIRE(c);
  CHECK(c->kind == EvKind::Complete);
  CHECK(c->dir() == 0);
  CHECK(c->sector == 40);
  // Older kernels print no ioprio field.
  const auto d = parse_trace_line("  fio-1 [001] d..1. 5.000001: block_rq_issue: 7,3 R 8192 () 16 + 16 [fio]");
  REQUIRE(d);
  CHECK(d->kind == EvKind::Issue);
  CHECK(d->minor == 3);
  CHECK(d->nr_sectors == 16);
  CHECK(d->ts_us == 5000001);
  CHECK_FALSE(parse_trace_line("# tracer: nop"));
  CHECK_FALSE(parse_trace_line("  dd-1 [000] ..... 1.0: block_bio_queue: 7,0 W 24 + 8 [dd]"));
  CHECK_FALSE(parse_trace_line("  dd-1 [000] ..... 1.0: block_rq_issue: 7,0 W 4096 () x + 8 [dd]"));
  CHECK(parse_trace_line("  kw-2 [000] ..... 1.5: block_rq_issue: 7,0 FN 0 () 0 + 0 none,0,0 [kw]")->dir() == -1);
  CHECK(parse_trace_text("# x\n a-1 [0] ..... 1.000002: block_rq_issue: 7,0 R 4096 () 8 + 8 [a]\n\n").size() == 1);
  CHECK(dev_filter(7, 1) == "dev == 7340033");
}

TEST_CASE("device: join of events with the plan") {
  const Plan p = plan_of("gated-write");
  const int w = id_of(p, "writer", 0), r0 = id_of(p, "reader", 0);
  auto ev = [](EvKind k, std::uint64_t sector, const char* rwbs) {
    RawEvent e;
    e.kind = k;
    e.major = 7;
    e.sector = sector;
    e.nr_sectors = 8;
    e.rwbs = rwbs;
    return e;
  };
  const std::vector<RawEvent> raw{ev(EvKind::Insert, 800, "WS"),  ev(EvKind::Insert, 0, "RS"),
                                  ev(EvKind::Issue, 0, "RS"),     ev(EvKind::Issue, 800, "WS"),
                                  ev(EvKind::Complete, 800, "WS"), ev(EvKind::Complete, 0, "RS"),
                                  ev(EvKind::Issue, 8, "RS"),      ev(EvKind::Insert, 4096, "R"),
                                  ev(EvKind::Merge, 0, "R")};
  const Joined j = join_events(p, raw);
  CHECK(j.unmatched == 2);  // an issue of a request never inserted; a sector outside the plan
  CHECK(j.merges == 1);
  REQUIRE(j.events.size() == 6);
  CHECK(j.events[0] == Event{EvKind::Insert, w, 0});
  CHECK(issue_order(j.events) == std::vector<int>{r0, w});
  CHECK(insert_order(j.events) == std::vector<int>{w, r0});
}

TEST_CASE("device: join of submissions with insert events") {
  const std::vector<Event> ev{{EvKind::Insert, 0, 1010}, {EvKind::Insert, 2, 1500}, {EvKind::Issue, 0, 1600},
                              {EvKind::Insert, 3, 1700}};
  const SubmitJoin j = join_submissions({1000, 1100, 1200, -1}, ev);
  CHECK(j.missing == 1);      // request 1 was submitted, never inserted
  CHECK(j.unsubmitted == 1);  // request 3 was inserted, never submitted
  CHECK(j.max_delay_us == 300);
}

TEST_CASE("device: modal order and Kendall distance") {
  CHECK(kendall_distance({1, 2, 3}, {1, 2, 3}) == 0);
  CHECK(kendall_distance({2, 1, 3}, {1, 2, 3}) == 1);
  CHECK(kendall_distance({3, 2, 1}, {1, 2, 3}) == 3);
  CHECK(kendall_distance({1, 2}, {1, 2, 3}) == -1);
  CHECK(kendall_distance({1, 2, 4}, {1, 2, 3}) == -1);
  const Modal m = modal_order({{1, 2, 3}, {2, 1, 3}, {1, 2, 3}, {1, 3, 2}});
  CHECK(m.order == std::vector<int>{1, 2, 3});
  CHECK(m.count == 2);
  CHECK(m.runs == 4);
  CHECK(m.distance == std::vector<int>{0, 1, 0, 1});
  CHECK(m.max_distance() == 1);
  CHECK(position({5, 6, 7}, 7) == 2);
  CHECK(position({5, 6, 7}, 8) == -1);
}

TEST_CASE("device: the model's order of a gated burst is fifo_batch x writes_starved reads, then the write") {
  const Plan p = plan_of("gated-write");
  const int w = id_of(p, "writer", 0);
  for (auto [fb, ws] : {std::pair{16, 2}, {1, 2}, {4, 2}, {8, 1}, {4, 3}, {1, 0}}) {
    CAPTURE(fb);
    CAPTURE(ws);
    const sched::DeadlineModel m(0, deadline_params(fb, ws), p.wl);
    const auto order = predict_order(m);
    CHECK(order.size() == 54);
    CHECK(gated_before(p, order, w) == fb * ws);
    // The four blockers, then the park: blocker.0-4 first.
    CHECK(order_text(p, order, 1).rfind("blocker.0-4 ...", 0) == 0);
  }
}

TEST_CASE("device: conformance of synthetic event sequences") {
  const Plan p = plan_of("gated-write");
  const sched::DeadlineModel m(0, deadline_params(4, 2), p.wl);
  std::vector<Event> ev;
  const auto order = predict_order(m, &ev);
  REQUIRE(order.size() == 54);
  const Conformance ok = check_conformance(m, ev);
  INFO(ok.message);
  CHECK(ok.ok);
  CHECK(ok.issues == 54);
  CHECK(ok.events == int(ev.size()));

  SUBCASE("the write issued one read too early is not a choice of the model") {
    std::vector<int> issues;
    for (std::size_t i = 0; i < ev.size(); ++i)
      if (ev[i].kind == EvKind::Issue) issues.push_back(int(i));
    const int w = id_of(p, "writer", 0);
    const auto at = std::find_if(issues.begin(), issues.end(), [&](int i) { return ev[std::size_t(i)].rq == w; });
    REQUIRE(at != issues.end());
    auto bad = ev;
    std::swap(bad[std::size_t(*at)].rq, bad[std::size_t(*(at - 1))].rq);
    // Keep completions consistent: each completion follows its issue.
    for (auto& e : bad)
      if (e.kind == EvKind::Complete && e.rq == w) e.rq = ev[std::size_t(*(at - 1))].rq;
      else if (e.kind == EvKind::Complete && e.rq == ev[std::size_t(*(at - 1))].rq) e.rq = w;
    const Conformance c = check_conformance(m, bad);
    CHECK_FALSE(c.ok);
    CHECK(c.message.find("the kernel issued writer.0") != std::string::npos);
    CHECK(c.message.find("would dispatch reader.7") != std::string::npos);
  }
  SUBCASE("a completion of a request that was never issued") {
    std::vector<Event> bad{Event{EvKind::Complete, 0, 0}};
    const Conformance c = check_conformance(m, bad);
    CHECK_FALSE(c.ok);
    CHECK(c.failed_at == 0);
  }
  SUBCASE("the park is issued first after the thaw, whatever the scheduler holds") {
    // A kernel that issued a read before the park blocker.4 on hctx->dispatch.
    auto bad = ev;
    const int park = id_of(p, "blocker", 4);
    std::size_t park_issue = 0;
    for (std::size_t i = 0; i < bad.size(); ++i)
      if (bad[i].kind == EvKind::Issue && bad[i].rq == park) park_issue = i;
    REQUIRE(park_issue > 0);
    bad[park_issue].rq = id_of(p, "reader", 0);
    const Conformance c = check_conformance(m, bad);
    CHECK_FALSE(c.ok);
    CHECK(c.message.find("parked on hctx->dispatch") != std::string::npos);
  }
}

TEST_CASE("device: conformance allows the pull at any moment since the slot emptied") {
  // Ungated: a reader submits after the scheduler could already have
  // pulled the write; the kernel may issue either.
  const Plan p = make_plan(
      "device depth=4 slot=1\nproc w dir=W sync=1 reqs=10\nproc r dir=R sync=1 reqs=0\n", "pull");
  CHECK_FALSE(p.gated);  // sync processes: no gate is added
  const sched::DeadlineModel m(0, deadline_params(16, 2), p.wl);
  const std::vector<Event> ev{{EvKind::Insert, 0, 0}, {EvKind::Insert, 1, 0}, {EvKind::Issue, 0, 0},
                              {EvKind::Issue, 1, 0},  {EvKind::Complete, 1, 0}, {EvKind::Complete, 0, 0}};
  CHECK(check_conformance(m, ev).ok);
}

TEST_CASE("device: fio job text") {
  const Plan p = plan_of("gated-write-idle");
  const FioExport fx = export_fio(p, "/tmp/x/job.fio", "/dev/loop9");
  CHECK(fx.job.find("[global]\nioengine=libaio\ndirect=1\n") != std::string::npos);
  CHECK(fx.job.find("[idle]\n") != std::string::npos);
  CHECK(fx.job.find("prioclass=3\nprio=7\n") != std::string::npos);
  CHECK(fx.job.find("read_iolog=/tmp/x/job.reader.iolog\niodepth=48\n") != std::string::npos);
  CHECK(fx.job.find("startdelay=50ms") != std::string::npos);
  REQUIRE(fx.iologs.size() == 4);
  CHECK(fx.iologs[3].first == "/tmp/x/job.reader.iolog");
  CHECK(fx.iologs[2].second ==
        "fio version 2 iolog\n/dev/loop9 add\n/dev/loop9 open\n/dev/loop9 write 409600 4096\n/dev/loop9 close\n");
  const Plan s = make_plan("device depth=4\nproc a dir=R sync=1 reqs=1,2:2\n", "s");
  const FioExport fs = export_fio(s, "j.fio", "t");
  CHECK(fs.job.find("iodepth=1\n") != std::string::npos);
  CHECK(fs.iologs[0].second.find("t read 8192 8192\n") != std::string::npos);
  // A process named global (or global2: fio takes any [global...] section
  // for [global]), or with characters fio's section reading keeps, gets a
  // section of its own: one [global], one job per process.
  const Plan g = make_plan("device depth=4\nproc global dir=R sync=1 reqs=1\nproc a]b;$../x dir=R sync=1 reqs=2\n"
                           "proc a_b__.._x dir=R sync=1 reqs=3\nproc global2 dir=R sync=1 reqs=4\n", "g");
  const FioExport fg = export_fio(g, "j.fio", "t");
  auto count = [&](const std::string& what) {
    int n = 0;
    for (std::size_t at = fg.job.find(what); at != std::string::npos; at = fg.job.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("\n[global]\n") == 1);
  CHECK(count("\n[") == 5);
  CHECK(count("\n[global") == 1);  // fio reads any [global...] section as [global]
  CHECK(count("read_iolog=") == 4);
  CHECK(fg.job.find("[_global]\n; process global\n") != std::string::npos);
  CHECK(fg.job.find("[_global2]\n; process global2\n") != std::string::npos);
  CHECK(fg.job.find("[a_b__.._x]\n; process a]b;$../x\n") != std::string::npos);
  CHECK(fg.job.find("[a_b__.._x-2]\n; process a_b__.._x\n") != std::string::npos);
}

// What the inflight model says each file reports on a held row: the tag walk
// (sysfs inflight) sees only started requests, the whole disk all of them;
// the per-CPU counters (stat, diskstats) count from blk_account_io_start, so
// queued requests too, but each on req->part only: the whole-disk line
// misses partition I/O (7be835694dae).
TEST_CASE("device: the inflight model's prediction for a held row") {
  using blkmc::device::InflightRow;
  const InflightRow row{"t", {0, 1, 0, 2}, {0, 1, 2}};
  const auto reads = blkmc::device::predict_inflight(row, "loop9");
  auto value = [&](const std::string& phase, const std::string& file) {
    for (const auto& r : reads)
      if (r.phase == phase && r.file == file) return r.model;
    FAIL("no read " << phase << " " << file);
    return -1;
  };
  REQUIRE(reads.size() == 18);  // 3 files x (disk + 2 partitions) x 2 phases
  CHECK(value("held", "loop9/inflight") == 4);
  CHECK(value("held", "loop9/loop9p1/inflight") == 1);
  CHECK(value("held", "loop9/loop9p2/inflight") == 1);
  CHECK(value("held", "loop9/stat") == 3);
  CHECK(value("held", "diskstats loop9") == 3);
  CHECK(value("held", "loop9/loop9p1/stat") == 2);
  CHECK(value("held", "diskstats loop9p2") == 2);
  for (const auto& r : reads)
    if (r.phase == "drained") CHECK(r.model == 0);
  CHECK(blkmc::device::targets_string(row.driver) == "D,p1,D,p2");
  for (const auto& rr : blkmc::device::inflight_rows()) {
    CHECK(rr.driver.size() == 4);
    CHECK(rr.queued.size() <= 4);
  }
}

TEST_CASE("device: the in-flight counter files of 6.18") {
  using namespace blkmc::device;
  CHECK(inflight_sum("       2        3\n") == 5);
  CHECK(inflight_sum("x") == -1);
  CHECK(stat_in_progress("  1 0 8 0  2 0 16 0  7  3 5 0 0 0 0 0 0\n") == 7);
  CHECK(stat_in_progress("1 2 3") == -1);
  const std::string ds =
      "   7       1 loop1 10 0 80 1 20 0 160 2 3 4 5 0 0 0 0 0 0 0\n"
      " 259       0 loop1p1 1 0 8 0 2 0 16 0 2 1 1 0 0 0 0 0 0 0\n"
      " 259       1 loop1p2 1 0 8 0 2 0 16\n";
  const auto v = diskstats_in_progress(ds, {"loop1", "loop1p1", "loop1p2", "loop9"});
  CHECK(v == std::vector<long long>{3, 2, -1, -1});
}

}  // namespace device_test
