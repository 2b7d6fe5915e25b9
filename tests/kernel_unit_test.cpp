// The kernel-source harness on a real file (BLKMC_TEST_KERNEL: a tree with
// Debian's 6.12 block/, unpacked by kernel_unit_test.sh): the shim's
// rb-tree, states that move between regions, and the canonical key against
// the raw words along random walks (RapidCheck).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/kernel_select.hpp"
#include "model/sched/kernel/kernel_build.hpp"
#include "model/sched/kernel/kernel_codec.hpp"
#include "model/sched/kernel/kernel_module.hpp"
#include "model/sched/kernel/kernel_source.hpp"
#include "model/sched/sched_model.hpp"

using namespace blkmc;
using namespace blkmc::sched;

namespace {

const char* tree() {
  const char* t = std::getenv("BLKMC_TEST_KERNEL");
  REQUIRE_MESSAGE(t, "BLKMC_TEST_KERNEL names a tree with block/mq-deadline.c (kernel_unit_test.sh sets it)");
  return t;
}

// The tree's code loaded: its variant number in the kernel-code model.
int variant() {
  static const int v = [] {
    KernelArgs k;
    k.kernel = tree();
    const KernelChoice kc = choose_kernel("deadline", k);
    return find_variant_index(kc.model->info(), kc.variant);
  }();
  return v;
}

const kernel::Module& module() {
  return kernel::Module::load(kernel::build_source(kernel::source_at("deadline", variant())).so);
}

Params params(const std::vector<std::string>& kv) {
  return resolve_params(KernelDeadlineModel::static_info(), kv);
}

// A region of the gated workload's 54 requests after init.
struct Setup {
  kernel::Region r;
  explicit Setup(const kernel::Module& m) : r(m, 4, kernel::family_rq_state_words("deadline")) {
    blkmc_region* h = r.hdr();
    for (int i = 0; i < 4; ++i) {
      h->rqs[i].sector = std::uint64_t(10 * i);
      h->rqs[i].sectors = 1;
      h->rqs[i].ioprio = std::uint16_t(2 << 13);
      h->rqs[i].write = i == 3;
    }
    h->depth = 2;
    h->nr_requests = 4;
    long res = 0;
    REQUIRE(m.call(h, BLKMC_OP_INIT, 0, 0, BLKMC_J0, 0, &res) == BLKMC_OK);
  }
  int call(const kernel::Module& m, int op, int a = 0, int b = 0) {
    long res = 0;
    const int st = m.call(r.hdr(), op, a, b, BLKMC_J0, 0, &res);
    REQUIRE(st == BLKMC_OK);
    return int(res);
  }
};

}  // namespace

TEST_CASE("kernel: the shim's rb-tree keeps its invariants and order through inserts, erases and rebuilds") {
  const kernel::Module& m = module();
  kernel::Region r(m, 0, 0, 4096);
  long res = -1;
  CHECK(m.call(r.hdr(), BLKMC_OP_SELFTEST, 0, 0, BLKMC_J0, 0, &res) == BLKMC_OK);
  CHECK(res == 0);  // 0: every step valid; else the step that was not
}

