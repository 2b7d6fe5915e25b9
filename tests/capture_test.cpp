// Captures of one device read in each format (tracefs text, blkparse text,
// blktrace's binary records, either byte order) give the same workload; the
// sector renumbering keeps order and touching requests; bad captures are
// one-line errors naming the file and the event.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <rapidcheck.h>

#include "common/errors.hpp"
#include "device/capture.hpp"
#include "device/capture_import.hpp"
#include "model/sched/workload.hpp"

namespace capture_test {

using namespace blkmc;
using namespace blkmc::device;

// One request's life: queued by pid at q, issued at d, completed at c (µs).
struct Life {
  std::uint32_t pid;
  std::string comm;
  char dir;  // 'R' or 'W'
  bool sync;
  std::uint64_t sector;
  unsigned nr;
  std::uint64_t q, d, c;
};

struct Ev {
  std::uint64_t us;
  char act;
  const Life* l;
};

std::vector<Ev> events_of(const std::vector<Life>& lives) {
  std::vector<Ev> ev;
  for (const Life& l : lives) {
    ev.push_back({l.q, 'Q', &l});
    ev.push_back({l.q + 1, 'I', &l});
    ev.push_back({l.d, 'D', &l});
    ev.push_back({l.c, 'C', &l});
  }
  std::stable_sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.us < b.us; });
  return ev;
}

std::string rwbs(const Life& l) { return std::string(1, l.dir) + (l.sync ? "S" : ""); }

std::string tracefs_text(const std::vector<Life>& lives, unsigned minor = 1) {
  std::string t = "# tracer: nop\n#\n";
  for (const Ev& e : events_of(lives)) {
    const Life& l = *e.l;
    const std::string ts = fmt::format("{}.{:06}", 100 + e.us / 1000000, e.us % 1000000);
    const std::string task = e.act == 'C' ? "<idle>-0" : fmt::format("{}-{}", l.comm, l.pid);
    if (e.act == 'Q')
      t += fmt::format("{:>16} [001] ..... {}: block_bio_queue: 7,{} {} {} + {} [{}]\n", task, ts, minor, rwbs(l),
                       l.sector, l.nr, l.comm);
    else if (e.act == 'C')
      t += fmt::format("{:>16} [001] ..s1. {}: block_rq_complete: 7,{} {} () {} + {} be,0,4 [0]\n", task, ts, minor,
                       rwbs(l), l.sector, l.nr);
    else
      t += fmt::format("{:>16} [001] ..... {}: block_rq_{}: 7,{} {} {} () {} + {} be,0,4 [{}]\n", task, ts,
                       e.act == 'I' ? "insert" : "issue", minor, rwbs(l), l.nr * 512, l.sector, l.nr, l.comm);
    if (e.act == 'I')  // an event the import skips
      t += fmt::format("{:>16} [001] ..... {}: block_unplug: [{}] 1 explicit\n", task, ts, l.comm);
  }
  return t;
}

std::string blkparse_text(const std::vector<Life>& lives) {
  std::string t;
  int seq = 0;
  for (const Ev& e : events_of(lives)) {
    const Life& l = *e.l;
    t += fmt::format("  7,1    1 {:>8} {:>5}.{:09} {:>5}  {}  {:>2} {} + {} [{}]\n", ++seq, e.us / 1000000,
                     (e.us % 1000000) * 1000, e.act == 'C' ? 0 : l.pid, e.act, rwbs(l), l.sector, l.nr,
                     e.act == 'C' ? std::string("0") : l.comm);
  }
  t += "\nCPU1 (7,1):\n Reads Queued:           2,        8KiB\t Writes Queued:           2,        8KiB\n";
  return t;
}

