// The property checks, observers of the one search (explorer/search.hpp):
// PropertyChecks runs the selected properties' checks, one class per
// property kind (explorer/check_kinds.hpp lists them):
//   invariant    violates() on every new state;
//   deadlock     every expanded state without successors must be finished();
//   maximize     the model's measure() on every new state: the maximum and the
//                first state reaching it (BFS: a shortest trace); with a bound
//                K (NAME<=K) the first state above K is a violation;
//   progress and starvation  an edge log of the explored graph (with each
//                edge's actor for starvation), decided after a complete
//                search (explorer/progress.hpp, explorer/starvation.hpp).
// The search keeps going after a property fails, until every selected
// property has failed or the space is done, so one run gives a verdict for
// each. PropertyChecks knows no kind by name: it hands each event to every
// kind, and each kind to its own slots.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "explorer/check_kinds.hpp"
#include "explorer/reach.hpp"
#include "explorer/search.hpp"
#include "model/model.hpp"
#include "model/params.hpp"

namespace blkmc {

template <Model M>
class PropertyChecks {
 public:
  using State = typename M::State;
  static constexpr std::uint64_t kNoHit = checks::kNoHit;
  using Finding = checks::Finding;

  // Throws UsageError when a selected property's kind needs a model hook the
  // model lacks (measure(), pending()), or a bound is given for a property
  // that is not measured.
  PropertyChecks(const M& m, const SearchOptions& opt) : m_(m) {
    const auto& pinfo = m.info().props;
    props_ = opt.props;
    if (props_.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) props_.push_back(int(i));
    for (std::size_t n = 0; n < props_.size(); ++n) {
      const int p = props_[n];
      const PropKind kind = pinfo.at(std::size_t(p)).kind;
      const std::optional<int> bound = n < opt.bounds.size() ? opt.bounds[n] : std::nullopt;
      if (bound && (!kind_info(kind).measured || *bound < 0))
        throw UsageError(fmt::format("property {}: a bound <={} needs a maximize property",
                                     pinfo[std::size_t(p)].name, *bound));
      checks::with_kind<M>(kind, [&]<class K>(std::type_identity<K>) {
        K::usable(m, p);
        std::get<K>(kinds_).add(n, p, bound);
      });
    }
    bool actors = false;  // the edges carry their actor for a kind judged per actor
    each([&]<class K>(const K& k) {
      if constexpr (K::kOnGraph) graph_ = graph_ || !k.slots.empty();
      actors = actors || (kind_info(K::kKind).per_actor && !k.slots.empty());
    });
    edges_ = EdgeLog(actors);
  }

  // --- the search's events ---
  void on_new(std::uint32_t id, const State& s) {
    each([&](auto& k) { k.on_new(m_, id, s, violated_); });
  }
  bool wants_edges() const { return graph_; }
  void on_expand(std::uint32_t id, const State& s) { edges_.begin_state(id, m_.finished(s)); }
  void on_edge(std::uint32_t to, std::uint8_t actor) { edges_.add_edge(to, actor); }
  void on_expanded(std::uint32_t id, const State& s, std::size_t successors, bool whole) {
    if (graph_ && whole) edges_.end_state(id);
    each([&](auto& k) { k.on_expanded(m_, id, s, successors, violated_); });
  }
  // The graph kinds are decided after the search, and an unbounded maximize
  // property is never violated, so they never stop it early.
  bool done() const { return !graph_ && violated_ == props_.size(); }
  std::uint64_t memory_bytes() const { return graph_ ? edges_.memory_bytes() : 0; }

  // The verdicts, in the order the properties were selected.
  SearchResult<State> result(StopReason stop, const Search<M>& search) const {
    SearchResult<State> r;
    r.stop = stop;
    r.props.resize(selected());
    local_results(stop, [&](std::uint32_t id) { return search.path_to(id); }, r);
    traces(find(stop, search.store().size()),
           [&](const std::vector<std::uint32_t>& walk, std::size_t loop, const std::vector<int>& actors,
               std::size_t& base) { return search.path_along(walk, loop, actors, &base); },
           r);
    r.stats = search.stats(memory_bytes());
    return r;
  }

