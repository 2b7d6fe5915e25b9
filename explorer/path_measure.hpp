// Path measures (model/path_measure.hpp) searched in two passes instead of
// over every value of their counters.
//
// A maximize property such as max-wait or fair-ratio reads ghost counters
// that no guard reads; stored with the rest of the state they multiply it
// (the deadline suite's fair-ratio rows store 12x the states of the same
// search without them). Here:
//   1. the search runs with the counters left out of the keys (slicing, as
//      for a property that does not read them): the control graph;
//   2. every stored state is expanded again on the model, giving each edge
//      what it adds to each counter and whether it resets them; on the
//      graph's strongly connected components (Boost.Graph) two passes give
//      per state the most each counter can still gain, and a value of the
//      measure that some path reaches (explorer/path_gains.hpp);
//   3. the search runs again with the counters, as without this layer, but
//      leaves out every successor whose counters, grown by all they can
//      still gain, stay below that value (the model's path_bound).
// A left-out state cannot reach the maximum, and every state that reaches
// a state that can is kept: the maximum, its first state breadth-first and
// the trace to it are those of the search without this layer (with the
// same properties selected), only fewer states are stored.
//
// The bounds split at resets: what a counter can gain before its next
// reset, and what it can hold after one. Where a cycle with no reset on it
// adds to a counter, that counter can climb to its cap from anywhere on
// the cycle's component: the bound takes the cap there, and the target is
// the best the pass from the start found.
//
// Where the target equals the start's bound, it is the maximum: the
// product runs as for NAME<=target-1 and stops at its first state. If a
// limit stops the product before that state, the pass's own path to it
// (followed on the model) is the trace.
//
// The layer steps aside (the plain search runs) where it could not answer
// the same: a depth-first, depth-bounded, distributed or census search, a
// store that cannot give states back (hash, disk, bitstate), and the
// partial-order reduction. A bounded property (NAME<=K) is lifted too: the
// product keeps whatever can rise above K.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <concepts>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "explorer/checks.hpp"
#include "explorer/hash.hpp"
#include "explorer/long_run_share.hpp"
#include "explorer/path_gains.hpp"
#include "model/path_measure.hpp"