// blktrace's records (struct blk_io_trace, version 7), one CPU's file.
std::string binary(const std::vector<Life>& lives, bool swap = false) {
  std::string b;
  auto put = [&](auto v) {
    if (swap) {
      if constexpr (sizeof v == 2) v = __builtin_bswap16(v);
      if constexpr (sizeof v == 4) v = __builtin_bswap32(v);
      if constexpr (sizeof v == 8) v = __builtin_bswap64(v);
    }
    char x[sizeof v];
    std::memcpy(x, &v, sizeof v);
    b.append(x, sizeof v);
  };
  auto record = [&](std::uint64_t ns, std::uint64_t sector, std::uint32_t bytes, std::uint32_t action,
                    std::uint32_t pid, const std::string& pdu) {
    put(std::uint32_t(0x65617407));
    put(std::uint32_t(0));
    put(ns);
    put(sector);
    put(bytes);
    put(action);
    put(pid);
    put(std::uint32_t((7u << 20) | 1));
    put(std::uint32_t(1));
    put(std::uint16_t(0));
    put(std::uint16_t(pdu.size()));
    b += pdu;
  };
  std::map<std::uint32_t, bool> noted;
  for (const Ev& e : events_of(lives)) {
    const Life& l = *e.l;
    if (!noted[l.pid]) {  // the process notification, comm padded to 16 bytes
      noted[l.pid] = true;
      std::string comm = l.comm;
      comm.resize(16, '\0');
      record(e.us * 1000, 0, 0, 1u << 26, l.pid, comm);
    }
    const std::uint32_t code = e.act == 'Q' ? 1 : e.act == 'I' ? 12 : e.act == 'D' ? 7 : 8;
    const std::uint32_t cat = e.act == 'Q' || e.act == 'I' ? 1u << 4 : e.act == 'D' ? 1u << 6 : 1u << 7;
    const std::uint32_t tc = cat | (l.dir == 'W' ? 1u << 1 : 1u << 0) | (l.sync ? 1u << 3 : 0);
    record(e.us * 1000, l.sector, l.nr * 512, code | (tc << 16), e.act == 'C' ? 0 : l.pid, "");
  }
  return b;
}

// A sync reader (waits for each completion) and an async writer, both fio.
std::vector<Life> reader_writer() {
  std::vector<Life> v;
  for (int i = 0; i < 4; ++i)
    v.push_back({100, "fio", 'R', true, 8000u + 64u * unsigned(i), 8, 1000u + 300u * unsigned(i),
                 1010u + 300u * unsigned(i), 1110u + 300u * unsigned(i)});
  for (int i = 0; i < 4; ++i)
    v.push_back({200, "fio", 'W', false, 100u + 8u * unsigned(i), 8, 1005u + 2u * unsigned(i),
                 1200u + 100u * unsigned(i), 1300u + 100u * unsigned(i)});
  std::stable_sort(v.begin(), v.end(), [](const Life& a, const Life& b) { return a.q < b.q; });
  return v;
}

// The workload lines, without the header comments (which name the file
// and format).
std::string body(const std::string& wl) {
  std::string out;
  std::size_t at = 0;
  while (at < wl.size()) {
    const auto nl = wl.find('\n', at);
    const std::string line = wl.substr(at, nl - at);
    if (!line.empty() && line[0] != '#') out += line + "\n";
    at = nl == std::string::npos ? wl.size() : nl + 1;
  }
  return out;
}

Imported import_text(const std::string& text, ImportOptions o = {}) {
  Capture c = parse_capture_text(text, "cap.txt");
  keep_one_device(c, -1, -1);
  return import_workload(c, o);
}

