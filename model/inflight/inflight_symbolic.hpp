// model/inflight/inflight_symbolic: the inflight model as a transition system over
// z3::expr for k-induction. Every guard, update and property is the template
// in model/inflight/inflight_logic.hpp, instantiated on SymView; nothing here restates
// the kernel logic. Sized by the parameters only (blkmc prove inflight goes
// far past the explorer's 8 submitters and 3 CPUs).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/inflight/inflight.hpp"
#include "model/inflight/inflight_logic.hpp"
#include "model/model.hpp"
#include "model/decision.hpp"
#include "model/params.hpp"
#include "model/transition_system.hpp"

#include <fmt/format.h>

namespace blkmc::inflight {

struct Layout {
  explicit Layout(const Config& c);
  int pc0, target0, round0, cnt0 /* -1 in tag walks */, ncnt_cpu, rd_pos, rd_done, rd_target,
      rd_acc, rd_acc0, rd_seen, rd_seen0, live, part_wrong, part0_wrong, over_bound, negative,
      missed_queued, nvars;
};

// A copy-on-write view of one frame (reads fall through, writes are kept).
class SymView {
 public:
  SymView(const Layout& l, const Frame& base) : l_(l), base_(base), w_(base) {}
  z3::expr ic(int v) const {
    const z3::expr& x = base_[std::size_t(l_.rd_pos)];
    return x.is_bv() ? x.ctx().bv_val(v, x.get_sort().bv_size()) : x.ctx().int_val(v);
  }
  z3::expr bc(bool v) const { return base_[0].ctx().bool_val(v); }

  z3::expr pc(int sub) const { return get(l_.pc0 + sub); }
  z3::expr target(int sub) const { return get(l_.target0 + sub); }
  z3::expr round(int sub) const { return get(l_.round0 + sub); }
  z3::expr counter(int t, int c) const {
    return l_.cnt0 < 0 ? ic(0) : get(l_.cnt0 + t * l_.ncnt_cpu + c);
  }
  z3::expr rd_pos() const { return get(l_.rd_pos); }
  z3::expr rd_done() const { return get(l_.rd_done); }
  z3::expr rd_target() const { return get(l_.rd_target); }
  z3::expr rd_acc() const { return get(l_.rd_acc); }
  z3::expr rd_acc0() const { return get(l_.rd_acc0); }
  z3::expr rd_seen() const { return get(l_.rd_seen); }
  z3::expr rd_seen0() const { return get(l_.rd_seen0); }
  z3::expr live() const { return get(l_.live); }
  z3::expr part_wrong() const { return get(l_.part_wrong); }
  z3::expr part0_wrong() const { return get(l_.part0_wrong); }
  z3::expr over_bound() const { return get(l_.over_bound); }
  z3::expr negative() const { return get(l_.negative); }
  z3::expr missed_queued() const { return get(l_.missed_queued); }

  void set_pc(int sub, const z3::expr& v) { set(l_.pc0 + sub, v); }
  void set_target(int sub, const z3::expr& v) { set(l_.target0 + sub, v); }
  void set_round(int sub, const z3::expr& v) { set(l_.round0 + sub, v); }
  void set_counter(int t, int c, const z3::expr& v) { set(l_.cnt0 + t * l_.ncnt_cpu + c, v); }
  void set_rd_pos(const z3::expr& v) { set(l_.rd_pos, v); }
  void set_rd_done(const z3::expr& v) { set(l_.rd_done, v); }
  void set_rd_target(const z3::expr& v) { set(l_.rd_target, v); }
  void set_rd_acc(const z3::expr& v) { set(l_.rd_acc, v); }
  void set_rd_acc0(const z3::expr& v) { set(l_.rd_acc0, v); }
  void set_rd_seen(const z3::expr& v) { set(l_.rd_seen, v); }
  void set_rd_seen0(const z3::expr& v) { set(l_.rd_seen0, v); }
  void set_live(const z3::expr& v) { set(l_.live, v); }
  void set_part_wrong(const z3::expr& v) { set(l_.part_wrong, v); }
  void set_part0_wrong(const z3::expr& v) { set(l_.part0_wrong, v); }
  void set_over_bound(const z3::expr& v) { set(l_.over_bound, v); }
  void set_negative(const z3::expr& v) { set(l_.negative, v); }
  void set_missed_queued(const z3::expr& v) { set(l_.missed_queued, v); }

