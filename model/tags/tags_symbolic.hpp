// model/tags/tags_symbolic: the tags model as a transition system over z3::expr
// for k-induction (blkmc prove). Every guard, update, property and lemma is
// the template in model/tags/tags_logic.hpp, instantiated on SymView; nothing
// here restates the kernel logic. Sized by the parameters only (no
// kMaxTags): 1024 tags are 3 x 1024 variables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"
#include "model/tags/tags.hpp"
#include "model/tags/tags_logic.hpp"
#include "model/params.hpp"
#include "model/transition_system.hpp"

namespace blkmc::tags {

// Where each state variable lives in a Frame.
struct Layout {
  explicit Layout(const Config& c);
  int bit0, owner0, rqs0, pc0, round0, tag0, obj0 /* -1 without a pool */, pos, count, oops,
      stale_fn, stale_count, nvars;
};

// A copy-on-write view of one frame: reads fall through to the frame,
// writes are kept (so an update's writes are exactly what it set).
class SymView {
 public:
  using I = z3::expr;
  using B = z3::expr;
  SymView(const Layout& l, const Frame& base) : l_(l), base_(base), w_(base) {}

  // Integer constants in the sort of the integer variables.
  z3::expr ic(int v) const {
    const z3::expr& x = base_[std::size_t(l_.pos)];
    return x.is_bv() ? x.ctx().bv_val(v, x.get_sort().bv_size()) : x.ctx().int_val(v);
  }
  z3::expr bc(bool v) const { return base_[0].ctx().bool_val(v); }

  z3::expr bit(int t) const { return get(l_.bit0 + t); }
  z3::expr owner(int t) const { return get(l_.owner0 + t); }
  z3::expr rqs(int t) const { return get(l_.rqs0 + t); }
  z3::expr pc(int sub) const { return get(l_.pc0 + sub); }
  z3::expr round(int sub) const { return get(l_.round0 + sub); }
  z3::expr tag(int sub) const { return get(l_.tag0 + sub); }
  z3::expr obj(int sub) const { return l_.obj0 < 0 ? ic(0) : get(l_.obj0 + sub); }
  z3::expr pos() const { return get(l_.pos); }
  z3::expr count() const { return get(l_.count); }
  z3::expr oops() const { return get(l_.oops); }
  z3::expr stale_fn() const { return get(l_.stale_fn); }
  z3::expr stale_count() const { return get(l_.stale_count); }

  void set_bit(int t, const z3::expr& v) { set(l_.bit0 + t, v); }
  void set_owner(int t, const z3::expr& v) { set(l_.owner0 + t, v); }
  void set_rqs(int t, const z3::expr& v) { set(l_.rqs0 + t, v); }
  void set_pc(int sub, const z3::expr& v) { set(l_.pc0 + sub, v); }
  void set_round(int sub, const z3::expr& v) { set(l_.round0 + sub, v); }
  void set_tag(int sub, const z3::expr& v) { set(l_.tag0 + sub, v); }
  void set_obj(int sub, const z3::expr& v) { set(l_.obj0 + sub, v); }
  void set_pos(const z3::expr& v) { set(l_.pos, v); }
  void set_count(const z3::expr& v) { set(l_.count, v); }
  void set_oops(const z3::expr& v) { set(l_.oops, v); }
  void set_stale_fn(const z3::expr& v) { set(l_.stale_fn, v); }
  void set_stale_count(const z3::expr& v) { set(l_.stale_count, v); }

  const std::vector<std::pair<int, z3::expr>>& writes() const { return w_.writes(); }

 private:
  z3::expr get(int i) const { return w_.get(i); }
  void set(int i, const z3::expr& v) { w_.set(i, v); }
  const Layout& l_;
  const Frame& base_;
  FrameWrites w_;
};

// One concrete action of the symbolic transition relation: the explorer's
// Step plus the index the step uses (for ASSIGN and FREE the tag held,
// which the explorer reads from the state and does not record).
struct SymAction {
  Step step;
  int index = 0;
};

std::vector<SymAction> actions(const Config& c);

// The lemmas prove uses for prop (names and which template).
std::vector<std::string> lemma_names(const Config& c, int prop);

// The system for one variant, parameters and invariant property. `lemmas`:
// false leaves them out (then induction alone must do).
TransitionSystem transition_system(const Config& c, int prop, bool lemmas = true);

// A Frame's values as the explorer's state (nullopt: not representable in
// its bytes), and back.
std::optional<TagsModel::State> concrete_state(const TagsModel& m, const std::vector<int>& v);
std::vector<int> frame_values(const TagsModel& m, const TagsModel::State& s);

// A state as text, from a Frame's values (bools 0/1).
std::string state_text(const Config& c, const std::vector<int>& v);
// What an action does, in the describe() words (without a concrete model).
std::string action_text(const Config& c, const SymAction& a);

// What `blkmc prove` needs of this family (app/prove_driver.hpp): its
// prove-sized parameters (far beyond the explorer's ranges: the symbolic
// state is sized by them), whether the explicit model can hold them, its
// Config, and the symbolic system with the text of states and actions.
struct Proof {
  using Model = TagsModel;
  using Config = tags::Config;
  static const std::vector<ParamInfo>& params() {
    static const std::vector<ParamInfo> p{
        {"ntags", 2, 1, 1024, "driver tags in the bitmap"},
        {"submitters", 2, 1, 64, "concurrent submitting contexts"},
        {"rounds", 1, 1, 15, "requests each submitter issues, one after another"},
        {"pool", 0, 0, 8, "0: a fresh request per round; N: N reusable request objects"},
    };
    return p;
  }
  static Config config(int variant, const Params& p) {
    return {variant, p.at("ntags"), p.at("submitters"), p.at("rounds"), p.at("pool")};
  }
  // Request ids must fit the explorer's bytes.
  static bool fits_ids(const Params& p) {
    return p.at("pool") > 0 || p.at("submitters") * p.at("rounds") <= 250;
  }
  static TransitionSystem system(const Config& c, int prop, bool lemmas) {
    return tags::transition_system(c, prop, lemmas);
  }
  static auto actions(const Config& c) { return tags::actions(c); }
  static std::string action_text(const Config& c, const tags::SymAction& a) {
    return tags::action_text(c, a);
  }
  static std::string state_text(const Config& c, const std::vector<int>& v) {
    return tags::state_text(c, v);
  }
  static auto concrete_state(const Model& m, const std::vector<int>& v) {
    return tags::concrete_state(m, v);
  }
};

}  // namespace blkmc::tags
