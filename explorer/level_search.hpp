// Breadth-first search, level by level, on every worker of a WorkerPool:
// the one level loop, whatever keeps the visited states. Included by
// explorer/search.hpp: Search<M>::levels.
//
// A level's states (ids [lo, hi), all at one depth) are expanded in rounds
// of parents. For each round:
//   expand   workers take chunks of parents: successors, keys, hashes;
//            where the store answers lookups while a level expands (the
//            stores in memory), also the depth bound's test, partial-order
//            reduction (the proviso asks whether a successor was stored
//            before this level began: an edge to a deeper level never
//            closes a cycle without one that does not) and each successor's
//            lookup. A successor not known to be stored is a candidate,
//            origin = (parent id, successor index);
//   resolve  the store's resolver tells which candidates are new and which
//            of equal ones was reached first, and replays the round to the
//            observer in id order (Search::replay, explorer/
//            level_replay.hpp), which numbers new states in origin order
//            and stops where a one-thread search would:
//              in memory (explorer/resolve_in_memory.hpp): a batch table
//                per round, merged, numbered, observed and stored at once;
//              on disk (explorer/resolve_on_disk.hpp): bitstate tests bits
//                in origin order and replays each round; the disk store
//                sorts the level's candidates and replays the level once it
//                has merged them with the visited runs. Both take a round
//                on one thread while the workers expand the next;
//              on ranks (explorer/resolve_on_ranks.hpp, under MPI): each
//                rank expands the parents it holds, asks the successors'
//                owners, keeps (expand::keep) with their answers, and the
//                ranks merge, number, observe with the property checks'
//                slots and store together.
// Ids, parents and what the observer sees are therefore independent of the
// number of threads, ranks, the round size and the store. A resolver provides:
//   static constexpr bool kLooksUp     lookups while expanding (else every
//                                      successor is a candidate)
//   static constexpr bool kOverlaps    take() runs beside the next round's expansion
//   static constexpr bool kSpread      over ranks: parent() says whether this rank
//                                      holds p, whose successors go to expanded(),
//                                      and begin_round() checks the limits
//   std::size_t round_parents() const
//   std::size_t states() const         states stored (ids below it)
//   void start(const State& s)         stores the start state (id 0) and reports it
//   std::optional<StopReason> begin_level(depth, lo, hi), begin_round(LevelRound&)
//   void parent(const LevelRound&, std::size_t p, State&)   (any worker; kSpread: bool)
//   void expanded(R, chunk, p, const State&, first, count)  (kSpread; any worker)
//   std::uint32_t lookup(const Succ&)  (kLooksUp; any worker)
//   std::optional<StopReason> take(LevelRound&), end_level(bool stopped)
//   std::optional<StopReason> level_failed()   in a catch: a stop, or nullopt to rethrow
//   bool truncated() const             a parent was left at the depth bound
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "explorer/expand.hpp"
#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

namespace level_search {

constexpr std::size_t kChunk = 64;          // parents per task, at most
constexpr std::uint64_t kNew = 1ull << 63;  // an edge to a candidate (chunk << 32 | index)

}  // namespace level_search

// A successor not known to be stored, as expanded.
template <Model M>
struct Search<M>::LevelCand {
  // User-provided: a new candidate is not zeroed (its used bytes are
  // copied in at once; a kernel-code state is kilobytes).
  LevelCand() : key(kNoInit) {}
  State key;
  std::uint64_t hash, origin;
  // The in-memory resolver's: the smallest origin of the candidates equal
  // to this one (where it won the batch table's slot), the winner's ref,
  std::uint64_t min_origin, winner;
  // the winner's id, and whether this one is its state's representative
  // (first reached here).
  std::uint32_t id;
  bool rep;
};