namespace blkmc {

template <class M>
concept HasPathMeasure = requires(const M& m, const typename M::State& s, int* g, const int* c) {
  { m.path_measure(0) } -> std::convertible_to<PathMeasure>;
  m.path_counters(0, s, g);
  { m.path_reset(0, s, s) } -> std::convertible_to<bool>;
  { m.path_value(0, c) } -> std::convertible_to<int>;
  { m.path_bound(0, c, c) } -> std::convertible_to<int>;
};

template <class M>
concept HasShareServed = requires(const M& m, const typename M::State& s, int* g) { m.share_served(0, s, s, g); };
template <class M>
concept HasShareWithin = requires(const M& m, const typename M::State& s) {
  { m.share_within(0, s) } -> std::convertible_to<bool>;
};

namespace path_measure {

struct Lifted {
  int prop = 0;
  std::vector<std::size_t> at;  // its places among the selected properties
  PathMeasure pm;
  // The least bound K of its NAME<=K slots, plus one: the product must keep
  // every state that can rise above K (INT_MAX: no bound).
  int above = INT_MAX;
  GainAnalysis gains;
  int reached = 0;  // a value of the measure that some path reaches
  int target = 0;   // kept: every state that can reach this value
  bool settled = false;  // the start has the maximum: no product to search
  // A path reaches the most the start's bound allows: that is the maximum,
  // and the product stops at its first state (as NAME<=top-1 would).
  int known = 0;
  // A path of the control graph to a state with the known maximum (its
  // successor indices from the start): the answer where the product stops
  // at a limit before the first such state.
  std::vector<std::uint32_t> witness;
  // A share measure (PathMeasure::share): each process's least long-run
  // share, or why there is none.
  std::vector<ShareFigure> shares;
  std::string shares_note;
  std::string shares_stats;  // for the reduction line: its components, rounds and time
};

// The control graph of l.prop: each stored key (its counters cleared)
// expanded on the model itself, so that a successor's counters are what
// the step adds; the successor's key names the edge's end. In chunks of
// ids on every worker, joined in id order. Nothing where Ctrl-C or the
// deadline comes first.
template <class M>
std::optional<GainGraph> gain_graph(const M& m, const Search<M>& search, const Lifted& l, unsigned threads,
                                    std::chrono::steady_clock::time_point deadline) {
  using State = typename M::State;
  if (!HasShareWithin<M> && !l.pm.within.empty())
    throw std::logic_error("gain_graph: a share restricted by a model without share_within");
  const VisitedStore& store = search.store();
  const std::size_t used = padded_bytes(m.state_bytes());
  const std::size_t n = store.size();
  constexpr std::size_t kChunk = std::size_t(1) << 14;
  std::vector<GainGraph> parts((n + kChunk - 1) / kChunk);
  WorkerPool pool(threads);
  std::vector<Reduced<M>> rms(pool.size(), search.reduced());  // keying uses scratch
  std::atomic<bool> cut{false};
  pool.run(parts.size(), [&](std::size_t t, unsigned w) {
    if (cut.load(std::memory_order_relaxed) || g_interrupted || std::chrono::steady_clock::now() > deadline) {
      cut.store(true, std::memory_order_relaxed);
      return;
    }
    GainGraph& g = parts[t];
    g.counters = l.pm.counters;
    State s{}, k{};
    int add[kMaxPathCounters] = {};
    for (std::size_t id = t * kChunk; id < std::min(n, (t + 1) * kChunk); ++id) {
      store.load(std::uint32_t(id), s.b.data());
      if constexpr (HasShareWithin<M>)
        if (l.pm.share && !l.pm.within.empty()) g.within.push_back(m.share_within(l.prop, s));
      m.for_each_successor(s, [&](const Step& st, const State& next) {
        std::memcpy(k.b.data(), next.b.data(), used);
        rms[w].key(k);
        const std::uint32_t to = store.lookup(k.b.data(), hash_padded(k.b.data(), m.state_bytes()));
        // Beyond where a limit stopped the search: not stored, or stored by
        // a worker in the level the limit cut short, past the states counted.
        if (to == StateStore::kNone || to >= n) return;
        m.path_counters(l.prop, next, add);
        int serves[2] = {};
        if constexpr (HasShareServed<M>)
          if (l.pm.share) m.share_served(l.prop, s, next, serves);
        g.add_edge(to, add, m.path_reset(l.prop, s, next), st.actor, l.pm.share ? serves : nullptr);
      });
      g.end_node();
    }
  });
  if (cut.load()) return std::nullopt;
  GainGraph g;
  g.counters = l.pm.counters;
  g.cap = l.pm.cap;
  g.first.reserve(n + 1);
  for (const GainGraph& p : parts) {
    const std::uint64_t base = g.to.size();
    for (std::size_t i = 1; i < p.first.size(); ++i) g.first.push_back(base + p.first[i]);
    g.to.insert(g.to.end(), p.to.begin(), p.to.end());
    g.gain.insert(g.gain.end(), p.gain.begin(), p.gain.end());
    g.reset.insert(g.reset.end(), p.reset.begin(), p.reset.end());
    g.actor.insert(g.actor.end(), p.actor.begin(), p.actor.end());
    g.served.insert(g.served.end(), p.served.begin(), p.served.end());
    g.within.insert(g.within.end(), p.within.begin(), p.within.end());
  }
  return g;
}

// Each process's least long-run share (explorer/long_run_share.hpp) on the
// complete control graph g of a share measure, its cycle followed on the
// model from the start: every step a step of the model to the next node,
// and the sectors each is served round it, counted again on those states,
// what the graph says.
template <class M>
void long_run(const M& m, const Search<M>& control, const GainGraph& g, Lifted& l,
              std::chrono::steady_clock::time_point deadline) {
  using State = typename M::State;
  // Fairness is per actor, and symmetry renames the processes, so the
  // quotient's actors are not the runs' (as for starvation).
  if (control.reduced().symmetric()) {
    l.shares_note = "symmetry merged processes; --no-symmetry gives it";
    return;
  }
  if constexpr (!HasShareServed<M>) {
    l.shares_note = "the model does not say what each is served";
    return;
  }
  for (std::uint8_t x : g.served)
    if (x == 255) {
      l.shares_note = "a step serves 255 sectors or more";
      return;
    }
  const auto began = std::chrono::steady_clock::now();
  const LongRunShare s = long_run_share(
      g, [&] { return g_interrupted || std::chrono::steady_clock::now() > deadline; });
  l.shares_stats = fmt::format(
      "long-run share: {} weakly fair component(s), {} round(s), {:.1f} s", s.fair_components, s.rounds,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  if (s.stopped) {
    l.shares_note = g_interrupted ? "interrupted" : "the time limit came first";
    return;
  }
  for (int i = 0; i < 2; ++i) {
    const ShareCycle& c = s.least[i];
    ShareFigure f;
    f.name = l.pm.names[std::size_t(i)];
    f.other = l.pm.names[std::size_t(1 - i)];
    f.found = c.found;
    f.within = l.pm.within;
    if (c.found) {
      f.mine = c.mine;
      f.theirs = c.other;
      f.steps = c.edges.size();
      f.fair_alone = c.fair_alone;
      std::vector<std::uint32_t> walk{c.entry};
      std::vector<int> actors;
      for (std::uint64_t e : c.edges) {
        walk.push_back(g.to[e]);
        actors.push_back(g.actor[e]);
      }
      const Counterexample<State> cx = control.path_along(walk, walk.size() - 1, actors, &f.prefix);
      if (cx.steps.size() != f.prefix + f.steps) throw std::logic_error("long_run: the cycle does not follow");
      std::uint64_t sum[2] = {};
      for (std::size_t k = f.prefix; k < cx.steps.size(); ++k) {
        int on[2] = {};
        if constexpr (HasShareServed<M>) m.share_served(l.prop, cx.states[k], cx.states[k + 1], on);
        sum[0] += std::uint64_t(on[0]);
        sum[1] += std::uint64_t(on[1]);
        if constexpr (HasShareWithin<M>)
          if (!f.within.empty() && !m.share_within(l.prop, cx.states[k]))
            throw std::logic_error("long_run: the cycle leaves the states it is restricted to");
      }
      if (sum[i] != f.mine || sum[1 - i] != f.theirs)
        throw std::logic_error("long_run: the cycle's sectors on the model are not the graph's");
      f.path = cx.steps;
    }
    l.shares.push_back(std::move(f));
  }
}

// The pruning test of the second search: true where no lifted property can
// reach its target from this key. Each search thread holds its own copy
// (the control model's keying uses scratch).
template <class M>
class CannotReach {
 public:
  using State = typename M::State;
  CannotReach(const M& m, const Reduced<M>& control, const VisitedStore& store,
              std::shared_ptr<const std::vector<Lifted>> lifted, std::shared_ptr<std::atomic<std::uint64_t>> unknown)
      : m_(&m),
        control_(control),
        store_(&store),
        lifted_(std::move(lifted)),
        unknown_(std::move(unknown)),
        used_(padded_bytes(m.state_bytes())) {}
  CannotReach(const CannotReach& o)
      : m_(o.m_), control_(o.control_), store_(o.store_), lifted_(o.lifted_), unknown_(o.unknown_), used_(o.used_) {}

  bool operator()(const State& key) {
    std::memcpy(k_.b.data(), key.b.data(), used_);
    control_.key(k_);
    const std::uint32_t id = store_->lookup(k_.b.data(), hash_padded(k_.b.data(), m_->state_bytes()));
    if (id == StateStore::kNone) {  // never: the control graph holds every reachable key
      unknown_->fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    for (const Lifted& l : *lifted_) {
      int c[kMaxPathCounters] = {};
      m_->path_counters(l.prop, key, c);
      if (bound_ahead(l.gains, id, l.pm.counters, l.pm.cap, c,
                      [&](const int* lo, const int* hi) { return m_->path_bound(l.prop, lo, hi); }) >= l.target)
        return false;
    }
    return true;
  }

 private:
  const M* m_;
  Reduced<M> control_;
  const VisitedStore* store_;
  std::shared_ptr<const std::vector<Lifted>> lifted_;
  std::shared_ptr<std::atomic<std::uint64_t>> unknown_;
  std::size_t used_;
  State k_{};
};

// The concrete path along successor indices from the start; nothing where
// an index is missing or its last state's measure is not `value`.
template <class M>
std::optional<Counterexample<typename M::State>> follow(const M& m, const std::vector<std::uint32_t>& succ, int prop,
                                                        int value) {
  using State = typename M::State;
  if (succ.empty()) return std::nullopt;
  Counterexample<State> cx;
  cx.states.push_back(m.initial());
  for (const std::uint32_t j : succ) {
    std::uint32_t i = 0;
    std::optional<Step> step;
    State next{};
    m.for_each_successor(cx.states.back(), [&](const Step& st, const State& x) {
      if (i++ != j) return;
      step = st;
      next = x;
    });
    if (!step) return std::nullopt;
    cx.steps.push_back(*step);
    cx.states.push_back(next);
  }
  if (m.measure(prop, cx.states.back()) != value) return std::nullopt;
  return cx;
}

// A witness for l.known: via_path to the first node whose counters some
// objective's pass reached with the measure l.known, if following it on
// the model gives that measure.
template <class M>
std::vector<std::uint32_t> witness(const M& m, const GainGraph& g, const Lifted& l) {
  const std::size_t k = std::size_t(l.pm.counters), n = g.nodes();
  for (std::size_t o = 0; o * n * k < l.gains.reached.size(); ++o)
    for (std::size_t u = 0; u < n; ++u) {
      int c[kMaxPathCounters] = {};
      for (std::size_t i = 0; i < k; ++i) c[i] = l.gains.reached[(o * n + u) * k + i];
      if (m.path_value(l.prop, c) != l.known) continue;
      std::vector<std::uint32_t> p = via_path(g, l.gains, o, std::uint32_t(u));
      if (follow(m, p, l.prop, l.known)) return p;
      break;  // this objective's links do not lead back: the next one
    }
  return {};
}

inline std::vector<Objective> objectives(int counters) {
  if (counters == 1) return {{1, 0}};
  // Each counter alone, and each against the other (a ratio's extremes).
  return {{1, 0}, {0, 1}, {1, -1}, {-1, 1}};
}

}  // namespace path_measure

template <Model M>
std::optional<SearchResult<typename M::State>> explore_path_measures(const M& m, const SearchOptions& opt) {
  if constexpr (!HasPathMeasure<M>) {
    return std::nullopt;
  } else {
    using State = typename M::State;
    using path_measure::Lifted;
    if (!opt.reduce.lift || !opt.reduce.slice || !opt.bfs || opt.cluster || opt.census || opt.limits.max_depth ||
        (opt.store != StoreKind::Plain && opt.store != StoreKind::Tree))
      return std::nullopt;
    const auto began = std::chrono::steady_clock::now();
    const auto& pinfo = m.info().props;
    std::vector<int> props = opt.props;
    if (props.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) props.push_back(int(i));
    std::vector<Lifted> lifted;
    for (std::size_t n = 0; n < props.size(); ++n) {
      const int p = props[n];
      if (pinfo.at(std::size_t(p)).kind != PropKind::Maximize) continue;
      const PathMeasure pm = m.path_measure(p);
      if (pm.counters < 1 || pm.counters > kMaxPathCounters) continue;
      // The same property selected twice (with bounds or without): one lifting.
      auto same = std::find_if(lifted.begin(), lifted.end(), [&](const Lifted& l) { return l.prop == p; });
      if (same == lifted.end()) {
        Lifted l;
        l.prop = p;
        l.pm = pm;
        same = lifted.insert(lifted.end(), std::move(l));
      }
      same->at.push_back(n);
      if (n < opt.bounds.size() && opt.bounds[n]) same->above = std::min(same->above, *opt.bounds[n] + 1);
    }
    // A counter another selected property reads must stay in the keys:
    // that property is not lifted either.
    if constexpr (HasInfluence<M>) {
      const Influence inf = m.influence();
      const auto shares = [&](int p, int q) {
        for (int v : inf.prop_reads.at(std::size_t(p)))
          for (int w : inf.prop_reads.at(std::size_t(q)))
            if (v == w) return true;
        return false;
      };
      for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t j = 0; j < lifted.size() && !changed; ++j)
          for (std::size_t n = 0; n < props.size() && !changed; ++n) {
            const bool is_lifted = std::any_of(lifted.begin(), lifted.end(), [&](const Lifted& l) {
              return std::find(l.at.begin(), l.at.end(), n) != l.at.end();
            });
            if (!is_lifted && shares(lifted[j].prop, props[n])) {
              lifted.erase(lifted.begin() + std::ptrdiff_t(j));
              changed = true;
            }
          }
      }
    } else {
      lifted.clear();
    }
    if (lifted.empty()) return std::nullopt;

    // 1. The control graph.
    SearchOptions c = opt;
    for (const Lifted& l : lifted) c.reduce.lifted.push_back(l.prop);
    PropertyChecks<M> checks(m, c);
    Search<M> control(m, c);
    if (control.reduced().por()) return std::nullopt;
    const StopReason stop = control.run(checks);
    SearchResult<State> r = checks.result(stop, control);
    bool complete = stop == StopReason::Complete;

    // 2. Gains ahead and a value reached, per property.
    if (opt.progress)
      std::fprintf(stderr, "[blkmc] path measure: the gains on the control graph (%s states)\n",
                   human_count(double(r.stats.states)).c_str());
    std::size_t edges = 0;
    bool cyclic = false;
    const auto deadline = opt.limits.seconds > 0
                              ? began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(opt.limits.seconds))
                              : std::chrono::steady_clock::time_point::max();
    for (Lifted& l : lifted) {
      const std::optional<GainGraph> pass = path_measure::gain_graph(m, control, l, opt.threads, deadline);
      if (!pass) {  // stopped: what the control graph shows
        if (complete) r.stop = g_interrupted ? StopReason::Interrupted : StopReason::Time;
        complete = false;
        break;
      }
      const GainGraph& g = *pass;
      int start[kMaxPathCounters] = {};
      m.path_counters(l.prop, m.initial(), start);
      const std::vector<Objective> obj = path_measure::objectives(l.pm.counters);
      l.gains = analyze_gains(g, start, obj, true);
      if (l.pm.share && complete) path_measure::long_run(m, control, g, l, deadline);
      edges += g.edges();
      cyclic = cyclic || l.gains.cyclic_gain;
      const std::size_t k = std::size_t(l.pm.counters), nodes = g.nodes();
      l.target = m.path_value(l.prop, start);
      for (std::size_t u = 0; u < obj.size() * nodes; ++u) {
        int at[kMaxPathCounters] = {};
        for (std::size_t i = 0; i < k; ++i) at[i] = l.gains.reached[u * k + i];
        l.target = std::max(l.target, m.path_value(l.prop, at));
      }
      // Nothing can rise above where the start already is (a measure that
      // stays 0): the start is the first state with the maximum.
      const int top = bound_ahead(l.gains, 0, l.pm.counters, l.pm.cap, start,
                                  [&](const int* lo, const int* hi) { return m.path_bound(l.prop, lo, hi); });
      l.settled = l.above == INT_MAX && top <= m.path_value(l.prop, start);
      if (l.above == INT_MAX && l.target == top) {
        l.known = top;
        l.witness = path_measure::witness(m, g, l);
      }
      l.gains.via = {};
      // A bound K: the product must also keep whatever can rise above K.
      l.reached = l.target;
      l.target = std::min(l.target, l.above);
    }
    if (g_interrupted && complete) {  // Ctrl-C during the gain pass: what it has so far
      complete = false;
      r.stop = StopReason::Interrupted;
    }
    // The long-run shares go with every slot of their property, whatever
    // the product finds.
    struct Shares {
      std::vector<std::size_t> at;
      std::vector<ShareFigure> figures;
      std::string note;
    };
    std::vector<Shares> shares;
    for (const Lifted& l : lifted)
      if (l.pm.share)
        shares.push_back({l.at, l.shares,
                          l.shares.empty() && l.shares_note.empty() ? "the search did not finish" : l.shares_note});
    const auto put_shares = [&](SearchResult<State>& res) {
      for (const Shares& s : shares)
        for (std::size_t n : s.at) {
          res.props[n].shares = s.figures;
          res.props[n].shares_note = s.note;
        }
    };
    std::string share_stats;
    for (const Lifted& l : lifted)
      if (!l.shares_stats.empty()) share_stats += "; " + l.shares_stats;
    const std::string graph_note =
        fmt::format("path measure ({} without {} counter(s): {} states, {} edges{}{}", pinfo[std::size_t(lifted[0].prop)].name,
                    lifted[0].pm.counters, r.stats.states, edges, cyclic ? ", cycles that add" : "", share_stats);
    if (!complete) {
      // What the part searched shows: a value some path reaches.
      for (const Lifted& l : lifted)
        for (std::size_t n : l.at) {
          PropOutcome<State>& o = r.props[n];
          o.value = l.reached;
          o.value_exact = false;
          o.trace.reset();
        }
      r.stats.reduction += "; " + graph_note + ", stopped before the product)";
      put_shares(r);
      return r;
    }

