// Breadth-first search, level by level, on every worker of a WorkerPool.
// Included by explorer/search.hpp: Search<M>::levels.
//
// A level's states (ids [lo, hi), all at one depth) are expanded in batches
// of parents. Each batch runs in phases separated by barriers:
//   1 expand   workers take chunks of parents: successors, keys, hashes,
//              partial-order reduction (the proviso asks whether a
//              successor was stored before this level began: an edge to a
//              deeper level never closes a cycle without one that does not),
//              and a lookup in the store, which nobody writes meanwhile;
//              successors not found become candidates, origin = (parent
//              id, successor index);
//   2 merge    candidates go into the batch's lock-free table (find-or-put
//              by compare-and-swap); equal candidates keep the smallest
//              origin in the one that won the slot;
//   3 number   the candidate holding its state's smallest origin is the
//              state's representative; representatives get ids in origin
//              order, which is the order a one-thread BFS stores them in;
//   4 observe  one thread replays the batch to the observer in that order
//              and stops where a one-thread search would stop (Search::
//              replay, explorer/level_replay.hpp, shared with the disk
//              search);
//   5 store    workers put the representatives below that point into the
//              store at their ids.
// Ids, parents and what the observer sees are therefore independent of the
// number of threads and of the batch size.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

namespace level_search {

constexpr std::size_t kChunk = 64;            // parents per task, at most
constexpr std::size_t kBatch = 1u << 16;      // parents per batch (of 256-byte states; fewer of larger ones)
constexpr std::uint64_t kNew = 1ull << 63;    // an edge to a candidate (chunk << 32 | index)

}  // namespace level_search

