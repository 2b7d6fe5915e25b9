// The level search's resolver for the disk store and bitstate (explorer/
// disk_store.hpp): Search<M>::OnDisk, used by explorer/level_search.hpp.
//
// Level d's states are read back from their file in id order, a round of
// parents at a time; the workers expand a round (no lookups: every
// successor is a candidate) while one thread takes the last one, in
// parent order:
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
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "explorer/disk_store.hpp"
#include "explorer/external_sort.hpp"
#include "explorer/level_replay.hpp"
#include "explorer/origin.hpp"
#include "explorer/worker_pool.hpp"

namespace blkmc {

namespace disk_search {

constexpr std::size_t kRound = 1u << 14;            // parents expanded between two takes, at most
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
class Search<M>::OnDisk {
 public:
  static constexpr bool kLooksUp = false;
  static constexpr bool kOverlaps = true;
  static constexpr bool kSpread = false;

  OnDisk(Search& s, Obs& obs, WorkerPool& pool)
      : s_(s),
        obs_(obs),
        st_(static_cast<DiskStore&>(*s.store_)),  // every on_disk store is one (explorer/stores.cpp)
        edges_(obs.wants_edges()),
        len_(s.m_.state_bytes()) {
    if (edges_ && st_.bitstate())
      throw UsageError("the bitstate store keeps no edges (a state's bits do not say which state it is): "
                       "progress and starvation properties need --store plain, tree or disk");
    if (edges_) st_.keep_tags();
    const auto& lim = s_.opt_.limits;
    // RAM for each of a level's sorts (two, three with edges): a quarter of
    // --memory by default, an eighth with edges (the edge log needs the rest).
    budget_ = s_.opt_.sort_buffer_bytes ? s_.opt_.sort_buffer_bytes
              : lim.memory_bytes        ? std::size_t(lim.memory_bytes / (edges_ ? 8 : 4))
                                        : std::size_t(1) << 30;
    // A candidate: (hash, key, origin big-endian[, actor]).
    cand_.resize(8 + len_ + 8 + (edges_ ? 1 : 0));
    fresh_rec_.resize(8 + len_);
    run_rec_.resize(st_.run_record_bytes());
    edge_rec_.resize(17);
    // The level's two sorts (disk store): by state, then the new states by
    // origin; kept from level to level with their buffers. With edges a
    // third: the edges (origin, tag, actor) by origin.
    if (st_.bitstate()) return;
    by_state_ = std::make_unique<ExternalSorter>(st_.scratch(), "cand", cand_.size(), 8 + len_, budget_);
    by_origin_ = std::make_unique<ExternalSorter>(st_.scratch(), "new", 8 + len_, 8, budget_);
    if (edges_) by_edge_ = std::make_unique<ExternalSorter>(st_.scratch(), "edge", 17, 8, budget_);
    const ParFor par = [&pool](std::size_t tasks, const std::function<void(std::size_t)>& fn) {
      pool.run(tasks, [&](std::size_t t, unsigned) { fn(t); });
    };
    for (ExternalSorter* x : {by_state_.get(), by_origin_.get(), by_edge_.get()})
      if (x) x->set_parallel(par, pool.size());
  }

  // SearchOptions::level_batch where a test asks for small rounds (results
  // never depend on it).
  std::size_t round_parents() const { return s_.opt_.level_batch ? s_.opt_.level_batch : disk_search::kRound; }
  std::size_t states() const { return s_.store_->size(); }
  bool truncated() const { return truncated_; }
  void parent(const LevelRound& R, std::size_t p, State& s) const {
    std::memcpy(s.b.data(), R.keys.data() + (p - R.r0) * len_, len_);
  }
  std::uint32_t lookup(const Succ&) const { return StateStore::kNone; }

  void start(const State& s0) {
    const std::uint64_t h = s_.hash_of(s0);
    st_.begin_level();
    st_.append(s0.b.data(), StateStore::kNone);
    st_.end_level();
    if (st_.bitstate()) {
      st_.test_and_set(h);
    } else {
      BlockWriter w(st_.new_file("visited"), st_.run_record_bytes(), true);
      std::vector<std::uint8_t> rec(st_.run_record_bytes(), 0);  // tag 0
      std::memcpy(rec.data(), &h, 8);
      std::memcpy(rec.data() + 8, s0.b.data(), len_);
      w.add(rec.data());
      st_.add_visited_run(w.finish());
      if (edges_) st_.add_tags({0});
    }
    obs_.on_new(0, s0);
  }

