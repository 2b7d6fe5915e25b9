#include "device/capture.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "device/env.hpp"
#include "device/text_fields.hpp"

namespace blkmc::device {

int CapEvent::dir() const {
  for (char c : rwbs) {
    if (c == 'W') return 1;
    if (c == 'R') return 0;
    if (c == 'D' || c == 'N') return -1;
  }
  return -1;
}

namespace {

// The record layout of include/uapi/linux/blktrace_api.h, version 7: 48
// bytes, then pdu_len bytes of payload.
constexpr std::uint32_t kMagic = 0x65617400;
constexpr std::size_t kRecord = 48;
// Categories (action >> 16) and action codes (action & 0xff) read here.
enum : std::uint32_t {
  kTcWrite = 1u << 1,
  kTcFlush = 1u << 2,
  kTcSync = 1u << 3,
  kTcNotify = 1u << 10,
  kTcAhead = 1u << 11,
  kTcMeta = 1u << 12,
  kTcDiscard = 1u << 13,
  kTcFua = 1u << 15,
};
enum : std::uint32_t { kTaQueue = 1, kTaRequeue = 6, kTaIssue = 7, kTaComplete = 8, kTaInsert = 12 };
constexpr std::uint32_t kTaCgroup = 1u << 8;  // a cgroup id (8 bytes) starts the payload
constexpr std::uint32_t kTnProcess = 0;       // a notification: the comm of a pid

// "SECONDS.FRACTION" (any number of fraction digits) in nanoseconds.
bool to_ns(std::string_view t, std::uint64_t& ns) {
  const auto dot = t.find('.');
  std::uint64_t sec = 0, frac = 0;
  if (dot == std::string_view::npos || !to_num(t.substr(0, dot), sec)) return false;
  std::string_view f = t.substr(dot + 1);
  if (f.size() > 9) f = f.substr(0, 9);
  if (!to_num(f, frac)) return false;
  for (std::size_t n = f.size(); n < 9; ++n) frac *= 10;
  ns = sec * 1000000000ull + frac;
  return true;
}

bool to_dev(std::string_view t, unsigned& major, unsigned& minor) {
  const auto comma = t.find(',');
  return comma != std::string_view::npos && to_num(t.substr(0, comma), major) &&
         to_num(t.substr(comma + 1), minor);
}

struct LineError {
  std::string what;
};

// "rt,0,4" (class, hint, level: 6.10 on) or "be,4".
bool parse_ioprio(std::string_view t, CapEvent& e) {
  static const std::pair<const char*, int> classes[] = {{"none", 0}, {"rt", 1}, {"be", 2}, {"idle", 3}};
  const auto comma = t.find(',');
  if (comma == std::string_view::npos) return false;
  const std::string_view cls = t.substr(0, comma);
  const auto last = t.rfind(',');
  int level = 0;
  if (!to_num(t.substr(last + 1), level)) return false;
  for (const auto& [n, c] : classes)
    if (cls == n) {
      e.prio_class = c;
      e.prio_level = level;
      return true;
    }
  return false;
}

// After the device and rwbs: [BYTES] [(CMD)] SECTOR + NR [IOPRIO] [TAIL]. The
// tail in brackets is the comm (queue, insert, issue) or an error number.
// False when the event carries no sector (a passthrough command's issue).
bool parse_request_tail(std::string_view rest, CapEvent& e) {
  std::string_view t = next_token(rest);
  std::uint64_t num = 0;
  if (to_num(t, num)) {
    std::string_view peek = rest;
    if (next_token(peek) != "+") t = next_token(rest);  // a byte count
  }
  if (!t.empty() && t.front() == '(') {
    // The command, "()" or "(12 00 ...)": up to its ')'.
    while (!t.empty() && t.back() != ')') t = next_token(rest);
    t = next_token(rest);
  }
  if (t.empty() || t.front() == '[') return false;
  if (!to_num(t, e.sector)) throw LineError{fmt::format("sector '{}' is not a number", t)};
  if (next_token(rest) != "+") throw LineError{"no '+' after the sector"};
  const std::string_view nr = next_token(rest);
  if (!to_num(nr, e.nr_sectors)) throw LineError{fmt::format("length '{}' is not a number", nr)};
  t = next_token(rest);
  if (!t.empty() && t.front() != '[') {
    if (!parse_ioprio(t, e)) throw LineError{fmt::format("ioprio '{}' is not CLASS,HINT,LEVEL", t)};
    t = next_token(rest);
  }
  // The comm in brackets (it may hold spaces: up to the last ']').
  if (!t.empty() && t.front() == '[' &&
      (e.act == CapAct::Queue || e.act == CapAct::Insert || e.act == CapAct::Issue)) {
    const std::string whole = std::string(t) + std::string(rest);
    const auto close = whole.rfind(']');
    if (close != std::string::npos && close > 1) e.comm = whole.substr(1, close - 1);
  }
  return true;
}

std::optional<CapAct> act_of(std::string_view a) {
  if (a.size() != 1) return std::nullopt;
  switch (a[0]) {
    case 'Q': return CapAct::Queue;
    case 'I': return CapAct::Insert;
    case 'D': return CapAct::Issue;
    case 'C': return CapAct::Complete;
    case 'R': return CapAct::Requeue;
    default: return std::nullopt;
  }
}

// "comm-pid [cpu] flags TIMESTAMP" before a tracefs event: the task and time.
bool parse_task_head(std::string_view head, CapEvent& e) {
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  const auto sp = head.find_last_of(' ');
  const std::string_view ts = sp == std::string_view::npos ? head : head.substr(sp + 1);
  if (!to_ns(ts, e.ts_ns)) return false;
  // The CPU field "[001]": the task is what precedes it.
  std::size_t cpu = std::string_view::npos;
  for (std::size_t i = head.find('['); i != std::string_view::npos; i = head.find('[', i + 1)) {
    const auto close = head.find(']', i);
    unsigned n = 0;
    if (close != std::string_view::npos && to_num(head.substr(i + 1, close - i - 1), n)) cpu = i;
  }
  if (cpu == std::string_view::npos) return false;
  std::string_view task = head.substr(0, cpu);
  while (!task.empty() && task.front() == ' ') task.remove_prefix(1);
  while (!task.empty() && task.back() == ' ') task.remove_suffix(1);
  const auto dash = task.rfind('-');
  if (dash == std::string_view::npos || !to_num(task.substr(dash + 1), e.pid)) return false;
  e.comm = std::string(task.substr(0, dash));
  return true;
}

// A tracefs line: nullopt when it holds no request event; throws LineError
// when it is one but malformed.
std::optional<CapEvent> tracefs_line(std::string_view line) {
  // The event's name as the line shows it, between ": " and ": ".
  static const struct {
    std::string_view key;
    const char* name;
    CapAct act;
  } kinds[] = {{": block_bio_queue: ", "block_bio_queue", CapAct::Queue},
               {": block_rq_insert: ", "block_rq_insert", CapAct::Insert},
               {": block_rq_issue: ", "block_rq_issue", CapAct::Issue},
               {": block_rq_complete: ", "block_rq_complete", CapAct::Complete},
               {": block_rq_requeue: ", "block_rq_requeue", CapAct::Requeue}};
  for (const auto& [key, name, act] : kinds) {
    const auto at = line.find(key);
    if (at == std::string_view::npos) continue;
    CapEvent e;
    e.act = act;
    if (!parse_task_head(line.substr(0, at), e)) throw LineError{fmt::format("{}: no task and time before it", name)};
    std::string_view rest = line.substr(at + key.size());
    const std::string_view dev = next_token(rest);
    if (!to_dev(dev, e.major, e.minor)) throw LineError{fmt::format("{}: device '{}' is not MAJOR,MINOR", name, dev)};
    e.rwbs = std::string(next_token(rest));
    // The task that queued or inserted is the submitter; a completion's
    // context (an interrupt, another task) says nothing about the request.
    if (act == CapAct::Complete || act == CapAct::Requeue) {
      e.pid = 0;
      e.comm.clear();
    }
    try {
      if (!parse_request_tail(rest, e)) return std::nullopt;
    } catch (const LineError& x) {
      throw LineError{fmt::format("{}: {}", name, x.what)};
    }
    return e;
  }
  return std::nullopt;
}

// The `blk` tracer's line: "comm-pid [cpu] flags TS: MAJ,MIN ACT RWBS ...".
std::optional<CapEvent> blk_tracer_line(std::string_view line) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(colon + 2);
  CapEvent e;
  const std::string_view dev = next_token(rest);
  if (!to_dev(dev, e.major, e.minor)) return std::nullopt;
  const auto act = act_of(next_token(rest));
  if (!act || !parse_task_head(line.substr(0, colon), e)) return std::nullopt;
  e.act = *act;
  e.rwbs = std::string(next_token(rest));
  if (e.act == CapAct::Complete || e.act == CapAct::Requeue) {
    e.pid = 0;
    e.comm.clear();
  }
  if (!parse_request_tail(rest, e)) return std::nullopt;
  return e;
}

// blkparse's default line: "MAJ,MIN CPU SEQ SECONDS PID ACT RWBS ...".
std::optional<CapEvent> blkparse_line(std::string_view line) {
  std::string_view rest = line;
  CapEvent e;
  if (!to_dev(next_token(rest), e.major, e.minor)) return std::nullopt;
  unsigned cpu = 0, seq = 0;
  if (!to_num(next_token(rest), cpu) || !to_num(next_token(rest), seq)) return std::nullopt;
  if (!to_ns(next_token(rest), e.ts_ns)) return std::nullopt;
  if (!to_num(next_token(rest), e.pid)) return std::nullopt;
  const auto act = act_of(next_token(rest));
  if (!act) return std::nullopt;  // plugs, merges, splits, remaps, messages
  e.act = *act;
  e.rwbs = std::string(next_token(rest));
  if (e.act == CapAct::Complete || e.act == CapAct::Requeue) e.pid = 0;
  if (!parse_request_tail(rest, e)) return std::nullopt;
  return e;
}

std::uint32_t bswap32(std::uint32_t v) { return __builtin_bswap32(v); }
std::uint64_t bswap64(std::uint64_t v) { return __builtin_bswap64(v); }

// A capture's bytes: a regular file of at most 2 GiB (read_file of
// device/env.hpp, its failures a usage error).
std::string read_capture_file(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) throw UsageError(fmt::format("{}: no such file", path));
  if (!S_ISREG(st.st_mode)) throw UsageError(fmt::format("{}: not a regular file", path));
  constexpr off_t kMax = off_t(1) << 31;
  if (st.st_size > kMax)
    throw UsageError(fmt::format("{}: {} bytes; captures up to 2 GiB are read (cut it with blkparse or trace-cmd)",
                                 path, st.st_size));
  try {
    return read_file(path);
  } catch (const std::runtime_error&) {
    throw UsageError(fmt::format("{}: cannot be read", path));
  }
}

}  // namespace

