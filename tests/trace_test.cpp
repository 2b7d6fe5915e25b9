// Counterexample traces (counterexamples/trace.hpp, app/adapter.hpp):
// file round trips, replay, malformed input (UsageError), traces that do not
// fit the model (TraceMismatch), and the checked-in counterexamples.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/instances.hpp"
#include "counterexamples/trace.hpp"
#include "app/registry.hpp"
#include "tests/source_dir.hpp"

using nlohmann::json;

namespace trace_test {

using namespace blkmc;
namespace fs = std::filesystem;

SearchOptions quiet_bfs() {
  SearchOptions o;
  o.bfs = true;
  o.progress = false;
  return o;
}

Params tparams(int ntags, int submitters, int rounds, int pool) {
  return {{"ntags", ntags}, {"submitters", submitters}, {"rounds", rounds}, {"pool", pool}};
}

// A fresh path in the temp directory, removed when the object goes.
struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name)
      : path(fs::temp_directory_path() /
             ("blkmc_trace_test_" + std::to_string(::getpid()) + "_" + name)) {}
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
  void write(const std::string& text) const {
    std::ofstream out(path);
    out << text;
  }
};

// The shortest counterexample of one violated property.
Trace violation_trace(const std::string& variant, const Params& params, const std::string& prop) {
  const ModelHandle& mh = find_model("tags");
  const auto out = mh.check(variant, params, {prop}, quiet_bfs());
  REQUIRE(out.props.size() == 1);
  REQUIRE(out.props[0].verdict == Verdict::Violated);
  REQUIRE(out.props[0].trace.has_value());
  return *out.props[0].trace;
}

// The v4.11 no-null-deref counterexample on the smallest configuration.
Trace v411_trace() { return violation_trace("v4.11", tparams(1, 1, 1, 0), "no-null-deref"); }

// The null-check fn-sees-owner counterexample with two submitters.
Trace nullcheck_trace() {
  return violation_trace("null-check", tparams(2, 2, 1, 0), "fn-sees-owner");
}

ReplayResult replay_json(const json& j) {
  const Trace t = trace_from_json(j);
  return find_model(t.model).replay(t);
}

TEST_CASE("trace: a check's counterexample has the expected shape") {
  const Trace t = v411_trace();
  CHECK(t.model == "tags");
  CHECK(t.variant == "v4.11");
  CHECK(t.property == "no-null-deref");
  CHECK(t.search == "bfs");
  CHECK(t.params == tparams(1, 1, 1, 0));
  REQUIRE(t.steps.size() == 2);
  CHECK(t.steps[0].actor == 0);
  CHECK(t.steps[0].actor_name == "submitter 0");
  CHECK(t.steps[0].action == "alloc");
  CHECK(t.steps[0].arg == 0);
  CHECK(t.steps[1].actor == 1);
  CHECK(t.steps[1].actor_name == "iterator");
  CHECK(t.steps[1].action == "visit");
  CHECK(t.steps[1].text.find("NULL pointer dereference") != std::string::npos);
  CHECK(t.steps[1].state["iterator"]["oops"] == true);
  CHECK(t.initial["iterator"]["oops"] == false);
}

TEST_CASE("trace: write, read back, replay") {
  for (const Trace& t : {v411_trace(), nullcheck_trace()}) {
    TempFile f("roundtrip_" + t.variant + ".json");
    write_trace_file(t, f.path.string());
    const Trace r = read_trace_file(f.path.string());
    CHECK(r.model == t.model);
    CHECK(r.variant == t.variant);
    CHECK(r.property == t.property);
    CHECK(r.search == t.search);
    CHECK(r.params == t.params);
    CHECK(r.initial == t.initial);
    REQUIRE(r.steps.size() == t.steps.size());
    for (std::size_t i = 0; i < t.steps.size(); ++i) {
      CHECK(r.steps[i].actor == t.steps[i].actor);
      CHECK(r.steps[i].actor_name == t.steps[i].actor_name);
      CHECK(r.steps[i].action == t.steps[i].action);
      CHECK(r.steps[i].arg == t.steps[i].arg);
      CHECK(r.steps[i].text == t.steps[i].text);
      CHECK(r.steps[i].state == t.steps[i].state);
    }
    CHECK(trace_to_json(r) == trace_to_json(t));
    const ReplayResult rr = find_model(r.model).replay(r);
    CHECK(rr.reproduced);
    // Two story lines per step.
    CHECK(rr.story.size() == 2 * t.steps.size());
  }
}

