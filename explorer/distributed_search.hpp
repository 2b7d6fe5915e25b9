// Breadth-first search spread over the ranks of a Cluster (MPI processes:
// `mpirun -np N blkmc check ...`), with the same ids, counts, verdicts,
// maxima and traces as the one-process search. Included by
// explorer/checks.hpp: explore() comes here when SearchOptions::cluster is
// set.
//
// Every state has an owner rank, by its hash; the owner alone stores it
// (bytes, parent id, depth) in its own StateStore. Ids are global and are
// those of the one-process search: a level's new states are numbered in the
// order of their origin (parent id, successor index). Each batch of a
// level's parents (a range of ids) runs in rounds of all-to-all exchanges:
//   1 expand   each rank expands the parents it owns; every successor goes
//              to its owner as a query (hash, origin, bytes);
//   2 look up  the owner looks each one up in its store; where the
//              parent's rank must decide with the answer (partial-order
//              reduction's proviso, a depth bound) the ids go back, the
//              parent keeps its ample set and sends the kept new successors
//              back as candidates; otherwise every unknown query is one;
//   3 merge    the owner keeps, of equal candidates, the smallest origin;
//   4 number   rank 0 merges the ranks' origins and hands out the ids;
//   5 observe  each rank checks its new states (invariants, maxima) and its
//              parents (deadlocks) with PropertyChecks' own slots (hit_new,
//              hit_expanded); the smallest violating ids are reduced
//              over the ranks, and rank 0 finds where a one-process search
//              would stop (every property answered, --max-states) and
//              broadcasts the cut; counts are summed up to it;
//   6 store    owners store their new states below the cut.
// Traces are rebuilt rank by rank along the parent ids.
//
// Progress and starvation: the owners then answer every query with its
// id (the new ones once numbered), and each rank sends rank 0 the edges of
// its parents below the cut (with each parent's finished(), each new
// state's pending()): rank 0 holds the edge log, as one process would, and
// decides with the one-process graph check (PropertyChecks::find); the walks of
// its findings are broadcast and every rank helps rebuild their traces.
//
// Not distributed: the compact stores, and the re-search for shortest
// traces under partial-order reduction (rank 0 runs it alone). --memory
// applies to each rank's store (and rank 0's edge log) and is checked
// between batches; --time and interrupts too.
#pragma once

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "explorer/cluster.hpp"
#include "explorer/expand.hpp"
#include "explorer/key_path.hpp"
#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

template <Model M>
class DistributedSearch {
 public:
  using State = typename M::State;

  DistributedSearch(const M& m, const SearchOptions& opt)
      : m_(m),
        opt_(opt),
        c_(*opt.cluster),
        rm_(m, opt.reduce, opt.props, opt.limits.max_depth != 0),
        checks_(m, opt),
        store_(m.state_bytes()),
        start_state_(m.initial()),
        len_(m.state_bytes()) {
    if (!opt.bfs) throw UsageError("a distributed search is breadth-first (drop --dfs)");
    if (opt.store != StoreKind::Plain)
      throw UsageError(fmt::format("a distributed search keeps every state on its owner rank; the {} store "
                                   "is for one process",
                                   to_string(opt.store)));
    if (checks_.graph_active() && rm_.por())
      throw std::logic_error("distributed search: partial-order reduction with an edge log");
  }

