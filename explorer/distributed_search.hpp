// A breadth-first search spread over the ranks of a Cluster (MPI processes:
// `mpirun -np N blkmc check ...`), with the same ids, counts, verdicts,
// maxima and traces as the one-process search: explore_on_ranks(), which
// explore() (explorer/checks.hpp) calls when SearchOptions::cluster is set.
// The search is the level search with the resolver Search::OnRanks
// (explorer/resolve_on_ranks.hpp, which says how the ranks share a level);
// here the result is built over the ranks. Traces are rebuilt rank by rank
// along the parent ids. For progress and starvation rank 0 holds the edge
// log and decides with the one-process graph check (PropertyChecks::find);
// the walks of its findings are broadcast and every rank helps rebuild
// their traces.
//
// Not distributed: the compact stores, and the re-search for shortest
// traces under partial-order reduction (rank 0 runs it alone).
#pragma once

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "explorer/cluster.hpp"
#include "explorer/key_path.hpp"
#include "explorer/resolve_on_ranks.hpp"

namespace blkmc {

template <Model M>
class RankResults {
 public:
  using State = typename M::State;

  RankResults(const Search<M>& s, PropertyChecks<M>& checks, Cluster& c)
      : s_(s), checks_(checks), c_(c), ids_(s.rank_ids()), len_(s.model().state_bytes()) {}

  SearchResult<State> result(StopReason stop, const SearchOptions& opt) {
    SearchResult<State> r;
    r.stop = stop;
    r.props.resize(checks_.selected());
    checks_.local_results(stop, [&](std::uint32_t id) { return path_to(id); }, r);
    if (checks_.graph_active()) {
      Bytes found;
      if (c_.rank() == 0) found = encode(checks_.find(stop, s_.rank_states()));
      c_.broadcast(found, 0);
      checks_.traces(decode(found),
                     [&](const std::vector<std::uint32_t>& walk, std::size_t loop, const std::vector<int>& actors,
                         std::size_t& base) { return path_along(walk, loop, actors, base); },
                     r);
    }
    Stats& st = r.stats;
    st = s_.stats(checks_.edges().memory_bytes());
    std::vector<std::uint64_t> sums{st.store_bytes, st.peak_rss_bytes};
    c_.sum(sums);
    st.states = s_.rank_states();
    st.states_per_second = st.seconds > 0 ? double(st.states) / st.seconds : 0;
    st.store_bytes = sums[0];
    st.peak_rss_bytes = sums[1];
    st.bytes_per_state = st.states ? double(st.store_bytes) / double(st.states) : 0;
    st.threads = std::max(1u, opt.threads);
    st.ranks = unsigned(c_.size());
    // Shortest traces under partial-order reduction: a bounded one-process
    // search, on rank 0 (the one that reports).
    if (s_.reduced().por() && c_.rank() == 0) {
      SearchOptions one = opt;
      one.cluster = nullptr;
      shortest_traces(s_.model(), one, r);
    }
    return r;
  }

 private:
  static constexpr std::uint32_t kNone = StateStore::kNone;

