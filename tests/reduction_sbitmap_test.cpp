// The sbitmap model's reduction hooks (explorer/reduced_model.hpp) against its
// own steps, and its verdicts with and without each reduction, over random
// small parameters (every variant, clearing scheme and irq setting).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include "app/instances.hpp"
#include "model/sbitmap/sbitmap.hpp"
#include "tests/reduction_checks.hpp"

namespace blkmc::testing {
namespace reduction_sbitmap_test {

using M = SbitmapModel;

// A random nonempty selection of the model's properties.
std::vector<int> some_props() {
  const auto& props = M::static_info().props;
  std::vector<int> out;
  for (std::size_t i = 0; i < props.size(); ++i)
    if (*rc::gen::arbitrary<bool>()) out.push_back(int(i));
  if (out.empty()) out.push_back(*rc::gen::inRange(0, int(props.size())));
  return out;
}

// Properties the reductions apply to: no-lost-wakeup (progress) switches
// them all off, so the verdict check leaves it out.
std::vector<int> reducible_props() {
  std::vector<int> out;
  for (int p : {M::Deadlock, M::WaitCntReset, M::NoWastedWakeup})
    if (*rc::gen::arbitrary<bool>()) out.push_back(p);
  if (out.empty()) out.push_back(M::Deadlock);
  return out;
}

M random_sbitmap() {
  const int variant = *rc::gen::inRange(0, int(M::static_info().variants.size()));
  const Params p{{"tags", *rc::gen::inRange(1, 5)},  {"tasks", *rc::gen::inRange(1, 4)},
                 {"rounds", *rc::gen::inRange(1, 3)}, {"nr_ws", *rc::gen::inRange(1, 3)},
                 {"batch", 0},                        {"clear", *rc::gen::inRange(-1, 4)},
                 {"irq", *rc::gen::inRange(0, 2)}};
  return M(variant, p);
}

TEST_CASE("reduction: sbitmap's influence declaration holds along random walks") {
  CHECK(rc::check("sliced variables change nothing the properties depend on", [] {
    const M m = random_sbitmap();
    RC_ASSERT(check_slicing(m, some_props(), 60) > 0);
  }));
}

TEST_CASE("reduction: permuting sbitmap's tasks commutes with every step") {
  CHECK(rc::check("symmetry", [] {
    const M m = random_sbitmap();
    RC_ASSERT(check_symmetry(m, some_props(), 60) > 0);
  }));
}

TEST_CASE("reduction: sbitmap's actor futures cover what the tasks do") {
  CHECK(rc::check("actor futures and guard reads", [] {
    const M m = random_sbitmap();
    check_futures(m, 40, 16);
  }));
}

TEST_CASE("reduction: sbitmap keeps its verdicts and traces under every reduction") {
  CHECK(rc::check("verdicts with and without reductions", [] {
    const M m = random_sbitmap();
    check_reduced_verdicts(m, reducible_props(), 200000);
  }));
}

// Only the wasted-wakeup ghost is outside every cone: all else decides a pc.
TEST_CASE("reduction: sbitmap slices the ghost only when no-wasted-wakeup is not selected") {
  const M m(M::Y72d04b, {{"tags", 2}, {"tasks", 3}, {"rounds", 1}, {"nr_ws", 2}, {"batch", 0},
                         {"clear", -1}, {"irq", 0}});
  const Influence inf = m.influence();
  const int wasted = m.schema().find("wasted_wakeup");
  for (int p : {M::NoLostWakeup, M::Deadlock, M::WaitCntReset}) {
    const std::vector<bool> keep = inf.relevant({p});
    for (int v = 0; v < int(keep.size()); ++v) CHECK(keep[std::size_t(v)] == (v != wasted));
  }
  CHECK(inf.relevant({M::NoWastedWakeup})[std::size_t(wasted)]);
}

// A rename that forgets the wait queues' entries is caught: after the tasks
// move, a queue would wake the wrong task.
TEST_CASE("reduction: the symmetry check fails when the wait queues are not renamed") {
  struct Wrong : M {
    using M::M;
    void rename(State& s, const std::vector<int>& perm) const {
      const int o = irq_owner(s), v = irq_victim(s);
      set_irq(s, o < 0 ? -1 : perm[std::size_t(o)], v < 0 ? -1 : perm[std::size_t(v)]);
    }
  };
  const Wrong w(M::C854, {{"tags", 1}, {"tasks", 2}, {"rounds", 2}, {"nr_ws", 1}, {"batch", 0},
                         {"clear", 0}, {"irq", 0}});
  const auto r = rc::detail::checkTestable([&] { check_symmetry(w, {M::Deadlock}, 60); });
  CHECK(r.template is<rc::detail::FailureResult>());
}

}  // namespace reduction_sbitmap_test
}  // namespace blkmc::testing
