// The model a search explores: a model seen through the reductions that are
// sound for the selected properties, stacked here by one constructor (as
// LTSmin stacks its pins2pins layers). Each layer is a file of its own:
//
//   abstraction the model's abstract_key   the key merges values no step tells apart
//   slicing     explorer/slicing.hpp       the key clears what nothing reads
//   symmetry    explorer/symmetry.hpp      the key is the orbit's canonical member
//   ample sets  explorer/partial_order.hpp one actor's independent, invisible steps
//
// Reduced<M> is a Model: its states are keys (what the store holds), its
// initial state and successors are M's keyed, so the searches expand it as
// they would M and hand its successors to reduce() for the ample set (whose
// proviso asks their store). Which layers apply:
//
// Abstraction, slicing and symmetry are bisimulation quotients: they keep
// every verdict, every maximum and every BFS depth. The partial-order
// reduction keeps invariants, deadlocks and maxima of measures over visible
// variables, not BFS depths (`check --bfs` then looks for the shortest trace
// again without it, see explore()). Progress and starvation are decided on
// the explored graph: a quotient keeps AG EF finished, and abstraction and
// slicing also keep each step's actor (weak fairness); symmetry renames
// actors, so starvation turns it off; ample sets keep neither, so either
// property turns them off. A lasso found on keys is closed on concrete states by
// following its loop again (explorer/key_path.hpp).
//
// Traces are rebuilt on concrete states (explorer/key_path.hpp): from the
// initial state, at each step base()'s successor whose key is the next
// stored key; so a trace found under reduction is a path of the full model
// with every variable's real value.
#pragma once

#include <concepts>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "explorer/partial_order.hpp"
#include "explorer/slicing.hpp"
#include "explorer/symmetry.hpp"
#include "model/influence.hpp"
#include "model/model.hpp"

namespace blkmc {

struct ReduceOptions {
  bool slice = false, symmetry = false, por = false, abstract = false;
  // Path measures searched on the graph without their counters
  // (explorer/path_measure.hpp), and, set by that search for the graph it
  // explores, the properties whose counters slicing leaves out although
  // they read them.
  bool lift = false;
  std::vector<int> lifted{};
  static ReduceOptions all() { return {true, true, true, true, true}; }
  static ReduceOptions none() { return {}; }
  bool any() const { return slice || symmetry || por || abstract; }
};

// A model whose states can hold values that no step, guard, finished() or
// property tells apart (the order among requests served at once, a counter
// read only against a threshold, a statistic no longer read): abstract_key
// puts each such value in its class's representative, in place, so that a
// state and its key are bisimilar; abstractions() names the ones that apply
// (none: the layer is off).
template <class M>
concept HasKeyAbstraction = requires(const M& m, typename M::State& s) {
  m.abstract_key(s);
  { m.abstractions() } -> std::convertible_to<std::vector<std::string>>;
};

template <class M>
concept HasInfluence = requires(const M& m) {
  { m.influence() } -> std::same_as<Influence>;
  { m.schema() } -> std::convertible_to<const Schema&>;
};

// What the reductions did in one search.
struct ReductionStats {
  std::string summary;              // which apply, e.g. "slicing (count); symmetry (3 submitters)"
  std::uint64_t ample = 0;          // states expanded with an ample set smaller than all
  std::uint64_t full = 0;           // states with steps of two or more actors, expanded fully
  bool gave_up = false;             // fewer than 1 in 50 of the first 50,000 had one: stopped trying
};

// Keying a successor, symmetry and the ample sets use scratch held here:
// each thread uses its own copy, and an emit of for_each_successor does not
// call it again on the same copy.
template <Model M>
class Reduced {
 public:
  using State = typename M::State;
  using Outcome = typename AmpleSets<M>::Outcome;
  static constexpr Outcome kAmple = AmpleSets<M>::kAmple, kFull = AmpleSets<M>::kFull;

  // props: the selected properties (empty: all); depth_bounded: a --max-depth
  // search, where ample sets could hide states behind the bound.
  Reduced(const M& m, const ReduceOptions& opt, std::vector<int> props, bool depth_bounded)
      : m_(m), sym_(m), ample_(m), used_(padded_bytes(m.state_bytes())) {
    const auto& pinfo = m.info().props;
    if (props.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) props.push_back(int(i));
    if (!opt.any()) return;
    // Progress and starvation are decided on the graph: a quotient keeps
    // AG EF finished (slicing and symmetry), and slicing keeps actors and
    // what they enable (weak fairness); ample sets keep neither.
    ReduceOptions o = opt;
    for (int p : props) {
      const PropKind k = pinfo.at(std::size_t(p)).kind;
      const std::string& name = pinfo[std::size_t(p)].name;
      if (kind_info(k).on_graph && o.por) {
        o.por = false;
        notes_.push_back(fmt::format("no partial-order ({} is decided on the full graph)", name));
      }
      if (kind_info(k).per_actor && o.symmetry) {
        o.symmetry = false;
        notes_.push_back(fmt::format("no symmetry (weak fairness in {} is per actor)", name));
      }
    }
    stack(o, props, depth_bounded);
  }

