// Unit tests for SbitmapModel (model/sbitmap.hpp).
#include <doctest/doctest.h>

#include "model/sbitmap.hpp"

using namespace blkmc;

TEST_CASE("sbitmap: initial state") {
  const SbitmapModel m(SbitmapModel::C854, {{"tags", 2}, {"tasks", 2}, {"rounds", 1}, {"nr_ws", 1},
                                            {"batch", 0}, {"clear", -1}, {"irq", 0}});
  CHECK(m.batch() == 2);
}
