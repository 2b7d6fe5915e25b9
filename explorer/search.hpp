// The search, apart from what is checked on it (in the spirit of LTSmin's
// PINS layers): Search<M> explores a model's state space breadth- or
// depth-first into a StateStore and reports events to an observer; it knows
// no property kind. The property checks (explorer/checks.hpp), the search
// for a stuck state behind a progress trace and prove's search for a state
// (app/) are observers of this one loop.
//
// BFS expands states level by level on every thread (explorer/
// level_search.hpp) and gives each level's new states their ids in the order
// a one-thread breadth-first search would (by parent id, then successor
// index), so ids, parents, traces, verdicts and counts are the same for any
// number of threads; every state is reached first along a shortest path.
// DFS is a one-thread LIFO worklist with parent links. Under a depth bound,
// DFS re-opens a state reached again by a shorter path.
//
// An observer provides:
//   void on_new(std::uint32_t id, const State& s)        a state stored for the first time
//   bool wants_edges() const                              whether to report edges
//   void on_expand(std::uint32_t id, const State& s)      before its successors (edges only)
//   void on_edge(std::uint32_t to, std::uint8_t actor)    one successor of the state expanding (edges only)
//   void on_expanded(std::uint32_t id, const State& s, std::size_t successors, bool whole)
//                                                         after them; whole: none was cut off by a limit;
//                                                         s is the state only where successors == 0 or
//                                                         wants_edges() (breadth-first loads it only then)
//   bool done() const                                     every question answered: stop early
//   std::uint64_t memory_bytes() const                    what it keeps, for the memory limit
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "explorer/cluster.hpp"
#include "explorer/counterexample.hpp"
#include "explorer/key_path.hpp"
#include "explorer/limits.hpp"
#include "explorer/expand.hpp"
#include "explorer/origin.hpp"
#include "explorer/reduced_model.hpp"
#include "explorer/state_store.hpp"
#include "explorer/stores.hpp"
#include "explorer/worker_pool.hpp"
#include "common/errors.hpp"
#include "model/model.hpp"

namespace blkmc {

struct SearchOptions {
  // Breadth-first (shortest counterexamples), the default of every caller
  // but `blkmc check`, which searches depth-first unless given --bfs (as SPIN).
  bool bfs = true;
  Limits limits;
  std::vector<int> props;   // indices into ModelInfo::props; empty: all
  // Parallel to props (may be shorter): the bound K of a maximize property
  // selected as NAME<=K; nullopt (or missing) for no bound.
  std::vector<std::optional<int>> bounds;
  // Slicing, symmetry and partial-order reduction: the model searched is
  // the Reduced one (explorer/reduced_model.hpp);
  // none unless asked for (check and the suite ask for all).
  ReduceOptions reduce;
  // Workers of a breadth-first search, the caller included (depth-first
  // search runs on one).
  unsigned threads = 1;
  // Parents per round of a breadth-first level (0: the resolver's default);
  // results never depend on it (tests make it small, and set it to run the
  // level search where one thread would search sequentially).
  std::size_t level_batch = 0;
  // How visited states are kept (the table in explorer/stores.cpp: all but
  // plain are breadth-first only).
  StoreKind store = StoreKind::Plain;
  // The disk and bitstate stores (explorer/disk_store.hpp): where their
  // scratch directory goes (empty: $TMPDIR or /tmp), the RAM of each of a
  // level's sorts (0: a quarter of the memory limit), and the bit array's
  // size, 2^bitstate_log2 bits (0: from the memory limit).
  std::string disk_dir;
  std::size_t sort_buffer_bytes = 0;
  unsigned bitstate_log2 = 0;
  // The ranks of a distributed search (explorer/distributed_search.hpp);
  // null: this process alone.
  Cluster* cluster = nullptr;
  // After the search, count which variables multiply the stored states
  // (explorer/census.hpp; one process only).
  bool census = false;
  bool progress = true;     // a line on stderr every 2 s
  double progress_interval = 2.0;
};

struct ReplayRange;  // explorer/level_replay.hpp
template <Model M>
class PropertyChecks;  // explorer/checks.hpp

template <Model M>
class Search {
 public:
  using State = typename M::State;

