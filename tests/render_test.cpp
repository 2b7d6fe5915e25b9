// The message-sequence chart: one column per actor, text wrapped in place.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "counterexamples/render.hpp"

namespace render_test {

using namespace blkmc;
std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST_CASE("render: each step sits in its actor's column, long text wraps") {
  Trace t;
  t.steps.push_back({0, "submitter 0", "alloc", 1, "sets bit 1", nullptr});
  t.steps.push_back({2, "iterator", "visit", 1, "bt_iter: tag 1 set, rqs[1] = NULL: oops", nullptr});
  const auto lines = lines_of(render_msc(t, 12));
  REQUIRE(lines.size() == 2 + 1 + 4);  // header, rule, one line + three wrapped lines
  CHECK(lines[0] == "      submitter 0  iterator");
  CHECK(lines[1] == "      ------------ ------------");
  CHECK(lines[2] == "   1. sets bit 1   |");
  CHECK(lines[3] == "   2. |            bt_iter: tag");
  CHECK(lines[4] == "      |            1 set,");
  CHECK(lines[5] == "      |            rqs[1] =");
  CHECK(lines[6] == "      |            NULL: oops");
}

TEST_CASE("render: an empty trace renders a header only, words longer than a column are cut") {
  Trace t;
  CHECK(lines_of(render_msc(t)).size() == 2);
  t.steps.push_back({0, "", "alloc", 0, "abcdefghijklmnopqrstuvwxyz", nullptr});
  const auto lines = lines_of(render_msc(t, 10));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "      actor 0");
  CHECK(lines[2] == "   1. abcdefghij");
  CHECK(lines[4] == "      uvwxyz");
}

}  // namespace render_test