    for (const Lifted& l : lifted) {
      if (!l.settled) continue;
      for (std::size_t n : l.at) {
        PropOutcome<State>& o = r.props[n];
        o.value = l.reached;
        o.value_exact = true;
        o.trace = control.path_to(0);
      }
    }
    std::erase_if(lifted, [](const Lifted& l) { return l.settled; });
    if (lifted.empty()) {
      r.stats.reduction += "; " + graph_note + "; the start has the maximum)";
      r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      put_shares(r);
      return r;
    }

    // 3. The product, where a lifted measure can still reach its target:
    // the search without this layer, with the same selection (so the same
    // keys), leaving out successors; only the lifted results are taken.
    SearchOptions q = opt;
    q.props = props;
    q.bounds.resize(props.size());
    for (const Lifted& l : lifted)
      if (l.known)
        for (std::size_t n : l.at) q.bounds[n] = l.known - 1;
    q.reduce.lift = false;
    q.reduce.lifted.clear();
    q.reduce.por = false;
    if (q.limits.seconds > 0)  // what the control graph and the gain pass left
      q.limits.seconds = std::max(
          0.001, q.limits.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
    if (q.limits.max_states) q.limits.max_states = q.limits.max_states > r.stats.states ? q.limits.max_states - r.stats.states : 1;
    if (q.limits.memory_bytes)
      q.limits.memory_bytes = q.limits.memory_bytes > r.stats.store_bytes ? q.limits.memory_bytes - r.stats.store_bytes : 1;
    PropertyChecks<M> qc(m, q);
    Search<M> product(m, q);
    auto shared = std::make_shared<const std::vector<Lifted>>(lifted);
    auto unknown = std::make_shared<std::atomic<std::uint64_t>>(0);
    product.prune(path_measure::CannotReach<M>(m, control.reduced(), control.store(), shared, unknown));
    const StopReason qstop = product.run(qc);
    SearchResult<State> qr = qc.result(qstop, product);
    bool stopped_at_known = false, witnessed = false;
    for (const Lifted& l : lifted)
      for (std::size_t n : l.at) {
        PropOutcome<State>& o = r.props[n] = std::move(qr.props[n]);
        if (!l.known) continue;
        // Back to the property as asked: its maximum, and the first state
        // with it, breadth-first.
        o.bound.reset();
        if (o.verdict == Verdict::Violated) {
          o.verdict = Verdict::Holds;
          o.value_exact = true;
          stopped_at_known = true;
        } else if (auto w = path_measure::follow(m, l.witness, l.prop, l.known)) {
          // The product stopped at a limit first: a path with the maximum.
          o.verdict = Verdict::Holds;
          o.value = l.known;
          o.value_exact = true;
          o.trace = std::move(w);
          witnessed = true;
        } else {
          o.trace.reset();
        }
      }
    if (qstop != StopReason::Complete && !(qstop == StopReason::AllViolated && stopped_at_known)) r.stop = qstop;

    Stats& st = r.stats;
    const Stats& b = qr.stats;
    std::string targets;
    for (const Lifted& l : lifted)
      targets += fmt::format("{}{} {}{}", targets.empty() ? "" : ", ", pinfo[std::size_t(l.prop)].name, l.target,
                             l.known ? " (the most it can be: to its first state)" : "");
    st.reduction += fmt::format("; {}; then {} states with them, where {} can still be reached{}{})", graph_note,
                                b.states, targets,
                                witnessed ? "; stopped before the first state with it, so the trace is a path of the "
                                            "control graph to it, not the shortest"
                                          : "",
                                unknown->load() ? fmt::format(" ({} keys not in the graph)", unknown->load()) : "");
    st.states += b.states;
    st.transitions += b.transitions;
    st.max_depth = std::max(st.max_depth, b.max_depth);
    st.store_bytes += b.store_bytes;
    st.disk_bytes += b.disk_bytes;
    st.peak_rss_bytes = std::max(st.peak_rss_bytes, b.peak_rss_bytes);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    st.states_per_second = st.seconds > 0 ? double(st.states) / st.seconds : 0;
    st.bytes_per_state = st.states ? double(st.store_bytes) / double(st.states) : 0;
    put_shares(r);
    return r;
  }
}

}  // namespace blkmc
