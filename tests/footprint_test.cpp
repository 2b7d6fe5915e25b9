// Footprints must be sound before partial-order reduction may trust them:
// two enabled steps whose footprints say "independent" must commute (each
// stays enabled after the other, and both orders reach the same state).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <cstring>
#include <vector>

#include "model/tags.hpp"

using namespace blkmc;

namespace {

using TState = TagsModel::State;

std::vector<std::pair<Step, TState>> successors(const TagsModel& m, const TState& s) {
  std::vector<std::pair<Step, TState>> out;
  m.for_each_successor(s, [&](const Step& st, const TState& n) { out.emplace_back(st, n); });
  return out;
}

// Checks every independent pair of enabled steps in s; returns how many
// pairs were independent, and fails the property on any that do not commute.
int check_commuting(const TagsModel& m, const TState& s) {
  const auto succ = successors(m, s);
  int independent = 0;
  for (std::size_t i = 0; i < succ.size(); ++i)
    for (std::size_t j = i + 1; j < succ.size(); ++j) {
      const Step &a = succ[i].first, &b = succ[j].first;
      if (a.actor == b.actor) continue;  // one actor's choices never commute
      if (!m.footprint(s, a).independent_of(m.footprint(s, b))) continue;
      ++independent;
      TState ab, ba;
      RC_ASSERT(m.apply(succ[i].second, b, ab));
      RC_ASSERT(m.apply(succ[j].second, a, ba));
      RC_ASSERT(std::memcmp(ab.b.data(), ba.b.data(), m.state_bytes()) == 0);
    }
  return independent;
}

}  // namespace

TEST_CASE("footprint: independent steps of the tags model commute") {
  int total_independent = 0;
  CHECK(rc::check("independent steps commute", [&] {
    const int variant = *rc::gen::inRange(0, 4);
    const Params p{{"ntags", *rc::gen::inRange(1, 4)},
                   {"submitters", *rc::gen::inRange(1, 4)},
                   {"rounds", *rc::gen::inRange(1, 3)},
                   {"pool", *rc::gen::inRange(0, 3)}};
    const TagsModel m(variant, p);
    TState s = m.initial();
    for (int step = 0; step < 40; ++step) {
      total_independent += check_commuting(m, s);
      const auto succ = successors(m, s);
      if (succ.empty()) break;
      s = succ[*rc::gen::resize(rc::kNominalSize,
                                rc::gen::inRange<std::size_t>(0, succ.size()))]
              .second;
    }
  }));
  // The check must have had something to check (typically a few hundred
  // independent pairs; the bound leaves room for unlucky random runs).
  CHECK(total_independent > 20);
}

TEST_CASE("footprint: steps that touch the same tag are dependent") {
  const TagsModel m(TagsModel::Refcount,
                    {{"ntags", 1}, {"submitters", 2}, {"rounds", 1}, {"pool", 0}});
  const TState s = m.initial();
  // Both submitters want tag 0: the choices conflict.
  const Footprint a = m.footprint(s, Step{0, TagsModel::ALLOC, 0});
  const Footprint b = m.footprint(s, Step{1, TagsModel::ALLOC, 0});
  CHECK_FALSE(a.independent_of(b));
  // The iterator visiting tag 0 reads what an allocation of tag 0 writes.
  const Footprint it = m.footprint(s, Step{2, TagsModel::VISIT, 0});
  CHECK_FALSE(a.independent_of(it));
}