  // --- The same checks for a search that meets states away from this
  // observer, out of id order (each rank of a distributed search holds its
  // own): the state-local kinds' slots, numbered from 0 in the kinds'
  // order, report hits, the smallest (id << 32 | value) of a state that
  // violates each, which the search reduces over its parts and settles
  // where a one-process search would have seen them. ---
  std::size_t selected() const { return props_.size(); }
  std::size_t local_slots() const {
    std::size_t n = 0;
    each([&]<class K>(const K& k) {
      if constexpr (!K::kOnGraph) n += k.slots.size();
    });
    return n;
  }
  bool open(std::size_t i) const {
    bool o = false;
    at_local(i, [&](const auto& k, std::size_t j) { o = k.slots[j].violating == StateStore::kNone; });
    return o;
  }
  // Whether slot i's violation is seen when its own state is expanded (a
  // deadlock), not when it is first reached (its parent expanded).
  bool hit_at_expansion(std::size_t i) const {
    bool e = false;
    at_local(i, [&]<class K>(const K&, std::size_t) { e = K::kHitAtExpansion; });
    return e;
  }
  // A new state's hits; an expanded state's hits.
  void hit_new(std::uint32_t id, const State& s, std::vector<std::uint64_t>& hits) const {
    each_local([&](const auto& k, std::size_t at) { k.hit_new(m_, id, s, hits.data() + at); });
  }
  void hit_expanded(std::uint32_t id, const State& s, std::size_t successors, std::vector<std::uint64_t>& hits) const {
    each_local([&](const auto& k, std::size_t at) { k.hit_expanded(m_, id, s, successors, hits.data() + at); });
  }
  // Slot i is violated by the hit a one-process search met first.
  void settle(std::size_t i, std::uint64_t hit) {
    at_local(i, [&](auto& k, std::size_t j) { k.settle(j, hit, violated_); });
  }
  // Words of the local kinds' best states (the largest measure first
  // reached), the smallest over the parts wins.
  std::size_t bests() const {
    std::size_t n = 0;
    each([&](const auto& k) { n += k.bests(); });
    return n;
  }
  void best_new(std::uint32_t id, const State& s, std::vector<std::uint64_t>& best) const {
    std::size_t at = 0;
    each([&](const auto& k) {
      k.best_new(m_, id, s, best.data() + at);
      at += k.bests();
    });
  }
  void settle_best(const std::vector<std::uint64_t>& best) {
    std::size_t at = 0;
    each([&](auto& k) {
      k.settle_best(best.data() + at);
      at += k.bests();
    });
  }
  // The state-local slots' outcomes into r; path_to(id): the trace to a
  // stored state.
  template <class PathTo>
  void local_results(StopReason stop, PathTo&& path_to, SearchResult<State>& r) const {
    const bool complete = stop == StopReason::Complete || stop == StopReason::AllViolated;
    each([&]<class K>(const K& k) {
      if constexpr (!K::kOnGraph) k.results(complete, path_to, r);
    });
  }

  // --- The kinds decided on the explored graph: its edge log, the bytes
  // per state they keep beside it (gathered by a distributed search on the
  // rank that decides), their findings and the findings' traces. ---
  bool graph_active() const { return graph_; }
  EdgeLog& edges() { return edges_; }
  const EdgeLog& edges() const { return edges_; }
  std::size_t marks() const {
    std::size_t n = 0;
    each([&](const auto& k) { n += k.marks(); });
    return n;
  }
  void marks_of(const State& s, std::vector<std::uint8_t>& out) const {
    each([&](const auto& k) { k.marks_of(m_, s, out); });
  }
  void set_marks(std::uint32_t id, const std::uint8_t* b) {
    each([&](auto& k) {
      k.set_marks(id, b);
      b += k.marks();
    });
  }
  void resize_marks(std::size_t n) {
    each([&](auto& k) { k.resize_marks(n); });
  }
  void on_new_graph(std::uint32_t id, const State& s) {
    each([&]<class K>(K& k) {
      if constexpr (K::kOnGraph) k.on_new(m_, id, s, violated_);
    });
  }
  // The verdicts of a search that stopped so, over states [0, n).
  std::vector<Finding> find(StopReason stop, std::size_t n) const {
    std::vector<Finding> out;
    each([&]<class K>(const K& k) {
      if constexpr (K::kOnGraph) k.find(edges_, stop == StopReason::Complete, n, out);
    });
    return out;
  }
  // The findings into r, with their traces: path_along(walk, loop, actors,
  // base) is Search::path_along (base: the steps of its path to walk[0]).
  template <class PathAlong>
  void traces(const std::vector<Finding>& found, PathAlong&& path_along, SearchResult<State>& r) const {
    for (const Finding& f : found) {
      PropOutcome<State>& o = r.props[f.k];
      o.prop = f.prop;
      o.verdict = f.verdict;
      if (f.verdict != Verdict::Violated) continue;
      std::size_t base = 0;
      Counterexample<State> cx = path_along(f.walk, f.loop, f.actors, base);
      checks::with_kind<M>(m_.info().props.at(std::size_t(f.prop)).kind,
                           [&]<class K>(std::type_identity<K>) { K::mark(m_, f, base, cx); });
      o.trace = std::move(cx);
    }
  }