TEST_CASE("capture: tracefs text becomes a workload with the processes, directions and requests") {
  const Capture c = parse_capture_text(tracefs_text(reader_writer()), "cap.txt");
  CHECK(c.format == "tracefs");
  CHECK(c.events.size() == 32);
  CHECK(c.events.front().comm == "fio");
  CHECK(c.events.front().prio_class == -1);  // block_bio_queue has no ioprio
  const Imported im = import_workload(c, {});
  CHECK(im.kept == 8);
  CHECK(im.kept_procs == 2);
  const sched::Workload wl = sched::parse_workload(im.text, "x");
  REQUIRE(wl.procs.size() == 2);
  CHECK(wl.procs[0].name == "fio_100");
  CHECK(wl.procs[0].dir == sched::READ);
  CHECK(wl.procs[0].sync);
  CHECK(wl.procs[0].count == 4);
  CHECK(wl.procs[1].name == "fio_200");
  CHECK(wl.procs[1].dir == sched::WRITE);
  CHECK(!wl.procs[1].sync);
  CHECK(wl.procs[1].count == 4);
  CHECK(wl.dev.depth == 2);  // a read beside a write, at most
  CHECK(wl.has_fair());
  // The longest queue-to-complete time is the last write's (1011 to 1600).
  REQUIRE(wl.track >= 0);
  CHECK(wl.rqs[std::size_t(wl.track)].proc == 1);
  CHECK(wl.rqs[std::size_t(wl.track)].index == 3);
  // The writes touch each other: they stay touching; the reads are farther.
  for (int i = 1; i < 4; ++i) CHECK(wl.rqs[std::size_t(4 + i)].sector == wl.rqs[std::size_t(3 + i)].sector + 1);
  CHECK(wl.rqs[0].sector > wl.rqs[7].sector);
  CHECK(im.text.find("# Imported from cap.txt (tracefs, 32 events)") == 0);
  // The capture's own latencies, in ticks of the median service time
  // (100 us for the reads, 100 us for the writes: one tick is 100 us).
  REQUIRE(wl.observed.size() == 8);
  CHECK(wl.observed[0] == 1);  // a read: queued at 1000, completed at 1110
  CHECK(wl.observed[7] == 6);  // the last write: 1011 to 1600
}

TEST_CASE("capture: observed latencies are checked like the rest of a workload") {
  const std::string base = "device depth=2\nproc a dir=R reqs=1,2\nproc b dir=W reqs=5\n";
  sched::Workload wl = sched::parse_workload(base + "observed a 3,-\nobserved b 7\n", "x");
  CHECK(wl.observed == std::vector<int>{3, -1, 7});
  CHECK(sched::parse_workload(base, "x").observed.empty());
  wl = sched::parse_workload(base + "observed b 7\n", "x");
  CHECK(wl.observed == std::vector<int>{-1, -1, 7});
  CHECK_THROWS_WITH_AS(sched::parse_workload(base + "observed c 1\n", "x"),
                       doctest::Contains("line 4: observed: no process named 'c'"), UsageError);
  CHECK_THROWS_WITH_AS(sched::parse_workload(base + "observed a 1\n", "x"),
                       doctest::Contains("observed: a has 2 request(s), not 1"), UsageError);
  CHECK_THROWS_WITH_AS(sched::parse_workload(base + "observed a 1,2,3\n", "x"),
                       doctest::Contains("observed: a has 2 request(s)"), UsageError);
  CHECK_THROWS_WITH_AS(sched::parse_workload(base + "observed a 1,x\n", "x"), doctest::Contains("observed latency"),
                       UsageError);
  CHECK_THROWS_WITH_AS(sched::parse_workload(base + "observed a 1,2\nobserved a 1,2\n", "x"),
                       doctest::Contains("observed a given twice"), UsageError);
}

TEST_CASE("capture: blkparse text and blktrace's binary records (either byte order) give the same workload") {
  const std::vector<Life> lives = reader_writer();
  const std::string want = body(import_text(tracefs_text(lives)).text);
  const Capture p = parse_capture_text(blkparse_text(lives), "cap.blkparse");
  CHECK(p.format == "blkparse");
  CHECK(body(import_workload(p, {}).text) == want);
  for (bool swap : {false, true}) {
    const std::string b = binary(lives, swap);
    CHECK(is_blktrace_binary(b));
    const Capture c = parse_capture_binary({b}, {"cap.blktrace.0"});
    CHECK(c.format == "blktrace");
    CHECK(c.events.size() == 32);
    CHECK(c.events.front().comm == "fio");
    CHECK(body(import_workload(c, {}).text) == want);
  }
  // Two per-CPU files: the reader's on one, the writer's on the other.
  std::vector<Life> r(lives.begin(), lives.end()), w;
  std::erase_if(r, [](const Life& l) { return l.pid == 200; });
  for (const Life& l : lives)
    if (l.pid == 200) w.push_back(l);
  const std::string a = binary(r), bb = binary(w);
  CHECK(body(import_workload(parse_capture_binary({a, bb}, {"c.0", "c.1"}), {}).text) == want);
}

