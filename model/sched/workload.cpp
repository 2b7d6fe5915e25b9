#include "model/sched/workload.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "model/params.hpp"

namespace blkmc::sched {

bool Workload::any_cyclic() const {
  for (const auto& p : procs)
    if (p.cyclic) return true;
  return false;
}

namespace {

struct LineError {
  std::string what;
};

int to_int(const std::string& key, const std::string& v, int lo, int hi) {
  int x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty())
    throw LineError{fmt::format("{}: '{}' is not an integer", key, v)};
  if (x < lo || x > hi)
    throw LineError{fmt::format("{}={} is out of range {}..{}", key, x, lo, hi)};
  return x;
}

bool to_bool(const std::string& key, const std::string& v) { return to_int(key, v, 0, 1) != 0; }

int to_dir(const std::string& key, const std::string& v) {
  if (v == "R" || v == "r" || v == "read") return READ;
  if (v == "W" || v == "w" || v == "write") return WRITE;
  throw LineError{fmt::format("{}: '{}' is not R or W", key, v)};
}

// key=value words after the keyword; every key at most once.
std::map<std::string, std::string> options(const std::vector<std::string>& words,
                                           std::size_t from) {
  std::map<std::string, std::string> out;
  for (std::size_t i = from; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq == std::string::npos || eq == 0)
      throw LineError{fmt::format("'{}' is not of the form key=value", words[i])};
    const std::string k = words[i].substr(0, eq);
    if (!out.emplace(k, words[i].substr(eq + 1)).second)
      throw LineError{fmt::format("{} given twice", k)};
  }
  return out;
}

void check_keys(const std::map<std::string, std::string>& o,
                std::initializer_list<const char*> valid) {
  for (const auto& [k, v] : o) {
    bool ok = false;
    std::string names;
    for (const char* n : valid) {
      ok = ok || k == n;
      names += names.empty() ? n : std::string(", ") + n;
    }
    if (!ok) throw LineError{fmt::format("unknown option '{}' (valid: {})", k, names)};
  }
}

void parse_device(const std::map<std::string, std::string>& o, DeviceSpec& d) {
  check_keys(o, {"depth", "slot", "spindles", "rotational", "service", "seek", "requeue"});
  for (const auto& [k, v] : o) {
    if (k == "depth")
      d.depth = to_int(k, v, 1, 16);
    else if (k == "slot")
      d.slot = to_bool(k, v);
    else if (k == "spindles")
      d.spindles = to_int(k, v, 1, 16);
    else if (k == "rotational")
      d.rotational = to_bool(k, v);
    else if (k == "service")
      d.service = to_int(k, v, 0, 15);
    else if (k == "seek")
      d.seek = to_int(k, v, 0, 15);
    else
      d.requeue = to_int(k, v, 0, 15);
  }
  if (d.spindles > d.depth) throw LineError{"spindles must not exceed depth"};
}

void parse_prio(const std::string& v, WlProc& p) {
  const auto colon = v.find(':');
  const std::string cls = v.substr(0, colon);
  if (cls == "rt")
    p.prio = RT;
  else if (cls == "be" || cls == "none")
    p.prio = BE;
  else if (cls == "idle")
    p.prio = IDLE;
  else
    throw LineError{fmt::format("prio: '{}' is not rt, be, idle or none", cls)};
  if (colon != std::string::npos) p.level = to_int("prio level", v.substr(colon + 1), 0, 7);
}

