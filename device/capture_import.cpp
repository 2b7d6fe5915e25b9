#include "device/capture_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "model/sched/workload.hpp"

namespace blkmc::device {
namespace {

// A request followed through the capture.
struct Rq {
  std::uint64_t submit = 0, issue = 0, complete = 0;
  bool issued = false, done = false, inserted = false;
  std::uint32_t pid = 0;
  std::string comm, rwbs;
  int dir = 0;
  std::uint64_t sector = 0;
  unsigned nr = 0;
  int prio_class = -1, prio_level = -1;
};

using Key = std::tuple<std::uint64_t, unsigned, int>;  // sector, length, direction

struct Followed {
  std::vector<Rq> rqs;         // reads and writes, in submission order
  std::size_t dropped_other = 0;  // flushes alone, discards
  int max_inflight = 0;
  bool out_of_order = false;  // a completion overtook an earlier issue
};

Followed follow(const Capture& cap) {
  Followed f;
  const bool has_queue =
      std::any_of(cap.events.begin(), cap.events.end(), [](const CapEvent& e) { return e.act == CapAct::Queue; });
  std::map<Key, std::deque<std::size_t>> open;  // not completed, by key, oldest first
  std::deque<std::size_t> issued;               // issued, not completed, in issue order
  auto start = [&](const CapEvent& e) {
    Rq r;
    r.submit = e.ts_ns;
    r.pid = e.pid;
    r.comm = e.comm;
    r.rwbs = e.rwbs;
    r.dir = e.dir();
    r.sector = e.sector;
    r.nr = e.nr_sectors;
    r.prio_class = e.prio_class;
    r.prio_level = e.prio_level;
    open[{e.sector, e.nr_sectors, r.dir}].push_back(f.rqs.size());
    f.rqs.push_back(std::move(r));
  };
  // The oldest open request with e's key that pred accepts.
  auto find = [&](const CapEvent& e, auto pred) -> Rq* {
    const auto it = open.find({e.sector, e.nr_sectors, e.dir()});
    if (it == open.end()) return nullptr;
    for (std::size_t i : it->second)
      if (pred(f.rqs[i])) return &f.rqs[i];
    return nullptr;
  };
  for (const CapEvent& e : cap.events) {
    if (e.dir() < 0) {
      f.dropped_other += e.act == (has_queue ? CapAct::Queue : CapAct::Insert);
      continue;
    }
    switch (e.act) {
      case CapAct::Queue:
        start(e);
        break;
      case CapAct::Insert:
        if (!has_queue) {
          start(e);
        } else if (Rq* r = find(e, [](const Rq& q) { return !q.inserted && !q.issued; })) {
          r->inserted = true;
          if (r->prio_class < 0) {
            r->prio_class = e.prio_class;
            r->prio_level = e.prio_level;
          }
        }
        break;
      case CapAct::Issue: {
        // Without a scheduler (none) a request may go to the driver with no
        // insert event.
        Rq* r = find(e, [](const Rq& q) { return !q.issued; });
        if (!r && !has_queue) {
          start(e);
          r = &f.rqs.back();
        }
        if (r) {
          r->issued = true;
          r->issue = e.ts_ns;
          issued.push_back(std::size_t(r - f.rqs.data()));
          f.max_inflight = std::max(f.max_inflight, int(issued.size()));
        }
        break;
      }
      case CapAct::Requeue:
        if (Rq* r = find(e, [](const Rq& q) { return q.issued; })) {
          r->issued = false;
          std::erase(issued, std::size_t(r - f.rqs.data()));
        }
        break;
      case CapAct::Complete: {
        Rq* r = find(e, [](const Rq& q) { return q.issued; });
        if (!r) break;  // issued before the capture began, or merged away
        const std::size_t i = std::size_t(r - f.rqs.data());
        if (!issued.empty() && issued.front() != i) f.out_of_order = true;
        std::erase(issued, i);
        r->done = true;
        r->complete = e.ts_ns;
        auto& q = open[{e.sector, e.nr_sectors, r->dir}];
        std::erase(q, i);
        break;
      }
    }
  }
  return f;
}

std::uint64_t median(std::vector<std::uint64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// "1.5s", "200ms", "50us": nanoseconds; nullopt when not a time.
std::optional<std::uint64_t> parse_time(const std::string& t) {
  static const std::pair<const char*, double> units[] = {{"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}, {"s", 1e9}};
  for (const auto& [u, f] : units) {
    const std::string su = u;
    if (t.size() > su.size() && t.compare(t.size() - su.size(), su.size(), su) == 0) {
      double v = 0;
      const std::string num = t.substr(0, t.size() - su.size());
      const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
      if (ec != std::errc() || p != num.data() + num.size() || !(v >= 0) || v * f > 1e18) return std::nullopt;
      return std::uint64_t(std::llround(v * f));
    }
  }
  return std::nullopt;
}

struct Window {
  bool by_time = false;
  std::uint64_t from = 0, to = UINT64_MAX;  // ns from the first event, or request numbers
  std::string text;
};

Window parse_window(const std::string& w, const std::string& name) {
  Window win;
  win.text = w;
  if (w.empty()) return win;
  const auto dots = w.find("..");
  auto bad = [&] {
    return UsageError(fmt::format("{}: --window '{}' is not FROM..TO (times such as 0.5s, 200ms, 50us, or request "
                                  "numbers such as 10..40)",
                                  name, w));
  };
  if (dots == std::string::npos) throw bad();
  const std::string a = w.substr(0, dots), b = w.substr(dots + 2);
  win.by_time = a.find_first_of("smun") != std::string::npos || b.find_first_of("smun") != std::string::npos;
  auto end = [&](const std::string& t, std::uint64_t dflt) -> std::uint64_t {
    if (t.empty()) return dflt;
    if (win.by_time) {
      const auto v = parse_time(t);
      if (!v) throw bad();
      return *v;
    }
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) throw bad();
    return v;
  };
  win.from = end(a, 0);
  win.to = end(b, UINT64_MAX);
  if (win.to <= win.from) throw UsageError(fmt::format("{}: --window '{}' is empty", name, w));
  return win;
}

std::string clean_name(const std::string& comm) {
  std::string n;
  for (char c : comm) n += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') ? c : '_';
  return n.empty() ? std::string("task") : n;
}

struct Renumbered {
  std::vector<int> pos, size;  // per kept request, in model sectors
  std::uint64_t unit = 1, cap = 0;  // sectors per model sector; the largest gap kept (model sectors)
  bool capped = false;
};

// Sectors renumbered into 0..255 by one increasing map of the requests'
// start and end points: the stretch between two neighbouring points is
// either inside some request (scaled by the unit, at least 1) or a gap
// (scaled, at least 1, capped at the largest value that fits). Order,
// touching and containment are kept exactly, since requests are cut at the
// same points.
Renumbered renumber(const std::vector<const Rq*>& rqs) {
  auto up = [](std::uint64_t a, std::uint64_t u) { return (a + u - 1) / u; };
  std::uint64_t unit = UINT64_MAX;
  std::set<std::uint64_t> pts;
  for (const Rq* r : rqs) {
    const unsigned nr = std::max(1u, r->nr);
    unit = std::min<std::uint64_t>(unit, nr);
    pts.insert(r->sector);
    pts.insert(r->sector + nr);
  }
  const std::vector<std::uint64_t> p(pts.begin(), pts.end());
  std::vector<bool> covered(p.size(), false);  // stretch [p[i], p[i+1]) lies in a request
  for (const Rq* r : rqs) {
    const auto from = std::lower_bound(p.begin(), p.end(), r->sector) - p.begin();
    for (auto i = std::size_t(from); i + 1 < p.size() && p[i] < r->sector + std::max(1u, r->nr); ++i) covered[i] = true;
  }
  for (;; unit *= 2) {
    auto layout = [&](std::uint64_t cap, std::vector<std::uint64_t>& at, bool& capped) {
      at.assign(p.size(), 0);
      capped = false;
      for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        std::uint64_t len = std::max<std::uint64_t>(1, up(p[i + 1] - p[i], unit));
        if (!covered[i] && len > cap) {
          len = cap;
          capped = true;
        }
        at[i + 1] = at[i] + len;
      }
      return at.back();  // the end of the last request (sectors below it used; sizes stay below 256)
    };
    std::vector<std::uint64_t> at;
    bool capped = false;
    if (layout(1, at, capped) > sched::kMaxSector) continue;  // even gaps of one do not fit: a coarser unit
    std::uint64_t good = 1, bad = sched::kMaxSector + 1;
    while (bad - good > 1) {
      const std::uint64_t mid = (good + bad) / 2;
      (layout(mid, at, capped) <= sched::kMaxSector ? good : bad) = mid;
    }
    layout(good, at, capped);
    Renumbered out;
    out.unit = unit;
    out.cap = good;
    out.capped = capped;
    for (const Rq* r : rqs) {
      const auto i = std::size_t(std::lower_bound(p.begin(), p.end(), r->sector) - p.begin());
      const auto j = std::size_t(std::lower_bound(p.begin(), p.end(), r->sector + std::max(1u, r->nr)) - p.begin());
      out.pos.push_back(int(at[i]));
      out.size.push_back(int(at[j] - at[i]));
    }
    return out;
  }
}

}  // namespace

Imported import_workload(const Capture& cap, const ImportOptions& opt) {
  using sched::kMaxProcs;
  using sched::kMaxRqs;
  const std::string& name = cap.name;
  if (opt.max_requests < 1 || opt.max_requests > kMaxRqs)
    throw UsageError(fmt::format("--max-requests {} is out of range (1..{})", opt.max_requests, kMaxRqs));
  const Window win = parse_window(opt.window, name);
  Followed f = follow(cap);
  Imported out;
  out.events = cap.events.size();
  out.requests = f.rqs.size();
  if (f.rqs.empty()) throw UsageError(fmt::format("{}: no read or write requests in the capture", name));

  // The window, the processes asked for, the first max_requests.
  const std::uint64_t t0 = cap.events.front().ts_ns;
  std::size_t outside = 0, other_procs = 0, past_max = 0, too_many_procs = 0;
  std::vector<const Rq*> kept;
  std::vector<std::uint32_t> pids;  // kept processes, in order of first submission
  std::set<std::uint32_t> all_pids;
  for (std::size_t i = 0; i < f.rqs.size(); ++i) {
    const Rq& r = f.rqs[i];
    all_pids.insert(r.pid);
    const std::uint64_t at = win.by_time ? r.submit - t0 : i;
    if (at < win.from || at >= win.to) {
      ++outside;
      continue;
    }
    if (!opt.procs.empty() && std::none_of(opt.procs.begin(), opt.procs.end(), [&](const std::string& p) {
          return p == r.comm || p == std::to_string(r.pid);
        })) {
      ++other_procs;
      continue;
    }
    const bool new_proc = std::find(pids.begin(), pids.end(), r.pid) == pids.end();
    if (new_proc && int(pids.size()) == kMaxProcs) {
      ++too_many_procs;
      continue;
    }
    if (int(kept.size()) == opt.max_requests) {
      ++past_max;
      continue;
    }
    if (new_proc) pids.push_back(r.pid);
    kept.push_back(&r);
  }
  if (kept.empty())
    throw UsageError(fmt::format("{}: no requests left to import ({} outside the window, {} of other processes)",
                                 name, outside, other_procs));
  out.kept = kept.size();
  out.procs = all_pids.size();
  out.kept_procs = pids.size();

  // Names: the comm, with the pid where two processes share one.
  std::map<std::uint32_t, std::string> comm_of;
  std::map<std::string, int> uses;
  for (const Rq* r : kept)
    if (!comm_of.count(r->pid)) {
      comm_of[r->pid] = clean_name(r->comm);
      ++uses[comm_of[r->pid]];
    }
  std::map<std::uint32_t, std::string> pname;
  for (const auto& [pid, c] : comm_of) pname[pid] = uses[c] > 1 ? fmt::format("{}_{}", c, pid) : c;

  // Time: one tick is the median service time of the kept requests.
  std::vector<std::uint64_t> service;
  for (const Rq* r : kept)
    if (r->done && r->issued) service.push_back(r->complete - r->issue);
  out.tick_ns = std::max<std::uint64_t>(1000, median(service));
  auto ticks = [&](std::uint64_t ns) { return double(ns) / double(out.tick_ns); };

  const Renumbered sec = renumber(kept);
  std::string procs_text, observed_text;
  bool timed = false, clamped = false;
  std::map<std::uint32_t, int> count;
  std::map<const Rq*, int> index_in_proc;
  const std::uint64_t start = kept.front()->submit;
  for (std::uint32_t pid : pids) {
    std::vector<std::size_t> mine;
    for (std::size_t k = 0; k < kept.size(); ++k)
      if (kept[k]->pid == pid) mine.push_back(k);
    count[pid] = int(mine.size());
    int writes = 0;
    for (std::size_t k : mine) writes += kept[k]->dir;
    const int dir = 2 * writes > int(mine.size()) ? 1 : 0;
    bool sync = mine.size() >= 2, req_sync = false;
    std::vector<std::uint64_t> gaps_sync, gaps_async;
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const Rq& r = *kept[mine[j]];
      index_in_proc[&r] = int(j);
      if (r.dir == 1 && r.rwbs.find('S') != std::string::npos) req_sync = true;
      if (j == 0) continue;
      const Rq& p = *kept[mine[j - 1]];
      if (!p.done || p.complete > r.submit) sync = false;
      if (p.done && p.complete <= r.submit) gaps_sync.push_back(r.submit - p.complete);
      gaps_async.push_back(r.submit - p.submit);
    }
    const int delay_raw = int(std::lround(ticks(kept[mine.front()]->submit - start)));
    const int think_raw = int(std::lround(ticks(median(sync ? gaps_sync : gaps_async))));
    const int delay = std::min(delay_raw, 60), think = std::min(think_raw, 15);
    clamped = clamped || delay != delay_raw || think != think_raw;
    timed = timed || delay || think;
    std::string line = fmt::format("proc {} dir={} sync={}", pname[pid], dir ? 'W' : 'R', sync ? 1 : 0);
    if (!sync && req_sync && dir == 1) line += " req_sync=1";
    const Rq& first = *kept[mine.front()];
    if (first.prio_class == 1 || first.prio_class == 3 || (first.prio_class == 2 && first.prio_level != 4))
      line += fmt::format(" prio={}:{}", first.prio_class == 1 ? "rt" : first.prio_class == 2 ? "be" : "idle",
                          std::clamp(first.prio_level, 0, 7));
    if (think) line += fmt::format(" think={}", think);
    if (delay) line += fmt::format(" delay={}", delay);
    line += " reqs=";
    std::string seen = fmt::format("observed {} ", pname[pid]);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const Rq& r = *kept[mine[j]];
      if (j) {
        line += ',';
        seen += ',';
      }
      if (r.dir != dir) line += r.dir ? 'W' : 'R';
      line += std::to_string(sec.pos[mine[j]]);
      if (sec.size[mine[j]] != 1) line += fmt::format(":{}", sec.size[mine[j]]);
      seen += r.done ? std::to_string(std::lround(ticks(r.complete - r.submit))) : "-";
    }
    procs_text += line + "\n";
    observed_text += seen + "\n";
  }

