// The disk and bitstate stores (explorer/disk_store.hpp, explorer/
// resolve_on_disk.hpp): their files and sorts on their own, then every model
// searched into them with the plain store's states, transitions, verdicts,
// maxima and traces, with tiny sort buffers so that sorts spill (partial-
// order reduction off on both sides: the disk stores do not use it); the
// disk store also with progress and starvation.
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app/instances.hpp"
#include "app/registry.hpp"
#include "app/report.hpp"
#include "explorer/checks.hpp"
#include "explorer/disk_store.hpp"
#include "explorer/external_sort.hpp"
#include "tests/model_cases.hpp"

namespace blkmc::testing {
namespace disk_store_test {

TEST_CASE("block files: records come back in order and by block, with and without deltas") {
  ScratchDir dir("");
  for (const bool delta : {false, true}) {
    std::mt19937_64 rng(delta);
    std::vector<std::uint64_t> words(100000);
    for (auto& w : words) w = rng();
    if (delta) std::sort(words.begin(), words.end());
    BlockWriter w(dir.file(delta ? "d" : "p"), 12, delta);
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::uint8_t rec[12];
      std::memcpy(rec, &words[i], 8);
      const auto i32 = std::uint32_t(i);
      std::memcpy(rec + 8, &i32, 4);
      w.add(rec);
    }
    const BlockFile f = w.finish();
    CHECK(f.records == words.size());
    CHECK(f.offsets.size() > 1);
    BlockReader r(f);
    std::size_t n = 0;
    while (const std::uint8_t* rec = r.next()) {
      std::uint64_t x;
      std::uint32_t i;
      std::memcpy(&x, rec, 8);
      std::memcpy(&i, rec + 8, 4);
      REQUIRE(x == words[n]);
      REQUIRE(i == n);
      ++n;
    }
    CHECK(n == words.size());
    std::vector<std::uint8_t> block;
    f.read_block(f.offsets.size() - 1, block);
    const std::size_t last = (f.offsets.size() - 1) * f.per_block;
    std::uint64_t x;
    std::memcpy(&x, block.data(), 8);
    CHECK(x == words[last]);
  }
}

TEST_CASE("external sort: in memory and over many runs, one of each, the first in order kept") {
  ScratchDir dir("");
  for (const std::size_t budget : {std::size_t(1) << 20, std::size_t(300)}) {
    // Records: word, 2 key bytes, a 4-byte tag; unique on word and key.
    ExternalSorter sort(dir, "t", 14, 10, budget);
    std::mt19937_64 rng(7);
    std::map<std::string, std::vector<std::uint8_t>> least;  // (word, key) -> least record
    for (int i = 0; i < 20000; ++i) {
      std::uint8_t rec[14];
      const std::uint64_t w = rng() % 500;
      std::memcpy(rec, &w, 8);
      rec[8] = std::uint8_t(rng() % 3);
      rec[9] = std::uint8_t(rng() % 2);
      const auto tag = std::uint32_t(rng());
      std::memcpy(rec + 10, &tag, 4);
      sort.add(rec);
      const std::string k(reinterpret_cast<const char*>(rec), 10);
      std::vector<std::uint8_t> v(rec, rec + 14);
      auto it = least.find(k);
      if (it == least.end() || std::memcmp(v.data() + 8, it->second.data() + 8, 6) < 0) least[k] = v;
    }
    std::vector<std::vector<std::uint8_t>> got;
    while (const std::uint8_t* r = sort.next()) got.emplace_back(r, r + 14);
    if (budget < 1000) CHECK(sort.runs() > 10);
    REQUIRE(got.size() == least.size());
    // In order: the word as a number, then the bytes.
    std::vector<std::vector<std::uint8_t>> want;
    for (auto& [k, v] : least) want.push_back(v);
    std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
      std::uint64_t x, y;
      std::memcpy(&x, a.data(), 8);
      std::memcpy(&y, b.data(), 8);
      return x != y ? x < y : std::memcmp(a.data() + 8, b.data() + 8, 6) < 0;
    });
    CHECK(got == want);
  }
}

TEST_CASE("disk store: visited runs merge to a few, levels give back keys, parents and depths") {
  DiskStore st(2, "", 0);
  std::uint32_t total = 0;
  for (int level = 0; level < 40; ++level) {
    std::vector<std::uint64_t> hs(std::size_t(level) + 1);
    for (std::size_t i = 0; i < hs.size(); ++i) hs[i] = (std::uint64_t(level) << 32) | i;
    BlockWriter w(st.new_file("visited"), st.run_record_bytes(), true);
    for (std::uint64_t h : hs) {
      std::uint8_t rec[10];
      std::memcpy(rec, &h, 8);
      rec[8] = std::uint8_t(level);
      rec[9] = 0;
      w.add(rec);
    }
    st.add_visited_run(w.finish());
    st.begin_level();
    for (std::size_t i = 0; i < hs.size(); ++i) {
      const std::uint8_t key[2] = {std::uint8_t(level), std::uint8_t(i)};
      st.append(key, level ? total - 1 : StateStore::kNone);
    }
    st.end_level();
    total += std::uint32_t(hs.size());
  }
  CHECK(st.visited_runs().size() <= 6);
  std::uint64_t records = 0;
  for (const BlockFile& f : st.visited_runs()) records += f.records;
  CHECK(records == total);
  CHECK(st.size() == total);
  std::uint8_t key[2];
  st.load(total - 1, key);
  CHECK(key[0] == 39);
  CHECK(key[1] == 39);
  CHECK(st.depth(total - 1) == 39);
  CHECK(st.depth(0) == 0);
  CHECK(st.parent(total - 1) == total - 41);
  CHECK(st.parent(0) == StateStore::kNone);
  CHECK(st.disk_bytes() > 0);
}