// A chunk of a round's parents, expanded by one worker.
template <Model M>
struct Search<M>::LevelChunk {
  struct Edge {
    std::uint64_t ref;  // a stored id, or kNew | candidate
    std::uint8_t actor;
  };
  std::vector<LevelCand> cands;
  std::vector<Edge> edges;            // per successor, in order
  std::vector<std::uint32_t> nsucc;   // per parent: successors, or kTruncated
  std::vector<std::uint8_t> por;      // per parent: its ample-set outcome
  std::vector<Succ> succs;            // spread over ranks: the successors of the parents held here
  std::size_t reps = 0;               // in-memory resolver: representatives
  std::uint32_t first_id = 0;         // and the first one's id
};

template <Model M>
struct Search<M>::LevelRound {
  std::uint32_t depth = 0;
  std::size_t r0 = 0, r1 = 0;  // parents [r0, r1)
  std::size_t hi = 0;          // the level's end: ids below it were stored before it began
  std::size_t chunk = 0, nchunks = 0;
  std::vector<LevelChunk> chunks;
  std::vector<std::uint8_t> keys;  // the parents' keys, where the resolver reads them in rounds
  LevelChunk& of(std::size_t p) { return chunks[(p - r0) / chunk]; }
  const LevelChunk& of(std::size_t p) const { return chunks[(p - r0) / chunk]; }
  LevelCand& cand(std::uint64_t ref) { return chunks[ref >> 32].cands[std::uint32_t(ref)]; }
  const LevelCand& cand(std::uint64_t ref) const { return chunks[ref >> 32].cands[std::uint32_t(ref)]; }
};

template <Model M>
template <class Obs>
StopReason Search<M>::levels(Obs& obs) {
  WorkerPool pool(std::max(1u, opt_.threads));
  if (opt_.cluster) {
    if constexpr (std::is_same_v<Obs, PropertyChecks<M>>) {
      OnRanks<Obs> res(*this, obs, pool);
      return level_loop(obs, res, pool);
    }
    throw std::logic_error("a search over ranks reports to the property checks");
  }
  if (store_spec(opt_.store).on_disk) {
    OnDisk<Obs> res(*this, obs, pool);
    return level_loop(obs, res, pool);
  }
  InMemory<Obs> res(*this, obs, pool);
  return level_loop(obs, res, pool);
}

