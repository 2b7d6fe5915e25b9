// Simulation: one run of a model along a single schedule instead of all of
// them, for workloads too large to explore. At every state the run takes one
// of the enabled steps: the first the model lists (a fixed, deterministic
// schedule) or one drawn by a seeded generator (std::mt19937_64, whose
// sequence the C++ standard fixes, reduced with %, so a seed gives the same
// run on every platform). A model may bring an observer (M::Observer) that
// turns the steps into figures: throughput, latencies, dispatch order.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "explorer/limits.hpp"
#include "model/model.hpp"
#include "model/params.hpp"

namespace blkmc {

struct SimOptions {
  bool random = true;           // false: always the first enabled step
  std::uint64_t seed = 1;
  std::uint64_t max_steps = 0;  // 0: none
  std::uint64_t max_ticks = 0;  // 0: none (needs an observer that counts time)
  double seconds = 0;           // 0: none
  bool progress = true;         // a line on stderr every 2 s
};

// How a run ended.
enum class SimEnd { Finished, Deadlock, Steps, Ticks, Time, Interrupted };

inline std::string to_string(SimEnd e) {
  switch (e) {
    case SimEnd::Finished: return "finished";
    case SimEnd::Deadlock: return "deadlock";
    case SimEnd::Steps: return "step limit";
    case SimEnd::Ticks: return "tick limit";
    case SimEnd::Time: return "time limit";
    case SimEnd::Interrupted: return "interrupted";
  }
  return "?";
}

struct SimOutcome {
  std::string model, variant, schedule;  // schedule: "first enabled step" or "random, seed N"
  Params params;
  bool random = true;
  std::uint64_t seed = 0;
  std::uint64_t steps = 0;
  SimEnd end = SimEnd::Finished;
  double seconds = 0;
  std::string final_summary;
  nlohmann::json figures;  // the observer's, null without one
  nlohmann::json series;   // the observer's events for charts (series()), null without
  std::string text;        // the observer's report, empty without one
};

// The optional observer: M::Observer(const M&), step(before, step, after),
// ticks() (time so far, for max_ticks), json() and text().
template <class M>
concept HasObserver = requires(const M& m, typename M::Observer& o, const typename M::State& s,
                               const Step& st) {
  typename M::Observer;
  o.step(s, st, s);
  { o.ticks() } -> std::convertible_to<std::uint64_t>;
  { o.counts_time() } -> std::convertible_to<bool>;
  { o.json() } -> std::convertible_to<nlohmann::json>;
  { o.text() } -> std::convertible_to<std::string>;
};

// For models without an observer: no figures.
struct NullObserver {
  template <class State>
  void step(const State&, const Step&, const State&) {}
  std::uint64_t ticks() const { return 0; }
  bool counts_time() const { return false; }
  nlohmann::json json() const { return nullptr; }
  std::string text() const { return {}; }
};

template <class M, class Obs>
SimOutcome simulate_with(const M& m, const SimOptions& opt, Obs& obs) {
  using State = typename M::State;
  using Clock = std::chrono::steady_clock;
  if (opt.max_ticks && !obs.counts_time())
    throw UsageError(fmt::format("simulate: model {} counts no time here (a tick limit needs a "
                                 "model with a clock, e.g. -p clock=1); use --steps",
                                 m.info().name));
  SimOutcome out;
  out.model = m.info().name;
  out.schedule = opt.random ? fmt::format("random schedule, seed {}", opt.seed) : "first enabled step";
  out.random = opt.random;
  out.seed = opt.seed;
  std::mt19937_64 rng(opt.seed);
  const auto t0 = Clock::now();
  auto last_report = t0;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  State s = m.initial();
  std::vector<std::pair<Step, State>> next;
  for (;;) {
    if (opt.max_steps && out.steps >= opt.max_steps) { out.end = SimEnd::Steps; break; }
    if (opt.max_ticks && obs.ticks() >= opt.max_ticks) { out.end = SimEnd::Ticks; break; }
    if (g_interrupted) { out.end = SimEnd::Interrupted; break; }
    if ((out.steps & 1023) == 0) {
      if (opt.seconds > 0 && elapsed() >= opt.seconds) { out.end = SimEnd::Time; break; }
      if (opt.progress && Clock::now() - last_report >= std::chrono::seconds(2)) {
        last_report = Clock::now();
        fmt::print(stderr, "[blkmc] simulate: {} steps, {} ticks, {:.0f} s\n",
                   human_count(double(out.steps)), obs.ticks(), elapsed());
      }
    }
    next.clear();
    m.for_each_successor(s, [&](const Step& st, const State& n) { next.emplace_back(st, n); });
    if (next.empty()) {
      out.end = m.finished(s) ? SimEnd::Finished : SimEnd::Deadlock;
      break;
    }
    const std::size_t pick = opt.random ? std::size_t(rng() % next.size()) : 0;
    obs.step(s, next[pick].first, next[pick].second);
    s = next[pick].second;
    ++out.steps;
  }
  out.seconds = elapsed();
  out.final_summary = m.summary(s);
  out.figures = obs.json();
  out.text = obs.text();
  if constexpr (requires { obs.series(); }) out.series = obs.series();
  return out;
}

template <class M>
SimOutcome simulate(const M& m, const SimOptions& opt) {
  if constexpr (HasObserver<M>) {
    typename M::Observer obs(m);
    return simulate_with(m, opt, obs);
  } else {
    NullObserver obs;
    return simulate_with(m, opt, obs);
  }
}

}  // namespace blkmc