TEST_CASE("trace: hand-written traces without states replay") {
  Trace t = v411_trace();
  t.initial = json();
  for (auto& s : t.steps) {
    s.state = json();
    s.text.clear();
    s.actor_name.clear();
  }
  CHECK(find_model("tags").replay(t).reproduced);
  json j = trace_to_json(t);
  j.erase("initial");
  j.erase("search");
  for (auto& s : j["steps"]) {
    s.erase("state");
    s.erase("text");
    s.erase("actor_name");
    s.erase("i");
  }
  j["steps"][1].erase("arg");  // arg defaults to 0 (the iterator visits tag 0)
  CHECK(replay_json(j).reproduced);
}

TEST_CASE("trace: a valid path that does not end in a violation is not reproduced") {
  Trace t = v411_trace();
  t.steps.pop_back();
  CHECK_FALSE(find_model("tags").replay(t).reproduced);
  t.steps.clear();
  CHECK_FALSE(find_model("tags").replay(t).reproduced);
  // A deadlock claim: the tags model never deadlocks, so no path reproduces it.
  Trace d = v411_trace();
  d.property = "deadlock";
  CHECK_FALSE(find_model("tags").replay(d).reproduced);
  // Another property on the same path: the oops is not a stale fn call.
  Trace f = v411_trace();
  f.property = "fn-sees-owner";
  CHECK_FALSE(find_model("tags").replay(f).reproduced);
}

TEST_CASE("trace: malformed files and JSON give UsageError") {
  TempFile f("malformed.json");
  f.write("{ this is not json");
  CHECK_THROWS_AS(read_trace_file(f.path.string()), UsageError);
  f.write("");
  CHECK_THROWS_AS(read_trace_file(f.path.string()), UsageError);
  f.write("[1, 2, 3]");
  CHECK_THROWS_AS(read_trace_file(f.path.string()), UsageError);
  CHECK_THROWS_AS(read_trace_file("/nonexistent/dir/trace.json"), UsageError);
  CHECK_THROWS_AS(write_trace_file(v411_trace(), "/nonexistent/dir/trace.json"), UsageError);

  const json good = trace_to_json(v411_trace());
  REQUIRE_NOTHROW(trace_from_json(good));
  auto bad = [&](auto edit) {
    json j = good;
    edit(j);
    return j;
  };
  const std::vector<json> cases = {
      json(42),
      json("a string"),
      json::array(),
      json(nullptr),
      bad([](json& j) { j.erase("format"); }),
      bad([](json& j) { j["format"] = "blkmc-trace-2"; }),
      bad([](json& j) { j.erase("model"); }),
      bad([](json& j) { j.erase("variant"); }),
      bad([](json& j) { j.erase("property"); }),
      bad([](json& j) { j["model"] = 7; }),
      bad([](json& j) { j["variant"] = json::array(); }),
      bad([](json& j) { j["property"] = nullptr; }),
      bad([](json& j) { j["params"] = json::array({1, 2}); }),
      bad([](json& j) { j["params"] = "ntags=1"; }),
      bad([](json& j) { j["params"]["ntags"] = "1"; }),
      bad([](json& j) { j["params"]["ntags"] = 1.5; }),
      bad([](json& j) { j["params"]["ntags"] = true; }),
      bad([](json& j) { j["params"]["ntags"] = 1000000000; }),
      bad([](json& j) { j["params"]["ntags"] = -99999999999LL; }),
      bad([](json& j) { j.erase("steps"); }),
      bad([](json& j) { j["steps"] = json::object(); }),
      bad([](json& j) { j["steps"] = "alloc"; }),
      bad([](json& j) { j["steps"][0].erase("actor"); }),
      bad([](json& j) { j["steps"][0].erase("action"); }),
      bad([](json& j) { j["steps"][0]["actor"] = "0"; }),
      bad([](json& j) { j["steps"][0]["action"] = 1; }),
      bad([](json& j) { j["steps"][0]["arg"] = "0"; }),
      bad([](json& j) { j["steps"][0]["arg"] = nullptr; }),
      bad([](json& j) { j["steps"][1] = 17; }),
      bad([](json& j) { j["steps"][1] = json::array(); }),
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k << ": " << cases[k].dump().substr(0, 200));
    CHECK_THROWS_AS(trace_from_json(cases[k]), UsageError);
  }
  // The same through a file.
  f.write(bad([](json& j) { j.erase("steps"); }).dump());
  CHECK_THROWS_AS(read_trace_file(f.path.string()), UsageError);
}

