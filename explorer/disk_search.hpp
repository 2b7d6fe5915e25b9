// Breadth-first search into the disk store or bitstate (explorer/
// disk_store.hpp): Search<M>::disk_levels, included by explorer/search.hpp.
//
// Level d's states are read back from their file in id order, in rounds of
// parents expanded on every worker. Then, on one thread, in parent order:
//   bitstate  each successor's bits are tested and set; a successor with a
//             bit unset is new, and since this happens in origin order
//             (parent id, successor index) the round is replayed to the
//             observer at once;
//   disk      each successor goes into a sort by (hash, state, origin);
//             after the level the sort's runs are merged, equal states
//             keep their smallest origin, and the result is merged with
//             the visited runs: what none of them has is new. The new
//             states are added to the visited set as one more run and
//             sorted again by origin, and the level is replayed.
// The replay gives the new states their ids in origin order, the order a
// one-thread search stores them in, and stops where it would (every
// property answered, --max-states), so ids, counts, verdicts and traces are
// those of the plain store (without partial-order reduction, which needs
// a lookup while a state is expanded; slicing and symmetry stay).
//
// Edges (progress and starvation, disk store): every successor is kept in
// the sort, and the visited runs carry each state's tag (its origin + 1),
// so the merge knows each successor's tag, old or new; the edges (origin,
// tag, actor) are sorted by origin again and replayed with their parents,
// tags turned into ids (DiskStore::tag_id). The edge log and the tags (8
// bytes a state) stay in memory, the states on disk. The bitstate store
// has no edges: its bits do not say which state was met.
//
// Not here: depth-first search.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "explorer/disk_store.hpp"
#include "explorer/external_sort.hpp"
#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

namespace disk_search {

constexpr std::size_t kRound = 1u << 14;          // parents expanded between two replays, at most
constexpr std::uint64_t kDiskMargin = 16ull << 20;  // left free for everyone else

inline void put_be64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = std::uint8_t(v);
}
inline std::uint64_t get64(const std::uint8_t* p) {  // a new state's (native) origin
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint64_t get_be64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// The visited runs, read alongside a sorted stream of (hash, key, ...)
// records: find(r) for records in increasing order gives the run's record
// of r's state, or nullptr.
class RunsCursor {
 public:
  RunsCursor(const std::vector<BlockFile>& runs, std::size_t key_bytes) : len_(key_bytes) {
    for (const BlockFile& f : runs) {
      readers_.push_back(std::make_unique<BlockReader>(f));
      heads_.push_back(readers_.back()->next());
    }
  }
  const std::uint8_t* find(const std::uint8_t* r) {
    const std::uint8_t* found = nullptr;
    for (std::size_t k = 0; k < heads_.size(); ++k) {
      while (heads_[k] && cmp(heads_[k], r) < 0) heads_[k] = readers_[k]->next();
      if (heads_[k] && cmp(heads_[k], r) == 0) found = heads_[k];
    }
    return found;
  }

 private:
  int cmp(const std::uint8_t* a, const std::uint8_t* b) const {
    std::uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return x < y ? -1 : 1;
    return std::memcmp(a + 8, b + 8, len_);
  }
  std::size_t len_;
  std::vector<std::unique_ptr<BlockReader>> readers_;
  std::vector<const std::uint8_t*> heads_;
};

}  // namespace disk_search