  // start: the state the search begins at (default: the model's initial).
  Search(const M& m, const SearchOptions& opt, std::optional<State> start = std::nullopt)
      : m_(m),
        opt_(opt),
        rm_(m, reductions(opt), opt.props, opt.limits.max_depth != 0),
        start_state_(start ? *start : m.initial()) {
    const StoreSpec& spec = store_spec(opt.store);
    if (opt.cluster && !opt.bfs) throw UsageError("a distributed search is breadth-first (drop --dfs)");
    if (opt.cluster && opt.store != StoreKind::Plain)
      throw UsageError(fmt::format("a distributed search keeps every state on its owner rank; the {} store "
                                   "is for one process",
                                   spec.name));
    if (spec.breadth_first_only && !opt.bfs)
      throw UsageError(fmt::format("the {} store is for breadth-first searches (drop --dfs)", spec.name));
    store_ = spec.make({m.state_bytes(), opt.disk_dir, bitstate_bits(opt)});
    plain_ = dynamic_cast<StateStore*>(store_.get());
  }

  template <class Obs>
  StopReason run(Obs& obs) {
    // State ids are 32-bit: beyond that the search stops as at --max-states.
    max_states_ = std::min<std::uint64_t>(opt_.limits.max_states ? opt_.limits.max_states
                                                                 : StateStore::kNone,
                                          StateStore::kNone - 1);
    start_ = last_progress_ = Clock::now();
    // One thread into a store in memory needs no levels: the store is the
    // queue (see sequential()); into the plain store find-or-put is one
    // table probe.
    const bool one_thread = !opt_.bfs || (!store_spec(opt_.store).on_disk && opt_.threads <= 1 &&
                                           !opt_.level_batch && !opt_.cluster);
    const StopReason r =
        !one_thread ? levels(obs) : plain_ ? sequential(obs, *plain_) : sequential(obs, *store_);
    seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
    return r;
  }

  const M& model() const { return m_; }
  const VisitedStore& store() const { return *store_; }
  // Figures of the run; extra_bytes: what the observers kept (an edge log).
  Stats stats(std::uint64_t extra_bytes = 0) const {
    Stats st;
    st.seconds = seconds_;
    st.states = store_->size();
    st.transitions = transitions_;
    st.max_depth = max_depth_;
    st.states_per_second = st.seconds > 0 ? double(st.states) / st.seconds : 0;
    st.store_bytes = store_->memory_bytes() + extra_bytes;
    st.store = to_string(opt_.store);
    st.omission_probability = store_->omission_probability();
    st.disk_bytes = store_->disk_bytes();
    st.bytes_per_state = st.states ? double(st.store_bytes) / double(st.states) : 0;
    st.state_bytes = m_.state_bytes();
    st.peak_rss_bytes = peak_rss_bytes();
    const ReductionStats rs = rm_.stats();
    st.reduction = rs.summary;
    st.ample_states = rs.ample;
    st.full_states = rs.full;
    st.por_gave_up = rs.gave_up;
    st.threads = opt_.bfs ? std::max(1u, opt_.threads) : 1;
    return st;
  }

  State load(std::uint32_t i) const {
    State s{};
    store_->load(i, s.b.data());
    return s;
  }

  // The step that leads from one state to another (by that actor, when one
  // is given).
  Step step_between(const State& from, const State& to, int actor = -1) const {
    Step found{};
    bool any = false;
    m_.for_each_successor(from, [&](const Step& st, const State& n) {
      if (!any && (actor < 0 || st.actor == actor) &&
          std::memcmp(n.b.data(), to.b.data(), m_.state_bytes()) == 0) {
        found = st;
        any = true;
      }
    });
    return found;
  }

  // The model searched: m through the reductions that apply.
  const Reduced<M>& reduced() const { return rm_; }
  // Leaves out every successor whose key prune(key) answers true (before a run).
  void prune(std::function<bool(const State&)> p) { rm_.set_prune(std::move(p)); }
  const State& start_state() const { return start_state_; }
  // Spread over ranks (explorer/resolve_on_ranks.hpp): the global id of
  // each state store() holds here, by index, and the states of all ranks.
  const std::vector<std::uint32_t>& rank_ids() const { return ranks_.ids; }
  std::size_t rank_states() const { return ranks_.states; }