 private:
  template <class F>
  void each(F&& f) {
    checks::for_each_kind<M>(kinds_, f);
  }
  template <class F>
  void each(F&& f) const {
    checks::for_each_kind<M>(kinds_, f);
  }
  // f(kind, first) for each state-local kind, first: its slots' place
  // among the local slots.
  template <class F>
  void each_local(F&& f) const {
    std::size_t at = 0;
    each([&]<class K>(const K& k) {
      if constexpr (!K::kOnGraph) {
        f(k, at);
        at += k.slots.size();
      }
    });
  }
  // f(kind, j) for local slot i, the kind's slot j.
  template <class F>
  void at_local(std::size_t i, F&& f) const {
    at_local(*this, i, f);
  }
  template <class F>
  void at_local(std::size_t i, F&& f) {
    at_local(*this, i, f);
  }
  template <class Self, class F>
  static void at_local(Self& self, std::size_t i, F&& f) {
    std::size_t at = 0;
    self.each([&]<class K>(K& k) {
      if constexpr (!std::remove_const_t<K>::kOnGraph) {
        if (i >= at && i < at + k.slots.size()) f(k, i - at);
        at += k.slots.size();
      }
    });
  }

  const M& m_;
  std::vector<int> props_;
  checks::Kinds<M> kinds_;
  EdgeLog edges_;
  bool graph_ = false;  // a kind decided on the graph is selected
  std::size_t violated_ = 0;
};

// Under partial-order reduction a breadth-first search finds shortest paths
// of the reduced graph only. For `--bfs`, each trace of a state-local kind
// is then searched again breadth-first without it (slicing and symmetry
// keep depths), bounded by the trace's length: the first state with the
// same quality (the kind's reaches(): violating the invariant, a deadlock,
// the same maximum, above the bound) and a shortest full-model path to it.
// A trace stays as it is if that search stops early.
template <class M>
void shortest_traces(const M& m, const SearchOptions& opt, SearchResult<typename M::State>& r) {
  using State = typename M::State;
  for (PropOutcome<State>& o : r.props) {
    if (!o.trace || o.trace->steps.empty()) continue;
    SearchOptions again = opt;
    again.reduce.por = false;
    again.props = {o.prop};
    again.bounds.clear();
    again.limits.max_depth = std::uint32_t(o.trace->steps.size());
    checks::with_kind<M>(m.info().props.at(std::size_t(o.prop)).kind, [&]<class K>(std::type_identity<K>) {
      if constexpr (!K::kOnGraph) {
        auto pred = [&](const State& s) { return K::reaches(m, o, s); };
        Search<M> search(m, again);
        FindState<M> obs(pred);
        search.run(obs);
        if (!obs.done()) return;
        o.trace = search.path_to(obs.found);
        K::retraced(m, o);
      }
    });
  }
}

template <Model M>
SearchResult<typename M::State> explore_on_ranks(const M& m, const SearchOptions& opt);  // explorer/distributed_search.hpp
// The search in two passes for path measures; nothing where it does not
// apply (explorer/path_measure.hpp).
template <Model M>
std::optional<SearchResult<typename M::State>> explore_path_measures(const M& m, const SearchOptions& opt);

// Searches m with the selected properties checked on the way (over the
// ranks of opt.cluster where it is set).
template <Model M>
SearchResult<typename M::State> explore(const M& m, const SearchOptions& opt) {
  if (opt.cluster) return explore_on_ranks(m, opt);
  if (opt.reduce.lift)
    if (auto lifted = explore_path_measures(m, opt)) return std::move(*lifted);
  PropertyChecks<M> checks(m, opt);
  Search<M> search(m, opt);
  const StopReason stop = search.run(checks);
  SearchResult<typename M::State> r = checks.result(stop, search);
  if (opt.bfs && search.reduced().por()) shortest_traces(m, opt, r);
  if (opt.census) {
    if constexpr (HasSchema<M>) {
      // A line every progress interval, as the search's (quiet on small runs).
      auto last = std::chrono::steady_clock::now();
      r.census = take_census(m.schema(), search.store(), [&](const std::string& var, std::size_t i, std::size_t n) {
        const auto now = std::chrono::steady_clock::now();
        if (!opt.progress || std::chrono::duration<double>(now - last).count() < opt.progress_interval) return;
        last = now;
        std::fprintf(stderr, "[blkmc] census: variable %zu of %zu (%s)\n", i + 1, n, var.c_str());
      });
    } else {
      throw UsageError(fmt::format("--census: model {} does not lay its state out by a schema", m.info().name));
    }
  }
  return r;
}

}  // namespace blkmc

#include "explorer/distributed_search.hpp"
#include "explorer/path_measure.hpp"