  // The Model interface, on keys.
  std::size_t state_bytes() const { return m_.state_bytes(); }
  State initial() const { return keyed(m_.initial()); }
  template <class F>
  void for_each_successor(const State& s, F&& emit) const {
    if (!keyed() && !prune_) {
      m_.for_each_successor(s, emit);
      return;
    }
    m_.for_each_successor(s, [&](const Step& st, const State& next) {
      std::memcpy(scratch_.b.data(), next.b.data(), used_);
      key(scratch_);
      if (prune_ && prune_(scratch_)) return;
      emit(st, scratch_);
    });
  }
  // Successors (keys) for which prune answers true are left out: a search
  // for what only some states can still reach (explorer/path_measure.hpp).
  // Each copy of this model gets its own copy of prune.
  void set_prune(std::function<bool(const State&)> prune) { prune_ = std::move(prune); }
  bool apply(const State& s, const Step& step, State& out) const {
    if (!m_.apply(s, step, out)) return false;
    key(out);
    return true;
  }
  bool finished(const State& s) const { return m_.finished(s); }
  bool violates(int prop, const State& s) const { return m_.violates(prop, s); }
  const ModelInfo& info() const { return m_.info(); }

  // The model under the reductions: traces are its paths.
  const M& base() const { return m_; }
  // Whether a key may differ from its state (abstraction, slicing or symmetry).
  bool keyed() const { return abstract_ || slice_.on() || sym_.on(); }
  bool symmetric() const { return sym_.on(); }
  // The stored form of s, in place.
  void key(State& s) const {
    if constexpr (HasKeyAbstraction<M>)
      if (abstract_) m_.abstract_key(s);
    if (slice_.on()) slice_.apply(s);
    if (sym_.on()) sym_.canonicalize(s);
  }
  State keyed(State s) const {
    key(s);
    return s;
  }

  // The ample sets (explorer/partial_order.hpp): succ are s's successors
  // from for_each_successor, stored(x) whether the store holds one.
  bool por() const { return ample_.on(); }
  template <class Succ, class Stored>
  Outcome reduce(const State& s, std::vector<Succ>& succ, Stored&& stored) {
    return ample_.reduce(s, succ, stored);
  }
  void decide_by_level() { ample_.decide_by_level(); }
  void count(Outcome o) { ample_.count(o); }
  void count(std::uint64_t ample, std::uint64_t full) { ample_.count(ample, full); }
  void end_level() { ample_.end_level(); }
  bool gave_up() const { return ample_.gave_up(); }
  void follow(const Reduced& master) { ample_.follow(master.ample_); }

  ReductionStats stats() const {
    ReductionStats st;
    st.ample = ample_.ample();
    st.full = ample_.full();
    st.gave_up = ample_.gave_up();
    st.summary = notes_.empty() ? "none" : fmt::format("{}", fmt::join(notes_, "; "));
    return st;
  }

 private:
  // The layers o asks for and the model supports, in the order they apply.
  void stack(const ReduceOptions& o, const std::vector<int>& props, bool depth_bounded) {
    if constexpr (HasKeyAbstraction<M>) {
      const std::vector<std::string> what = m_.abstractions();
      if (o.abstract && !what.empty()) {
        abstract_ = true;
        notes_.push_back(fmt::format("abstraction ({})", fmt::join(what, "; ")));
      }
    }
    if constexpr (HasInfluence<M>) {
      if (o.slice) {
        // Past kMaxVars elements footprints mark everything: no kept set.
        Influence inf = m_.influence();
        for (int p : o.lifted) inf.prop_reads.at(std::size_t(p)).clear();
        slice_ = Slicing(m_.schema(), inf.relevant(props), footprints());
        if (slice_.on()) notes_.push_back(fmt::format("slicing ({} not stored)", fmt::join(slice_.sliced(), ", ")));
      }
    }
    if constexpr (HasSymmetry<M>) {
      if (o.symmetry) {
        sym_ = Symmetry<M>(m_, props);
        if (sym_.on()) {
          if constexpr (DescribesSymmetry<M>)
            notes_.push_back(fmt::format("symmetry ({})", m_.describe_symmetry(sym_.classes())));
          else
            notes_.push_back(fmt::format("symmetry ({} {})", sym_.copies(), m_.schema().place_name(sym_.block())));
        }
      }
    }
    if constexpr (HasInfluence<M> && HasActorFuture<M>) {
      if (o.por && !depth_bounded && footprints()) {
        // Visible: the flat elements of what the selected properties read.
        const Schema& sc = m_.schema();
        const Influence inf = m_.influence();
        std::bitset<Footprint::kMaxVars> visible;
        for (int p : props)
          for (int v : inf.prop_reads.at(std::size_t(p)))
            for (int c = 0; c < sc.copies(v); ++c) visible.set(std::size_t(sc.index(v, c)));
        ample_ = AmpleSets<M>(m_, visible, slice_.kept());
        notes_.push_back("partial-order");
      }
    }
    if (o.por && !ample_.on())
      notes_.push_back(depth_bounded ? "no partial-order (depth bound)"
                                     : "no partial-order (the model declares no actor futures)");
  }
  // Whether footprints name each flat element of the state.
  bool footprints() const {
    if constexpr (HasInfluence<M>) return m_.schema().size() <= int(Footprint::kMaxVars);
    return false;
  }

  const M& m_;
  bool abstract_ = false;
  Slicing slice_;
  Symmetry<M> sym_;
  AmpleSets<M> ample_;
  std::vector<std::string> notes_;
  std::size_t used_;             // the bytes of a state that carry data
  mutable State scratch_{};      // a successor being keyed
  std::function<bool(const State&)> prune_;
};

}  // namespace blkmc
