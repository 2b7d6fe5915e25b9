// model/sched/sim_observer: the figures of a simulated scheduler run
// (blkmc simulate): per process the requests completed, throughput and
// latency percentiles (submission to completion), and for the device the
// dispatch order, seek distance and direction switches in issue order.
// Time is the model's ticks with clock=1; with clock=0 there is no time and
// latencies count steps instead.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

// Nearest-rank percentile of sorted samples (0 when there are none).
inline std::uint64_t percentile(const std::vector<std::uint64_t>& sorted, int pct) {
  if (sorted.empty()) return 0;
  std::size_t rank = (sorted.size() * std::size_t(pct) + 99) / 100;
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

template <class M>
class SchedObserver {
 public:
  using State = typename M::State;
  static constexpr std::size_t kOrderKept = 1000;  // dispatch order entries kept for JSON
  static constexpr std::size_t kSeriesKept = 1000000;  // events kept for simulate --report

  explicit SchedObserver(const M& m)
      : m_(&m), procs_(std::size_t(m.nprocs())), submitted_at_(std::size_t(m.rqs().size()), 0) {}

  void step(const State& before, const Step& st, const State& after) {
    ++steps_;
    const RqTable& rq = m_->rqs();
    const int r = st.arg;
    switch (st.action) {
      case M::SUBMIT:
        submitted_at_[std::size_t(r)] = now();
        ++procs_[std::size_t(st.actor)].submitted;
        break;
      case M::DISPATCH:
        if (r == M::kNull) break;
        ++dispatches_;
        if (order_.size() < kOrderKept) order_.push_back(r);
        if (rq.status(after, r) == St::Driver) issued(r);
        break;
      case M::ISSUE:
        issued(r);
        break;
      case M::COMPLETE: {
        Proc& p = procs_[std::size_t(rq.info(r).proc)];
        ++p.completed;
        p.sectors += std::uint64_t(rq.info(r).size);
        p.latency.push_back(now() - submitted_at_[std::size_t(r)]);
        if (completions_.size() < kSeriesKept)
          completions_.push_back({now(), std::uint64_t(rq.info(r).proc), p.latency.back(), std::uint64_t(rq.info(r).size)});
        break;
      }
      case M::REQUEUE:
        ++requeues_;
        break;
      case M::TICK:
        ++ticks_;
        break;
      default:
        break;
    }
    (void)before;
  }

  // The events behind the figures, for simulate --report's charts: each
  // completion [time, process, latency, sectors] and each issue [time,
  // seek distance, direction], the first kSeriesKept of each.
  nlohmann::json series() const {
    nlohmann::json j{{"time_unit", unit()}, {"end", now()}};
    auto& names = j["processes"] = nlohmann::json::array();
    for (const auto& p : m_->workload().procs) names.push_back(p.name);
    auto& c = j["completions"] = nlohmann::json::array();
    for (const auto& e : completions_) c.push_back({e[0], e[1], e[2], e[3]});
    auto& s = j["issues"] = nlohmann::json::array();
    for (const auto& e : seeks_) s.push_back({e[0], e[1], e[2]});
    j["truncated"] = completions_.size() >= kSeriesKept || seeks_.size() >= kSeriesKept;
    // The capture's own latencies [process, latency], where the workload
    // was imported from one and time is ticks (they are ticks too).
    if (compares_capture()) {
      auto& o = j["observed"] = nlohmann::json::array();
      const Workload& wl = m_->workload();
      for (std::size_t r = 0; r < wl.rqs.size(); ++r)
        if (wl.observed[r] >= 0) o.push_back({wl.rqs[r].proc, wl.observed[r]});
    }
    return j;
  }

  std::uint64_t ticks() const { return ticks_; }
  bool counts_time() const { return m_->clock(); }

  nlohmann::json json() const {
    nlohmann::json j;
    j["time_unit"] = unit();
    j["ticks"] = ticks_;
    j["steps"] = steps_;
    j["dispatches"] = dispatches_;
    j["requeues"] = requeues_;
    j["seek_distance"] = seek_;
    j["direction_switches"] = switches_;
    std::uint64_t done = 0;
    auto& procs = j["processes"] = nlohmann::json::array();
    for (std::size_t p = 0; p < procs_.size(); ++p) {
      const Proc& pr = procs_[p];
      done += pr.completed;
      auto lat = sorted(pr.latency);
      procs.push_back({{"name", m_->workload().procs[p].name},
                       {"submitted", pr.submitted},
                       {"completed", pr.completed},
                       {"sectors", pr.sectors},
                       {"per_1000", per_1000(pr.completed)},
                       {"latency", latency_json(lat)}});
      if (compares_capture()) procs.back()["captured_latency"] = latency_json(captured(p));
    }
    j["completed"] = done;
    j["per_1000"] = per_1000(done);
    std::vector<std::uint64_t> all;
    for (const auto& pr : procs_) all.insert(all.end(), pr.latency.begin(), pr.latency.end());
    j["latency"] = latency_json(sorted(all));
    auto& order = j["dispatch_order"] = nlohmann::json::array();
    for (int r : order_) order.push_back(m_->rqs().name(r));
    return j;
  }

  std::string text() const {
    std::string out;
    std::uint64_t done = 0;
    for (const auto& pr : procs_) done += pr.completed;
    out += fmt::format("  {} ticks, {} steps, {} dispatches, {} completions ({} per 1000 {}s)\n",
                       ticks_, steps_, dispatches_, done, fmt_rate(per_1000(done)), unit());
    out += fmt::format("  device: seek distance {} sectors ({:.2f} per issue), {} direction switches\n",
                       seek_, issues_ ? double(seek_) / double(issues_) : 0.0, switches_);
    out += fmt::format("  {:<12} {:>9} {:>9} {:>9} {:>9}  {:>6} {:>6} {:>6} {:>6}  (latency, {}s)\n",
                       "process", "submitted", "completed", "sectors", "per 1000", "p50", "p90",
                       "p99", "max", unit());
    for (std::size_t p = 0; p < procs_.size(); ++p) {
      const Proc& pr = procs_[p];
      const auto lat = sorted(pr.latency);
      out += fmt::format("  {:<12} {:>9} {:>9} {:>9} {:>9}  {:>6} {:>6} {:>6} {:>6}\n",
                         m_->workload().procs[p].name, pr.submitted, pr.completed, pr.sectors,
                         fmt_rate(per_1000(pr.completed)), percentile(lat, 50),
                         percentile(lat, 90), percentile(lat, 99), lat.empty() ? 0 : lat.back());
      if (compares_capture()) {
        const auto cap = captured(p);
        out += fmt::format("  {:<12} {:>9} {:>9} {:>9} {:>9}  {:>6} {:>6} {:>6} {:>6}\n", "  captured", "", cap.size(),
                           "", "", percentile(cap, 50), percentile(cap, 90), percentile(cap, 99),
                           cap.empty() ? 0 : cap.back());
      }
    }
    out += "  dispatch order:";
    const std::size_t shown = std::min<std::size_t>(order_.size(), 48);
    for (std::size_t i = 0; i < shown; ++i) {
      out += ' ';
      out += m_->rqs().name(order_[i]);
    }
    if (dispatches_ > shown) out += fmt::format(" ... ({} more)", dispatches_ - shown);
    out += "\n";
    return out;
  }

 private:
  struct Proc {
    std::uint64_t submitted = 0, completed = 0, sectors = 0;
    std::vector<std::uint64_t> latency;
  };

  std::uint64_t now() const { return m_->clock() ? ticks_ : steps_; }
  // The workload came from a capture whose latencies are in ticks, as ours.
  bool compares_capture() const { return m_->clock() && !m_->workload().observed.empty(); }
  // Process p's latencies in the capture, sorted.
  std::vector<std::uint64_t> captured(std::size_t p) const {
    const Workload& wl = m_->workload();
    std::vector<std::uint64_t> v;
    for (std::size_t r = 0; r < wl.rqs.size(); ++r)
      if (wl.rqs[r].proc == int(p) && wl.observed[r] >= 0) v.push_back(std::uint64_t(wl.observed[r]));
    return sorted(v);
  }
  std::string unit() const { return m_->clock() ? "tick" : "step"; }
  double per_1000(std::uint64_t n) const {
    const std::uint64_t t = m_->clock() ? ticks_ : steps_;
    return t ? 1000.0 * double(n) / double(t) : 0.0;
  }
  static std::string fmt_rate(double x) { return fmt::format("{:.1f}", x); }
  static std::vector<std::uint64_t> sorted(std::vector<std::uint64_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  }
  static nlohmann::json latency_json(const std::vector<std::uint64_t>& lat) {
    return {{"p50", percentile(lat, 50)},
            {"p90", percentile(lat, 90)},
            {"p99", percentile(lat, 99)},
            {"max", lat.empty() ? 0 : lat.back()}};
  }
  // r leaves for the driver: the head travels to it (the device model's
  // head is the end of the previously issued request).
  void issued(int r) {
    const RqTable& rq = m_->rqs();
    const int sector = rq.sector(r);
    const auto dist = std::uint64_t(sector > head_ ? sector - head_ : head_ - sector);
    seek_ += dist;
    if (seeks_.size() < kSeriesKept) seeks_.push_back({now(), dist, std::uint64_t(rq.dir(r))});
    head_ = sector + rq.info(r).size;
    if (issues_ > 0 && rq.dir(r) != last_dir_) ++switches_;
    last_dir_ = rq.dir(r);
    ++issues_;
  }

  const M* m_;
  std::vector<Proc> procs_;
  std::vector<std::uint64_t> submitted_at_;
  std::vector<int> order_;
  std::vector<std::array<std::uint64_t, 4>> completions_;
  std::vector<std::array<std::uint64_t, 3>> seeks_;
  std::uint64_t steps_ = 0, ticks_ = 0, dispatches_ = 0, requeues_ = 0, issues_ = 0;
  std::uint64_t seek_ = 0, switches_ = 0;
  int head_ = 0, last_dir_ = READ;
};

}  // namespace blkmc::sched
