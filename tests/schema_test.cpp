// The state schema (model/schema.hpp): layout, slots, the flat variable list
// and state_json derived from one declaration.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <stdexcept>

#include "model/model.hpp"
#include "model/schema.hpp"
#include "model/tags/tags.hpp"

namespace schema_test {

using namespace blkmc;

// Two per-actor blocks, a group and a top-level variable.
Schema example(int actors, int tags) {
  Schema sc;
  const int a = sc.block("actors", actors), t = sc.block("tags", tags), g = sc.group("iter");
  sc.enumeration("pc", {"idle", "run", "done"}, a);
  sc.integer("n", -1, 7, a);
  sc.boolean("waiting", a);
  sc.bit("bit", t);
  sc.integer("owner", 0, 200, t);
  sc.integer("pos", 0, tags, g);
  sc.boolean("oops", g);
  sc.integer("clock", 0, 3);
  sc.layout();
  return sc;
}

TEST_CASE("schema: bytes, names and Z3 variables follow the declaration") {
  const Schema sc = example(3, 4);
  // Bytes: clock, pos; 3 x (pc, n); 4 x owner; then 3 + 4 + 1 bits.
  CHECK(sc.bytes() == 2 + 6 + 4 + 1);
  CHECK(sc.size() == 3 + 3 + 3 + 4 + 4 + 1 + 1 + 1);
  const auto names = sc.element_names();
  CHECK(names.front() == "pc[0]");
  CHECK(names[std::size_t(sc.index(sc.find("n"), 2))] == "n[2]");
  CHECK(names[std::size_t(sc.index(sc.find("pos")))] == "pos");
  CHECK(names.back() == "clock");
  const auto ts = sc.ts_vars();
  REQUIRE(ts.size() == names.size());
  CHECK(ts[std::size_t(sc.index(sc.find("bit"), 1))].is_bool);
  CHECK_FALSE(ts[std::size_t(sc.index(sc.find("n"), 1))].is_bool);
  CHECK(ts[std::size_t(sc.index(sc.find("n"), 1))].lo == -1);
  CHECK_THROWS_AS(sc.byte_var(sc.find("oops")), std::logic_error);
  CHECK_THROWS_AS(sc.bit_var(sc.find("pc")), std::logic_error);
  // Wider than a byte (prove's sizes): a flat list and Z3 variables, no bytes.
  Schema wide;
  wide.integer("x", 0, 1023);
  wide.layout();
  CHECK(wide.ts_vars().at(0).hi == 1023);
  CHECK_THROWS_AS(wide.bytes(), std::logic_error);
  CHECK_THROWS_AS(wide.byte_var(0), std::logic_error);
}

TEST_CASE("schema: every variable keeps its value, independently of the others") {
  CHECK(rc::check("set then get, others unchanged", [] {
    const int actors = *rc::gen::inRange(1, 6), tags = *rc::gen::inRange(1, 9);
    const Schema sc = example(actors, tags);
    ByteState<64> s{};
    std::vector<int> want(std::size_t(sc.size()));
    for (int id = 0; id < int(sc.vars().size()); ++id)
      for (int c = 0; c < sc.copies(id); ++c) {
        const auto& v = sc.var(id);
        const int x = *rc::gen::inRange(v.lo, v.hi + 1);
        want[std::size_t(sc.index(id, c))] = x;
        sc.set_value(s, id, c, x);
      }
    RC_ASSERT(sc.values(s) == want);
    RC_ASSERT(sc.representable(want));
    ByteState<64> t{};
    sc.set_values(t, want);
    RC_ASSERT(t.b == s.b);
    // Nothing beyond the schema's bytes is written.
    for (std::size_t i = sc.bytes(); i < s.b.size(); ++i) RC_ASSERT(s.b[i] == 0);
  }));
}

TEST_CASE("schema: packed variables share one byte per copy") {
  Schema sc;
  const int b = sc.block("rq", 5);
  const int st = sc.enumeration("status", {"a", "b", "c", "d", "e", "f"}, b);
  const int f1 = sc.bit("f1", b), f2 = sc.bit("f2", b);
  const int seq = sc.integer("seq", 0, 255, b);
  sc.pack({st, f1, f2});
  CHECK_THROWS_AS(sc.pack({seq, f1}), std::logic_error);  // f1 is packed already
  sc.layout();
  CHECK(sc.bytes() == 5 * 2);
  CHECK_THROWS_AS(sc.byte_var(st), std::logic_error);
  const FieldVar s = sc.field_var(st), a = sc.field_var(f1), c = sc.field_var(f2);
  ByteState<16> x{};
  for (int r = 0; r < 5; ++r) {
    s.set(x, r, 5 - r);
    a.set(x, r, r % 2);
    c.set(x, r, 1 - r % 2);
    sc.set_value(x, seq, r, 200 + r);
  }
  for (int r = 0; r < 5; ++r) {
    CHECK(s.get(x, r) == 5 - r);
    CHECK(a.test(x, r) == (r % 2 == 1));
    CHECK(c.test(x, r) == (r % 2 == 0));
    CHECK(sc.value(x, seq, r) == 200 + r);
  }
  CHECK(sc.json(x)["rq"][0]["status"] == "f");
  Schema wide;
  const int w1 = wide.integer("x", 0, 15), w2 = wide.integer("y", 0, 31);
  CHECK_THROWS_AS(wide.pack({w1, w2}), std::logic_error);  // 4 + 5 bits
}

TEST_CASE("schema: state_json shows groups, blocks, names and kinds") {
  const Schema sc = example(2, 2);
  ByteState<64> s{};
  sc.set_value(s, sc.find("pc"), 1, 2);
  sc.set_value(s, sc.find("n"), 0, -1);
  sc.set_value(s, sc.find("bit"), 1, 1);
  sc.set_value(s, sc.find("oops"), 0, 1);
  const auto j = sc.json(s);
  CHECK(j["actors"][1]["pc"] == "done");
  CHECK(j["actors"][0]["pc"] == "idle");
  CHECK(j["actors"][0]["n"] == -1);
  CHECK(j["actors"][0]["waiting"] == false);
  CHECK(j["tags"][1]["bit"] == 1);
  CHECK(j["iter"]["oops"] == true);
  CHECK(j["clock"] == 0);
  std::vector<int> bad = sc.values(s);
  bad[std::size_t(sc.index(sc.find("oops")))] = 2;
  CHECK_FALSE(sc.representable(bad));
}

TEST_CASE("schema: the tags model's footprint names are its schema's variables") {
  const TagsModel m(TagsModel::Refcount, {{"ntags", 2}, {"submitters", 2}, {"rounds", 1}, {"pool", 1}});
  const auto names = m.variable_names();
  CHECK(names == m.schema().element_names());
  CHECK(std::find(names.begin(), names.end(), "obj[1]") != names.end());
  const auto f = m.footprint(m.initial(), Step{0, TagsModel::GET, 1});
  CHECK(f.writes.test(std::size_t(m.schema().index(m.schema().find("pc"), 0))));
  CHECK_FALSE(f.writes.test(std::size_t(m.schema().index(m.schema().find("pc"), 1))));
}

}  // namespace schema_test
