// model/sched/kernel/conform_model: blkmc's model of a scheduler and the
// kernel's own code of it explored together (`blkmc conform`): the product
// of two framework models (model/sched/sched_model.hpp) over the same
// workload, the hand model of variant `hand` and the kernel-code model of
// the loaded source (Kern: KernelScheduler, mq-deadline's code, or
// KernelBfqScheduler, BFQ's). With Hand = Kern it is two sources, the
// one of the parameter `before` and the variant's (`blkmc compare
// --kernel A --after-kernel B`: where a patch first changes a dispatch). A state is both states side by side; a step is a step
// both take (the same actor, action and request). At every state the two
// must agree: the framework's view (each request's place, order and age,
// the processes, the device, the ghosts), has_work, and the set of steps
// enabled, which holds the dispatch each makes (a DISPATCH step names the
// request). Where they do not, the only step is `depart`, to a halted
// state that violates `conforms`: a breadth-first search ends its shortest
// trace there, and the departure step says what differs.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/sched/sched_model.hpp"

namespace blkmc::sched {

template <class Hand, class Kern = KernelScheduler>
class ConformModel {
 public:
  using HandModel = SchedModel<Hand>;
  using KernelModel = SchedModel<Kern>;
  using HState = typename HandModel::State;
  using KState = typename KernelModel::State;
  using State = ByteState<HState::capacity + KState::capacity + 8>;
  static constexpr std::uint8_t kDepart = 6;  // the action after the framework's six
  static constexpr int kConforms = 0, kKernelBug = 1, kInModel = 2;
  static constexpr bool kTwoSources = std::is_same_v<Hand, Kern>;
  // The parameter that names the first side, and the two sides in stories.
  static const char* side_param() { return kTwoSources ? "before" : "hand"; }
  static const char* first_side() { return kTwoSources ? "the code before" : "blkmc's model"; }
  static const char* second_side() { return kTwoSources ? "the code after" : "the kernel's code"; }

  static const ModelInfo& static_info();
  const ModelInfo& info() const { return static_info(); }

  ConformModel(int variant, const Params& p);
  ConformModel(const ConformModel&) = delete;
  ConformModel& operator=(const ConformModel&) = delete;

  std::size_t state_bytes() const { return hb_ + kb_ + 1; }
  State initial() const;
  template <class F>
  void for_each_successor(const State& s, F&& emit) const;
  bool apply(const State& s, const Step& step, State& next) const { return apply_step(*this, s, step, next); }
  bool finished(const State& s) const;
  bool violates(int prop, const State& s) const;
  std::string describe(const State& s, const Step& step) const;
  std::string actor_name(int actor) const { return actor == 255 ? "conform" : kern_.actor_name(actor); }
  Footprint footprint(const State&, const Step&) const {
    Footprint f;
    f.reads.set();
    f.writes.set();
    return f;
  }
  std::vector<std::string> variable_names() const { return {"model", "kernel", "departed"}; }
  nlohmann::json state_json(const State& s) const;
  std::string summary(const State& s) const;
  nlohmann::json source_json() const;

  const HandModel& hand() const { return hand_; }
  const KernelModel& kernel() const { return kern_; }
  bool departed(const State& s) const { return departed_.get(s) != 0; }
  // What differs between the two where the search stands ("": nothing).
  std::string departure(const State& s) const;

 private:
  static Params hand_params(const Params& p);
  void split(const State& s, HState& h, KState& k) const;
  void join(const HState& h, const KState& k, State& s) const;
  std::string framework_difference(const HState& h, const KState& k) const;
  std::string step_text(const Step& st) const;

  HandModel hand_;
  KernelModel kern_;
  std::size_t hb_, kb_;
  ByteVar departed_;  // the byte after the two states
  int kbug_ = -1, kin_ = -1;  // the kernel model's kernel-bug and kernel-in-model
};

template <class Hand, class Kern>
template <class F>
void ConformModel<Hand, Kern>::for_each_successor(const State& s, F&& emit) const {
  if (departed(s)) return;
  HState h;
  KState k;
  split(s, h, k);
  std::vector<std::pair<Step, HState>> hs;
  std::vector<std::pair<Step, KState>> ks;
  bool agree = framework_difference(h, k).empty() && hand_.sched().has_work(h) == kern_.sched().has_work(k);
  if (agree) {
    hand_.for_each_successor(h, [&](const Step& st, const HState& n) { hs.emplace_back(st, n); });
    kern_.for_each_successor(k, [&](const Step& st, const KState& n) { ks.emplace_back(st, n); });
    agree = hs.size() == ks.size();
    for (std::size_t i = 0; agree && i < ks.size(); ++i)
      agree = std::any_of(hs.begin(), hs.end(), [&](const auto& x) { return x.first == ks[i].first; });
  }
  if (!agree) {
    State d = s;
    departed_.set(d, 1);
    emit(Step{255, kDepart, 0}, std::as_const(d));
    return;
  }
  State next{};
  for (const auto& [st, kn] : ks)
    for (const auto& [hst, hn] : hs)
      if (hst == st) {
        join(hn, kn, next);
        emit(st, std::as_const(next));
        break;
      }
}

}  // namespace blkmc::sched