TEST_CASE("bitstate: the chance of an omission grows with the states in the array") {
  CHECK(bitstate_omission(1000, std::ldexp(1.0, 30), 3) < 1e-12);
  const double mid = bitstate_omission(1e6, std::ldexp(1.0, 27), 3);
  CHECK(mid > 1e-6);
  CHECK(mid < 1);
  CHECK(bitstate_omission(1e7, std::ldexp(1.0, 20), 3) > 0.999);
  DiskStore st(4, "", 20);
  CHECK_FALSE(st.test_and_set(12345));
  CHECK(st.test_and_set(12345));
  CHECK(st.test(12345));
  CHECK_FALSE(st.test(54321));
}

TEST_CASE("scratch directories are removed with what is in them") {
  std::string path;
  {
    ScratchDir d("");
    path = d.path();
    BlockWriter w(d.file("x"), 8, false);
    const std::uint64_t v = 1;
    w.add(reinterpret_cast<const std::uint8_t*>(&v));
    w.finish();
    CHECK(std::filesystem::exists(d.file("x")));
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("disk and bitstate stores: every model gives the plain store's results") {
  check_every_model(8, [](const ModelHandle& mh) {
    const ModelInfo& inf = mh.info();
    const std::string variant = random_variant(inf);
    const Params p = small_params(inf);
    const std::vector<std::string> props = random_safety_props(inf);
    SearchOptions opt = random_limits();
    opt.reduce = *rc::gen::arbitrary<bool>() ? ReduceOptions::all() : ReduceOptions::none();
    opt.reduce.por = false;
    opt.reduce.lift = false;  // not on disk (tests/path_measure_test.cpp)
    CheckOutcome plain;
    try {
      plain = mh.check(variant, p, props, opt);
    } catch (const UsageError&) {
      RC_DISCARD("parameters the model refuses");
    }
    opt.threads = *rc::gen::inRange(1u, 4u);
    opt.store = *rc::gen::arbitrary<bool>() ? StoreKind::Disk : StoreKind::Bitstate;
    opt.sort_buffer_bytes = *rc::gen::element<std::size_t>(0, 512, 4096, 65536);
    opt.bitstate_log2 = 28;
    // Rounds of a few parents: a level is taken round by round, one round
    // while the next expands.
    opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 3, 50);
    opt.reduce.por = *rc::gen::arbitrary<bool>();  // switched off by the store
    const CheckOutcome disk = mh.check(variant, p, props, opt);
    RC_LOG() << to_string(opt.store) << " threads " << opt.threads << " rounds of " << opt.level_batch
             << " sort buffer " << opt.sort_buffer_bytes
             << " max states " << opt.limits.max_states << " max depth " << opt.limits.max_depth << '\n';
    RC_ASSERT(search_difference(plain, disk) == "");
    RC_ASSERT(disk.stats.store == to_string(opt.store));
    RC_ASSERT((disk.stats.omission_probability > 0) == (opt.store == StoreKind::Bitstate && disk.stats.states > 1));
  });
}

TEST_CASE("bitstate: a small array omits states and says how likely that was") {
  const ModelHandle& mh = find_model("tags");
  SearchOptions opt;
  opt.progress = false;
  opt.reduce = ReduceOptions::none();
  const Params p{{"ntags", 3}, {"submitters", 3}, {"rounds", 2}, {"pool", 0}};
  const CheckOutcome plain = mh.check("refcount", p, {"fn-sees-owner"}, opt);
  opt.store = StoreKind::Bitstate;
  opt.bitstate_log2 = 12;
  const CheckOutcome lossy = mh.check("refcount", p, {"fn-sees-owner"}, opt);
  CHECK(lossy.stats.states < plain.stats.states);
  CHECK(lossy.stats.omission_probability > 0.99);
}

TEST_CASE("disk store: progress and starvation give the plain store's verdicts, counts and traces") {
  check_every_model(6, [](const ModelHandle& mh) {
    auto c = random_graph_case(mh, false);
    if (!c) return;  // nothing here needs an edge log
    c->opt.threads = *rc::gen::inRange(1u, 4u);
    c->opt.store = StoreKind::Disk;
    c->opt.sort_buffer_bytes = *rc::gen::element<std::size_t>(0, 512, 4096, 65536);
    c->opt.level_batch = *rc::gen::element<std::size_t>(0, 1, 3, 50);
    const CheckOutcome disk = mh.check(c->variant, c->params, c->props, c->opt);
    RC_LOG() << "threads " << c->opt.threads << " rounds of " << c->opt.level_batch << " sort buffer "
             << c->opt.sort_buffer_bytes << " max states "
             << c->opt.limits.max_states << " max depth " << c->opt.limits.max_depth << '\n';
    RC_ASSERT(search_difference(c->plain, disk) == "");
  });
}

TEST_CASE("disk stores: the bitstate store refuses progress and starvation, both refuse depth-first search") {
  for (const ModelHandle* h : all_models())
    for (const PropInfo& pi : h->info().props)
      if (pi.kind == PropKind::Progress || pi.kind == PropKind::Starvation) {
        SearchOptions opt;
        opt.progress = false;
        opt.store = StoreKind::Bitstate;
        CHECK_THROWS_AS(h->check(h->info().variants.front().name, {}, {pi.name}, opt), UsageError);
        opt.store = StoreKind::Disk;
        opt.bfs = false;
        CHECK_THROWS_AS(h->check(h->info().variants.front().name, {}, {}, opt), UsageError);
        return;
      }
}

}  // namespace disk_store_test
}  // namespace blkmc::testing
