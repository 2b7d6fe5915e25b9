// Progress (AG EF finished) on an explored state graph. The search logs every
// expanded state's successor ids and whether the state is finished(); after
// a complete search, backward reachability from the finished states marks
// every state that can still finish. Any other state is stuck: a deadlock or
// a livelock. The counterexample is a lasso: the path to the first stuck
// state (the shallowest, in BFS order) and, from it, a walk among stuck
// states that ends in a cycle or in a state without successors.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace blkmc {

// The explored graph: for every expanded state its successor ids in
// emission order and, when kept (starvation properties need it), the actor of
// each edge (Step::actor, one byte per edge).
class EdgeLog {
 public:
  explicit EdgeLog(bool keep_actors = false) : keep_actors_(keep_actors) {}
  // Logs state id's successors (replacing an earlier expansion of id).
  void begin_state(std::uint32_t id, bool finished);
  void add_edge(std::uint32_t to, std::uint8_t actor = 0) {
    dst_.push_back(to);
    if (keep_actors_) actor_.push_back(actor);
  }
  void end_state(std::uint32_t id);

  std::size_t states() const { return begin_.size(); }
  std::size_t memory_bytes() const;
  bool expanded(std::uint32_t id) const { return id < begin_.size() && expanded_[id]; }
  bool finished(std::uint32_t id) const { return finished_[id]; }
  const std::uint32_t* succ_begin(std::uint32_t id) const { return dst_.data() + begin_[id]; }
  const std::uint32_t* succ_end(std::uint32_t id) const { return succ_begin(id) + count_[id]; }
  bool keeps_actors() const { return keep_actors_; }
  // The actors of id's edges, parallel to succ_begin(id) (only when kept).
  const std::uint8_t* actor_begin(std::uint32_t id) const { return actor_.data() + begin_[id]; }

 private:
  void ensure(std::uint32_t id);
  bool keep_actors_;
  std::vector<std::uint32_t> dst_, count_;
  std::vector<std::uint8_t> actor_;
  std::vector<std::uint64_t> begin_;
  std::vector<bool> finished_, expanded_;
  std::uint64_t open_ = 0;
};

struct Lasso {
  std::uint32_t stuck = 0;           // first stuck state (lowest id)
  std::vector<std::uint32_t> walk;   // walk[0] == stuck, then successors
  std::size_t loop_start = 0;        // walk.back() == walk[loop_start] when a cycle;
                                     // == walk.size() - 1 when walk.back() has no successors
};

// nstates: every id below it must have been expanded. Returns nothing when
// every state can reach a finished state.
std::optional<Lasso> find_stuck_lasso(const EdgeLog& log, std::size_t nstates);

}  // namespace blkmc