// A state nested 100,000 levels deep (a stack overflow in what walks the
// parsed value, before) is refused while parsing, with a one-line error.
TEST_CASE("trace: JSON nested past 64 levels gives UsageError") {
  TempFile f("deep.json");
  json good = trace_to_json(v411_trace());
  std::string text = good.dump();
  const std::string key = "\"initial\":";
  const auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.insert(at + key.size(), std::string(100000, '[') + std::string(100000, ']') + ",\"x\":");
  f.write(text);
  try {
    read_trace_file(f.path.string());
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("nested deeper than 64 levels") != std::string::npos);
  }
  f.write(good.dump());  // the same trace, not deep: fine
  CHECK_NOTHROW(read_trace_file(f.path.string()));
}

TEST_CASE("trace: unknown names and absurd parameters give UsageError") {
  CHECK_THROWS_AS(find_model("no-such-model"), UsageError);
  CHECK_THROWS_AS(find_model(""), UsageError);
  const json good = trace_to_json(v411_trace());
  auto bad = [&](auto edit) {
    json j = good;
    edit(j);
    return j;
  };
  const std::vector<json> cases = {
      bad([](json& j) { j["model"] = "no-such-model"; }),
      bad([](json& j) { j["variant"] = "v9.99"; }),
      bad([](json& j) { j["variant"] = ""; }),
      bad([](json& j) { j["property"] = "no-such-property"; }),
      bad([](json& j) { j["params"]["colour"] = 3; }),
      bad([](json& j) { j["params"]["ntags"] = 0; }),
      bad([](json& j) { j["params"]["ntags"] = 17; }),
      bad([](json& j) { j["params"]["ntags"] = 1000000; }),
      bad([](json& j) { j["params"]["ntags"] = -1000000; }),
      bad([](json& j) { j["params"]["submitters"] = 9; }),
      bad([](json& j) { j["params"]["rounds"] = 0; }),
      bad([](json& j) { j["params"]["pool"] = -1; }),
      bad([](json& j) { j["params"]["pool"] = 9; }),
      bad([](json& j) { j["params"]["ntags"] = 18446744073709551615ULL; }),
      bad([](json& j) { j["params"]["rounds"] = 4294967297LL; }),
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k << ": " << cases[k].dump().substr(0, 300));
    CHECK_THROWS_AS(replay_json(cases[k]), UsageError);
  }
  // check() validates its names and ranges too.
  const ModelHandle& mh = find_model("tags");
  CHECK_THROWS_AS(mh.check("v4.11", tparams(1, 1, 1, 0), {"nope"}, quiet_bfs()), UsageError);
  CHECK_THROWS_AS(mh.check("nope", tparams(1, 1, 1, 0), {}, quiet_bfs()), UsageError);
  CHECK_THROWS_AS(mh.check("v4.11", tparams(99, 1, 1, 0), {}, quiet_bfs()), UsageError);
  CHECK_THROWS_AS(mh.check("v4.11", {{"bogus", 1}}, {}, quiet_bfs()), UsageError);
}

