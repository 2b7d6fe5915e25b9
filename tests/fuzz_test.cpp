// Bad input never crashes: mutated traces, workloads and suite files (a
// fixed seed, a few thousand cases) must each be accepted or refused with a
// UsageError (a trace that does not fit its model: TraceMismatch), never
// another exception, a crash or a sanitizer report (CI runs this under
// -fsanitize=address,undefined).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/registry.hpp"
#include "cli/suite.hpp"
#include "counterexamples/trace.hpp"
#include "model/sched/sched_model.hpp"
#include "model/sched/workload.hpp"
#include "tests/source_dir.hpp"

namespace fuzz_test {

using namespace blkmc;
namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One to four edits: a byte changed (often to a character that means
// something to the parser), a range deleted or repeated, a token inserted,
// or the text cut short.
std::string mutate(std::string s, std::mt19937_64& rng) {
  static const char* const tokens[] = {"[",  "{", "}",   "]",    "\"", ",", ":", "-1", "1e999", "99999999999",
                                       "\n", "#", " = ", "null", "0",  "=", "\\", "nan", "\t", "proc ", "gate\n",
                                       // what issue-31's inputs had: sizes past the last sector, fio's
                                       // section names, the gate's own process name, a lasso
                                       ":200", "$", "global", "blocker", "\"loop\": 0, "};
  const int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 5) {
      case 0:
        s[at] = "[]{}\",:-0123456789 \n=#x\\"[rng() % 25];
        break;
      case 1:
        s.erase(at, 1 + rng() % 64);
        break;
      case 2:
        s.insert(at, s.substr(at, 1 + rng() % 64));
        break;
      case 3:
        s.insert(at, tokens[rng() % (sizeof tokens / sizeof *tokens)]);
        break;
      default:
        s.resize(at);
        break;
    }
  }
  return s;
}

// The file name of this test's scratch file for kind `k`.
fs::path scratch(const std::string& k) {
  return fs::temp_directory_path() / ("blkmc_fuzz_" + std::to_string(::getpid()) + "_" + k);
}

TEST_CASE("fuzz: mutated traces are replayed or refused, never crash") {
  std::vector<std::string> seeds;
  for (const auto& d : fs::directory_iterator(blkmc::testing::source_dir() / "counterexamples"))
    if (d.is_directory())
      for (const auto& f : fs::directory_iterator(d.path()))
        if (f.path().extension() == ".json" && fs::file_size(f.path()) < 200000) seeds.push_back(read_all(f.path()));
  REQUIRE(seeds.size() > 10);
  std::mt19937_64 rng(20261201);
  const fs::path path = scratch("trace.json");
  int refused = 0, replayed = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::string text = mutate(seeds[rng() % seeds.size()], rng);
    std::ofstream(path, std::ios::binary) << text;
    try {
      const Trace t = read_trace_file(path.string());
      find_model(t.model).replay(t);
      ++replayed;
    } catch (const UsageError&) {
      ++refused;
    } catch (const TraceMismatch&) {
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("case " << i << ": " << std::string(typeid(e).name()) << ": " << std::string(e.what()));
    }
  }
  fs::remove(path);
  CHECK(refused > 100);  // the mutations do reach the validation
  MESSAGE(replayed << " replayed, " << refused << " refused");
}

TEST_CASE("fuzz: mutated workloads are parsed and run, or refused, never crash") {
  const auto& shipped = sched::shipped_workloads();
  std::mt19937_64 rng(20261202);
  int refused = 0, ran = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::string text = mutate(shipped[rng() % shipped.size()].text, rng);
    try {
      const sched::Workload wl = sched::parse_workload(text, "fuzz");
      // A workload that parses must build a model and take its first steps.
      Params p;
      for (const auto& pi : sched::DeadlineModel::static_info().params) p[pi.name] = pi.def;
      const sched::DeadlineModel m(0, p, wl);
      auto s = m.initial();
      for (int step = 0; step < 50; ++step) {
        bool moved = false;
        m.for_each_successor(s, [&](const Step&, const auto& n) {
          if (!moved) s = n;
          moved = true;
        });
        if (!moved) break;
      }
      ++ran;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      CHECK_MESSAGE(what.find('\n') == std::string::npos, "a multi-line error: " << what);
      ++refused;
    } catch (const std::exception& e) {
      FAIL_CHECK("case " << i << ": " << std::string(typeid(e).name()) << ": " << std::string(e.what()));
    }
  }
  CHECK(refused > 100);
  CHECK(ran > 10);
  MESSAGE(ran << " ran, " << refused << " refused");
}

TEST_CASE("fuzz: mutated suite files are expanded or refused, never crash") {
  std::vector<std::string> seeds;
  for (const auto& f : fs::recursive_directory_iterator(blkmc::testing::source_dir() / "model"))
    if (f.path().extension() == ".suite") seeds.push_back(read_all(f.path()));
  REQUIRE(seeds.size() >= 5);
  std::mt19937_64 rng(20261203);
  const fs::path path = scratch("rows.suite");
  int refused = 0, expanded = 0;
  // --expand validates every row (names, ranges, files) and runs nothing.
  std::ostringstream sink;
  auto* const old = std::cout.rdbuf(sink.rdbuf());
  for (int i = 0; i < 1000; ++i) {
    std::string text = mutate(seeds[rng() % seeds.size()], rng);
    // Replay rows name files from the source tree; keep them resolvable.
    std::ofstream(path, std::ios::binary) << text;
    try {
      const fs::path here = fs::current_path();
      fs::current_path(blkmc::testing::source_dir());
      try {
        run_suite_files({path.string()}, 0, false, true);
      } catch (...) {
        fs::current_path(here);
        throw;
      }
      fs::current_path(here);
      ++expanded;
    } catch (const UsageError&) {
      ++refused;
    } catch (const std::exception& e) {
      std::cout.rdbuf(old);
      FAIL_CHECK("case " << i << ": " << std::string(typeid(e).name()) << ": " << std::string(e.what()));
      std::cout.rdbuf(sink.rdbuf());
    }
    sink.str("");
  }
  std::cout.rdbuf(old);
  fs::remove(path);
  CHECK(refused > 100);
  MESSAGE(expanded << " expanded, " << refused << " refused");
}

}  // namespace fuzz_test