template <Model M>
template <class Obs>
StopReason Search<M>::levels(Obs& obs) {
  namespace ls = level_search;
  struct Cand {
    // User-provided: a new candidate is not zeroed (its used bytes are
    // copied in at once; a kernel-code state is kilobytes).
    Cand() : key(kNoInit) {}
    State key;
    std::uint64_t hash, origin, min_origin, winner;
    std::uint32_t id;  // the winner's: its state's id; a representative's: the same
    bool rep;          // first reached here (the smallest origin of its state)
  };
  struct Edge {
    std::uint64_t ref;  // a stored id, or kNew | candidate
    std::uint8_t actor;
  };
  struct Chunk {
    std::vector<Cand> cands;
    std::vector<Edge> edges;
    std::vector<std::uint32_t> nsucc;  // per parent: successors, or kTruncated
    std::vector<std::uint8_t> por;     // per parent: its ample-set outcome
    std::size_t reps = 0;
    std::uint32_t first_id = 0;
  };

  std::uint32_t id0;
  {
    const State start = rm_.keyed(start_state_);
    visit(obs, start, hash_of(start), StateStore::kNone, 0, id0);
  }
  if (obs.done()) return StopReason::AllViolated;

  WorkerPool pool(std::max(1u, opt_.threads));
  std::vector<Reduced<M>> rms(pool.size(), rm_);  // each worker's (scratch, by-level ample sets)
  for (auto& r : rms) r.decide_by_level();
  std::vector<std::vector<Succ>> succs(pool.size());
  std::vector<Chunk> chunks;
  std::vector<std::uint64_t> table;  // a batch's candidates: ref + 1
  std::uint64_t table_mask = 0;
  std::atomic<int> abort{-1};        // a StopReason, set by worker 0's clock checks
  const auto& lim = opt_.limits;
  // A batch's successors are held as whole States: larger ones, fewer.
  const std::size_t batch = opt_.level_batch ? opt_.level_batch
                                             : std::max<std::size_t>(1024, ls::kBatch * 256 / std::max<std::size_t>(256, sizeof(State)));
  // Small batches (tests) still get a few tasks per worker.
  const std::size_t chunk = std::clamp<std::size_t>(batch / (4 * pool.size()), 1, ls::kChunk);
  bool truncated = false;

  auto cand = [&](std::uint64_t ref) -> Cand& { return chunks[ref >> 32].cands[std::uint32_t(ref)]; };
  const std::size_t used = padded_bytes(m_.state_bytes());  // the bytes of a state that carry data

  std::size_t lo = 0;
  for (std::uint32_t depth = 0; lo < store_->size(); ++depth) {
    const std::size_t hi = store_->size();
    for (std::size_t b = lo; b < hi; b += batch) {
      const std::size_t e = std::min(hi, b + batch);
      const std::size_t nchunks = (e - b + chunk - 1) / chunk;
      if (chunks.size() < nchunks) chunks.resize(nchunks);

      // 1 expand
      pool.run(nchunks, [&](std::size_t c, unsigned w) {
        Chunk& ch = chunks[c];
        ch.cands.clear();
        ch.edges.clear();
        ch.nsucc.clear();
        ch.por.clear();
        if (abort.load(std::memory_order_relaxed) >= 0) return;
        if (w == 0)
          if (auto r = check_clock_and_memory(int(depth))) abort.store(int(*r));
        std::vector<Succ>& succ = succs[w];
        State cur;
        const std::size_t p0 = b + c * chunk, p1 = std::min(e, p0 + chunk);
        for (std::size_t p = p0; p < p1; ++p) {
          store_->load(std::uint32_t(p), cur.b.data());
          if (lim.max_depth && depth >= lim.max_depth &&
              origin::left_at_bound(rms[w], cur,
                                    [&](const State& k) { return store_->contains(k.b.data(), hash_of(k)); })) {
            ch.nsucc.push_back(origin::kTruncated);
            ch.por.push_back(0);
            continue;
          }
          // Successors in place, only the bytes a state uses copied (a large
          // state is far from its capacity); nothing reads past them.
          std::size_t ns = 0;
          rms[w].for_each_successor(cur, [&](const Step& st, const State& next) {
            if (ns == succ.size()) succ.emplace_back();
            Succ& x = succ[ns++];
            std::memcpy(x.next.b.data(), next.b.data(), used);
            x.actor = st.actor;
            x.step = st;
            x.id = kUnlooked;
            x.hash = hash_of(x.next);
            store_->prefetch(x.hash);
          });
          succ.resize(ns);
          // Each successor is looked up once, by the proviso or below.
          auto stored = [&](const Succ& x) {
            if (x.id == kUnlooked) x.id = store_->lookup(x.next.b.data(), x.hash);
            return x.id;
          };
          ch.por.push_back(!rm_.por() ? 0
                                      : rms[w].reduce(cur, succ, [&](const Succ& x) {
                                           const std::uint32_t i = stored(x);
                                           return i != StateStore::kNone && i < hi;
                                         }));
          ch.nsucc.push_back(std::uint32_t(succ.size()));
          for (std::size_t k = 0; k < succ.size(); ++k) {
            const Succ& x = succ[k];
            const std::uint32_t i = stored(x);
            if (i != StateStore::kNone) {
              ch.edges.push_back({i, x.actor});
              continue;
            }
            const std::uint64_t origin = origin::of(p, k);
            ch.edges.push_back({ls::kNew | (std::uint64_t(c) << 32) | ch.cands.size(), x.actor});
            Cand& y = ch.cands.emplace_back();
            std::memcpy(y.key.b.data(), x.next.b.data(), used);
            y.hash = x.hash;
            y.origin = y.min_origin = origin;
            y.winner = 0;
            y.id = StateStore::kNone;
            y.rep = false;
          }
        }
      });
      if (abort.load() >= 0) return StopReason(abort.load());

      // 2 merge
      std::size_t ncands = 0;
      for (std::size_t c = 0; c < nchunks; ++c) ncands += chunks[c].cands.size();
      std::size_t slots = 1024;
      while (slots < 2 * ncands) slots *= 2;
      if (table.size() != slots) table.resize(slots);
      table_mask = slots - 1;
      pool.run((slots + 4095) / 4096, [&](std::size_t t, unsigned) {
        std::fill_n(table.data() + t * 4096, std::min<std::size_t>(4096, slots - t * 4096), 0);
      });
      pool.run(nchunks, [&](std::size_t c, unsigned) {
        auto& cands = chunks[c].cands;
        for (std::size_t k = 0; k < cands.size(); ++k) {
          Cand& x = cands[k];
          const std::uint64_t mine = (std::uint64_t(c) << 32) | k;
          for (std::size_t i = (x.hash >> 32) & table_mask;; i = (i + 1) & table_mask) {
            std::atomic_ref<std::uint64_t> slot(table[i]);
            std::uint64_t v = slot.load(std::memory_order_acquire);
            if (v == 0) {
              if (slot.compare_exchange_strong(v, mine + 1, std::memory_order_acq_rel)) {
                x.winner = mine;
                break;
              }
            }
            Cand& o = cand(v - 1);
            if (o.hash == x.hash && std::memcmp(o.key.b.data(), x.key.b.data(), m_.state_bytes()) == 0) {
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

      // 3 number
      pool.run(nchunks, [&](std::size_t c, unsigned) {
        Chunk& ch = chunks[c];
        ch.reps = 0;
        for (Cand& x : ch.cands) {
          x.rep = cand(x.winner).min_origin == x.origin;
          ch.reps += x.rep;
        }
      });
      std::size_t next_id = store_->size();
      for (std::size_t c = 0; c < nchunks; ++c) {
        chunks[c].first_id = std::uint32_t(next_id);
        next_id += chunks[c].reps;
      }
      const std::size_t new_states = next_id - store_->size();
      pool.run(nchunks, [&](std::size_t c, unsigned) {
        std::uint32_t id = chunks[c].first_id;
        for (Cand& x : chunks[c].cands)
          if (x.rep) cand(x.winner).id = x.id = id++;
      });

      // 4 observe. The states that fit: below --max-states, and within
      // --memory (the store grown for them, and what the observer keeps).
      std::size_t cap = std::min<std::size_t>(max_states_, store_->size() + new_states);
      bool cap_by_memory = false;
      if (lim.memory_bytes) {
        auto fits = [&](std::size_t n) {
          return store_->memory_after_reserve(n) + obs.memory_bytes() <= lim.memory_bytes;
        };
        std::size_t good = 0, bad = cap - store_->size() + 1;  // fits(good); bad: unknown or not
        if (!fits(bad - 1)) {
          while (bad - good > 1) {
            const std::size_t mid = good + (bad - good) / 2;
            (fits(mid) ? good : bad) = mid;
          }
          cap = store_->size() + good;
          cap_by_memory = true;
        }
      }
      // The batch's successors as replay() reads them: per parent its
      // count and outcome, then its edges in order (ei runs through them).
      ReplayRange range{b, e, depth, cap, cap_by_memory, store_->size(), false};
      std::optional<StopReason> stop;
      std::size_t ci = 0, ei = 0;
      auto observe = [&] {
        stop = replay(obs,
                      ReplaySource{[&](std::size_t p) {
                                     const Chunk& ch = chunks[(p - b) / chunk];
                                     const std::size_t j = (p - b) % chunk;
                                     return std::pair{ch.nsucc[j], ch.por[j]};
                                   },
                                   [&](std::size_t p, State& s) { store_->load(std::uint32_t(p), s.b.data()); },
                                   [&](std::size_t p, auto&& f) {
                                     if ((p - b) / chunk != ci) {
                                       ci = (p - b) / chunk;
                                       ei = 0;
                                     }
                                     const Chunk& ch = chunks[ci];
                                     const std::uint32_t n = ch.nsucc[(p - b) % chunk];
                                     for (std::uint32_t k = 0; k < n; ++k) {
                                       const Edge& ed = ch.edges[ei++];
                                       if (!(ed.ref & ls::kNew)) {
                                         f(nullptr, std::uint32_t(ed.ref), ed.actor);
                                         continue;
                                       }
                                       const Cand& x = cand(ed.ref & ~ls::kNew);
                                       if (!(x.rep ? f(&x.key, 0, ed.actor) : f(nullptr, cand(x.winner).id, ed.actor)))
                                         return;
                                     }
                                   },
                                   [] { return std::optional<StopReason>(); }},
                      range);
        truncated = truncated || range.truncated;
      };

      // 5 store. Where the store takes puts from several threads, every new
      // state is put while one thread observes; those at or past the cut are
      // never committed (the search stops there).
      const ParFor par = [&](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
        pool.run(tasks, [&](std::size_t t, unsigned) { fn(t); });
      };
      auto put_chunk = [&](std::size_t c, std::size_t below) {
        for (const Cand& x : chunks[c].cands)
          if (x.rep && x.id < below)
            store_->put(x.id, x.key.b.data(), x.hash, origin::parent(x.origin), depth + 1);
      };
      if (store_->concurrent_put()) {
        store_->reserve(new_states, par);
        const std::size_t all = store_->size() + new_states;
        pool.run_beside(nchunks, [&](std::size_t c, unsigned) { put_chunk(c, all); }, observe);
      } else {
        observe();
        store_->reserve(range.next_id - store_->size(), par);
        for (std::size_t c = 0; c < nchunks; ++c) put_chunk(c, range.next_id);  // in id order
      }
      store_->commit(range.next_id, par);
      if (stop) return *stop;
    }
    rm_.end_level();
    for (auto& r : rms) r.follow(rm_);
    lo = hi;
  }
  return truncated ? StopReason::MaxDepth : StopReason::Complete;
}

}  // namespace blkmc