TEST_CASE("trace: traces that do not fit the model give TraceMismatch") {
  const json good = trace_to_json(nullcheck_trace());
  REQUIRE(good["steps"].size() >= 3);
  REQUIRE(replay_json(good).reproduced);
  auto bad = [&](auto edit) {
    json j = good;
    edit(j);
    return j;
  };
  const std::vector<json> cases = {
      // Steps that are not enabled.
      bad([](json& j) { j["steps"][0]["actor"] = 5; }),
      bad([](json& j) { j["steps"][0]["arg"] = 7; }),
      bad([](json& j) { j["steps"][0]["action"] = "free"; }),
      bad([](json& j) { j["steps"][0]["action"] = "teleport"; }),
      bad([](json& j) { j["steps"][0]["action"] = ""; }),
      bad([](json& j) { j["steps"].insert(j["steps"].begin(), j["steps"][0]); }),  // twice
      bad([](json& j) { j["steps"].erase(j["steps"].begin()); }),                  // skipped
      bad([](json& j) { std::swap(j["steps"][0], j["steps"][1]); }),
      // Edited recorded states.
      bad([](json& j) { j["steps"][0]["state"]["tags"][0]["bit"] = 0; }),
      bad([](json& j) { j["steps"][1]["state"]["iterator"]["count"] = 3; }),
      bad([](json& j) { j["steps"].back()["state"]["iterator"]["stale_fn"] = false; }),
      bad([](json& j) { j["steps"][0]["state"] = json::object(); }),
      bad([](json& j) { j["steps"][0]["state"] = 1; }),
      bad([](json& j) { j["initial"]["tags"][1]["rqs"] = 1; }),
      bad([](json& j) { j["initial"] = json::array(); }),
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k << ": " << cases[k].dump().substr(0, 300));
    CHECK_THROWS_AS(replay_json(cases[k]), TraceMismatch);
  }
  // Actors and arguments outside a byte cannot name any step: malformed.
  const std::vector<json> out_of_range = {
      bad([](json& j) { j["steps"][0]["actor"] = -1; }),
      bad([](json& j) { j["steps"][0]["actor"] = 256; }),
      bad([](json& j) { j["steps"][0]["arg"] = 300; }),
      bad([](json& j) { j["steps"][0]["arg"] = -3; }),
  };
  for (const json& c : out_of_range) CHECK_THROWS_AS(replay_json(c), UsageError);
  // The same path in other variants: v4.11 also calls fn on the stale (non-NULL)
  // request, so every recorded state fits; refcount skips the dead request, so
  // the recorded final state (stale_fn set) does not.
  json other = good;
  other["variant"] = "v4.11";
  CHECK(replay_json(other).reproduced);
  other["variant"] = "refcount";  // refcount skips the dead stale request
  CHECK_THROWS_AS(replay_json(other), TraceMismatch);
}

TEST_CASE("trace: checked-in counterexamples replay and reproduce") {
  const fs::path dir = blkmc::testing::source_dir() / "counterexamples";
  int n = 0;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      ++n;
      INFO("trace " << e.path().string());
      Trace t;
      REQUIRE_NOTHROW(t = read_trace_file(e.path().string()));
      ReplayResult r;
      REQUIRE_NOTHROW(r = find_model(t.model).replay(t));
      CHECK(r.reproduced);
      // Two lines per step, plus the stuck and loop markers of a lasso, or
      // the closing marker of a maximize trace (its value at the end).
      const auto& props = find_model(t.model).info().props;
      const auto spec = t.property.substr(0, t.property.find("<="));
      bool maximize = false;
      for (const auto& p : props)
        maximize = maximize || (p.name == spec && p.kind == PropKind::Maximize);
      CHECK(r.story.size() == 2 * t.steps.size() + (t.stuck ? 2 : 0) + (maximize ? 1 : 0));
      // And they survive a round trip through the JSON form.
      CHECK(find_model(t.model).replay(trace_from_json(trace_to_json(t))).reproduced);
    }
  }
  MESSAGE(n << " checked-in counterexample(s) replayed");
}