  const std::vector<std::pair<int, z3::expr>>& writes() const { return w_.writes(); }

 private:
  z3::expr get(int i) const { return w_.get(i); }
  void set(int i, const z3::expr& v) { w_.set(i, v); }
  const Layout& l_;
  const Frame& base_;
  FrameWrites w_;
};

// One concrete action: the explorer's Step plus the index the step uses
// (COMPLETE: rq->part; VISIT: the read's target).
struct SymAction {
  Step step;
  int index = 0;
};

std::vector<SymAction> actions(const Config& c);

// The lemmas prove uses for prop.
std::vector<std::string> lemma_names(const Config& c, int prop);

// The system for one variant, parameters and invariant property. `lemmas`:
// false leaves the strengthening lemmas out (induction alone must do).
TransitionSystem transition_system(const Config& c, int prop, bool lemmas = true);

// A Frame's values as the explorer's state (nullopt: not representable in
// its bytes), and back.
std::optional<InflightModel::State> concrete_state(const InflightModel& m, const std::vector<int>& v);
std::vector<int> frame_values(const InflightModel& m, const InflightModel::State& s);

// A state as text, from a Frame's values (bools 0/1).
std::string state_text(const Config& c, const std::vector<int>& v);
// What an action does (without a concrete model).
std::string action_text(const Config& c, const SymAction& a);

// The decision functions registered for `blkmc diff` (inflight_decisions.cpp).
std::vector<DecisionFn> inflight_decisions();

// What `blkmc prove` needs of this family (app/prove_driver.hpp): its
// prove-sized parameters (far beyond the explorer's ranges: the symbolic
// state is sized by them), whether the explicit model can hold them, its
// Config, and the symbolic system with the text of states and actions.
struct Proof {
  using Model = InflightModel;
  using Config = inflight::Config;
  static const std::vector<ParamInfo>& params() {
    static const std::vector<ParamInfo> p{
        {"parts", 2, 1, 8, "partitions sda1..sdaN besides part0 (the whole disk sda)"},
        {"submitters", 2, 1, 128, "concurrent submitters (one driver tag each)"},
        {"rounds", 1, 1, 15, "requests each submitter issues, one after another"},
        {"reads", 1, 1, 15, "reads the reader performs, one after another"},
        {"target", -1, -1, 8, "the partition the reader reads (-1: any, 0: the whole disk)"},
        {"whole", 0, 0, 1, "1: submitters may also issue to the whole disk (rq->part == part0)"},
        {"cpus", 2, 1, 64, "CPUs holding per-CPU counters (percpu, 7be835694dae only)"},
    };
    return p;
  }
  static Config config(int variant, const Params& p) {
    if (p.at("target") > p.at("parts"))
      throw UsageError(fmt::format("prove: target {} but only {} partitions", p.at("target"),
                                   p.at("parts")));
    return {variant,         p.at("parts"),  p.at("submitters"), p.at("rounds"),
            p.at("reads"),   p.at("target"), p.at("whole"),      p.at("cpus")};
  }
  static bool fits_ids(const Params&) { return true; }
  static TransitionSystem system(const Config& c, int prop, bool lemmas) {
    return inflight::transition_system(c, prop, lemmas);
  }
  static auto actions(const Config& c) { return inflight::actions(c); }
  static std::string action_text(const Config& c, const inflight::SymAction& a) {
    return inflight::action_text(c, a);
  }
  static std::string state_text(const Config& c, const std::vector<int>& v) {
    return inflight::state_text(c, v);
  }
  static auto concrete_state(const Model& m, const std::vector<int>& v) {
    return inflight::concrete_state(m, v);
  }
};

}  // namespace blkmc::inflight