TEST_CASE("kernel: a state coded in one region decodes in another to the same code, whatever the addresses") {
  const kernel::Module& m = module();
  Setup a(m), b(m);
  REQUIRE(a.r.base() != b.r.base());
  const kernel::Codec ca(a.r, m), cb(b.r, m);
  REQUIRE(ca.bytes() == cb.bytes());
  std::vector<std::uint8_t> sa(ca.bytes()), sb(cb.bytes());
  // Insert three requests, dispatch two, finish one: lists, trees, times
  // and counters all in use.
  for (int i = 0; i < 3; ++i) {
    a.call(m, BLKMC_OP_ALLOC, i);
    a.call(m, BLKMC_OP_INSERT, i, 0);
  }
  const int d1 = a.call(m, BLKMC_OP_DISPATCH), d2 = a.call(m, BLKMC_OP_DISPATCH);
  CHECK(d1 >= 0);
  CHECK(d2 >= 0);
  a.call(m, BLKMC_OP_FINISH, d1);
  ca.encode(a.r, sa.data(), BLKMC_J0, true, 10);
  cb.decode(sa.data(), b.r);
  cb.encode(b.r, sb.data(), BLKMC_J0, true, 10);
  CHECK(sa == sb);
  // The copy behaves as the original: the same request next.
  CHECK(b.call(m, BLKMC_OP_DISPATCH) == a.call(m, BLKMC_OP_DISPATCH));
  // An incremental decode over a mirrored region gives what a whole one does.
  kernel::Codec::Mirror mirror;
  Setup c(m);
  const kernel::Codec cc(c.r, m);
  std::vector<std::uint8_t> s0(cc.bytes()), sc(cc.bytes());
  cc.encode(c.r, s0.data(), BLKMC_J0, true, 10, &mirror);
  cc.decode(sa.data(), c.r, &mirror);
  cc.encode(c.r, sc.data(), BLKMC_J0, true, 10);
  CHECK(sc == sa);
}

TEST_CASE("kernel: fixed words that change and values wider than a code go through the wide slots exactly") {
  const kernel::Module& m = module();
  Setup a(m);
  const blkmc_region* h = a.r.hdr();
  std::vector<std::uint32_t> offs;
  for (int i = 0; i < h->nobjs; ++i)
    for (std::uint64_t w = 0; w < h->objs[i].size; w += 8) offs.push_back(std::uint32_t(h->objs[i].off + w));
  std::vector<std::uint64_t> before(offs.size());
  for (std::size_t i = 0; i < offs.size(); ++i) std::memcpy(&before[i], a.r.at(offs[i]), 8);
  // Fixed: every object word, read at init (as the learning leaves them).
  const kernel::Codec all(a.r, m, std::vector<bool>(offs.size(), true));
  const kernel::Codec none(a.r, m);
  CHECK(all.fixed_words() == offs.size());
  CHECK(all.bytes() < none.bytes());
  // Requests in, one dispatched: more changed words than the 6 wide slots.
  for (int q = 0; q < 4; ++q) {
    a.call(m, BLKMC_OP_ALLOC, q);
    a.call(m, BLKMC_OP_INSERT, q, 0);
  }
  CHECK(a.call(m, BLKMC_OP_DISPATCH) >= 0);
  std::size_t changed = 0, first = offs.size();
  for (std::size_t i = 0; i < offs.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, a.r.at(offs[i]), 8);
    if (v != before[i]) {
      ++changed;
      first = std::min(first, i);
    }
  }
  REQUIRE(changed > 6);
  // More changed fixed words than slots: an error that names a word.
  std::vector<std::uint8_t> st(all.bytes());
  CHECK_THROWS_WITH_AS(all.encode(a.r, st.data(), BLKMC_J0, true, 10),
                       doctest::Contains("slots of the state for words wider"), std::runtime_error);
  // One fixed word that changed, and a value no 4-byte code holds in
  // another object word: both round-trip through a second region.
  std::vector<bool> one(offs.size(), false);
  one[first] = true;
  Setup b(m);
  const kernel::Codec cb(b.r, m, one);
  const std::size_t other = first + 1 < offs.size() ? first + 1 : 0;
  const std::uint64_t odd = 0x0123456789abcdefULL;
  std::uint64_t keep;
  std::memcpy(&keep, a.r.at(offs[other]), 8);
  std::memcpy(a.r.at(offs[other]), &odd, 8);
  std::vector<std::uint8_t> sa(cb.bytes()), sc(cb.bytes());
  cb.encode(a.r, sa.data(), BLKMC_J0, true, 10);
  Setup c(m);
  kernel::Codec::Mirror mirror;
  cb.encode(c.r, sc.data(), BLKMC_J0, true, 10, &mirror);  // c at init, mirrored
  cb.decode(sa.data(), c.r, &mirror);
  for (std::size_t i = 0; i < offs.size(); ++i) {
    std::uint64_t x, y;
    std::memcpy(&x, a.r.at(offs[i]), 8);
    std::memcpy(&y, c.r.at(offs[i]), 8);
    if (x - a.r.base() < a.r.size()) x = x - a.r.base() + c.r.base();  // a pointer into the region
    CHECK_MESSAGE(x == y, "object word ", i);
  }
  cb.encode(c.r, sc.data(), BLKMC_J0, true, 10);
  CHECK(sc == sa);
  // Back to the init state through the mirror: the slots emptied, the
  // fixed word at its value again.
  std::vector<std::uint8_t> s0(cb.bytes());
  Setup d(m);
  cb.encode(d.r, s0.data(), BLKMC_J0, true, 10);
  cb.decode(s0.data(), c.r, &mirror);
  std::uint64_t back;
  std::memcpy(&back, c.r.at(offs[first]), 8);
  std::uint64_t at_init;
  std::memcpy(&at_init, d.r.at(offs[first]), 8);
  if (at_init - d.r.base() < d.r.size()) at_init = at_init - d.r.base() + c.r.base();
  CHECK(back == at_init);
  std::memcpy(a.r.at(offs[other]), &keep, 8);
}