// Regression: optional string fields of the wrong type used to escape as
// nlohmann::json::type_error, and out-of-range or fractional numbers were
// converted silently (actor 4294967296 replayed as actor 0).
TEST_CASE("trace: wrong-typed or out-of-range fields give UsageError") {
  const json good = trace_to_json(v411_trace());
  auto bad = [&](auto edit) {
    json j = good;
    edit(j);
    return j;
  };
  const std::vector<json> cases = {
      bad([](json& j) { j["format"] = 1; }),
      bad([](json& j) { j["search"] = 3; }),
      bad([](json& j) { j["steps"][0]["text"] = 5; }),
      bad([](json& j) { j["steps"][0]["actor_name"] = 5; }),
      bad([](json& j) { j["steps"][0]["actor"] = 4294967296LL; }),
      bad([](json& j) { j["steps"][0]["actor"] = 0.7; }),
      bad([](json& j) { j["steps"][1]["arg"] = 4294967296LL; }),
      bad([](json& j) { j["params"]["ntags"] = 18446744073709551615ULL; }),
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k << ": " << cases[k].dump().substr(0, 200));
    CHECK_THROWS_AS(trace_from_json(cases[k]), UsageError);
  }
}

TEST_CASE("trace: fields the format defines only for some properties are refused elsewhere") {
  // search is bfs or dfs; a lasso (loop, stuck) ends progress and
  // starvation traces only, so an invariant's trace with one is malformed.
  json j = trace_to_json(v411_trace());
  j["search"] = "BFS";
  CHECK_THROWS_AS(trace_from_json(j), UsageError);
  for (const char* field : {"loop", "stuck"}) {
    Trace t = v411_trace();
    (std::string(field) == "loop" ? t.loop : t.stuck) = 0;
    CHECK_THROWS_AS(find_model(t.model).replay(t), UsageError);
  }
}

TEST_CASE("trace: a user's workload travels in param_files and replays under any number") {
  const ModelHandle& mh = find_model("deadline");
  const std::string text = "# trace test\nproc w dir=W reqs=100\ngate\nproc r stream=4\ntrack w:0\n";
  const int n = mh.info().params[0].open->add("tt.wl", text, "tt.wl");
  CheckOutcome o = mh.check("v6.18", {{"workload", n}}, {"max-wait"}, quiet_bfs());
  REQUIRE(o.props.at(0).trace);
  Trace t = *o.props[0].trace;
  REQUIRE(t.param_files.count("workload"));
  CHECK(t.param_files.at("workload").name == "tt.wl");
  CHECK(t.param_files.at("workload").text == text);
  // Round trip through JSON; a different number in the file still finds
  // the text (it is what the number means in another process).
  json j = trace_to_json(t);
  j["params"]["workload"] = 12345;
  const Trace back = trace_from_json(j);
  CHECK(trace_params(mh.info(), back).at("workload") == n);
  CHECK(mh.replay(back).reproduced);
  // A shipped workload carries no text.
  CheckOutcome s = mh.check("prio-5.16", {{"workload", 5}}, {"deadlock"}, quiet_bfs());
  REQUIRE(s.props.at(0).trace);
  CHECK(s.props[0].trace->param_files.empty());
  CHECK_FALSE(trace_to_json(*s.props[0].trace).contains("param_files"));
  // Malformed: not an object, a file without a value, a text that is no workload.
  json bad = trace_to_json(t);
  bad["param_files"] = 3;
  CHECK_THROWS_AS(trace_from_json(bad), UsageError);
  bad = trace_to_json(t);
  bad["params"].erase("workload");
  CHECK_THROWS_AS(trace_from_json(bad), UsageError);
  bad = trace_to_json(t);
  bad["param_files"]["workload"]["text"] = "proc x dir=Q\n";
  CHECK_THROWS_AS(trace_params(mh.info(), trace_from_json(bad)), UsageError);
}

}  // namespace trace_test