void parse_proc(const std::vector<std::string>& w, bool pre_gate, Workload& wl) {
  if (w.size() < 2) throw LineError{"proc needs a name"};
  WlProc p;
  p.name = w[1];
  for (const auto& q : wl.procs)
    if (q.name == p.name) throw LineError{fmt::format("process '{}' defined twice", p.name)};
  if (p.name.find(':') != std::string::npos || p.name.find('=') != std::string::npos)
    throw LineError{fmt::format("process name '{}' may not contain ':' or '='", p.name)};
  const auto o = options(w, 2);
  check_keys(o, {"dir", "sync", "prio", "think", "delay", "cyclic", "head", "bypass", "req_sync", "reqs",
                 "stream", "start", "stride", "size"});
  if (auto it = o.find("dir"); it != o.end()) p.dir = to_dir("dir", it->second);
  for (const auto& [k, v] : o) {
    if (k == "sync")
      p.sync = to_bool(k, v);
    else if (k == "prio")
      parse_prio(v, p);
    else if (k == "think")
      p.think = to_int(k, v, 0, 15);
    else if (k == "delay")
      p.delay = to_int(k, v, 0, 60);
    else if (k == "cyclic")
      p.cyclic = to_bool(k, v);
    else if (k == "head")
      p.head = to_bool(k, v);
    else if (k == "bypass")
      p.bypass = to_bool(k, v);
    else if (k == "req_sync")
      p.req_sync = to_bool(k, v);
  }
  if (p.head && p.bypass) throw LineError{"head=1 and bypass=1 exclude each other"};
  p.pre_gate = pre_gate;
  p.first = static_cast<int>(wl.rqs.size());
  const int id = static_cast<int>(wl.procs.size());
  // One rule for every request, from reqs= or stream=: it lies within
  // sectors 0..kMaxSector, its last sector included.
  auto add = [&](int dir, int sector, int size) {
    if (sector + size - 1 > kMaxSector)
      throw LineError{fmt::format("a request at sector {} of {} sectors reaches sector {} (max {})", sector, size,
                                  sector + size - 1, kMaxSector)};
    if (static_cast<int>(wl.rqs.size()) >= kMaxRqs)
      throw LineError{fmt::format("more than {} requests in the workload", kMaxRqs)};
    wl.rqs.push_back({id, p.count++, dir, sector, size});
  };
  const bool has_reqs = o.count("reqs"), has_stream = o.count("stream");
  if (has_reqs == has_stream) throw LineError{"give exactly one of reqs= and stream="};
  if (has_reqs) {
    if (o.count("start") || o.count("stride") || o.count("size"))
      throw LineError{"start=, stride= and size= go with stream="};
    const std::string& list = o.at("reqs");
    // getline drops a last empty entry: "0,50," must not read as "0,50".
    if (list.empty() || list.back() == ',') throw LineError{"empty entry in reqs="};
    std::stringstream ss(list);
    std::string e;
    while (std::getline(ss, e, ',')) {
      if (e.empty()) throw LineError{"empty entry in reqs="};
      int dir = p.dir;
      if (e[0] == 'R' || e[0] == 'W') {
        dir = e[0] == 'R' ? READ : WRITE;
        e = e.substr(1);
      }
      const auto colon = e.find(':');
      const int sector = to_int("sector", e.substr(0, colon), 0, kMaxSector);
      const int size = colon == std::string::npos ? 1 : to_int("size", e.substr(colon + 1), 1, 255);
      add(dir, sector, size);
    }
  } else {
    const int n = to_int("stream", o.at("stream"), 1, kMaxRqs);
    const int start = o.count("start") ? to_int("start", o.at("start"), 0, kMaxSector) : 0;
    const int stride = o.count("stride") ? to_int("stride", o.at("stride"), 0, kMaxSector) : 1;
    const int size = o.count("size") ? to_int("size", o.at("size"), 1, 255) : 1;
    for (int i = 0; i < n; ++i) add(p.dir, start + i * stride, size);
  }
  if (p.count == 0) throw LineError{"a process needs at least one request"};
  wl.procs.push_back(p);
  if (static_cast<int>(wl.procs.size()) > kMaxProcs)
    throw LineError{fmt::format("more than {} processes", kMaxProcs)};
}

}  // namespace