  // The path the search took from its start to state id (under BFS a
  // shortest one), on concrete states: where the store holds keys, each
  // step is the first whose successor's key is the next stored key.
  Counterexample<State> path_to(std::uint32_t id) const {
    std::vector<std::uint32_t> path;
    for (std::uint32_t i = id; i != StateStore::kNone; i = store_->parent(i)) path.push_back(i);
    Counterexample<State> cx;
    if (rm_.keyed() || !store_->keeps_states()) {
      cx.states.push_back(start_state_);
      for (std::size_t k = path.size() - 1; k > 0; --k) step_to_key(cx, path[k - 1], -1);
      return cx;
    }
    cx.states.push_back(load(path.back()));
    for (std::size_t k = path.size() - 1; k > 0; --k) {
      const State to = load(path[k - 1]);
      cx.steps.push_back(step_between(cx.states.back(), to));
      cx.states.push_back(to);
    }
    return cx;
  }
  // path_to(walk[0]), continued along the stored states walk[1..] by
  // key_path::along (which says what loop and actors mean); base, where
  // given, is set to the steps of the path to walk[0].
  Counterexample<State> path_along(const std::vector<std::uint32_t>& walk, std::size_t loop,
                                   const std::vector<int>& actors = {}, std::size_t* base = nullptr) const {
    Counterexample<State> cx = path_to(walk.front());
    if (base) *base = cx.steps.size();
    key_path::along(rm_, cx, walk, loop, actors, !rm_.keyed() && store_->keeps_states(),
                    [&](std::uint32_t id, const State& k) { return store_->is(id, k.b.data(), hash_of(k)); });
    return cx;
  }

 private:
  // Extends cx by the first step from its last state (by that actor, when
  // one is given) whose successor's key is stored state `want`: a stored
  // edge followed on concrete states.
  void step_to_key(Counterexample<State>& cx, std::uint32_t want, int actor) const {
    key_path::step_to(rm_, cx, [&](const State& k) { return store_->is(want, k.b.data(), hash_of(k)); }, actor);
  }

  using Clock = std::chrono::steady_clock;
  struct Succ {
    State next;
    std::uint64_t hash;
    std::uint8_t actor;
    Step step;
    // The level search's lookup of next, made once when first needed
    // (kUnlooked: not yet).
    mutable std::uint32_t id = kUnlooked;
  };
  static constexpr std::uint32_t kUnlooked = StateStore::kNone - 1;

  std::uint64_t hash_of(const State& s) const { return hash_padded(s.b.data(), m_.state_bytes()); }

  // Stores s; true when it is new (or re-opened under a DFS depth bound).
  template <class Obs>
  bool visit(Obs& obs, const State& s, std::uint64_t hash, std::uint32_t parent,
             std::uint32_t depth, std::uint32_t& id) {
    const auto [i, fresh] =
        plain_ ? plain_->insert(s.b.data(), hash, parent, depth) : store_->add(s.b.data(), hash, parent, depth);
    id = i;
    if (!fresh) {
      if (plain_ && !opt_.bfs && opt_.limits.max_depth && depth < plain_->depth(i)) {
        plain_->relink(i, parent, depth);
        return true;
      }
      return false;
    }
    if (depth > max_depth_) max_depth_ = depth;
    obs.on_new(i, s);
    return true;
  }

  // Breadth-first, level by level on every worker (explorer/
  // level_search.hpp): one loop of rounds of parents, each round's
  // successors resolved by the store's side, InMemory (explorer/
  // resolve_in_memory.hpp) or OnDisk (explorer/resolve_on_disk.hpp), or
  // by the ranks of a cluster, OnRanks (explorer/resolve_on_ranks.hpp).
  struct LevelCand;
  struct LevelChunk;
  struct LevelRound;
  template <class Obs>
  class InMemory;
  template <class Obs>
  class OnDisk;
  template <class Obs>
  class OnRanks;
  template <class Obs>
  StopReason levels(Obs& obs);
  template <class Obs, class Res>
  StopReason level_loop(Obs& obs, Res& res, WorkerPool& pool);
  // A level's parents replayed to the observer, as stores resolved them
  // (explorer/level_replay.hpp).
  template <class Obs, class Src>
  std::optional<StopReason> replay(Obs& obs, Src&& src, ReplayRange& r);

