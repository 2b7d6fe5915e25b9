// The level search's resolver for a search spread over the ranks of a
// Cluster (MPI processes: `mpirun -np N blkmc check ...`): Search<M>::OnRanks,
// used by explorer/level_search.hpp; explorer/distributed_search.hpp builds
// the result over the ranks. Ids, counts, verdicts, maxima and traces are
// those of the one-process search.
//
// Every state has an owner rank, by its hash; the owner alone stores it
// (bytes, parent id, depth) in its own plain store, and Search::ranks_
// maps its local indexes to the global ids, which are the one-process
// search's: a level's new states are numbered in origin order (parent id,
// successor index). Each rank's workers expand the round's parents it holds
// (the level loop's gather, every successor kept); take() then runs the
// round in all-to-all exchanges:
//   1 ask      every successor goes to its owner as a query (hash, origin,
//              bytes), and the owner looks it up in its store; where the
//              parent must decide with the answers (partial-order
//              reduction's proviso, the depth bound: expand::keep, as every
//              search does) the ids go back, the parent keeps its ample set
//              and sends the kept new successors back as candidates;
//              otherwise every unknown query is one;
//   2 merge    the owner keeps, of equal candidates, the smallest origin;
//   3 number   rank 0 merges the ranks' origins and hands out the ids;
//   4 observe  each rank checks its new states (invariants, maxima) and its
//              parents (deadlocks) with PropertyChecks' own slots (hit_new,
//              hit_expanded); the smallest violating ids are reduced over
//              the ranks, and rank 0 finds where a one-process search would
//              stop (every property answered, --max-states) and broadcasts
//              the cut; counts are summed up to it;
//   5 store    owners store their new states below the cut.
//
// Progress and starvation: the owners then answer every query with its id
// (the new ones once numbered), and each rank sends rank 0 the edges of its
// parents below the cut (with each parent's finished(), each new state's
// pending()): rank 0 holds the edge log, as one process would.
//
// Limits (--time, --memory on each rank's store and rank 0's edge log,
// Ctrl-C) are agreed over the ranks before each round, so every rank stops
// at the same place.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "explorer/cluster.hpp"
#include "explorer/expand.hpp"
#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