Workload parse_workload(const std::string& text, const std::string& name) {
  Workload wl;
  wl.name = name;
  std::istringstream in(text);
  std::string line, track;
  std::vector<std::string> fair;
  std::vector<std::pair<std::vector<std::string>, int>> observed;  // the lines' words, and line numbers
  int lineno = 0, track_line = 0, fair_line = 0;
  bool summary_open = true, device_seen = false;
  try {
    while (std::getline(in, line)) {
      ++lineno;
      if (auto h = line.find('#'); h != std::string::npos) {
        if (summary_open && line.find_first_not_of(" \t") == h) {
          std::string c = line.substr(h + 1);
          const auto b = c.find_first_not_of(' ');
          c = b == std::string::npos ? "" : c.substr(b);
          if (!c.empty()) {
            if (!wl.summary.empty()) wl.summary += ' ';
            wl.summary += c;
          }
          continue;
        }
        line.resize(h);
      }
      std::istringstream ls(line);
      std::vector<std::string> w;
      for (std::string x; ls >> x;) w.push_back(x);
      if (w.empty()) {
        summary_open = summary_open && wl.summary.empty();
        continue;
      }
      summary_open = false;
      if (w[0] == "device") {
        if (device_seen) throw LineError{"device given twice"};
        device_seen = true;
        parse_device(options(w, 1), wl.dev);
      } else if (w[0] == "proc") {
        parse_proc(w, false, wl);
      } else if (w[0] == "gate") {
        if (w.size() != 1) throw LineError{"gate takes no options"};
        if (wl.gate) throw LineError{"gate given twice"};
        if (wl.procs.empty()) throw LineError{"gate needs processes above it"};
        wl.gate = true;
        for (auto& p : wl.procs) p.pre_gate = true;
      } else if (w[0] == "track") {
        if (w.size() != 2) throw LineError{"track takes one NAME[:INDEX]"};
        if (!track.empty()) throw LineError{"track given twice"};
        track = w[1];
        track_line = lineno;
      } else if (w[0] == "fair") {
        if (w.size() != 3) throw LineError{"fair takes two process names"};
        if (!fair.empty()) throw LineError{"fair given twice"};
        if (w[1] == w[2]) throw LineError{"fair needs two different processes"};
        fair = {w[1], w[2]};
        fair_line = lineno;
      } else if (w[0] == "observed") {
        if (w.size() != 3) throw LineError{"observed takes a process name and its latencies: T,T,-,..."};
        observed.push_back({w, lineno});
      } else {
        throw LineError{
            fmt::format("unknown keyword '{}' (valid: device, proc, gate, track, fair, observed)", w[0])};
      }
    }
    lineno = 0;
    if (wl.procs.empty()) throw LineError{"no processes"};
    if (wl.gate) {
      bool below = false;
      for (const auto& p : wl.procs) below = below || !p.pre_gate;
      if (!below) throw LineError{"gate needs processes below it"};
      for (const auto& p : wl.procs)
        if (p.cyclic) throw LineError{"a gated workload cannot have cyclic processes"};
    }
    if (!track.empty()) {
      lineno = track_line;
      const auto colon = track.find(':');
      const std::string pname = track.substr(0, colon);
      const int idx = colon == std::string::npos
                          ? 0
                          : to_int("track index", track.substr(colon + 1), 0, kMaxRqs);
      for (const auto& p : wl.procs)
        if (p.name == pname) {
          if (idx >= p.count)
            throw LineError{fmt::format("track: process {} has {} request(s)", pname, p.count)};
          if (p.bypass) throw LineError{"track: a bypass request never enters the scheduler"};
          wl.track = p.first + idx;
        }
      if (wl.track < 0) throw LineError{fmt::format("track: no process named '{}'", pname)};
    }
    if (!fair.empty()) {
      lineno = fair_line;
      for (int i = 0; i < 2; ++i) {
        for (std::size_t p = 0; p < wl.procs.size(); ++p)
          if (wl.procs[p].name == fair[std::size_t(i)]) wl.fair[i] = static_cast<int>(p);
        if (wl.fair[i] < 0)
          throw LineError{fmt::format("fair: no process named '{}'", fair[std::size_t(i)])};
        if (wl.procs[std::size_t(wl.fair[i])].bypass)
          throw LineError{"fair: a bypass process never goes through the scheduler"};
      }
    }
    std::set<std::string> observed_procs;
    for (const auto& [w, at] : observed) {
      lineno = at;
      const auto p = std::find_if(wl.procs.begin(), wl.procs.end(), [&](const WlProc& q) { return q.name == w[1]; });
      if (p == wl.procs.end()) throw LineError{fmt::format("observed: no process named '{}'", w[1])};
      if (!observed_procs.insert(p->name).second) throw LineError{fmt::format("observed {} given twice", p->name)};
      if (wl.observed.empty()) wl.observed.assign(wl.rqs.size(), -1);
      std::istringstream ts(w[2]);
      int k = 0;
      for (std::string t; std::getline(ts, t, ','); ++k) {
        if (k >= p->count) throw LineError{fmt::format("observed: {} has {} request(s)", p->name, p->count)};
        wl.observed[std::size_t(p->first + k)] = t == "-" ? -1 : to_int("observed latency", t, 0, 1 << 30);
      }
      if (k != p->count) throw LineError{fmt::format("observed: {} has {} request(s), not {}", p->name, p->count, k)};
    }
  } catch (const LineError& e) {
    if (lineno) throw UsageError(fmt::format("workload {} line {}: {}", name, lineno, e.what));
    throw UsageError(fmt::format("workload {}: {}", name, e.what));
  }
  return wl;
}