  // The disk a level may use: the filesystem's free bytes (less a margin),
  // and what --disk leaves. A level starts only with room for what it will
  // write at most, estimated from the last one (its peak scratch bytes per
  // parent); a round only with room for its share; a disk that fills all
  // the same (ENOSPC) ends the search there too, with what it found.
  std::optional<StopReason> begin_level(std::uint32_t depth, std::size_t lo, std::size_t hi) {
    depth_ = depth;
    lo_ = lo;
    hi_ = hi;
    head_ = edge_ = nullptr;
    if (auto r = s_.check_clock_and_memory(int(depth))) return r;
    if (double(room()) < per_parent_ * double(hi - lo)) return StopReason::Disk;
    used0_ = peak_ = st_.scratch().used_bytes();
    const auto& lim = s_.opt_.limits;
    at_bound_ = lim.max_depth && depth >= lim.max_depth;
    nsucc_.assign(hi - lo, 0);
    // At the depth bound every parent of a successor not visited is
    // truncated, and with edges every successor is an edge: then equal
    // states from several parents are all kept.
    if (by_state_) by_state_->reset(fmt::format("cand{}", depth), at_bound_ || edges_ ? 8 + len_ + 8 : 8 + len_);
    if (by_edge_) by_edge_->reset(fmt::format("edge{}", depth), 8);
    if (!at_bound_) st_.begin_level();
    parents_ = std::make_unique<BlockReader>(st_.level(depth));
    return std::nullopt;
  }

  // Reads the round's parents from their level file.
  std::optional<StopReason> begin_round(LevelRound& R) {
    R.keys.resize((R.r1 - R.r0) * len_);
    for (std::size_t p = R.r0; p < R.r1; ++p) {
      const std::uint8_t* rec = parents_->next();
      if (!rec) throw DiskError("a level file is shorter than its level");
      std::memcpy(R.keys.data() + (p - R.r0) * len_, rec, len_);
    }
    if (auto r = limit()) return r;
    peak_ = std::max(peak_, st_.scratch().used_bytes());
    if (double(room()) < per_parent_ * double(R.r1 - R.r0)) return StopReason::Disk;
    return std::nullopt;
  }

  // A round's successors in order: into the sort, or through the bits
  // (and then replayed).
  std::optional<StopReason> take(LevelRound& R) {
    fresh_.clear();
    for (std::size_t c = 0; c < R.nchunks; ++c) {
      const LevelChunk& ch = R.chunks[c];
      std::size_t k = 0;  // every successor is a candidate: cands and edges in step
      for (std::size_t j = 0; j < ch.nsucc.size(); ++j) {
        const std::size_t p = R.r0 + c * R.chunk + j;
        std::uint32_t& n = nsucc_[p - lo_];
        n = ch.nsucc[j];
        for (std::uint32_t i = 0; i < ch.nsucc[j]; ++i, ++k) {
          const LevelCand& o = ch.cands[k];
          if (st_.bitstate()) {
            // At the depth bound a parent is truncated only if a
            // successor was not reached another way.
            if (at_bound_) {
              if (!st_.test(o.hash)) n = origin::kTruncated;
            } else if (!st_.test_and_set(o.hash)) {
              std::memcpy(fresh_rec_.data(), &o.origin, 8);
              std::memcpy(fresh_rec_.data() + 8, o.key.b.data(), len_);
              fresh_.insert(fresh_.end(), fresh_rec_.begin(), fresh_rec_.end());
            }
          } else {
            std::memcpy(cand_.data(), &o.hash, 8);
            std::memcpy(cand_.data() + 8, o.key.b.data(), len_);
            disk_search::put_be64(cand_.data() + 8 + len_, o.origin);
            if (edges_) cand_[8 + len_ + 8] = ch.edges[k].actor;
            by_state_->add(cand_.data());
          }
        }
      }
    }
    if (!st_.bitstate()) return std::nullopt;
    std::size_t at = 0;
    head_ = fresh_.empty() ? nullptr : fresh_.data();
    return replay_range(
        R.r0, R.r1,
        [&]() -> const std::uint8_t* {
          at += 8 + len_;
          return at < fresh_.size() ? fresh_.data() + at : nullptr;
        },
        [&](std::size_t p, State& s) { parent(R, p, s); });
  }