TEST_CASE("kernel: along random walks the canonical key and the raw words see the same steps and observations") {
  // The key (rb-tree shapes, rebased counters, old times capped) and the
  // raw words in lockstep: equal enabled steps, verdicts of every
  // invariant, measures, pending and finished, at every state.
  const std::vector<std::vector<std::string>> cases{
      {"workload=gated-write-idle"},
      {"workload=requeue-idle", "clock=1", "prio_aging_expire=5"},
      {"workload=seed002-expiry", "clock=1", "read_expire=4"},
      {"workload=passthrough-head"},
      {"workload=rt-be-cyclic", "clock=1", "prio_aging_expire=4"},
      {"workload=fair-read-write", "clock=1", "fifo_batch=4"},
  };
  const int v = variant();
  for (const auto& c : cases) {
    INFO(c.front());
    std::vector<std::string> raw_kv = c;
    raw_kv.push_back("kernel_state=raw");
    const KernelDeadlineModel key(v, params(c)), raw(v, params(raw_kv));
    const ModelInfo& info = key.info();
    CHECK(rc::check(c.front() + ": key and raw in lockstep", [&] {
      using State = KernelDeadlineModel::State;
      State k = key.initial(), r = raw.initial();
      const int len = *rc::gen::inRange(1, 80);
      for (int i = 0; i < len; ++i) {
        std::vector<std::pair<Step, State>> ks, rs;
        key.for_each_successor(k, [&](const Step& st, const State& n) { ks.emplace_back(st, n); });
        raw.for_each_successor(r, [&](const Step& st, const State& n) { rs.emplace_back(st, n); });
        RC_ASSERT(ks.size() == rs.size());
        for (std::size_t j = 0; j < ks.size(); ++j) RC_ASSERT(ks[j].first == rs[j].first);
        for (std::size_t p = 0; p < info.props.size(); ++p) {
          const PropKind kind = info.props[p].kind;
          if (kind == PropKind::Invariant) RC_ASSERT(key.violates(int(p), k) == raw.violates(int(p), r));
          if (kind == PropKind::Maximize) RC_ASSERT(key.measure(int(p), k) == raw.measure(int(p), r));
          if (kind == PropKind::Starvation) RC_ASSERT(key.pending(int(p), k) == raw.pending(int(p), r));
        }
        RC_ASSERT(key.finished(k) == raw.finished(r));
        RC_ASSERT(key.summary(k) == raw.summary(r));
        if (ks.empty()) break;
        const std::size_t pick = *rc::gen::inRange<std::size_t>(0, ks.size());
        k = ks[pick].second;
        r = rs[pick].second;
      }
    }));
  }
}

int main(int argc, char** argv) {
  setenv("RC_PARAMS", "seed=20261202 max_success=40", 0);
  return doctest::Context(argc, argv).run();
}