namespace ranks {

template <class T>
void append(Bytes& b, const T& v) {
  const auto at = b.size();
  b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}
template <class T>
T read(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace ranks

template <Model M>
template <class Obs>
class Search<M>::OnRanks {
 public:
  static constexpr bool kLooksUp = false;
  static constexpr bool kOverlaps = false;
  static constexpr bool kSpread = true;
  static constexpr std::size_t kRound = 1u << 16;  // parents per round, over all ranks

  OnRanks(Search& s, Obs& obs, WorkerPool& pool)
      : s_(s),
        obs_(obs),
        pool_(pool),
        c_(*s.opt_.cluster),
        store_(*s.plain_),
        ids_(s.ranks_.ids),
        len_(s.m_.state_bytes()),
        rms_(pool.size(), s.rm_) {
    if (obs_.graph_active() && s_.rm_.por())
      throw std::logic_error("distributed search: partial-order reduction with an edge log");
    for (auto& r : rms_) r.decide_by_level();
  }

  std::size_t round_parents() const { return s_.opt_.level_batch ? s_.opt_.level_batch : kRound; }
  std::size_t states() const { return s_.ranks_.states; }

  // The start state: stored by its owner, observed as the first new state.
  void start(const State& s) {
    const std::uint64_t h = s_.hash_of(s);
    std::vector<Rep> reps;
    if (owner(h) == c_.rank()) {
      store_.insert(s.b.data(), h, kNone, 0);
      ids_.push_back(0);
      reps.push_back({store_.get(0), h, 0, 0, 0});
    }
    std::vector<std::uint64_t> hits = hits_new(reps);
    c_.min(hits);
    for (std::size_t i = 0; i < hits.size(); ++i) obs_.settle(i, hits[i]);
    fold_maxima(reps, 1);
    if (c_.rank() == 0) obs_.on_new_graph(0, s);
    s_.ranks_.states = 1;
  }

  std::optional<StopReason> begin_level(std::uint32_t, std::size_t, std::size_t) {
    for (auto& r : rms_) r.follow(s_.rm_);
    return std::nullopt;
  }
  // The same on every rank: interrupt, time, memory; and which of the
  // round's parents this rank holds.
  std::optional<StopReason> begin_round(LevelRound& R) {
    if (auto r = limits_hit(R.depth)) return r;
    local_.assign(R.r1 - R.r0, kNone);
    for (auto l = std::size_t(std::lower_bound(ids_.begin(), ids_.end(), std::uint32_t(R.r0)) - ids_.begin());
         l < ids_.size() && ids_[l] < R.r1; ++l)
      local_[ids_[l] - R.r0] = std::uint32_t(l);
    held_.resize(std::max(held_.size(), R.nchunks));
    q_.resize(std::max(q_.size(), R.nchunks));
    kept_.resize(std::max(kept_.size(), R.nchunks));
    for (std::size_t c = 0; c < R.nchunks; ++c) {
      held_[c].clear();
      kept_[c].clear();
    }
    return std::nullopt;
  }
  // Parent p's state, where this rank holds it.
  bool parent(const LevelRound& R, std::size_t p, State& s) const {
    const std::uint32_t l = local_[p - R.r0];
    if (l == kNone) return false;
    store_.load(l, s.b.data());
    return true;
  }
  // Parent p (held here, chunk c) has count successors from R.of(p).succs[first].
  void expanded(const LevelRound& R, std::size_t c, std::size_t p, const State& s, std::size_t first,
                std::size_t count) {
    Held h;
    h.gid = std::uint32_t(p);
    h.local = local_[p - R.r0];
    h.first = std::uint32_t(first);
    h.count = h.n = std::uint32_t(count);
    h.finished = s_.m_.finished(s);
    held_[c].push_back(h);
  }
  std::optional<StopReason> end_level(bool) { return std::nullopt; }
  std::optional<StopReason> level_failed() { return std::nullopt; }
  bool truncated() const { return truncated_; }

  // The round: 1 ask, 2 merge, 3 number, 4 observe, 5 store.
  std::optional<StopReason> take(LevelRound& R);

 private:
  static constexpr std::uint32_t kNone = StateStore::kNone;
  static constexpr std::uint64_t kNever = Obs::kNoHit;

  // A parent held here: its successors in its chunk, how many it keeps
  // (origin::kTruncated: left at the depth bound) and its ample-set outcome.
  struct Held {
    std::uint32_t gid = 0, local = 0;
    std::uint32_t first = 0, count = 0;
    std::uint32_t n = 0;
    std::uint8_t por = 0;
    bool finished = false;
  };
  // A kept successor that is not stored: its query at its owner, and origin.
  struct Cand {
    std::uint32_t dest, q;
    std::uint64_t origin;
  };
  // A successor with its owner's answer (id) and its query's index there.
  struct Asked : Succ {
    std::uint32_t q;
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
  std::size_t query_bytes() const { return 16 + len_; }

  std::optional<StopReason> limits_hit(std::uint32_t level) {
    using Clock = std::chrono::steady_clock;
    const auto& lim = s_.opt_.limits;
    std::uint64_t code = 0;
    const double el = std::chrono::duration<double>(Clock::now() - s_.start_).count();
    if (g_interrupted) code = 3;
    else if (lim.seconds > 0 && el >= lim.seconds) code = 2;
    else if (lim.memory_bytes && store_.memory_after_insert() + obs_.edges().memory_bytes() > lim.memory_bytes)
      code = 1;
    code = c_.max(code);
    if (s_.opt_.progress && c_.rank() == 0 &&
        std::chrono::duration<double>(Clock::now() - s_.last_progress_).count() >= s_.opt_.progress_interval) {
      s_.last_progress_ = Clock::now();
      const double n = double(s_.ranks_.states);
      std::fprintf(stderr,
                   "[blkmc] %s states, %s transitions, level %u, %s states/s, store %s on rank 0, %d ranks, %.0f s\n",
                   human_count(n).c_str(), human_count(double(s_.transitions_)).c_str(), level,
                   human_count(n / el).c_str(), human_bytes(double(store_.memory_bytes())).c_str(), c_.size(), el);
    }
    if (code == 3) return StopReason::Interrupted;
    if (code == 2) return StopReason::Time;
    if (code == 1) return StopReason::Memory;
    return std::nullopt;
  }

  // The checks' hits among new states held here (reps in id order), this
  // rank's own, before they are reduced.
  std::vector<std::uint64_t> hits_new(const std::vector<Rep>& reps) const {
    std::vector<std::uint64_t> hits(obs_.local_slots(), kNever);
    State s{};
    for (const Rep& r : reps) {
      std::memcpy(s.b.data(), r.key, len_);
      obs_.hit_new(r.id, s, hits);
    }
    return hits;
  }
  // The largest measure of each maximize slot among reps below cut, and its
  // smallest id, folded into the checks on every rank.
  void fold_maxima(const std::vector<Rep>& reps, std::uint64_t cut) {
    if (obs_.bests() == 0) return;
    std::vector<std::uint64_t> best(obs_.bests(), kNever);
    State s{};
    for (const Rep& r : reps) {
      if (r.id >= cut) break;
      std::memcpy(s.b.data(), r.key, len_);
      obs_.best_new(r.id, s, best);
    }
    c_.min(best);
    obs_.settle_best(best);
  }
  // Where a round stops: after parent `at` (kNever: not in this round),
  // ids below `cut` stored, and why.
  struct Cut {
    std::optional<StopReason> stop;
    std::uint64_t at = kNever, cut = 0;
  };
  void ask(LevelRound& R);
  void merge(bool edges);
  void number(LevelRound& R, std::uint64_t n0, bool edges);
  Cut observe(const LevelRound& R, std::uint64_t n0);
  void add_counts(const LevelRound& R, std::uint64_t at);
  void log_edges(const LevelRound& R, const std::vector<Rep>& reps, std::uint64_t whole_below, std::uint64_t cut);

  Search& s_;
  Obs& obs_;
  WorkerPool& pool_;
  Cluster& c_;
  StateStore& store_;                // the states this rank owns, by local index
  std::vector<std::uint32_t>& ids_;  // local index -> global id (increasing)
  std::size_t len_;
  std::vector<Reduced<M>> rms_;  // each worker's, for the ample sets decided with the owners' answers
  std::vector<std::uint32_t> local_;                 // the round's parents: local index, or kNone
  std::vector<std::vector<Held>> held_;              // per chunk: its parents held here
  std::vector<std::vector<std::uint32_t>> q_;        // per chunk: each successor's query index at its owner
  std::vector<std::vector<Cand>> kept_;              // per chunk: kept successors not stored (after asking)
  // A round's exchanges: the queries received, per sender (the candidates
  // and representatives point into them), as read, and their answers; the
  // candidates (sender, query index, origin); the representatives, in
  // origin order, and each candidate's (with edges); rank 0: every new
  // state's origin, by id.
  std::vector<Bytes> queries_;
  std::vector<std::vector<Query>> qs_;
  std::vector<std::vector<std::uint32_t>> ans_;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> found_;
  std::vector<Rep> reps_;
  std::vector<std::uint32_t> rep_of_;
  std::vector<std::uint64_t> origins_;
  bool truncated_ = false;
};

// Rank 0's edge log: the edges of every parent below whole_below (those a
// one-process search finished expanding), in id order, and pending() of
// the new states below the cut.
template <Model M>
template <class Obs>
void Search<M>::OnRanks<Obs>::log_edges(const LevelRound& R, const std::vector<Rep>& reps,
                                        std::uint64_t whole_below, std::uint64_t cut) {
  using ranks::append;
  using ranks::read;
  const std::size_t nr = std::size_t(c_.size());
  std::vector<Bytes> out(nr), in;
  for (std::size_t c = 0; c < R.nchunks; ++c)
    for (const Held& p : held_[c]) {
      if (p.n == origin::kTruncated || p.gid >= whole_below) continue;
      append(out[0], p.gid);
      append(out[0], std::uint8_t(p.finished));
      append(out[0], p.n);
      for (std::uint32_t k = 0; k < p.n; ++k) {
        append(out[0], R.chunks[c].succs[p.first + k].id);
        append(out[0], R.chunks[c].succs[p.first + k].actor);
      }
    }
  c_.exchange(out, in);
  if (c_.rank() == 0) {
    std::vector<const std::uint8_t*> parents;
    for (const Bytes& b : in)
      for (std::size_t i = 0; i < b.size(); i += 9 + 5 * std::size_t(read<std::uint32_t>(b.data() + i + 5)))
        parents.push_back(b.data() + i);
    std::sort(parents.begin(), parents.end(), [](const std::uint8_t* a, const std::uint8_t* x) {
      return read<std::uint32_t>(a) < read<std::uint32_t>(x);
    });
    for (const std::uint8_t* p : parents) {
      const auto gid = read<std::uint32_t>(p);
      const auto n = read<std::uint32_t>(p + 5);
      obs_.edges().begin_state(gid, p[4] != 0);
      for (std::uint32_t k = 0; k < n; ++k)
        obs_.edges().add_edge(read<std::uint32_t>(p + 9 + 5 * std::size_t(k)), p[13 + 5 * std::size_t(k)]);
      obs_.edges().end_state(gid);
    }
  }
  // The graph kinds' bytes of each new state (starvation: pending()).
  const std::size_t marks = obs_.marks();
  if (marks == 0) return;
  out.assign(nr, {});
  State s{};
  for (const Rep& r : reps) {
    if (r.id >= cut) break;
    std::memcpy(s.b.data(), r.key, len_);
    append(out[0], r.id);
    obs_.marks_of(s, out[0]);
  }
  c_.exchange(out, in);
  if (c_.rank() != 0) return;
  const std::size_t rec = 4 + marks;
  obs_.resize_marks(cut);
  for (const Bytes& b : in)
    for (std::size_t i = 0; i + rec <= b.size(); i += rec)
      obs_.set_marks(read<std::uint32_t>(b.data() + i), b.data() + i + 4);
}

template <Model M>
template <class Obs>
std::optional<StopReason> Search<M>::OnRanks<Obs>::take(LevelRound& R) {
  const std::uint64_t n0 = s_.ranks_.states;
  const bool edges = obs_.graph_active();
  ask(R);
  merge(edges);
  number(R, n0, edges);
  const Cut k = observe(R, n0);
  add_counts(R, k.at);
  fold_maxima(reps_, k.cut);
  if (k.cut > n0) s_.max_depth_ = std::max(s_.max_depth_, R.depth + 1);
  if (edges) log_edges(R, reps_, k.stop ? k.at : kNever, k.cut);
  // 5 store the new states below the cut.
  for (const Rep& r : reps_) {
    if (r.id >= k.cut) break;
    store_.insert(r.key, r.hash, origin::parent(r.origin), R.depth + 1);
    ids_.push_back(r.id);
  }
  s_.ranks_.states = k.cut;
  return k.stop;
}

// 1 ask: every successor of the parents held here is a query to its owner,
// who looks it up; the candidates (found_) are the unknown ones the parents
// keep.
template <Model M>
template <class Obs>
void Search<M>::OnRanks<Obs>::ask(LevelRound& R) {
  using ranks::append;
  using ranks::read;
  const std::size_t nr = std::size_t(c_.size());
  std::vector<Bytes> out(nr), in;
  std::vector<std::uint32_t> q(nr, 0);
  for (std::size_t c = 0; c < R.nchunks; ++c) {
    const std::vector<Succ>& succs = R.chunks[c].succs;
    q_[c].resize(succs.size());
    for (const Held& p : held_[c])
      for (std::uint32_t k = 0; k < p.count; ++k) {
        const Succ& x = succs[p.first + k];
        const auto dest = std::size_t(owner(x.hash));
        q_[c][p.first + k] = q[dest]++;
        Bytes& o = out[dest];
        append(o, x.hash);
        append(o, origin::of(p.gid, k));
        o.insert(o.end(), x.next.b.data(), x.next.b.data() + len_);
      }
  }
  c_.exchange(out, queries_);
  qs_.resize(nr);
  ans_.resize(nr);
  for (std::size_t s = 0; s < nr; ++s) {
    const std::size_t nq = queries_[s].size() / query_bytes();
    qs_[s].resize(nq);
    ans_[s].resize(nq);
    for (std::size_t i = 0; i < nq; ++i) {
      const std::uint8_t* r = queries_[s].data() + i * query_bytes();
      qs_[s][i] = {r + 16, read<std::uint64_t>(r), read<std::uint64_t>(r + 8)};
    }
    pool_.run((nq + 4095) / 4096, [&](std::size_t t, unsigned) {
      for (std::size_t i = t * 4096; i < std::min(nq, (t + 1) * 4096); ++i) {
        const std::uint32_t l = store_.lookup(qs_[s][i].key, qs_[s][i].hash);
        ans_[s][i] = l == kNone ? kNone : ids_[l];
      }
    });
  }
  found_.clear();
  // The parent's rank decides with the owners' answers where it must: the
  // proviso of the partial-order reduction, and whether a parent at the
  // depth bound is cut. Otherwise every unknown query is a candidate.
  const bool capped = s_.opt_.limits.max_depth && R.depth >= s_.opt_.limits.max_depth;
  if (!(s_.rm_.por() && !s_.rm_.gave_up()) && !capped) {
    for (std::size_t s = 0; s < nr; ++s)
      for (std::size_t i = 0; i < ans_[s].size(); ++i)
        if (ans_[s][i] == kNone) found_.emplace_back(std::uint32_t(s), std::uint32_t(i), qs_[s][i].origin);
    return;
  }
  for (std::size_t s = 0; s < nr; ++s) {
    out[s].resize(ans_[s].size() * 4);
    if (!ans_[s].empty()) std::memcpy(out[s].data(), ans_[s].data(), out[s].size());
  }
  c_.exchange(out, in);
  // The parents keep what every search keeps (expand::keep); the kept
  // successors not stored go back to their owners as candidates.
  std::vector<std::vector<Asked>> scratch(pool_.size());
  pool_.run(R.nchunks, [&](std::size_t c, unsigned w) {
    std::vector<Succ>& succs = R.chunks[c].succs;
    std::vector<Asked>& succ = scratch[w];
    State cur{};
    for (Held& p : held_[c]) {
      succ.clear();
      for (std::uint32_t k = 0; k < p.count; ++k) {
        Succ& x = succs[p.first + k];
        const std::uint32_t qi = q_[c][p.first + k];
        x.id = read<std::uint32_t>(in[std::size_t(owner(x.hash))].data() + 4 * std::size_t(qi));
        succ.push_back({x, qi});
      }
      if (s_.rm_.por()) store_.load(p.local, cur.b.data());  // the ample set's parent
      std::tie(p.n, p.por) = expand::keep(
          rms_[w], cur, succ, capped, [](const Asked& x) { return x.id != kNone; },
          [&](const Asked& x) { return x.id != kNone && x.id < R.hi; });
      if (p.n == origin::kTruncated) continue;
      for (std::uint32_t k = 0; k < p.n; ++k)
        if (succ[k].id == kNone)
          kept_[c].push_back({std::uint32_t(owner(succ[k].hash)), succ[k].q, origin::of(p.gid, k)});
    }
  });
  for (auto& o : out) o.clear();
  for (std::size_t c = 0; c < R.nchunks; ++c)
    for (const Cand& x : kept_[c]) {
      append(out[x.dest], x.q);
      append(out[x.dest], x.origin);
    }
  c_.exchange(out, in);
  for (std::size_t s = 0; s < nr; ++s)
    for (std::size_t i = 0; i + 12 <= in[s].size(); i += 12)
      found_.emplace_back(std::uint32_t(s), read<std::uint32_t>(in[s].data() + i),
                          read<std::uint64_t>(in[s].data() + i + 4));
}

// 2 merge: one representative per state (reps_, in origin order), with its
// smallest origin; rep_of_: each candidate's (with edges).
template <Model M>
template <class Obs>
void Search<M>::OnRanks<Obs>::merge(bool edges) {
  reps_.clear();
  rep_of_.clear();
  std::size_t slots = 1024;
  while (slots < 2 * found_.size()) slots *= 2;
  std::vector<std::uint32_t> table(slots, kNone);
  for (const auto& [s, i, origin] : found_) {
    const Query& qq = qs_[s][i];
    for (std::size_t t = (qq.hash >> 32) & (slots - 1);; t = (t + 1) & (slots - 1)) {
      if (table[t] == kNone) {
        table[t] = std::uint32_t(reps_.size());
        reps_.push_back({qq.key, qq.hash, origin, kNone, std::uint32_t(reps_.size())});
      }
      Rep& r = reps_[table[t]];
      if (r.hash == qq.hash && std::memcmp(r.key, qq.key, len_) == 0) {
        r.origin = std::min(r.origin, origin);
        if (edges) rep_of_.push_back(table[t]);
        break;
      }
    }
  }
  std::sort(reps_.begin(), reps_.end(), [](const Rep& a, const Rep& x) { return a.origin < x.origin; });
  if (edges) {
    std::vector<std::uint32_t> at(reps_.size());
    for (std::uint32_t j = 0; j < reps_.size(); ++j) at[reps_[j].made] = j;
    for (std::uint32_t& r : rep_of_) r = at[r];
  }
}

// 3 number: rank 0 merges the origins (origins_), in whose order the ids
// go; with edges every query then gets its id back, the stored and the new.
template <Model M>
template <class Obs>
void Search<M>::OnRanks<Obs>::number(LevelRound& R, std::uint64_t n0, bool edges) {
  using ranks::append;
  using ranks::read;
  const std::size_t nr = std::size_t(c_.size());
  std::vector<Bytes> out(nr), in;
  for (const Rep& r : reps_) append(out[0], r.origin);
  c_.exchange(out, in);
  origins_.clear();
  for (auto& o : out) o.clear();
  if (c_.rank() == 0) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> all;
    for (std::size_t s = 0; s < nr; ++s)
      for (std::size_t i = 0; i + 8 <= in[s].size(); i += 8)
        all.emplace_back(read<std::uint64_t>(in[s].data() + i), std::uint32_t(s));
    std::sort(all.begin(), all.end());
    origins_.reserve(all.size());
    for (std::size_t j = 0; j < all.size(); ++j) {
      origins_.push_back(all[j].first);
      append(out[all[j].second], std::uint32_t(n0 + j));
    }
  }
  c_.exchange(out, in);
  for (std::size_t j = 0; j < reps_.size(); ++j) reps_[j].id = read<std::uint32_t>(in[0].data() + 4 * j);
  if (!edges) return;
  for (std::size_t c = 0; c < found_.size(); ++c) {
    const auto& [s, i, origin] = found_[c];
    ans_[s][i] = reps_[rep_of_[c]].id;
  }
  for (std::size_t s = 0; s < nr; ++s) {
    out[s].resize(ans_[s].size() * 4);
    if (!ans_[s].empty()) std::memcpy(out[s].data(), ans_[s].data(), out[s].size());
  }
  c_.exchange(out, in);
  for (std::size_t c = 0; c < R.nchunks; ++c) {
    std::vector<Succ>& succs = R.chunks[c].succs;
    for (std::size_t k = 0; k < succs.size(); ++k)
      succs[k].id = read<std::uint32_t>(in[std::size_t(owner(succs[k].hash))].data() + 4 * std::size_t(q_[c][k]));
  }
}

// 4 observe: the first violations here, over all ranks; rank 0 finds the
// cut and which of them a one-process search would have seen, and every
// rank settles those.
template <Model M>
template <class Obs>
typename Search<M>::template OnRanks<Obs>::Cut Search<M>::OnRanks<Obs>::observe(const LevelRound& R,
                                                                                  std::uint64_t n0) {
  using ranks::append;
  using ranks::read;
  std::vector<std::uint64_t> first = hits_new(reps_);
  State cur{};
  for (std::size_t c = 0; c < R.nchunks; ++c)
    for (const Held& p : held_[c])
      if (p.count == 0 && !p.finished) {  // a deadlock, where one is selected
        store_.load(p.local, cur.b.data());
        obs_.hit_expanded(p.gid, cur, 0, first);
      }
  c_.min(first);
  Bytes decision;
  if (c_.rank() == 0) {
    const std::uint64_t fresh = origins_.size();
    const std::uint64_t cap = std::min<std::uint64_t>(s_.max_states_, n0 + fresh);
    auto parent_of = [&](std::uint64_t id) { return origin::parent(origins_[id - n0]); };
    const std::uint64_t t_cap = cap < n0 + fresh ? parent_of(cap) : kNever;
    std::vector<std::uint64_t> when(first.size(), kNever);  // the parent at which each is seen
    bool all = true;
    std::uint64_t t_done = 0;
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (!obs_.open(i)) continue;
      const std::uint64_t id = first[i] >> 32;
      if (first[i] != kNever) {
        if (obs_.hit_at_expansion(i)) {
          if (id <= t_cap) when[i] = id;
        } else if (id < cap) {
          when[i] = parent_of(id);
        }
      }
      if (when[i] == kNever) all = false;
      else t_done = std::max(t_done, when[i]);
    }
    if (!all || obs_.graph_active()) t_done = kNever;  // the graph is decided after the search
    std::uint64_t code = 0, at = kNever, cut = n0 + fresh;
    if (t_done != kNever && t_done <= t_cap) {
      code = 1;
      at = t_done;
      cut = t_done == t_cap ? cap
                            : n0 + std::uint64_t(std::upper_bound(origins_.begin(), origins_.end(),
                                                                  origin::last_of(t_done)) -
                                                 origins_.begin());
    } else if (t_cap != kNever) {
      code = 2;
      at = t_cap;
      cut = cap;
    }
    append(decision, code);
    append(decision, at);
    append(decision, cut);
    for (std::size_t i = 0; i < first.size(); ++i)
      append(decision, when[i] != kNever && when[i] <= at ? first[i] : kNever);
  }
  c_.broadcast(decision, 0);
  for (std::size_t i = 0; i < first.size(); ++i) obs_.settle(i, read<std::uint64_t>(decision.data() + 24 + 8 * i));
  Cut k;
  const auto code = read<std::uint64_t>(decision.data());
  if (code == 1) k.stop = StopReason::AllViolated;
  if (code == 2) k.stop = StopReason::MaxStates;
  k.at = read<std::uint64_t>(decision.data() + 8);
  k.cut = read<std::uint64_t>(decision.data() + 16);
  return k;
}

// What the parents up to the one at which the search stops (at) add,
// summed over the ranks: transitions, reduction outcomes, parents cut at
// the depth bound.
template <Model M>
template <class Obs>
void Search<M>::OnRanks<Obs>::add_counts(const LevelRound& R, std::uint64_t at) {
  std::vector<std::uint64_t> sums(4, 0);
  for (std::size_t c = 0; c < R.nchunks; ++c)
    for (const Held& p : held_[c]) {
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
  s_.transitions_ += sums[0];
  s_.rm_.count(sums[1], sums[2]);
  truncated_ = truncated_ || sums[3] > 0;
}

}  // namespace blkmc