  std::optional<StopReason> end_level(bool stopped) {
    std::optional<StopReason> stop;
    if (!stopped && !st_.bitstate()) stop = merge_and_replay();
    st_.end_level();
    if (stopped || stop) return stop;
    peak_ = std::max(peak_, st_.scratch().used_bytes());
    per_parent_ = double(peak_ - used0_) / double(hi_ - lo_);
    return std::nullopt;
  }

  // Called in a catch: a full disk ends the search with what it found.
  std::optional<StopReason> level_failed() {
    st_.end_level();
    try {
      throw;
    } catch (const DiskError& e) {
      if (!e.full) throw;
      return StopReason::Disk;
    }
  }

 private:
  std::uint64_t room() const {
    std::uint64_t free = st_.scratch().free_bytes();
    free = free > disk_search::kDiskMargin ? free - disk_search::kDiskMargin : 0;
    const auto& lim = s_.opt_.limits;
    if (lim.disk_bytes) {
      const std::uint64_t used = st_.scratch().used_bytes();
      free = std::min(free, lim.disk_bytes > used ? lim.disk_bytes - used : 0);
    }
    return free;
  }
  // What stays in memory beside the sorts' buffers: over --memory, the
  // search stops there.
  bool memory_full() const {
    const auto& lim = s_.opt_.limits;
    return edges_ && lim.memory_bytes && st_.memory_bytes() + obs_.memory_bytes() + 3 * budget_ > lim.memory_bytes;
  }
  // The clock, Ctrl-C, and what stays in memory.
  std::optional<StopReason> limit() {
    if (auto r = s_.check_clock_and_memory(int(depth_))) return r;
    if (memory_full()) return StopReason::Memory;
    return std::nullopt;
  }

  // Replays parents [p0, p1) to the observer (Search::replay); next_new()
  // gives the new states in origin order as (origin, key) records, or
  // nullptr, and each is appended to the level as the observer takes it.
  // (In a candidate the origin is big-endian and last, so that memcmp
  // orders it; here it is the sort's leading word.) With edges, edge_ is
  // the next of by_edge's (origin, tag, actor) records, sent after p's
  // new states (those of a parent left at the bound are passed over).
  template <class NextNew, class ParentState>
  std::optional<StopReason> replay_range(std::size_t p0, std::size_t p1, NextNew&& next_new,
                                         ParentState&& parent_state) {
    namespace ds = disk_search;
    ReplayRange range{p0, p1, depth_, std::size_t(s_.max_states_), false, st_.size(), false};
    const auto why = s_.replay(
        obs_,
        ReplaySource{[&](std::size_t p) { return std::pair{nsucc_[p - lo_], std::uint8_t(0)}; }, parent_state,
                     [&](std::size_t p, auto&& f) {
                       State s{};
                       for (; head_ && origin::parent(ds::get64(head_)) == p; head_ = next_new()) {
                         std::memcpy(s.b.data(), head_ + 8, len_);
                         if (!f(&s, 0, -1)) return;
                         st_.append(s.b.data(), std::uint32_t(p));
                       }
                       for (; edge_ && origin::parent(ds::get64(edge_)) <= p; edge_ = by_edge_->next())
                         if (origin::parent(ds::get64(edge_)) == p)
                           f(nullptr, st_.tag_id(ds::get64(edge_ + 8)), edge_[16]);
                     },
                     [&] { return limit(); }},
        range);
    truncated_ = truncated_ || range.truncated;
    return why;
  }