template <Model M>
template <class Obs, class Res>
StopReason Search<M>::level_loop(Obs& obs, Res& res, WorkerPool& pool) {
  namespace ls = level_search;
  res.start(rm_.keyed(start_state_));
  if (obs.done()) return StopReason::AllViolated;

  std::vector<Reduced<M>> rms(pool.size(), rm_);  // each worker's (scratch, by-level ample sets)
  for (auto& r : rms) r.decide_by_level();
  std::vector<std::vector<Succ>> succs(pool.size());
  std::atomic<int> abort{-1};  // a StopReason, set by worker 0's clock checks
  const auto& lim = opt_.limits;
  const std::size_t round = res.round_parents();
  // Small rounds (tests) still get a few tasks per worker.
  const std::size_t chunk = std::clamp<std::size_t>(round / (4 * pool.size()), 1, ls::kChunk);
  const std::size_t used = padded_bytes(m_.state_bytes());  // the bytes of a state that carry data
  LevelRound rounds[2];  // one taken while the other expands (kOverlaps; else one is used)

  // Expands chunk c of R on worker w.
  auto expand = [&](LevelRound& R, std::size_t c, unsigned w) {
    LevelChunk& ch = R.chunks[c];
    ch.cands.clear();
    ch.edges.clear();
    ch.nsucc.clear();
    ch.por.clear();
    ch.succs.clear();
    if constexpr (!Res::kOverlaps && !Res::kSpread) {
      if (abort.load(std::memory_order_relaxed) >= 0) return;
      if (w == 0)
        if (auto r = check_clock_and_memory(int(R.depth))) abort.store(int(*r));
    }
    std::vector<Succ>& succ = succs[w];
    State cur;
    const bool at_bound = lim.max_depth && R.depth >= lim.max_depth;
    const std::size_t p0 = R.r0 + c * R.chunk, p1 = std::min(R.r1, p0 + R.chunk);
    for (std::size_t p = p0; p < p1; ++p) {
      if constexpr (Res::kSpread) {
        // A rank expands the parents it holds and keeps every successor:
        // their owners say in take() which are stored.
        if (!res.parent(R, p, cur)) continue;
        const std::size_t first = ch.succs.size();
        res.expanded(R, c, p, cur, first,
                     expand::gather(rms[w], cur, ch.succs, first, used, StateStore::kNone,
                                    [&](const State& s) { return hash_of(s); }, [](const Succ&) {}));
        continue;
      }
      res.parent(R, p, cur);
      expand::gather(rms[w], cur, succ, 0, used, kUnlooked, [&](const State& s) { return hash_of(s); },
                     [&](const Succ& x) {
                       if constexpr (Res::kLooksUp) store_->prefetch(x.hash);
                     });
      // Each successor is looked up once, when first asked about; a store
      // that answers only later (on disk) has every one a candidate, and
      // takes the depth bound itself.
      auto stored = [&](const Succ& x) {
        if constexpr (Res::kLooksUp)
          if (x.id == kUnlooked) x.id = res.lookup(x);
        return Res::kLooksUp ? x.id : StateStore::kNone;
      };
      const auto [n, por] = expand::keep(
          rms[w], cur, succ, Res::kLooksUp && at_bound,
          [&](const Succ& x) { return stored(x) != StateStore::kNone; },
          [&](const Succ& x) {
            const std::uint32_t i = stored(x);
            return i != StateStore::kNone && i < R.hi;
          });
      ch.por.push_back(por);
      ch.nsucc.push_back(n);
      if (n == origin::kTruncated) continue;
      for (std::size_t k = 0; k < succ.size(); ++k) {
        const Succ& x = succ[k];
        if (const std::uint32_t i = stored(x); i != StateStore::kNone) {
          ch.edges.push_back({i, x.actor});
          continue;
        }
        ch.edges.push_back({ls::kNew | (std::uint64_t(c) << 32) | ch.cands.size(), x.actor});
        LevelCand& y = ch.cands.emplace_back();
        std::memcpy(y.key.b.data(), x.next.b.data(), used);
        y.hash = x.hash;
        y.origin = y.min_origin = origin::of(p, k);
        y.winner = 0;
        y.id = StateStore::kNone;
        y.rep = false;
      }
    }
  };

  std::size_t lo = 0;
  for (std::uint32_t depth = 0;; ++depth) {
    const std::size_t hi = res.states();
    if (lo == hi) break;
    std::optional<StopReason> stop;
    try {
      stop = res.begin_level(depth, lo, hi);
      LevelRound* pending = nullptr;  // expanded, not yet taken (kOverlaps)
      for (std::size_t r0 = lo, k = 0; r0 < hi && !stop; r0 += round, ++k) {
        LevelRound& R = rounds[Res::kOverlaps ? k & 1 : 0];  // in memory: one, reused
        R.depth = depth;
        R.r0 = r0;
        R.r1 = std::min(hi, r0 + round);
        R.hi = hi;
        R.chunk = chunk;
        R.nchunks = (R.r1 - r0 + chunk - 1) / chunk;
        if (R.chunks.size() < R.nchunks) R.chunks.resize(R.nchunks);
        if ((stop = res.begin_round(R))) break;
        const auto work = [&](std::size_t c, unsigned w) { expand(R, c, w); };
        if constexpr (Res::kOverlaps) {
          pool.run_beside(R.nchunks, work, [&] {
            if (pending) stop = res.take(*pending);
          });
          pending = stop ? nullptr : &R;
        } else {
          pool.run(R.nchunks, work);
          if (abort.load() >= 0) return StopReason(abort.load());
          stop = res.take(R);
        }
      }
      if (pending && !stop) stop = res.take(*pending);
      if (auto r = res.end_level(stop.has_value()); r && !stop) stop = r;
    } catch (...) {
      if (auto r = res.level_failed()) return *r;
      throw;
    }
    if (stop) return *stop;
    rm_.end_level();
    for (auto& r : rms) r.follow(rm_);
    lo = hi;
  }
  return res.truncated() ? StopReason::MaxDepth : StopReason::Complete;
}

}  // namespace blkmc