TEST_CASE("capture: --window, --procs, --max-requests and --track cut the capture") {
  const std::string t = tracefs_text(reader_writer());
  ImportOptions o;
  o.procs = {"200"};
  Imported im = import_text(t, o);
  CHECK(im.kept == 4);
  CHECK(sched::parse_workload(im.text, "x").procs.size() == 1);
  o = {};
  o.max_requests = 3;
  im = import_text(t, o);
  CHECK(im.kept == 3);
  CHECK(im.text.find("5 past --max-requests 3") != std::string::npos);
  o = {};
  o.window = "2..5";  // requests 2, 3, 4 by submission order
  CHECK(import_text(t, o).kept == 3);
  o.window = "..0.2ms";  // submitted within 200 us of the first event: the first read and the writes
  CHECK(import_text(t, o).kept == 5);
  o.window = "0.5s..";
  CHECK_THROWS_WITH_AS(import_text(t, o), doctest::Contains("no requests left"), UsageError);
  o = {};
  o.track = "fio_100:2";
  const sched::Workload wl = sched::parse_workload(import_text(t, o).text, "x");
  CHECK(wl.rqs[std::size_t(wl.track)].index == 2);
  o.track = "nobody";
  CHECK_THROWS_WITH_AS(import_text(t, o), doctest::Contains("--track nobody"), UsageError);
  for (const char* bad : {"1..x", "5..2", "1s", "2s..1s", "abc..def", "-1..3"}) {
    o = {};
    o.window = bad;
    CHECK_THROWS_AS(import_text(t, o), UsageError);
  }
  o = {};
  o.max_requests = 65;
  CHECK_THROWS_WITH_AS(import_text(t, o), doctest::Contains("--max-requests 65"), UsageError);
}

TEST_CASE("capture: bad captures are one-line errors naming the file and the event") {
  CHECK_THROWS_WITH_AS(parse_capture_text("hello\nworld\n", "notes.txt"),
                       doctest::Contains("notes.txt: not a blktrace capture"), UsageError);
  const std::string b = binary(reader_writer());
  CHECK_THROWS_WITH_AS(parse_capture_binary({std::string_view(b).substr(0, b.size() - 5)}, {"cut.0"}),
                       doctest::Contains("is truncated"), UsageError);
  std::string corrupt = b;
  corrupt[48 + 16 + 48] ^= 0x55;  // the magic of the third record
  CHECK_THROWS_WITH_AS(parse_capture_binary({corrupt}, {"bad.0"}), doctest::Contains("bad.0: record 3 at byte 112"),
                       UsageError);
  // Two devices: an error unless one is picked.
  std::vector<Life> lives = reader_writer();
  std::string two = tracefs_text(lives);
  const auto at = two.find("7,1 ");
  two.replace(at, 4, "8,0 ");
  Capture c = parse_capture_text(two, "two.txt");
  CHECK_THROWS_WITH_AS(keep_one_device(c, -1, -1), doctest::Contains("several devices (7,1, 8,0)"), UsageError);
  keep_one_device(c, 7, 1);
  CHECK(c.events.size() == 31);
  CHECK_THROWS_WITH_AS(keep_one_device(c, 9, 9), doctest::Contains("no events of device 9,9"), UsageError);
  // Out of order.
  std::string late = tracefs_text(lives);
  const auto second = late.find("block_bio_queue", late.find("block_bio_queue") + 1);
  const auto ts = late.rfind("100.", second);
  late.replace(ts, 4, "099.");
  CHECK_THROWS_WITH_AS(parse_capture_text(late, "late.txt"), doctest::Contains("events out of order"), UsageError);
  // A malformed request event.
  CHECK_THROWS_WITH_AS(
      parse_capture_text("fio-1 [000] ..... 1.000000: block_rq_issue: 7,1 R 4096 () x + 8 [fio]\n", "m.txt"),
      doctest::Contains("m.txt line 1: block_rq_issue: sector 'x'"), UsageError);
}