const Workload& shipped_workload(int n) {
  const int shipped = int(shipped_workloads().size());
  if (n < 0 || n >= shipped)
    throw UsageError(fmt::format("workload={} is not a shipped workload (0..{})", n, shipped - 1));
  return workload_at(n);
}

namespace {

struct Entry {
  Workload wl;
  std::string text;
};

// The shipped workloads, then the added ones; a deque so that references
// handed out stay valid while entries are added.
struct Registry {
  std::mutex mu;
  std::deque<Entry> all;
  std::size_t shipped = 0;
  Registry() {
    for (const auto& s : shipped_workloads()) all.push_back({parse_workload(s.text, s.name), s.text});
    shipped = all.size();
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

const Entry& entry(int n) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (n < 0 || std::size_t(n) >= r.all.size())
    throw UsageError(fmt::format("workload={} is not a known workload (0..{}: shipped, or a .wl file)", n,
                                 int(r.all.size()) - 1));
  return r.all[std::size_t(n)];
}

std::string read_workload_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw UsageError(fmt::format("workload file '{}' does not exist", path));
  if (!fs::is_regular_file(st)) throw UsageError(fmt::format("workload file '{}' is not a regular file", path));
  constexpr std::uintmax_t kMax = 1 << 20;
  if (fs::file_size(path, ec) > kMax) throw UsageError(fmt::format("workload file '{}' is larger than 1 MiB", path));
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  if (!in || !(ss << in.rdbuf())) throw UsageError(fmt::format("workload file '{}' cannot be read", path));
  return ss.str();
}

}  // namespace

int workload_count() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return int(r.all.size());
}

const Workload& workload_at(int n) { return entry(n).wl; }
const std::string& workload_text(int n) { return entry(n).text; }

bool workload_added(int n) {
  entry(n);  // throws when unknown
  return std::size_t(n) >= registry().shipped;
}

int add_workload(const std::string& name, const std::string& text, const std::string& where) {
  Workload wl = parse_workload(text, where);  // outside the lock: it may throw
  wl.name = name;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (std::size_t i = 0; i < r.all.size(); ++i)
    if (r.all[i].text == text) return int(i);
  r.all.push_back({std::move(wl), text});
  return int(r.all.size()) - 1;
}

int load_workload(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(arg, ec)) {
    Registry& r = registry();
    {
      std::lock_guard lock(r.mu);
      for (std::size_t i = r.shipped; i < r.all.size(); ++i)
        if (r.all[i].wl.name == arg) return int(i);
    }
    const bool looks_like_file = arg.find('/') != std::string::npos ||
                                 (arg.size() > 3 && arg.compare(arg.size() - 3, 3, ".wl") == 0);
    if (!looks_like_file) {
      std::string names;
      for (const auto& w : shipped_workloads()) names += fmt::format("{}{}", names.empty() ? "" : ", ", w.name);
      throw UsageError(fmt::format("parameter workload: no value named '{}' (valid: {}, 0..{}, or a FILE.wl)", arg,
                                   names, workload_count() - 1));
    }
  }
  return add_workload(fs::path(arg).filename().string(), read_workload_file(arg), arg);
}

int find_workload(const std::string& arg) {
  int n = 0;
  const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
  if (ec == std::errc() && ptr == arg.data() + arg.size() && !arg.empty()) return (entry(n), n);
  for (std::size_t i = 0; i < shipped_workloads().size(); ++i)
    if (arg == shipped_workloads()[i].name) return int(i);
  return load_workload(arg);
}

}  // namespace blkmc::sched