bool is_blktrace_binary(std::string_view bytes) {
  if (bytes.size() < 4) return false;
  std::uint32_t m = 0;
  std::memcpy(&m, bytes.data(), 4);
  return (m & 0xffffff00) == kMagic || (bswap32(m) & 0xffffff00) == kMagic;
}

Capture parse_capture_text(std::string_view text, const std::string& name) {
  Capture cap;
  cap.name = name;
  std::size_t lineno = 0;
  std::uint64_t last_ts = 0;
  int fmt_seen = 0;  // 1 tracefs (events or the blk tracer), 2 blkparse
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++lineno;
    ++cap.records;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::optional<CapEvent> e;
    int f = 0;
    try {
      if ((e = tracefs_line(line))) f = 1;
      else if ((e = blk_tracer_line(line))) f = 1;
      else if ((e = blkparse_line(line))) f = 2;
    } catch (const LineError& x) {
      throw UsageError(fmt::format("{} line {}: {}", name, lineno, x.what));
    }
    if (!e) continue;  // other events, blkparse's summary, trace-cmd's header
    if (fmt_seen && f != fmt_seen)
      throw UsageError(fmt::format("{} line {}: a blkparse line among tracefs lines (or the other way round)", name,
                                   lineno));
    fmt_seen = f;
    if (e->ts_ns < last_ts)
      throw UsageError(fmt::format("{} line {}: events out of order ({:.9f} s after {:.9f} s)", name, lineno,
                                   double(e->ts_ns) / 1e9, double(last_ts) / 1e9));
    last_ts = e->ts_ns;
    e->where = lineno;
    cap.events.push_back(std::move(*e));
  }
  if (cap.events.empty())
    throw UsageError(fmt::format("{}: not a blktrace capture, blkparse text or tracefs text (no block request "
                                 "events in {} lines)",
                                 name, lineno));
  cap.format = fmt_seen == 2 ? "blkparse" : "tracefs";
  return cap;
}