  SearchResult<State> run() {
    try {
      const auto t0 = Clock::now();
      start_ = last_progress_ = t0;
      max_states_ = std::min<std::uint64_t>(opt_.limits.max_states ? opt_.limits.max_states : kNone,
                                            kNone - 1);
      const StopReason stop = levels();
      seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
      return result(stop);
    } catch (const std::exception& e) {
      c_.fail(e.what());  // the other ranks would wait for this one forever
      throw;
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::uint32_t kNone = StateStore::kNone;
  static constexpr std::uint64_t kNever = PropertyChecks<M>::kNoHit;
  static constexpr std::size_t kBatch = 1u << 16;

  // A successor at its parent's rank: dest, and q, its query's index there.
  struct Succ {
    State next;
    std::uint64_t hash;
    std::uint8_t actor;
    Step step;
    std::uint32_t dest = 0, q = 0;
    std::uint32_t id = kNone;  // the owner's answer (where asked for)
  };
  struct Parent {
    std::uint32_t gid = 0, local = 0;
    std::uint32_t first = 0, count = 0;  // its successors in the chunk
    std::uint32_t n = 0;                 // successors kept; origin::kTruncated
    std::uint8_t por = 0;
    bool finished = false;
  };
  // A kept successor that is not stored: its query at its owner, and origin.
  struct Cand {
    std::uint32_t dest, q;
    std::uint64_t origin;
  };
  struct Chunk {
    std::vector<Parent> parents;
    std::vector<Succ> succs;
    std::vector<Cand> cands;
  };
  // A query received: its bytes in the sender's buffer.
  struct Query {
    const std::uint8_t* key;
    std::uint64_t hash, origin;
  };
  struct Rep {
    const std::uint8_t* key;
    std::uint64_t hash, origin;
    std::uint32_t id;
    std::uint32_t made;  // its place before the reps are sorted (rep_of's)
  };

  int owner(std::uint64_t hash) const { return int(std::uint32_t(hash) % std::uint32_t(c_.size())); }
  std::uint64_t hash_of(const State& s) const { return hash_padded(s.b.data(), len_); }
  std::size_t query_bytes() const { return 16 + len_; }
  // The local index of global id g, or kNone where another rank owns it.
  std::uint32_t local_of(std::uint32_t g) const {
    const auto it = std::lower_bound(gid_.begin(), gid_.end(), g);
    return it != gid_.end() && *it == g ? std::uint32_t(it - gid_.begin()) : kNone;
  }

  template <class T>
  static void append(Bytes& b, const T& v) {
    const auto at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
  }
  template <class T>
  static T read(const std::uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  // Between batches, the same on every rank: interrupt, time, memory.
  std::optional<StopReason> limits_hit(std::uint32_t level) {
    std::uint64_t code = 0;
    const double el = std::chrono::duration<double>(Clock::now() - start_).count();
    if (g_interrupted) code = 3;
    else if (opt_.limits.seconds > 0 && el >= opt_.limits.seconds) code = 2;
    else if (opt_.limits.memory_bytes &&
             store_.memory_after_insert() + checks_.edges().memory_bytes() > opt_.limits.memory_bytes)
      code = 1;
    code = c_.max(code);
    if (opt_.progress && c_.rank() == 0 &&
        std::chrono::duration<double>(Clock::now() - last_progress_).count() >= opt_.progress_interval) {
      last_progress_ = Clock::now();
      std::fprintf(stderr, "[blkmc] %s states, %s transitions, level %u, %s states/s, store %s on rank 0, %d ranks, %.0f s\n",
                   human_count(double(n_)).c_str(), human_count(double(transitions_)).c_str(), level,
                   human_count(double(n_) / el).c_str(), human_bytes(double(store_.memory_bytes())).c_str(),
                   c_.size(), el);
    }
    if (code == 3) return StopReason::Interrupted;
    if (code == 2) return StopReason::Time;
    if (code == 1) return StopReason::Memory;
    return std::nullopt;
  }

  // The checks' hits among new states ids [n_, n_ + reps) held here
  // (reps in id order), each rank's own, before they are reduced.
  std::vector<std::uint64_t> hits_new(const std::vector<Rep>& reps) const {
    std::vector<std::uint64_t> hits(checks_.local_slots(), kNever);
    State s{};
    for (const Rep& r : reps) {
      std::memcpy(s.b.data(), r.key, len_);
      checks_.hit_new(r.id, s, hits);
    }
    return hits;
  }
  // The largest measure of each maximize slot among reps below cut, and its
  // smallest id, folded into the checks on every rank.
  void fold_maxima(const std::vector<Rep>& reps, std::uint64_t cut) {
    if (checks_.bests() == 0) return;
    std::vector<std::uint64_t> best(checks_.bests(), kNever);
    State s{};
    for (const Rep& r : reps) {
      if (r.id >= cut) break;
      std::memcpy(s.b.data(), r.key, len_);
      checks_.best_new(r.id, s, best);
    }
    c_.min(best);
    checks_.settle_best(best);
  }

  StopReason levels();
  void log_edges(const std::vector<Chunk>& chunks, const std::vector<Rep>& reps, std::uint64_t whole_below,
                 std::uint64_t cut);
  void expand_batch(std::uint32_t depth, std::uint64_t b, std::uint64_t e, std::uint64_t hi, WorkerPool& pool,
             std::vector<Reduced<M>>& rms, std::optional<StopReason>& stop);

  // The path from the start to global id g, on concrete states (every rank
  // takes part; the owner of each id on the way answers).
  Counterexample<State> path_to(std::uint32_t g) {
    std::vector<State> keys;
    for (std::uint32_t v = g; v != kNone;) {
      Bytes mine;
      if (const std::uint32_t l = local_of(v); l != kNone) {
        append(mine, store_.parent(l));
        mine.insert(mine.end(), store_.get(l), store_.get(l) + len_);
      }
      std::vector<Bytes> in;
      c_.exchange(std::vector<Bytes>(std::size_t(c_.size()), mine), in);
      const auto it = std::find_if(in.begin(), in.end(), [](const Bytes& x) { return !x.empty(); });
      if (it == in.end()) throw std::logic_error("distributed search: no rank holds a state on the path");
      State k{};
      std::memcpy(k.b.data(), it->data() + 4, len_);
      keys.push_back(k);
      v = read<std::uint32_t>(it->data());
    }
    Counterexample<State> cx;
    cx.states.push_back(start_state_);
    for (std::size_t i = keys.size() - 1; i > 0; --i) {
      const State& want = keys[i - 1];
      key_path::step_to(rm_, cx, [&](const State& k) { return std::memcmp(k.b.data(), want.b.data(), len_) == 0; },
                        -1);
    }
    return cx;
  }
  // The keys of global ids (every rank takes part; each owner gives its own).
  std::unordered_map<std::uint32_t, State> keys_of(const std::vector<std::uint32_t>& ids) {
    Bytes mine;
    for (const std::uint32_t g : ids)
      if (const std::uint32_t l = local_of(g); l != kNone) {
        append(mine, g);
        mine.insert(mine.end(), store_.get(l), store_.get(l) + len_);
      }
    std::vector<Bytes> in;
    c_.exchange(std::vector<Bytes>(std::size_t(c_.size()), mine), in);
    std::unordered_map<std::uint32_t, State> keys;
    for (const Bytes& b : in)
      for (std::size_t i = 0; i + 4 + len_ <= b.size(); i += 4 + len_) {
        State k{};
        std::memcpy(k.b.data(), b.data() + i + 4, len_);
        keys.emplace(read<std::uint32_t>(b.data() + i), k);
      }
    return keys;
  }
  // Search::path_along's counterpart (every rank takes part).
  Counterexample<State> path_along(const std::vector<std::uint32_t>& walk, std::size_t loop,
                                   const std::vector<int>& actors, std::size_t& base) {
    Counterexample<State> cx = path_to(walk.front());
    base = cx.steps.size();
    const auto keys = keys_of(walk);
    key_path::along(rm_, cx, walk, loop, actors, !rm_.keyed(), [&](std::uint32_t id, const State& k) {
      const auto it = keys.find(id);
      return it != keys.end() && std::memcmp(it->second.b.data(), k.b.data(), len_) == 0;
    });
    return cx;
  }

  // Rank 0's graph findings, for the others to help build their traces.
  using Finding = checks::Finding;
  static Bytes encode(const std::vector<Finding>& found) {
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
      v = read<T>(p);
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

  SearchResult<State> result(StopReason stop) {
    SearchResult<State> r;
    r.stop = stop;
    r.props.resize(checks_.selected());
    checks_.local_results(stop, [&](std::uint32_t id) { return path_to(id); }, r);
    if (checks_.graph_active()) {
      Bytes found;
      if (c_.rank() == 0) found = encode(checks_.find(stop, n_));
      c_.broadcast(found, 0);
      checks_.traces(decode(found),
                     [&](const std::vector<std::uint32_t>& walk, std::size_t loop, const std::vector<int>& actors,
                         std::size_t& base) { return path_along(walk, loop, actors, base); },
                     r);
    }
    Stats& st = r.stats;
    st.seconds = seconds_;
    st.states = n_;
    st.transitions = transitions_;
    st.max_depth = max_depth_;
    st.states_per_second = st.seconds > 0 ? double(st.states) / st.seconds : 0;
    std::vector<std::uint64_t> sums{store_.memory_bytes() + checks_.edges().memory_bytes(), peak_rss_bytes()};
    c_.sum(sums);
    st.store_bytes = sums[0];
    st.peak_rss_bytes = sums[1];
    st.store = "plain";
    st.bytes_per_state = st.states ? double(st.store_bytes) / double(st.states) : 0;
    st.state_bytes = len_;
    const ReductionStats rs = rm_.stats();
    st.reduction = rs.summary;
    st.ample_states = rs.ample;
    st.full_states = rs.full;
    st.por_gave_up = rs.gave_up;
    st.threads = std::max(1u, opt_.threads);
    st.ranks = unsigned(c_.size());
    // Shortest traces under partial-order reduction: a bounded one-process
    // search, on rank 0 (the one that reports).
    if (rm_.por() && c_.rank() == 0) {
      SearchOptions one = opt_;
      one.cluster = nullptr;
      shortest_traces(m_, one, r);
    }
    return r;
  }

  const M& m_;
  const SearchOptions opt_;
  Cluster& c_;
  Reduced<M> rm_;  // the model searched: m_ through the reductions
  PropertyChecks<M> checks_;  // the selected properties' slots, the same on every rank
  StateStore store_;               // the states this rank owns, by local index
  std::vector<std::uint32_t> gid_;  // local index -> global id (increasing)
  State start_state_;
  std::size_t len_;
  std::uint64_t n_ = 0;  // states stored, all ranks
  std::uint64_t transitions_ = 0;
  std::uint32_t max_depth_ = 0;
  std::uint64_t max_states_ = 0;
  bool truncated_ = false;
  double seconds_ = 0;
  Clock::time_point start_, last_progress_;
};

// Rank 0's edge log: the edges of every parent below whole_below (those a
// one-process search finished expanding), in id order, and pending() of
// the new states below the cut.
template <Model M>
void DistributedSearch<M>::log_edges(const std::vector<Chunk>& chunks, const std::vector<Rep>& reps,
                                     std::uint64_t whole_below, std::uint64_t cut) {
  const std::size_t nr = std::size_t(c_.size());
  std::vector<Bytes> out(nr), in;
  for (const Chunk& ch : chunks)
    for (const Parent& p : ch.parents) {
      if (p.n == origin::kTruncated || p.gid >= whole_below) continue;
      append(out[0], p.gid);
      append(out[0], std::uint8_t(p.finished));
      append(out[0], p.n);
      for (std::uint32_t k = 0; k < p.n; ++k) {
        append(out[0], ch.succs[p.first + k].id);
        append(out[0], ch.succs[p.first + k].actor);
      }
    }
  c_.exchange(out, in);
  if (c_.rank() == 0) {
    std::vector<const std::uint8_t*> parents;
    for (const Bytes& b : in)
      for (std::size_t i = 0; i < b.size(); i += 9 + 5 * std::size_t(read<std::uint32_t>(b.data() + i + 5)))
        parents.push_back(b.data() + i);
    std::sort(parents.begin(), parents.end(),
              [](const std::uint8_t* a, const std::uint8_t* x) { return read<std::uint32_t>(a) < read<std::uint32_t>(x); });
    for (const std::uint8_t* p : parents) {
      const auto gid = read<std::uint32_t>(p);
      const auto n = read<std::uint32_t>(p + 5);
      checks_.edges().begin_state(gid, p[4] != 0);
      for (std::uint32_t k = 0; k < n; ++k)
        checks_.edges().add_edge(read<std::uint32_t>(p + 9 + 5 * std::size_t(k)), p[13 + 5 * std::size_t(k)]);
      checks_.edges().end_state(gid);
    }
  }
  // The graph kinds' bytes of each new state (starvation: pending()).
  const std::size_t marks = checks_.marks();
  if (marks == 0) return;
  out.assign(nr, {});
  State s{};
  for (const Rep& r : reps) {
    if (r.id >= cut) break;
    std::memcpy(s.b.data(), r.key, len_);
    append(out[0], r.id);
    checks_.marks_of(s, out[0]);
  }
  c_.exchange(out, in);
  if (c_.rank() != 0) return;
  const std::size_t rec = 4 + marks;
  checks_.resize_marks(cut);
  for (const Bytes& b : in)
    for (std::size_t i = 0; i + rec <= b.size(); i += rec)
      checks_.set_marks(read<std::uint32_t>(b.data() + i), b.data() + i + 4);
}

template <Model M>
StopReason DistributedSearch<M>::levels() {
  // The start state: stored by its owner, observed as the first new state.
  {
    const State s = rm_.keyed(start_state_);
    const std::uint64_t h = hash_of(s);
    std::vector<Rep> reps;
    if (owner(h) == c_.rank()) {
      store_.insert(s.b.data(), h, kNone, 0);
      gid_.push_back(0);
      reps.push_back({store_.get(0), h, 0, 0, 0});
    }
    std::vector<std::uint64_t> hits = hits_new(reps);
    c_.min(hits);
    for (std::size_t i = 0; i < hits.size(); ++i) checks_.settle(i, hits[i]);
    fold_maxima(reps, 1);
    if (c_.rank() == 0) checks_.on_new_graph(0, s);
    n_ = 1;
    if (checks_.done()) return StopReason::AllViolated;
  }
  WorkerPool pool(std::max(1u, opt_.threads));
  std::vector<Reduced<M>> rms(pool.size(), rm_);  // each worker's (scratch, by-level ample sets)
  for (auto& r : rms) r.decide_by_level();
  const std::uint64_t batch = opt_.level_batch ? opt_.level_batch : kBatch;
  std::uint64_t lo = 0;
  for (std::uint32_t depth = 0; lo < n_; ++depth) {
    const std::uint64_t hi = n_;
    for (std::uint64_t b = lo; b < hi; b += batch) {
      if (auto r = limits_hit(depth)) return *r;
      std::optional<StopReason> stop;
      expand_batch(depth, b, std::min(hi, b + batch), hi, pool, rms, stop);
      if (stop) return *stop;
    }
    rm_.end_level();
    for (auto& r : rms) r.follow(rm_);
    lo = hi;
  }
  return truncated_ ? StopReason::MaxDepth : StopReason::Complete;
}

template <Model M>
void DistributedSearch<M>::expand_batch(std::uint32_t depth, std::uint64_t b, std::uint64_t e,
                                        std::uint64_t hi, WorkerPool& pool,
                                        std::vector<Reduced<M>>& rms, std::optional<StopReason>& stop) {
  const std::size_t nr = std::size_t(c_.size());
  const bool capped = opt_.limits.max_depth && depth >= opt_.limits.max_depth;
  // The parent's rank decides with the owners' answers: the proviso of the
  // partial-order reduction, and whether a parent at the depth bound is cut.
  const bool ask = (rm_.por() && !rm_.gave_up()) || capped;
  const auto l0 = std::uint32_t(std::lower_bound(gid_.begin(), gid_.end(), std::uint32_t(b)) - gid_.begin());
  const auto l1 = std::uint32_t(std::lower_bound(gid_.begin(), gid_.end(), std::uint32_t(e)) - gid_.begin());
  const std::size_t np = l1 - l0;
  const std::size_t chunk = std::clamp<std::size_t>(np / (4 * pool.size()), 1, 64);
  const std::size_t nchunks = (np + chunk - 1) / chunk;
  std::vector<Chunk> chunks(nchunks);

  // 1 expand the parents held here; every successor is a query to its owner.
  const std::size_t used = padded_bytes(len_);
  pool.run(nchunks, [&](std::size_t c, unsigned w) {
    Chunk& ch = chunks[c];
    State cur{};
    for (std::uint32_t l = l0 + std::uint32_t(c * chunk); l < std::min<std::size_t>(l1, l0 + (c + 1) * chunk); ++l) {
      store_.load(l, cur.b.data());
      Parent p;
      p.gid = gid_[l];
      p.local = l;
      p.first = std::uint32_t(ch.succs.size());
      p.count = std::uint32_t(expand::gather(rms[w], cur, ch.succs, p.first, used, kNone,
                                             [&](const State& s) { return hash_of(s); },
                                             [&](Succ& x) { x.dest = std::uint32_t(owner(x.hash)); }));
      p.n = p.count;
      p.finished = m_.finished(cur);
      ch.parents.push_back(p);
    }
  });
  std::vector<Bytes> out(nr), in;
  {
    std::vector<std::uint32_t> q(nr, 0);
    for (Chunk& ch : chunks)
      for (const Parent& p : ch.parents)
        for (std::uint32_t k = 0; k < p.count; ++k) {
          Succ& x = ch.succs[p.first + k];
          x.q = q[x.dest]++;
          Bytes& o = out[x.dest];
          append(o, x.hash);
          append(o, origin::of(p.gid, k));
          o.insert(o.end(), x.next.b.data(), x.next.b.data() + len_);
        }
  }
  std::vector<Bytes> queries;  // kept until the candidates point into them
  c_.exchange(out, queries);

  // 2 look up every query in this rank's store.
  std::vector<std::vector<Query>> qs(nr);
  std::vector<std::vector<std::uint32_t>> ans(nr);
  for (std::size_t s = 0; s < nr; ++s) {
    const std::size_t nq = queries[s].size() / query_bytes();
    qs[s].resize(nq);
    ans[s].resize(nq);
    for (std::size_t i = 0; i < nq; ++i) {
      const std::uint8_t* r = queries[s].data() + i * query_bytes();
      qs[s][i] = {r + 16, read<std::uint64_t>(r), read<std::uint64_t>(r + 8)};
    }
    pool.run((nq + 4095) / 4096, [&](std::size_t t, unsigned) {
      for (std::size_t i = t * 4096; i < std::min(nq, (t + 1) * 4096); ++i) {
        const std::uint32_t l = store_.lookup(qs[s][i].key, qs[s][i].hash);
        ans[s][i] = l == kNone ? kNone : gid_[l];
      }
    });
  }
  // The candidates: (sender, query index, origin).
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> cands;
  if (!ask) {
    for (std::size_t s = 0; s < nr; ++s)
      for (std::size_t i = 0; i < ans[s].size(); ++i)
        if (ans[s][i] == kNone) cands.emplace_back(std::uint32_t(s), std::uint32_t(i), qs[s][i].origin);
  } else {
    for (std::size_t s = 0; s < nr; ++s) {
      out[s].resize(ans[s].size() * 4);
      if (!ans[s].empty()) std::memcpy(out[s].data(), ans[s].data(), out[s].size());
    }
    c_.exchange(out, in);
    // The parents decide: cut at the depth bound, ample sets; the kept
    // successors not stored go back to their owners as candidates.
    std::vector<std::vector<Succ>> scratch(pool.size());
    pool.run(nchunks, [&](std::size_t c, unsigned w) {
      Chunk& ch = chunks[c];
      State cur{};
      for (Parent& p : ch.parents) {
        for (std::uint32_t k = 0; k < p.count; ++k) {
          Succ& x = ch.succs[p.first + k];
          x.id = read<std::uint32_t>(in[x.dest].data() + 4 * std::size_t(x.q));
        }
        std::vector<Succ>& succ = scratch[w];
        succ.assign(ch.succs.begin() + p.first, ch.succs.begin() + p.first + p.count);
        if (rm_.por()) store_.load(p.local, cur.b.data());  // the ample set's parent
        std::tie(p.n, p.por) = expand::keep(
            rms[w], cur, succ, capped, [](const Succ& x) { return x.id != kNone; },
            [&](const Succ& x) { return x.id != kNone && x.id < hi; });
        if (p.n == origin::kTruncated) continue;
        for (std::uint32_t k = 0; k < p.n; ++k)
          if (succ[k].id == kNone)
            ch.cands.push_back({succ[k].dest, succ[k].q, origin::of(p.gid, k)});
      }
    });
    for (auto& o : out) o.clear();
    for (const Chunk& ch : chunks)
      for (const Cand& x : ch.cands) {
        append(out[x.dest], x.q);
        append(out[x.dest], x.origin);
      }
    c_.exchange(out, in);
    for (std::size_t s = 0; s < nr; ++s)
      for (std::size_t i = 0; i + 12 <= in[s].size(); i += 12)
        cands.emplace_back(std::uint32_t(s), read<std::uint32_t>(in[s].data() + i),
                           read<std::uint64_t>(in[s].data() + i + 4));
  }

  // 3 merge: one representative per state, with its smallest origin;
  // rep_of: each candidate's (with edges).
  const bool edges = checks_.graph_active();
  std::vector<Rep> reps;
  std::vector<std::uint32_t> rep_of;
  {
    std::size_t slots = 1024;
    while (slots < 2 * cands.size()) slots *= 2;
    std::vector<std::uint32_t> table(slots, kNone);
    for (const auto& [s, i, origin] : cands) {
      const Query& qq = qs[s][i];
      for (std::size_t t = (qq.hash >> 32) & (slots - 1);; t = (t + 1) & (slots - 1)) {
        if (table[t] == kNone) {
          table[t] = std::uint32_t(reps.size());
          reps.push_back({qq.key, qq.hash, origin, kNone, std::uint32_t(reps.size())});
        }
        Rep& r = reps[table[t]];
        if (r.hash == qq.hash && std::memcmp(r.key, qq.key, len_) == 0) {
          r.origin = std::min(r.origin, origin);
          if (edges) rep_of.push_back(table[t]);
          break;
        }
      }
    }
    std::sort(reps.begin(), reps.end(), [](const Rep& a, const Rep& x) { return a.origin < x.origin; });
    if (edges) {
      std::vector<std::uint32_t> at(reps.size());
      for (std::uint32_t j = 0; j < reps.size(); ++j) at[reps[j].made] = j;
      for (std::uint32_t& r : rep_of) r = at[r];
    }
  }

  // 4 number: rank 0 merges the origins, in whose order the ids go.
  for (auto& o : out) o.clear();
  for (const Rep& r : reps) append(out[0], r.origin);
  c_.exchange(out, in);
  std::vector<std::uint64_t> origins;  // rank 0: every new state's, by id - n_
  for (auto& o : out) o.clear();
  if (c_.rank() == 0) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> all;
    for (std::size_t s = 0; s < nr; ++s)
      for (std::size_t i = 0; i + 8 <= in[s].size(); i += 8)
        all.emplace_back(read<std::uint64_t>(in[s].data() + i), std::uint32_t(s));
    std::sort(all.begin(), all.end());
    origins.reserve(all.size());
    for (std::size_t j = 0; j < all.size(); ++j) {
      origins.push_back(all[j].first);
      append(out[all[j].second], std::uint32_t(n_ + j));
    }
  }
  c_.exchange(out, in);
  for (std::size_t j = 0; j < reps.size(); ++j) reps[j].id = read<std::uint32_t>(in[0].data() + 4 * j);
  // With edges every query gets its id back, the stored and the new.
  if (edges) {
    for (std::size_t c = 0; c < cands.size(); ++c) {
      const auto& [s, i, origin] = cands[c];
      ans[s][i] = reps[rep_of[c]].id;
    }
    for (std::size_t s = 0; s < nr; ++s) {
      out[s].resize(ans[s].size() * 4);
      if (!ans[s].empty()) std::memcpy(out[s].data(), ans[s].data(), out[s].size());
    }
    c_.exchange(out, in);
    for (Chunk& ch : chunks)
      for (Succ& x : ch.succs) x.id = read<std::uint32_t>(in[x.dest].data() + 4 * std::size_t(x.q));
  }

  // 5 observe: the first violations here, over all ranks; rank 0 finds the
  // cut and which of them a one-process search would have seen.
  std::vector<std::uint64_t> first = hits_new(reps);
  {
    State cur{};
    for (const Chunk& ch : chunks)
      for (const Parent& p : ch.parents)
        if (p.count == 0 && !p.finished) {  // a deadlock, where one is selected
          store_.load(p.local, cur.b.data());
          checks_.hit_expanded(p.gid, cur, 0, first);
        }
  }
  c_.min(first);
  Bytes decision;
  if (c_.rank() == 0) {
    const std::uint64_t fresh = origins.size();
    const std::uint64_t cap = std::min<std::uint64_t>(max_states_, n_ + fresh);
    auto parent_of = [&](std::uint64_t id) { return origin::parent(origins[id - n_]); };
    const std::uint64_t t_cap = cap < n_ + fresh ? parent_of(cap) : kNever;
    std::vector<std::uint64_t> when(first.size(), kNever);  // the parent at which each is seen
    bool all = true;
    std::uint64_t t_done = 0;
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (!checks_.open(i)) continue;
      const std::uint64_t id = first[i] >> 32;
      if (first[i] != kNever) {
        if (checks_.hit_at_expansion(i)) {
          if (id <= t_cap) when[i] = id;
        } else if (id < cap) {
          when[i] = parent_of(id);
        }
      }
      if (when[i] == kNever) all = false;
      else t_done = std::max(t_done, when[i]);
    }
    if (!all || checks_.graph_active()) t_done = kNever;  // the graph is decided after the search
    std::uint64_t code = 0, at = kNever, cut = n_ + fresh;
    if (t_done != kNever && t_done <= t_cap) {
      code = 1;
      at = t_done;
      cut = t_done == t_cap ? cap
                            : n_ + std::uint64_t(std::upper_bound(origins.begin(), origins.end(),
                                                                  origin::last_of(t_done)) -
                                                 origins.begin());
    } else if (t_cap != kNever) {
      code = 2;
      at = t_cap;
      cut = cap;
    }
    append(decision, code);
    append(decision, at);
    append(decision, cut);
    for (std::size_t i = 0; i < first.size(); ++i) append(decision, when[i] != kNever && when[i] <= at ? first[i] : kNever);
  }
  c_.broadcast(decision, 0);
  const auto code = read<std::uint64_t>(decision.data());
  const auto at = read<std::uint64_t>(decision.data() + 8);
  const auto cut = read<std::uint64_t>(decision.data() + 16);
  for (std::size_t i = 0; i < first.size(); ++i) checks_.settle(i, read<std::uint64_t>(decision.data() + 24 + 8 * i));
  // What the parents up to the cut add: transitions, reduction outcomes,
  // parents cut at the depth bound.
  std::vector<std::uint64_t> sums(4, 0);
  for (const Chunk& ch : chunks)
    for (const Parent& p : ch.parents) {
      if (p.gid > at) continue;
      if (p.n == origin::kTruncated) {
        ++sums[3];
        continue;
      }
      sums[0] += p.n;
      if (p.por == Reduced<M>::kAmple) ++sums[1];
      if (p.por == Reduced<M>::kFull) ++sums[2];
    }
  c_.sum(sums);
  transitions_ += sums[0];
  rm_.count(sums[1], sums[2]);
  truncated_ = truncated_ || sums[3] > 0;
  fold_maxima(reps, cut);
  if (cut > n_) max_depth_ = std::max(max_depth_, depth + 1);
  if (edges) log_edges(chunks, reps, code == 0 ? kNever : at, cut);

  // 6 store the new states below the cut.
  for (const Rep& r : reps) {
    if (r.id >= cut) break;
    store_.insert(r.key, r.hash, origin::parent(r.origin), depth + 1);
    gid_.push_back(r.id);
  }
  n_ = cut;
  if (code == 1) stop = StopReason::AllViolated;
  if (code == 2) stop = StopReason::MaxStates;
}

}  // namespace blkmc