  // The local index of global id g, or kNone where another rank owns it.
  std::uint32_t local_of(std::uint32_t g) const {
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), g);
    return it != ids_.end() && *it == g ? std::uint32_t(it - ids_.begin()) : kNone;
  }
  State key(std::uint32_t l) const {
    State k{};
    s_.store().load(l, k.b.data());
    return k;
  }

  // The path from the start to global id g, on concrete states (every rank
  // takes part; the owner of each id on the way answers).
  Counterexample<State> path_to(std::uint32_t g) {
    using ranks::append;
    std::vector<State> keys;
    for (std::uint32_t v = g; v != kNone;) {
      Bytes mine;
      if (const std::uint32_t l = local_of(v); l != kNone) {
        append(mine, s_.store().parent(l));
        const State k = key(l);
        mine.insert(mine.end(), k.b.data(), k.b.data() + len_);
      }
      std::vector<Bytes> in;
      c_.exchange(std::vector<Bytes>(std::size_t(c_.size()), mine), in);
      const auto it = std::find_if(in.begin(), in.end(), [](const Bytes& x) { return !x.empty(); });
      if (it == in.end()) throw std::logic_error("distributed search: no rank holds a state on the path");
      State k{};
      std::memcpy(k.b.data(), it->data() + 4, len_);
      keys.push_back(k);
      v = ranks::read<std::uint32_t>(it->data());
    }
    Counterexample<State> cx;
    cx.states.push_back(s_.start_state());
    for (std::size_t i = keys.size() - 1; i > 0; --i) {
      const State& want = keys[i - 1];
      key_path::step_to(s_.reduced(), cx,
                        [&](const State& k) { return std::memcmp(k.b.data(), want.b.data(), len_) == 0; }, -1);
    }
    return cx;
  }
  // The keys of global ids (every rank takes part; each owner gives its own).
  std::unordered_map<std::uint32_t, State> keys_of(const std::vector<std::uint32_t>& ids) {
    Bytes mine;
    for (const std::uint32_t g : ids)
      if (const std::uint32_t l = local_of(g); l != kNone) {
        ranks::append(mine, g);
        const State k = key(l);
        mine.insert(mine.end(), k.b.data(), k.b.data() + len_);
      }
    std::vector<Bytes> in;
    c_.exchange(std::vector<Bytes>(std::size_t(c_.size()), mine), in);
    std::unordered_map<std::uint32_t, State> keys;
    for (const Bytes& b : in)
      for (std::size_t i = 0; i + 4 + len_ <= b.size(); i += 4 + len_) {
        State k{};
        std::memcpy(k.b.data(), b.data() + i + 4, len_);
        keys.emplace(ranks::read<std::uint32_t>(b.data() + i), k);
      }
    return keys;
  }
  // Search::path_along's counterpart (every rank takes part).
  Counterexample<State> path_along(const std::vector<std::uint32_t>& walk, std::size_t loop,
                                   const std::vector<int>& actors, std::size_t& base) {
    Counterexample<State> cx = path_to(walk.front());
    base = cx.steps.size();
    const auto keys = keys_of(walk);
    key_path::along(s_.reduced(), cx, walk, loop, actors, !s_.reduced().keyed(),
                    [&](std::uint32_t id, const State& k) {
                      const auto it = keys.find(id);
                      return it != keys.end() && std::memcmp(it->second.b.data(), k.b.data(), len_) == 0;
                    });
    return cx;
  }

  // Rank 0's graph findings, for the others to help build their traces.
  using Finding = checks::Finding;
  static Bytes encode(const std::vector<Finding>& found) {
    using ranks::append;
    Bytes b;
    append(b, std::uint64_t(found.size()));
    for (const Finding& f : found) {
      append(b, std::uint64_t(f.k));
      append(b, f.prop);
      append(b, std::uint8_t(f.verdict));
      append(b, std::uint64_t(f.loop));
      append(b, std::uint64_t(f.walk.size()));
      for (const std::uint32_t v : f.walk) append(b, v);
      append(b, std::uint64_t(f.actors.size()));
      for (const int a : f.actors) append(b, a);
    }
    return b;
  }
  static std::vector<Finding> decode(const Bytes& b) {
    const std::uint8_t* p = b.data();
    auto take = [&]<class T>(T& v) {
      v = ranks::read<T>(p);
      p += sizeof v;
    };
    std::uint64_t n = 0, len = 0;
    take(n);
    std::vector<Finding> found(n);
    for (Finding& f : found) {
      std::uint64_t k = 0, loop = 0;
      std::uint8_t verdict = 0;
      take(k);
      take(f.prop);
      take(verdict);
      take(loop);
      f.k = k;
      f.verdict = Verdict(verdict);
      f.loop = loop;
      take(len);
      f.walk.resize(len);
      for (std::uint32_t& v : f.walk) take(v);
      take(len);
      f.actors.resize(len);
      for (int& a : f.actors) take(a);
    }
    return found;
  }

  const Search<M>& s_;
  PropertyChecks<M>& checks_;
  Cluster& c_;
  const std::vector<std::uint32_t>& ids_;  // local index -> global id (increasing)
  std::size_t len_;
};

template <Model M>
SearchResult<typename M::State> explore_on_ranks(const M& m, const SearchOptions& opt) {
  PropertyChecks<M> checks(m, opt);
  Search<M> search(m, opt);
  try {
    const StopReason stop = search.run(checks);
    return RankResults<M>(search, checks, *opt.cluster).result(stop, opt);
  } catch (const std::exception& e) {
    opt.cluster->fail(e.what());  // the other ranks would wait for this one forever
    throw;
  }
}

}  // namespace blkmc