Capture parse_capture_binary(const std::vector<std::string_view>& files, const std::vector<std::string>& names) {
  Capture cap;
  cap.name = names.empty() ? "" : names.front();
  cap.format = "blktrace";
  std::map<std::uint32_t, std::string> comms;  // pid -> comm, from the process notifications
  struct Keyed {
    std::uint64_t ts;
    std::size_t file, n;
  };
  std::vector<Keyed> order;
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const std::string_view b = files[fi];
    const std::string& name = names[fi];
    std::size_t off = 0, n = 0;
    std::uint64_t last_ts = 0;
    while (off < b.size()) {
      ++n;
      ++cap.records;
      if (b.size() - off < kRecord)
        throw UsageError(fmt::format("{}: record {} at byte {} is truncated ({} of {} bytes)", name, n, off,
                                     b.size() - off, kRecord));
      auto u32 = [&](std::size_t at) {
        std::uint32_t v;
        std::memcpy(&v, b.data() + off + at, 4);
        return v;
      };
      auto u64 = [&](std::size_t at) {
        std::uint64_t v;
        std::memcpy(&v, b.data() + off + at, 8);
        return v;
      };
      auto u16 = [&](std::size_t at) {
        std::uint16_t v;
        std::memcpy(&v, b.data() + off + at, 2);
        return v;
      };
      std::uint32_t magic = u32(0);
      const bool swap = (magic & 0xffffff00) != kMagic;
      if (swap) magic = bswap32(magic);
      if ((magic & 0xffffff00) != kMagic)
        throw UsageError(fmt::format("{}: record {} at byte {}: magic {:#010x} is not blktrace's", name, n, off, magic));
      if ((magic & 0xff) != 7)
        throw UsageError(fmt::format("{}: record {} at byte {}: version {} (this reads version 7, blkparse's "
                                     "struct blk_io_trace)",
                                     name, n, off, magic & 0xff));
      auto s32 = [&](std::size_t at) { return swap ? bswap32(u32(at)) : u32(at); };
      auto s64 = [&](std::size_t at) { return swap ? bswap64(u64(at)) : u64(at); };
      const std::uint16_t pdu = swap ? __builtin_bswap16(u16(46)) : u16(46);
      if (b.size() - off < kRecord + pdu)
        throw UsageError(fmt::format("{}: record {} at byte {} is truncated ({} of {} bytes)", name, n, off,
                                     b.size() - off, kRecord + pdu));
      const std::uint64_t ts = s64(8), sector = s64(16);
      const std::uint32_t bytes = s32(24), action = s32(28), pid = s32(32), device = s32(36);
      const std::uint32_t tc = action >> 16, code = action & 0xff;
      if (tc & kTcNotify) {
        if (code == kTnProcess) {
          std::size_t at = off + kRecord + ((action & kTaCgroup) ? 8 : 0);
          const std::size_t end = off + kRecord + pdu;
          std::string comm;
          for (; at < end && b[at] != '\0'; ++at) comm += b[at];
          comms[pid] = comm;
        }
      } else if (code == kTaQueue || code == kTaInsert || code == kTaIssue || code == kTaComplete ||
                 code == kTaRequeue) {
        if (ts < last_ts)
          throw UsageError(fmt::format("{}: record {} at byte {}: events out of order ({:.9f} s after {:.9f} s)",
                                       name, n, off, double(ts) / 1e9, double(last_ts) / 1e9));
        last_ts = ts;
        CapEvent e;
        e.act = code == kTaQueue     ? CapAct::Queue
                : code == kTaInsert  ? CapAct::Insert
                : code == kTaIssue   ? CapAct::Issue
                : code == kTaComplete ? CapAct::Complete
                                      : CapAct::Requeue;
        e.ts_ns = ts;
        e.pid = (e.act == CapAct::Complete || e.act == CapAct::Requeue) ? 0 : pid;
        e.major = device >> 20;
        e.minor = device & 0xfffff;
        e.sector = sector;
        e.nr_sectors = bytes / 512;
        // The rwbs blkparse prints for these categories.
        if (tc & kTcFlush) e.rwbs += 'F';
        e.rwbs += (tc & kTcDiscard) ? 'D' : (tc & kTcWrite) ? 'W' : bytes ? 'R' : 'N';
        if (tc & kTcFua) e.rwbs += 'F';
        if (tc & kTcAhead) e.rwbs += 'A';
        if (tc & kTcSync) e.rwbs += 'S';
        if (tc & kTcMeta) e.rwbs += 'M';
        e.where = n;
        order.push_back({ts, fi, cap.events.size()});
        cap.events.push_back(std::move(e));
      }
      off += kRecord + pdu;
    }
  }
  if (cap.events.empty())
    throw UsageError(fmt::format("{}: a blktrace capture without request events ({} records)", cap.name, cap.records));
  // The per-CPU files merged by time (ties: file order, then record order).
  std::stable_sort(order.begin(), order.end(), [](const Keyed& a, const Keyed& b) { return a.ts < b.ts; });
  std::vector<CapEvent> merged;
  merged.reserve(order.size());
  for (const Keyed& k : order) {
    CapEvent& e = cap.events[k.n];
    if (e.pid) {
      const auto it = comms.find(e.pid);
      if (it != comms.end()) e.comm = it->second;
    }
    merged.push_back(std::move(e));
  }
  cap.events = std::move(merged);
  return cap;
}