  // Duplicate detection for the level (disk store): its successors, sorted
  // and one of each, against the visited runs; then the level's replay.
  std::optional<StopReason> merge_and_replay() {
    namespace ds = disk_search;
    std::optional<StopReason> stop;
    ds::RunsCursor visited(st_.visited_runs(), len_);
    std::unique_ptr<BlockWriter> run;
    by_origin_->reset(fmt::format("new{}", depth_), 8);
    if (!at_bound_) run = std::make_unique<BlockWriter>(st_.new_file("visited"), st_.run_record_bytes(), true);
    std::size_t seen = 0;
    // A run of equal states (several with edges or at the bound): the
    // first has the smallest origin; is_new and tag are the run's.
    const std::uint8_t* first = nullptr;
    bool is_new = false;
    std::uint64_t tag = 0;
    std::vector<std::uint64_t> new_tags;  // with edges: the level's, sorted below
    while (const std::uint8_t* r = by_state_->next()) {
      if ((++seen & 0xffff) == 0)
        if (auto why = s_.check_clock_and_memory(int(depth_))) {
          stop = why;
          break;
        }
      const std::uint64_t org = ds::get_be64(r + 8 + len_);
      if (!first || std::memcmp(first, r, 8 + len_) != 0) {
        std::memcpy(cand_.data(), r, 8 + len_);  // r's buffer may be reused by next()
        first = cand_.data();
        const std::uint8_t* v = visited.find(r);
        is_new = v == nullptr;
        tag = v ? (edges_ ? ds::get64(v + 8 + len_) : 0) : org + 1;
        if (is_new && !at_bound_) {
          std::memcpy(run_rec_.data(), r, 8 + len_);
          if (edges_) {
            std::memcpy(run_rec_.data() + 8 + len_, &tag, 8);
            new_tags.push_back(tag);
          }
          run->add(run_rec_.data());
          std::memcpy(fresh_rec_.data(), &org, 8);
          std::memcpy(fresh_rec_.data() + 8, r + 8, len_);
          by_origin_->add(fresh_rec_.data());
        }
      }
      if (is_new && at_bound_) {
        nsucc_[origin::parent(org) - lo_] = origin::kTruncated;
        continue;
      }
      if (edges_) {
        std::memcpy(edge_rec_.data(), &org, 8);
        std::memcpy(edge_rec_.data() + 8, &tag, 8);
        edge_rec_[16] = r[8 + len_ + 8];
        by_edge_->add(edge_rec_.data());
      }
    }
    if (run && !stop) st_.add_visited_run(run->finish());
    if (edges_ && !stop) {
      std::sort(new_tags.begin(), new_tags.end());
      st_.add_tags(new_tags);
      edge_ = by_edge_->next();
    }
    peak_ = std::max(peak_, st_.scratch().used_bytes());
    if (stop) return stop;
    const auto load = [&](std::size_t p, State& s) { st_.load(std::uint32_t(p), s.b.data()); };
    if (at_bound_) {
      head_ = nullptr;
      return replay_range(lo_, hi_, [] { return static_cast<const std::uint8_t*>(nullptr); }, load);
    }
    head_ = by_origin_->next();
    return replay_range(lo_, hi_, [&] { return by_origin_->next(); }, load);
  }

  Search& s_;
  Obs& obs_;
  DiskStore& st_;
  const bool edges_;
  const std::size_t len_;
  std::size_t budget_ = 0;
  std::unique_ptr<ExternalSorter> by_state_, by_origin_, by_edge_;
  std::vector<std::uint8_t> cand_, fresh_rec_, run_rec_, edge_rec_;
  std::vector<std::uint8_t> fresh_;  // bitstate: a round's new states, (origin, key)
  // The level being searched.
  std::uint32_t depth_ = 0;
  std::size_t lo_ = 0, hi_ = 0;
  bool at_bound_ = false;
  std::vector<std::uint32_t> nsucc_;  // per parent of the level: successors, or kTruncated
  std::unique_ptr<BlockReader> parents_;
  const std::uint8_t* head_ = nullptr;
  const std::uint8_t* edge_ = nullptr;
  std::uint64_t used0_ = 0, peak_ = 0;
  double per_parent_ = 0;  // the last level's peak scratch growth per parent, bytes
  bool truncated_ = false;
};

}  // namespace blkmc
