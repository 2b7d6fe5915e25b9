// The level search's resolver for the stores in memory (plain, tree, hash
// compaction): Search<M>::InMemory, used by explorer/level_search.hpp.
//
// Successors were looked up while expanding (nobody writes the store
// meanwhile); those not found are a round's candidates. take() runs in
// phases separated by barriers:
//   merge    candidates go into the round's lock-free table (find-or-put
//            by compare-and-swap); equal candidates keep the smallest
//            origin in the one that won the slot;
//   number   the candidate holding its state's smallest origin is the
//            state's representative; representatives get ids in origin
//            order, which is the order a one-thread BFS stores them in;
//   observe  one thread replays the round to the observer in that order
//            and stops where a one-thread search would (Search::replay);
//   store    workers put the representatives below that point into the
//            store at their ids (while the observer runs, where the store
//            takes puts from several threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <vector>

#include "explorer/level_replay.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

template <Model M>
template <class Obs>
class Search<M>::InMemory {
 public:
  static constexpr bool kLooksUp = true;
  static constexpr bool kOverlaps = false;
  static constexpr bool kSpread = false;
  static constexpr std::size_t kRound = 1u << 16;  // parents per round (of 256-byte states; fewer of larger ones)

  InMemory(Search& s, Obs& obs, WorkerPool& pool) : s_(s), obs_(obs), pool_(pool) {}

  // A round's successors are held as whole States: larger ones, fewer.
  std::size_t round_parents() const {
    return s_.opt_.level_batch ? s_.opt_.level_batch
                               : std::max<std::size_t>(1024, kRound * 256 / std::max<std::size_t>(256, sizeof(State)));
  }
  void start(const State& s) {
    std::uint32_t id;
    s_.visit(obs_, s, s_.hash_of(s), StateStore::kNone, 0, id);
  }
  std::optional<StopReason> begin_level(std::uint32_t, std::size_t, std::size_t) { return std::nullopt; }
  std::optional<StopReason> begin_round(LevelRound&) { return std::nullopt; }
  void parent(const LevelRound&, std::size_t p, State& s) const { s_.store_->load(std::uint32_t(p), s.b.data()); }
  std::uint32_t lookup(const Succ& x) const { return s_.store_->lookup(x.next.b.data(), x.hash); }
  std::optional<StopReason> end_level(bool) { return std::nullopt; }
  std::optional<StopReason> level_failed() { return std::nullopt; }
  std::size_t states() const { return s_.store_->size(); }
  bool truncated() const { return truncated_; }

  std::optional<StopReason> take(LevelRound& R) {
    merge(R);
    const std::size_t new_states = number(R);
    VisitedStore& store = *s_.store_;
    ReplayRange range{R.r0, R.r1, R.depth, 0, false, store.size(), false};
    cap(range, new_states);
    std::optional<StopReason> stop;
    auto observe = [&] {
      stop = replay(R, range);
      truncated_ = truncated_ || range.truncated;
    };
    const ParFor par = [&](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
      pool_.run(tasks, [&](std::size_t t, unsigned) { fn(t); });
    };
    auto put_chunk = [&](std::size_t c, std::size_t below) {
      for (const LevelCand& x : R.chunks[c].cands)
        if (x.rep && x.id < below) store.put(x.id, x.key.b.data(), x.hash, origin::parent(x.origin), R.depth + 1);
    };
    // Where the store takes puts from several threads, every new state is
    // put while one thread observes; those at or past the cut are never
    // committed (the search stops there).
    if (store.concurrent_put()) {
      store.reserve(new_states, par);
      const std::size_t all = store.size() + new_states;
      pool_.run_beside(R.nchunks, [&](std::size_t c, unsigned) { put_chunk(c, all); }, observe);
    } else {
      observe();
      store.reserve(range.next_id - store.size(), par);
      for (std::size_t c = 0; c < R.nchunks; ++c) put_chunk(c, range.next_id);  // in id order
    }
    store.commit(range.next_id, par);
    return stop;
  }