void keep_one_device(Capture& cap, int major, int minor) {
  std::set<std::pair<unsigned, unsigned>> devs;
  for (const CapEvent& e : cap.events) devs.insert({e.major, e.minor});
  auto list = [&] {
    std::string s;
    for (const auto& [a, b] : devs) s += fmt::format("{}{},{}", s.empty() ? "" : ", ", a, b);
    return s;
  };
  if (major >= 0) {
    if (!devs.count({unsigned(major), unsigned(minor)}))
      throw UsageError(fmt::format("{}: no events of device {},{} (it has {})", cap.name, major, minor, list()));
    std::erase_if(cap.events, [&](const CapEvent& e) { return e.major != unsigned(major) || e.minor != unsigned(minor); });
  } else if (devs.size() > 1) {
    throw UsageError(fmt::format("{}: events of several devices ({}); pick one with --device MAJOR,MINOR", cap.name,
                                 list()));
  }
}

Capture read_capture(const std::vector<std::string>& paths, int major, int minor) {
  if (paths.empty()) throw UsageError("no capture given");
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(p, ec) && fs::exists(p + ".blktrace.0", ec)) {
      for (int cpu = 0; fs::exists(fmt::format("{}.blktrace.{}", p, cpu), ec); ++cpu)
        files.push_back(fmt::format("{}.blktrace.{}", p, cpu));
    } else {
      files.push_back(p);
    }
  }
  std::vector<std::string> bytes;
  for (const std::string& f : files) bytes.push_back(read_capture_file(f));
  Capture cap;
  if (is_blktrace_binary(bytes.front())) {
    std::vector<std::string_view> views;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (!is_blktrace_binary(bytes[i]) && !bytes[i].empty())
        throw UsageError(fmt::format("{}: not a blktrace file, beside the blktrace file {}", files[i], files.front()));
      views.emplace_back(bytes[i]);
    }
    cap = parse_capture_binary(views, files);
  } else {
    if (files.size() > 1)
      throw UsageError(fmt::format("{}: several captures are read only as blktrace's per-CPU binary files", files[0]));
    cap = parse_capture_text(bytes.front(), files.front());
  }
  keep_one_device(cap, major, minor);
  return cap;
}

}  // namespace blkmc::device