TEST_CASE("capture: renumbered sectors keep the order, touching and containment, within 0..255") {
  CHECK(rc::check("renumber", [] {
    const int n = *rc::gen::inRange(1, 40);
    std::vector<Life> lives;
    std::uint64_t t = 1000;
    for (int i = 0; i < n; ++i) {
      const unsigned nr = *rc::gen::element(1u, 8u, 16u, 256u, 1024u);
      std::uint64_t sector = *rc::gen::inRange<std::uint64_t>(0, 1u << 30);
      if (i && *rc::gen::inRange(0, 3) == 0) sector = lives.back().sector + lives.back().nr;  // touching
      lives.push_back({100, "dd", 'R', false, sector, nr, t, t + 5, t + 50});
      t += 10;
    }
    ImportOptions o;
    o.max_requests = n;
    const sched::Workload wl = sched::parse_workload(import_text(tracefs_text(lives), o).text, "x");
    RC_ASSERT(wl.rqs.size() == std::size_t(n));
    for (int i = 0; i < n; ++i) {
      const auto& a = wl.rqs[std::size_t(i)];
      RC_ASSERT(a.sector >= 0);
      RC_ASSERT(a.sector + a.size - 1 <= sched::kMaxSector);
      for (int j = 0; j < n; ++j) {
        const auto& b = wl.rqs[std::size_t(j)];
        const Life &x = lives[std::size_t(i)], &y = lives[std::size_t(j)];
        if (x.sector < y.sector) RC_ASSERT(a.sector < b.sector);
        if (x.sector == y.sector) RC_ASSERT(a.sector == b.sector);
        if (x.sector + x.nr == y.sector) RC_ASSERT(a.sector + a.size == b.sector);
        if (x.sector <= y.sector && y.sector + y.nr <= x.sector + x.nr)
          RC_ASSERT(a.sector <= b.sector && b.sector + b.size <= a.sector + a.size);
      }
    }
  }));
}

TEST_CASE("capture: mutated captures are imported or refused with a one-line error, never crash") {
  const std::vector<Life> lives = reader_writer();
  const std::string forms[] = {tracefs_text(lives), blkparse_text(lives), binary(lives), binary(lives, true)};
  CHECK(rc::check("mutations", [&] {
    std::string s = forms[*rc::gen::inRange(0, 4)];
    const int n = *rc::gen::inRange(1, 8);
    for (int i = 0; i < n; ++i) {
      const auto at = *rc::gen::inRange<std::size_t>(0, s.size());
      switch (*rc::gen::inRange(0, 3)) {
        case 0:
          s[at] = *rc::gen::arbitrary<char>();
          break;
        case 1:
          s.erase(at, *rc::gen::inRange<std::size_t>(1, 60));
          break;
        default:
          s.insert(at, 1, *rc::gen::element('0', '9', ' ', '\n', '[', ']', '+', ',', '(', ')', '-', '.', ':'));
          break;
      }
      if (s.empty()) s = "x";
    }
    try {
      Capture c = is_blktrace_binary(s) ? parse_capture_binary({s}, {"m.0"}) : parse_capture_text(s, "m.txt");
      keep_one_device(c, -1, -1);
      ImportOptions o;
      o.max_requests = *rc::gen::inRange(1, 65);
      const Imported im = import_workload(c, o);
      sched::parse_workload(im.text, "x");
    } catch (const UsageError& e) {
      RC_ASSERT(std::string(e.what()).find('\n') == std::string::npos);
    }
  }));
}

}  // namespace capture_test