 private:
  void merge(LevelRound& R) {
    std::size_t ncands = 0;
    for (std::size_t c = 0; c < R.nchunks; ++c) ncands += R.chunks[c].cands.size();
    std::size_t slots = 1024;
    while (slots < 2 * ncands) slots *= 2;
    if (table_.size() != slots) table_.resize(slots);
    const std::size_t mask = slots - 1;
    pool_.run((slots + 4095) / 4096, [&](std::size_t t, unsigned) {
      std::fill_n(table_.data() + t * 4096, std::min<std::size_t>(4096, slots - t * 4096), 0);
    });
    const std::size_t bytes = s_.m_.state_bytes();
    pool_.run(R.nchunks, [&](std::size_t c, unsigned) {
      auto& cands = R.chunks[c].cands;
      for (std::size_t k = 0; k < cands.size(); ++k) {
        LevelCand& x = cands[k];
        const std::uint64_t mine = (std::uint64_t(c) << 32) | k;
        for (std::size_t i = (x.hash >> 32) & mask;; i = (i + 1) & mask) {
          std::atomic_ref<std::uint64_t> slot(table_[i]);
          std::uint64_t v = slot.load(std::memory_order_acquire);
          if (v == 0) {
            if (slot.compare_exchange_strong(v, mine + 1, std::memory_order_acq_rel)) {
              x.winner = mine;
              break;
            }
          }
          LevelCand& o = R.cand(v - 1);
          if (o.hash == x.hash && std::memcmp(o.key.b.data(), x.key.b.data(), bytes) == 0) {
            x.winner = v - 1;
            std::atomic_ref<std::uint64_t> least(o.min_origin);
            std::uint64_t cur = least.load(std::memory_order_relaxed);
            while (x.origin < cur && !least.compare_exchange_weak(cur, x.origin, std::memory_order_relaxed)) {
            }
            break;
          }
        }
      }
    });
  }

  // Gives the representatives their ids; how many there are.
  std::size_t number(LevelRound& R) {
    pool_.run(R.nchunks, [&](std::size_t c, unsigned) {
      LevelChunk& ch = R.chunks[c];
      ch.reps = 0;
      for (LevelCand& x : ch.cands) {
        x.rep = R.cand(x.winner).min_origin == x.origin;
        ch.reps += x.rep;
      }
    });
    std::size_t next_id = s_.store_->size();
    for (std::size_t c = 0; c < R.nchunks; ++c) {
      R.chunks[c].first_id = std::uint32_t(next_id);
      next_id += R.chunks[c].reps;
    }
    pool_.run(R.nchunks, [&](std::size_t c, unsigned) {
      std::uint32_t id = R.chunks[c].first_id;
      for (LevelCand& x : R.chunks[c].cands)
        if (x.rep) R.cand(x.winner).id = x.id = id++;
    });
    return next_id - s_.store_->size();
  }

  // The new states that fit: below --max-states, and within --memory (the
  // store grown for them, and what the observer keeps).
  void cap(ReplayRange& range, std::size_t new_states) const {
    const VisitedStore& store = *s_.store_;
    const std::uint64_t mem = s_.opt_.limits.memory_bytes;
    range.cap = std::min<std::size_t>(s_.max_states_, store.size() + new_states);
    if (!mem) return;
    auto fits = [&](std::size_t n) { return store.memory_after_reserve(n) + obs_.memory_bytes() <= mem; };
    std::size_t good = 0, bad = range.cap - store.size() + 1;  // fits(good); bad: unknown or not
    if (fits(bad - 1)) return;
    while (bad - good > 1) {
      const std::size_t mid = good + (bad - good) / 2;
      (fits(mid) ? good : bad) = mid;
    }
    range.cap = store.size() + good;
    range.cap_by_memory = true;
  }

  // The round's successors as replay() reads them: per parent its count
  // and outcome, then its edges in order (ei runs through a chunk's).
  std::optional<StopReason> replay(const LevelRound& R, ReplayRange& range) {
    namespace ls = level_search;
    std::size_t ci = 0, ei = 0;
    return s_.replay(obs_,
                     ReplaySource{[&](std::size_t p) {
                                    const LevelChunk& ch = R.of(p);
                                    const std::size_t j = (p - R.r0) % R.chunk;
                                    return std::pair{ch.nsucc[j], ch.por[j]};
                                  },
                                  [&](std::size_t p, State& s) { parent(R, p, s); },
                                  [&](std::size_t p, auto&& f) {
                                    if ((p - R.r0) / R.chunk != ci) {
                                      ci = (p - R.r0) / R.chunk;
                                      ei = 0;
                                    }
                                    const LevelChunk& ch = R.chunks[ci];
                                    const std::uint32_t n = ch.nsucc[(p - R.r0) % R.chunk];
                                    for (std::uint32_t k = 0; k < n; ++k) {
                                      const auto& ed = ch.edges[ei++];
                                      if (!(ed.ref & ls::kNew)) {
                                        f(nullptr, std::uint32_t(ed.ref), ed.actor);
                                        continue;
                                      }
                                      const LevelCand& x = R.cand(ed.ref & ~ls::kNew);
                                      if (!(x.rep ? f(&x.key, 0, ed.actor) : f(nullptr, R.cand(x.winner).id, ed.actor)))
                                        return;
                                    }
                                  },
                                  [] { return std::optional<StopReason>(); }},
                     range);
  }

  Search& s_;
  Obs& obs_;
  WorkerPool& pool_;
  std::vector<std::uint64_t> table_;  // a round's candidates: ref + 1
  bool truncated_ = false;
};

}  // namespace blkmc