  // Partial-order reduction decides with lookups while a state is
  // expanded, which the disk stores answer a level later: off there.
  static ReduceOptions reductions(const SearchOptions& opt) {
    ReduceOptions r = opt.reduce;
    if (store_spec(opt.store).on_disk) r.por = false;
    return r;
  }
  // The bit array: as asked, else the largest power of two bits in half the
  // memory limit, from 2^20 to 2^35 (4 GiB).
  static unsigned bitstate_bits(const SearchOptions& opt) {
    if (opt.bitstate_log2) return opt.bitstate_log2;
    const std::uint64_t bytes = opt.limits.memory_bytes ? opt.limits.memory_bytes / 2 : std::uint64_t(1) << 32;
    unsigned lg = 20;
    while (lg < 35 && (std::uint64_t(1) << (lg + 1)) / 8 <= bytes) ++lg;
    return lg;
  }

  // On one thread into a store in memory (Store: the plain StateStore, or
  // any VisitedStore): depth-first (a LIFO worklist, plain only), or
  // breadth-first, where the store is the queue (ids are insertion order)
  // and each successor is found or put (with one probe into the plain
  // store). Breadth-first, it
  // stores, numbers and reports what the level search does on any number
  // of threads: the same origin order, the same stops, and the partial-order
  // reduction's proviso (stored before this level began) and give-up
  // decided per level as there.
  template <class Obs, class Store>
  StopReason sequential(Obs& obs, Store& store) {
    constexpr bool plain = std::is_same_v<Store, StateStore>;
    const bool fifo = opt_.bfs;
    State cur;
    std::uint32_t id;
    const State start = rm_.keyed(start_state_);
    visit(obs, start, hash_of(start), StateStore::kNone, 0, id);
    if (obs.done()) return StopReason::AllViolated;
    std::vector<std::uint32_t> stack{0};  // depth-first
    std::size_t next = 0;                 // breadth-first: the next id to expand
    Reduced<M> by_level = rm_;            // breadth-first: decides, rm_ counts
    by_level.decide_by_level();
    std::uint32_t level = 0;
    std::size_t level_end = 1;  // breadth-first: the first id past the level expanding
    std::uint64_t expanded = 0;
    bool truncated = false;
    const auto& lim = opt_.limits;
    const bool edges = obs.wants_edges();
    const std::size_t used = padded_bytes(m_.state_bytes());
    while (fifo ? next < store.size() : !stack.empty()) {
      std::uint32_t cid;
      if (fifo) {
        cid = std::uint32_t(next++);
      } else {
        cid = stack.back();
        stack.pop_back();
      }
      const std::uint32_t d = store.depth(cid);
      if (fifo && d > level) {  // a level ends
        rm_.end_level();
        by_level.follow(rm_);
        level = d;
        level_end = store.size();
      }
      if ((++expanded & 255) == 0) {
        if (auto r = check_clock_and_memory(fifo ? int(level) : -1)) return *r;
      }
      if constexpr (plain) std::memcpy(cur.b.data(), store.get(cid), m_.state_bytes());
      else store.load(cid, cur.b.data());
      expand::gather(rm_, cur, succ_, 0, used, kUnlooked, [&](const State& s) { return hash_of(s); },
                     [&](const Succ& x) { store.prefetch(x.hash); });
      // Breadth-first, the ample sets are decided per level (by_level) and
      // counted here; depth-first, rm_ decides and counts, and a successor
      // anywhere in the store (on the stack or done) answers the proviso.
      auto stored = [&](const Succ& x) { return store.contains(x.next.b.data(), x.hash); };
      const auto [n, por] = expand::keep(
          fifo ? by_level : rm_, cur, succ_, lim.max_depth && d >= lim.max_depth, stored, [&](const Succ& x) {
            if (!fifo) return stored(x);
            const std::uint32_t i = store.lookup(x.next.b.data(), x.hash);
            return i != StateStore::kNone && i < level_end;
          });
      if (n == origin::kTruncated) {
        truncated = true;
        continue;
      }
      if (fifo && rm_.por()) rm_.count(typename Reduced<M>::Outcome(por));
      transitions_ += succ_.size();
      if (edges) obs.on_expand(cid, cur);
      bool stop_states = false;
      for (const auto& [next_state, h, actor, step, looked] : succ_) {
        // At a limit, states already stored still count as explored.
        const bool at_states = store.size() >= max_states_;
        std::size_t after = 0;
        if (lim.memory_bytes) {
          if constexpr (plain) after = store.memory_after_insert();
          else after = store.memory_after_reserve(1);
        }
        const bool at_memory = lim.memory_bytes && after + obs.memory_bytes() > lim.memory_bytes;
        if ((at_states || at_memory) && !store.contains(next_state.b.data(), h)) {
          memory_full_ = !at_states;
          stop_states = true;
          break;
        }
        std::uint32_t nid;
        if (visit(obs, next_state, h, cid, d + 1, nid) && !fifo) stack.push_back(nid);
        if (edges) obs.on_edge(nid, actor);
      }
      obs.on_expanded(cid, cur, succ_.size(), !stop_states);
      if (obs.done()) return StopReason::AllViolated;
      if (stop_states) return memory_full_ ? StopReason::Memory : StopReason::MaxStates;
    }
    if (fifo) rm_.end_level();
    return truncated ? StopReason::MaxDepth : StopReason::Complete;
  }