template <Model M>
template <class Obs>
StopReason Search<M>::disk_levels(Obs& obs) {
  namespace ds = disk_search;
  DiskStore& st = *disk_;
  const bool edges = obs.wants_edges();
  if (edges && st.bitstate())
    throw UsageError("the bitstate store keeps no edges (a state's bits do not say which state it is): "
                     "progress and starvation properties need --store plain, tree or disk");
  if (edges) st.keep_tags();
  const std::size_t len = m_.state_bytes();
  const auto& lim = opt_.limits;
  // RAM for each of a level's sorts (two, three with edges): a quarter of
  // --memory by default, an eighth with edges (the edge log needs the rest).
  const std::size_t budget = opt_.sort_buffer_bytes ? opt_.sort_buffer_bytes
                             : lim.memory_bytes     ? std::size_t(lim.memory_bytes / (edges ? 8 : 4))
                                                    : std::size_t(1) << 30;
  // A candidate: (hash, key, origin big-endian[, actor]).
  const std::size_t cand_bytes = 8 + len + 8 + (edges ? 1 : 0);
  // What stays in memory beside the sorts' buffers: over --memory, the
  // search stops there.
  auto memory_full = [&] {
    return edges && lim.memory_bytes && st.memory_bytes() + obs.memory_bytes() + 3 * budget > lim.memory_bytes;
  };
  // The clock, Ctrl-C, and what stays in memory.
  auto limit = [&](std::uint32_t depth) -> std::optional<StopReason> {
    if (auto r = check_clock_and_memory(int(depth))) return r;
    if (memory_full()) return StopReason::Memory;
    return std::nullopt;
  };

  {
    const State start = rm_.keyed(start_state_);
    const std::uint64_t h = hash_of(start);
    st.begin_level();
    st.append(start.b.data(), StateStore::kNone);
    st.end_level();
    if (st.bitstate()) {
      st.test_and_set(h);
    } else {
      BlockWriter w(st.new_file("visited"), st.run_record_bytes(), true);
      std::vector<std::uint8_t> rec(st.run_record_bytes(), 0);  // tag 0
      std::memcpy(rec.data(), &h, 8);
      std::memcpy(rec.data() + 8, start.b.data(), len);
      w.add(rec.data());
      st.add_visited_run(w.finish());
      if (edges) st.add_tags({0});
    }
    obs.on_new(0, start);
  }
  if (obs.done()) return StopReason::AllViolated;

  WorkerPool pool(std::max(1u, opt_.threads));
  std::vector<Reduced<M>> rms(pool.size(), rm_);  // each worker's (scratch)
  struct Out {
    State key;
    std::uint64_t hash;
    std::uint8_t actor;
  };
  struct Chunk {
    std::vector<Out> succ;
    std::vector<std::uint32_t> nsucc;  // per parent
  };
  const std::size_t chunk = 64;
  struct Round {
    std::size_t r0 = 0, r1 = 0, nchunks = 0;  // parents [r0, r1)
    std::vector<std::uint8_t> keys;           // theirs
    std::vector<Chunk> chunks;                // their successors
  };
  Round rounds[2];
  std::vector<std::uint32_t> nsucc;    // per parent of the level: successors, or kTruncated
  std::vector<std::uint8_t> cand(cand_bytes), fresh_rec(8 + len), run_rec(st.run_record_bytes()), edge_rec(17);
  bool truncated = false;
  // The level's two sorts (disk store): by state, then the new states by
  // origin; kept from level to level with their buffers.
  // With edges a third: the edges (origin, tag, actor) by origin.
  std::unique_ptr<ExternalSorter> by_state, by_origin, by_edge;
  if (!st.bitstate()) {
    by_state = std::make_unique<ExternalSorter>(st.scratch(), "cand", cand_bytes, 8 + len, budget);
    by_origin = std::make_unique<ExternalSorter>(st.scratch(), "new", 8 + len, 8, budget);
    if (edges) by_edge = std::make_unique<ExternalSorter>(st.scratch(), "edge", 17, 8, budget);
    const ParFor par = [&](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
      pool.run(tasks, [&](std::size_t t, unsigned) { fn(t); });
    };
    by_state->set_parallel(par, pool.size());
    by_origin->set_parallel(par, pool.size());
    if (by_edge) by_edge->set_parallel(par, pool.size());
  }

  // The disk a level may use: the filesystem's free bytes (less a margin),
  // and what --disk leaves. A level starts only with room for what it will
  // write at most, estimated from the last one (its peak scratch bytes per
  // parent); a round only with room for its share; a disk that fills all
  // the same (ENOSPC) ends the search there too, with what it found.
  auto room = [&]() -> std::uint64_t {
    std::uint64_t free = st.scratch().free_bytes();
    free = free > ds::kDiskMargin ? free - ds::kDiskMargin : 0;
    if (lim.disk_bytes) {
      const std::uint64_t used = st.scratch().used_bytes();
      free = std::min(free, lim.disk_bytes > used ? lim.disk_bytes - used : 0);
    }
    return free;
  };
  double per_parent = 0;  // the last level's peak scratch growth per parent, bytes
  for (std::uint32_t depth = 0; depth < st.levels(); ++depth) {
    const std::size_t lo = st.level_first(depth), hi = st.size();
    if (lo == hi) break;
    if (auto r = check_clock_and_memory(int(depth))) return *r;
    if (double(room()) < per_parent * double(hi - lo)) return StopReason::Disk;
    const std::uint64_t used0 = st.scratch().used_bytes();
    std::uint64_t peak = used0;
    const bool at_bound = lim.max_depth && depth >= lim.max_depth;
    nsucc.assign(hi - lo, 0);
    std::optional<StopReason> stop;
    // At the depth bound every parent of a successor not visited is
    // truncated, and with edges every successor is an edge: then equal
    // states from several parents are all kept.
    if (by_state) by_state->reset(fmt::format("cand{}", depth), at_bound || edges ? 8 + len + 8 : 8 + len);
    if (by_edge) by_edge->reset(fmt::format("edge{}", depth), 8);

    // Replays parents [p0, p1) to the observer (Search::replay); next_new()
    // gives the new states in origin order as (origin, key) records, or
    // nullptr, and each is appended to the level as the observer takes it.
    // (In a candidate the origin is big-endian and last, so that memcmp
    // orders it; here it is the sort's leading word.) With edges, edge is
    // the next of by_edge's (origin, tag, actor) records, sent after p's
    // new states (those of a parent left at the bound are passed over).
    const std::uint8_t* head = nullptr;
    const std::uint8_t* edge = nullptr;
    auto replay_range = [&](std::size_t p0, std::size_t p1, auto&& next_new, auto&& parent_state) {
      ReplayRange range{p0, p1, depth, std::size_t(max_states_), false, st.size(), false};
      const auto why = replay(
          obs,
          ReplaySource{[&](std::size_t p) { return std::pair{nsucc[p - lo], std::uint8_t(0)}; }, parent_state,
                       [&](std::size_t p, auto&& f) {
                         State s{};
                         for (; head && origin::parent(ds::get64(head)) == p; head = next_new()) {
                           std::memcpy(s.b.data(), head + 8, len);
                           if (!f(&s, 0, -1)) return;
                           st.append(s.b.data(), std::uint32_t(p));
                         }
                         for (; edge && origin::parent(ds::get64(edge)) <= p; edge = by_edge->next())
                           if (origin::parent(ds::get64(edge)) == p) f(nullptr, st.tag_id(ds::get64(edge + 8)), edge[16]);
                       },
                       [&] { return limit(depth); }},
          range);
      truncated = truncated || range.truncated;
      if (why) stop = why;
    };

    if (!at_bound) st.begin_level();
    try {
      // Expand, round by round; one thread takes each round's successors
      // in order (sorts them, or tests their bits) while the workers expand
      // the next round.
      BlockReader parents(st.level(depth));
      std::vector<std::uint8_t> fresh;  // bitstate: a round's new states, (origin, key)
      auto consume = [&](Round& R) {
        fresh.clear();
        for (std::size_t c = 0; c < R.nchunks; ++c) {
          const Chunk& ch = R.chunks[c];
          std::size_t k = 0;
          for (std::size_t j = 0; j < ch.nsucc.size(); ++j) {
            const std::size_t p = R.r0 + c * chunk + j;
            std::uint32_t& n = nsucc[p - lo];
            n = ch.nsucc[j];
            for (std::uint32_t i = 0; i < ch.nsucc[j]; ++i, ++k) {
              const Out& o = ch.succ[k];
              const std::uint64_t org = origin::of(p, i);
              if (st.bitstate()) {
                // At the depth bound a parent is truncated only if a
                // successor was not reached another way.
                if (at_bound) {
                  if (!st.test(o.hash)) n = origin::kTruncated;
                } else if (!st.test_and_set(o.hash)) {
                  std::memcpy(fresh_rec.data(), &org, 8);
                  std::memcpy(fresh_rec.data() + 8, o.key.b.data(), len);
                  fresh.insert(fresh.end(), fresh_rec.begin(), fresh_rec.end());
                }
              } else {
                std::memcpy(cand.data(), &o.hash, 8);
                std::memcpy(cand.data() + 8, o.key.b.data(), len);
                ds::put_be64(cand.data() + 8 + len, org);
                if (edges) cand[8 + len + 8] = o.actor;
                by_state->add(cand.data());
              }
            }
          }
        }
        if (st.bitstate()) {
          std::size_t at = 0;
          auto next_new = [&]() -> const std::uint8_t* {
            at += 8 + len;
            return at < fresh.size() ? fresh.data() + at : nullptr;
          };
          head = fresh.empty() ? nullptr : fresh.data();
          replay_range(R.r0, R.r1, next_new, [&](std::size_t p, State& s) {
            std::memcpy(s.b.data(), R.keys.data() + (p - R.r0) * len, len);
          });
        }
      };
      Round* pending = nullptr;
      for (std::size_t r0 = lo, k = 0; r0 < hi && !stop; r0 += ds::kRound, ++k) {
        Round& R = rounds[k & 1];
        R.r0 = r0;
        R.r1 = std::min(hi, r0 + ds::kRound);
        R.keys.resize((R.r1 - r0) * len);
        for (std::size_t p = r0; p < R.r1; ++p) {
          const std::uint8_t* rec = parents.next();
          if (!rec) throw DiskError("a level file is shorter than its level");
          std::memcpy(R.keys.data() + (p - r0) * len, rec, len);
        }
        if (auto r = limit(depth)) {
          stop = r;
          break;
        }
        peak = std::max(peak, st.scratch().used_bytes());
        if (double(room()) < per_parent * double(R.r1 - r0)) {
          stop = StopReason::Disk;
          break;
        }
        R.nchunks = (R.r1 - r0 + chunk - 1) / chunk;
        if (R.chunks.size() < R.nchunks) R.chunks.resize(R.nchunks);
        pool.run_beside(
            R.nchunks,
            [&](std::size_t c, unsigned w) {
              Chunk& ch = R.chunks[c];
              ch.succ.clear();
              ch.nsucc.clear();
              State cur{};
              const std::size_t p0 = R.r0 + c * chunk, p1 = std::min(R.r1, p0 + chunk);
              for (std::size_t p = p0; p < p1; ++p) {
                std::memcpy(cur.b.data(), R.keys.data() + (p - R.r0) * len, len);
                std::uint32_t n = 0;
                rms[w].for_each_successor(cur, [&](const Step& step, const State& next) {
                  Out o{next, 0, step.actor};
                  o.hash = hash_of(o.key);
                  ch.succ.push_back(o);
                  ++n;
                });
                ch.nsucc.push_back(n);
              }
            },
            [&] {
              if (pending) consume(*pending);
            });
        pending = stop ? nullptr : &R;
      }
      if (pending && !stop) consume(*pending);
      if (!st.bitstate() && !stop) {
        // Duplicate detection for the level: its successors, sorted and one
        // of each, against the visited runs.
        ds::RunsCursor visited(st.visited_runs(), len);
        std::unique_ptr<BlockWriter> run;
        by_origin->reset(fmt::format("new{}", depth), 8);
        if (!at_bound) run = std::make_unique<BlockWriter>(st.new_file("visited"), st.run_record_bytes(), true);
        std::size_t seen = 0;
        // A run of equal states (several with edges or at the bound): the
        // first has the smallest origin; is_new and tag are the run's.
        const std::uint8_t* first = nullptr;
        bool is_new = false;
        std::uint64_t tag = 0;
        std::vector<std::uint64_t> new_tags;  // with edges: the level's, sorted below
        while (const std::uint8_t* r = by_state->next()) {
          if ((++seen & 0xffff) == 0)
            if (auto why = check_clock_and_memory(int(depth))) {
              stop = why;
              break;
            }
          const std::uint64_t org = ds::get_be64(r + 8 + len);
          if (!first || std::memcmp(first, r, 8 + len) != 0) {
            std::memcpy(cand.data(), r, 8 + len);  // r's buffer may be reused by next()
            first = cand.data();
            const std::uint8_t* v = visited.find(r);
            is_new = v == nullptr;
            tag = v ? (edges ? ds::get64(v + 8 + len) : 0) : org + 1;
            if (is_new && !at_bound) {
              std::memcpy(run_rec.data(), r, 8 + len);
              if (edges) {
                std::memcpy(run_rec.data() + 8 + len, &tag, 8);
                new_tags.push_back(tag);
              }
              run->add(run_rec.data());
              std::memcpy(fresh_rec.data(), &org, 8);
              std::memcpy(fresh_rec.data() + 8, r + 8, len);
              by_origin->add(fresh_rec.data());
            }
          }
          if (is_new && at_bound) {
            nsucc[origin::parent(org) - lo] = origin::kTruncated;
            continue;
          }
          if (edges) {
            std::memcpy(edge_rec.data(), &org, 8);
            std::memcpy(edge_rec.data() + 8, &tag, 8);
            edge_rec[16] = r[8 + len + 8];
            by_edge->add(edge_rec.data());
          }
        }
        if (run && !stop) st.add_visited_run(run->finish());
        if (edges && !stop) {
          std::sort(new_tags.begin(), new_tags.end());
          st.add_tags(new_tags);
          edge = by_edge->next();
        }
        peak = std::max(peak, st.scratch().used_bytes());
        if (!stop && !at_bound) {
          head = by_origin->next();
          replay_range(lo, hi, [&] { return by_origin->next(); },
                       [&](std::size_t p, State& s) { st.load(std::uint32_t(p), s.b.data()); });
        } else if (!stop) {
          head = nullptr;
          replay_range(lo, hi, [] { return static_cast<const std::uint8_t*>(nullptr); },
                       [&](std::size_t p, State& s) { st.load(std::uint32_t(p), s.b.data()); });
        }
      }
    } catch (const DiskError& e) {
      st.end_level();
      if (!e.full) throw;
      return StopReason::Disk;  // the disk filled mid-level
    } catch (...) {
      st.end_level();
      throw;
    }
    st.end_level();
    if (stop) return *stop;
    peak = std::max(peak, st.scratch().used_bytes());
    per_parent = double(peak - used0) / double(hi - lo);
  }
  return truncated ? StopReason::MaxDepth : StopReason::Complete;
}

}  // namespace blkmc