  // The tracked request: the longest queue-to-complete time.
  std::string track = opt.track, track_why;
  if (track.empty()) {
    const Rq* worst = nullptr;
    for (const Rq* r : kept)
      if (r->done && (!worst || r->complete - r->submit > worst->complete - worst->submit)) worst = r;
    if (worst) {
      track = fmt::format("{}:{}", pname[worst->pid], index_in_proc[worst]);
      track_why = fmt::format("the longest wait in the window, {:.0f} us queued to complete",
                              double(worst->complete - worst->submit) / 1e3);
    }
  } else {
    track_why = "asked for";
  }
  std::vector<std::uint32_t> by_count = pids;
  std::stable_sort(by_count.begin(), by_count.end(), [&](auto a, auto b) { return count[a] > count[b]; });

  const int depth = std::clamp(f.max_inflight, 1, 16);
  std::string text;
  text += fmt::format("# Imported from {} ({}, {} events): {} of {} requests, {} of {} processes, device {},{}.\n\n",
                      name, cap.format, out.events, out.kept, out.requests, out.kept_procs, out.procs,
                      cap.events.front().major, cap.events.front().minor);
  text += fmt::format("# window: {}; dropped: {} flushes or discards, {} requests outside the window, {} of other "
                      "processes, {} of processes past the first {}, {} past --max-requests {}.\n",
                      win.text.empty() ? "the whole capture" : win.text, f.dropped_other, outside, other_procs,
                      too_many_procs, kMaxProcs, past_max, opt.max_requests);
  text += fmt::format("# sectors: renumbered, order and touching requests kept; 1 sector here = {} sectors of 512 "
                      "bytes; {}.\n",
                      sec.unit, sec.capped ? fmt::format("gaps capped at {}", sec.cap) : "gaps scaled, none capped");
  text += fmt::format("# time: 1 tick = {:.1f} us (the median issue-to-complete time){}{}.\n",
                      double(out.tick_ns) / 1e3, timed ? "; think and delay count with -p clock=1" : "",
                      clamped ? "; think capped at 15 ticks, delay at 60" : "");
  text += fmt::format("# device: at most {} requests in flight{}; completions {}.\n", f.max_inflight,
                      f.max_inflight > 16 ? " (depth capped at 16)" : "",
                      f.out_of_order ? "out of issue order" : "in issue order");
  // RWBS flags the workload has no word for.
  std::size_t fua = 0, meta = 0, ahead = 0;
  for (const Rq* r : kept) {
    const std::string flags = r->rwbs.substr(std::min<std::size_t>(r->rwbs.size(), r->rwbs.find_first_of("RW") + 1));
    fua += flags.find('F') != std::string::npos;
    meta += flags.find('M') != std::string::npos;
    ahead += flags.find('A') != std::string::npos;
  }
  if (fua + meta + ahead)
    text += fmt::format("# not modelled: {} FUA, {} metadata and {} readahead flags (requests are plain reads and "
                        "writes here).\n",
                        fua, meta, ahead);
  if (!track.empty()) text += fmt::format("# track: {}.\n", track_why);
  text += fmt::format("device depth={} slot=1 spindles={}{}\n", depth, f.out_of_order ? depth : 1,
                      opt.rotational ? " rotational=1 seek=4" : "");
  text += procs_text;
  if (!track.empty()) text += fmt::format("track {}\n", track);
  if (by_count.size() >= 2) text += fmt::format("fair {} {}\n", pname[by_count[0]], pname[by_count[1]]);
  text += "# The capture's own latencies (ticks, queued to completed), which simulate shows beside its own.\n";
  text += observed_text;
  // What we write must read back (a bad --track is the user's; anything else ours).
  try {
    sched::parse_workload(text, "imported");
  } catch (const UsageError& e) {
    if (!opt.track.empty()) throw UsageError(fmt::format("--track {}: {}", opt.track, e.what()));
    throw std::logic_error(fmt::format("import wrote a workload that does not parse: {}", e.what()));
  }
  out.text = std::move(text);
  return out;
}

}  // namespace blkmc::device