  // level: the BFS level being expanded (-1 in DFS).
  std::optional<StopReason> check_clock_and_memory(int level = -1) {
    if (g_interrupted) return StopReason::Interrupted;
    const auto now = Clock::now();
    const double el = std::chrono::duration<double>(now - start_).count();
    if (opt_.limits.seconds > 0 && el >= opt_.limits.seconds) return StopReason::Time;
    if (opt_.progress &&
        std::chrono::duration<double>(now - last_progress_).count() >= opt_.progress_interval) {
      last_progress_ = now;
      const std::string where =
          level < 0 ? fmt::format("depth {}", max_depth_) : fmt::format("level {}", level);
      const std::uint64_t disk = store_->disk_bytes();
      std::fprintf(stderr, "[blkmc] %s states, %s transitions, %s, %s states/s, store %s%s, %.0f s\n",
                   human_count(double(store_->size())).c_str(),
                   human_count(double(transitions_)).c_str(), where.c_str(),
                   human_count(double(store_->size()) / el).c_str(),
                   human_bytes(double(store_->memory_bytes())).c_str(),
                   disk ? (", disk " + human_bytes(double(disk))).c_str() : "", el);
    }
    return std::nullopt;
  }

  const M& m_;
  const SearchOptions opt_;  // a copy: a Search may outlive the options it was given
  Reduced<M> rm_;  // the model searched: m_ through the reductions
  std::unique_ptr<VisitedStore> store_;
  // store_, when it is the plain store: depth-first search's, and one
  // thread's breadth-first search probes it once per successor.
  StateStore* plain_ = nullptr;
  // Spread over ranks: store_ holds this rank's states, ids maps their
  // indexes to global ids (increasing), states counts all ranks'.
  struct {
    std::vector<std::uint32_t> ids;
    std::size_t states = 0;
  } ranks_;
  State start_state_;
  std::vector<Succ> succ_;  // one state's successors
  std::uint64_t transitions_ = 0;
  std::uint32_t max_depth_ = 0;
  bool memory_full_ = false;
  std::uint64_t max_states_ = 0;
  double seconds_ = 0;
  Clock::time_point start_, last_progress_;
};

}  // namespace blkmc

#include "explorer/level_replay.hpp"
#include "explorer/level_search.hpp"
#include "explorer/resolve_in_memory.hpp"
#include "explorer/resolve_on_disk.hpp"
