// Footprints must be sound before partial-order reduction may trust them:
// two enabled steps whose footprints say "independent" must commute (each
// stays enabled after the other, and both orders reach the same state).
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <cstring>
#include <vector>

#include "model/tags/tags.hpp"
#include "tests/commuting.hpp"

namespace footprint_test {

using namespace blkmc;
using namespace blkmc::testing;

TEST_CASE("footprint: independent steps of the tags model commute") {
  int total_independent = 0;
  CHECK(rc::check("independent steps commute", [&] {
    const int variant = *rc::gen::inRange(0, 4);
    const Params p{{"ntags", *rc::gen::inRange(1, 4)},
                   {"submitters", *rc::gen::inRange(1, 4)},
                   {"rounds", *rc::gen::inRange(1, 3)},
                   {"pool", *rc::gen::inRange(0, 3)}};
    const TagsModel m(variant, p);
    total_independent += walk_checking_commutation(m, 40);
  }));
  // The check must have had something to check (typically a few hundred
  // independent pairs; the bound leaves room for unlucky random runs).
  CHECK(total_independent > 20);
}

TEST_CASE("footprint: steps that touch the same tag are dependent") {
  const TagsModel m(TagsModel::Refcount,
                    {{"ntags", 1}, {"submitters", 2}, {"rounds", 1}, {"pool", 0}});
  const TagsModel::State s = m.initial();
  // Both submitters want tag 0: the choices conflict.
  const Footprint a = m.footprint(s, Step{0, TagsModel::ALLOC, 0});
  const Footprint b = m.footprint(s, Step{1, TagsModel::ALLOC, 0});
  CHECK_FALSE(a.independent_of(b));
  // The iterator visiting tag 0 reads what an allocation of tag 0 writes.
  const Footprint it = m.footprint(s, Step{2, TagsModel::VISIT, 0});
  CHECK_FALSE(a.independent_of(it));
}

}  // namespace footprint_test
