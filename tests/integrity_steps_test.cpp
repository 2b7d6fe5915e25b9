// Unit tests for every step of IntegrityModel (model/integrity/integrity.hpp), each
// variant's distinguishing behaviour, and the explorer's verdicts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/instances.hpp"
#include "explorer/checks.hpp"
#include "model/integrity/integrity.hpp"
#include "tests/model_steps.hpp"

namespace integrity_steps_test {

using namespace blkmc;
using namespace blkmc::testing;

using M = IntegrityModel;
using State = M::State;

Params params(int levels, int owner, int verify_fn = 1, int split = 0) {
  return {{"levels", levels}, {"owner", owner}, {"verify_fn", verify_fn}, {"split", split}};
}

// Follows the only enabled step until none or several are enabled; returns
// the steps taken.
std::vector<Step> follow(const M& m, State& s, int max = 100) {
  std::vector<Step> taken;
  for (int i = 0; i < max; ++i) {
    const auto succ = successors(m, s);
    if (succ.size() != 1) break;
    taken.push_back(succ[0].first);
    s = succ[0].second;
  }
  return taken;
}

// Submission of a split=0 stack down to the dispatch of the lowest bio.
std::vector<Step> submission(int levels) {
  std::vector<Step> v{step(M::kSubmitter, M::SUBMIT)};
  for (int k = 0; k + 1 < levels; ++k) v.push_back(step(M::kSubmitter, M::CLONE, k));
  v.push_back(step(M::kSubmitter, M::PREP, levels - 1));
  return v;
}

const std::vector<int> kVariants = {M::V4_12, M::StopAbusing, M::BipBlockIntegrity, M::OwnerKeeps};

TEST_CASE("integrity: info, initial state and layout") {
  const M m(M::V4_12, params(3, 0));
  const auto& info = m.info();
  CHECK(info.name == "integrity");
  REQUIRE(info.variants.size() == 4);
  CHECK(info.variants[M::V4_12].name == "v4.12");
  CHECK(info.variants[M::StopAbusing].name == "7c20f11680a4");
  CHECK(info.variants[M::BipBlockIntegrity].name == "bip-block-integrity");
  CHECK(info.variants[M::OwnerKeeps].name == "85253bac4d02");
  REQUIRE(info.props.size() == 7);
  CHECK(info.props[M::VerifyOnceAtPrepLevel].name == "verify-once-at-prep-level");
  CHECK(info.props[M::VerifyBeforeEndio].name == "verify-before-endio");
  CHECK(info.props[M::FreeOnce].name == "free-once");
  CHECK(info.props[M::EndioOnce].name == "endio-once");
  CHECK(info.props[M::OwnerPayloadUntouched].name == "owner-payload-untouched");
  CHECK(info.props[M::Deadlock].kind == PropKind::Deadlock);
  CHECK(info.props[M::Progress].kind == PropKind::Progress);
  for (int p = M::VerifyOnceAtPrepLevel; p <= M::OwnerPayloadUntouched; ++p)
    CHECK(info.props[std::size_t(p)].kind == PropKind::Invariant);
  CHECK(info.actions.at(M::ENDIO) == "bio_endio");
  CHECK(info.actions.at(M::VERIFY) == "verify");
  CHECK(info.actions.at(M::PUT) == "bio_put");

  const State s = m.initial();
  CHECK(m.sub_pc(s) == M::S_SUBMIT);
  CHECK(m.irq(s, 0) == M::I_IDLE);
  CHECK(m.work(s) == 0);
  CHECK_FALSE(m.finished(s));
  for (int p = 0; p < 5; ++p) CHECK_FALSE(m.violates(p, s));
  const auto succ = successors(m, s);
  REQUIRE(succ.size() == 1);
  CHECK(succ[0].first == step(M::kSubmitter, M::SUBMIT));

  // The schema's layout: a byte per submitter field, disk piece, context
  // field, work, remaining (split), bio field, buffer field and end_io_count;
  // the booleans packed.
  CHECK(M(0, params(1, 0)).state_bytes() == 21 + 2);
  CHECK(M(0, params(3, 0)).state_bytes() == 29 + 2);
  CHECK(M(0, params(3, 0, 1, 1)).state_bytes() == 37 + 3);
  CHECK(M(0, params(M::kMaxLevels, 1, 1, 1)).state_bytes() <= State::capacity);
  CHECK(m.nbios() == 3);
  CHECK(m.bottom() == 2);
  CHECK(m.split_bio() == -1);
  CHECK(M(0, params(3, 0, 1, 1)).split_bio() == 3);
  CHECK_THROWS_AS(M(4, params(3, 0)), UsageError);
  CHECK_THROWS_AS(M(-1, params(3, 0)), UsageError);
  CHECK(m.actor_name(M::kSubmitter) == "submitter");
  CHECK(m.actor_name(M::kIrq) == "irq");
  CHECK(m.actor_name(M::kWorker) == "kintegrityd");
  CHECK(m.actor_name(M::kIrqSplit) == "irq (split)");
}

TEST_CASE("integrity: submit_bio without and with the submitter's payload") {
  const M m0(M::V4_12, params(3, 0));
  const State a = run(m0, m0.initial(), step(M::kSubmitter, M::SUBMIT));
  CHECK(m0.sector(a, 0) == M::kBaseSector);
  CHECK_FALSE(m0.has_bip(a, 0));
  CHECK(m0.buf_life(m0.buf(a, 0)) == M::L_NONE);
  CHECK(m0.end_io(a, 0) == M::E_SUBMITTER);
  CHECK(m0.sub_pc(a) == M::S_CLONE);
  CHECK(m0.sub_arg(a) == 0);

  const M m1(M::V4_12, params(3, 1));
  const State b = run(m1, m1.initial(), step(M::kSubmitter, M::SUBMIT));
  CHECK(m1.has_bip(b, 0));
  CHECK_FALSE(M::bip_block(m1.bip(b, 0)));
  CHECK(m1.buf_life(m1.buf(b, 0)) == M::L_LIVE);
  CHECK_FALSE(m1.block_payload(b, 0));
  CHECK(m1.buf_seed(b, 0) == M::kBaseSector);
  CHECK(m1.buf_home(b, 0) == 0);

  // One level: straight to prep (or split) of bio 0.
  const M one(M::V4_12, params(1, 0));
  const State c = run(one, one.initial(), step(M::kSubmitter, M::SUBMIT));
  CHECK(one.sub_pc(c) == M::S_PREP);
  CHECK(one.sub_arg(c) == 0);
  const M ones(M::V4_12, params(1, 0, 1, 1));
  CHECK(ones.sub_pc(run(ones, ones.initial(), step(M::kSubmitter, M::SUBMIT))) == M::S_SPLIT);
}

TEST_CASE("integrity: dm levels clone the bio, remap the sector, and clone a payload as a new bip") {
  for (int owner : {0, 1}) {
    const M m(M::StopAbusing, params(3, owner));
    State s = run(m, m.initial(), step(M::kSubmitter, M::SUBMIT));
    State dummy{};
    CHECK_FALSE(m.apply(s, step(M::kSubmitter, M::CLONE, 1), dummy));  // level 0 first
    s = run(m, s, step(M::kSubmitter, M::CLONE, 0));
    CHECK(m.sector(s, 1) == M::kBaseSector + M::kRemap);
    CHECK(m.end_io(s, 1) == M::E_DM_CLONE);
    CHECK(m.has_bip(s, 1) == bool(owner));
    CHECK_FALSE(M::bip_block(m.bip(s, 1)));  // bip_flags are not copied
    CHECK(M::bip_buf(m.bip(s, 1)) == 0);     // the same protection buffer
    CHECK(m.sub_pc(s) == M::S_CLONE);
    CHECK(m.sub_arg(s) == 1);
    s = run(m, s, step(M::kSubmitter, M::CLONE, 1));
    CHECK(m.sector(s, 2) == M::kBaseSector + 2 * M::kRemap);
    CHECK(m.has_bip(s, 2) == bool(owner));
    CHECK(m.sub_pc(s) == M::S_PREP);
    CHECK(m.sub_arg(s) == 2);
    // Cloning adds bips, not buffers.
    CHECK(m.buf_life(m.buf(s, 1)) == M::L_NONE);
  }
}

TEST_CASE("integrity: bio_integrity_prep generates a payload only for a bio without one") {
  for (int v : kVariants) {
    INFO("variant " << v);
    // Block layer payload, verify_fn present.
    const M m(v, params(3, 0));
    const State s = run_all(m, m.initial(), submission(3));
    CHECK(m.has_bip(s, 2));
    CHECK(M::bip_block(m.bip(s, 2)));
    CHECK(m.block_payload(s, 0));
    CHECK(m.buf_home(s, 0) == 2);
    CHECK(m.buf_seed(s, 0) == m.sector(s, 2));
    CHECK_FALSE(m.has_bip(s, 0));
    CHECK_FALSE(m.has_bip(s, 1));
    CHECK(m.irq(s, 0) == M::I_PENDING);
    CHECK(m.sub_pc(s) == M::S_WAIT);
    if (v == M::V4_12) {  // READ: bi_end_io swapped for bio_integrity_endio
      CHECK(m.end_io(s, 2) == M::E_INTEGRITY);
      CHECK(m.saved_end_io(s, 2) == M::E_DM_CLONE);
    } else {
      CHECK(m.end_io(s, 2) == M::E_DM_CLONE);
      CHECK(m.saved_end_io(s, 2) == M::E_NONE);
    }
    // No verify_fn: no payload for a READ.
    const M nv(v, params(3, 0, 0));
    const State t = run_all(nv, nv.initial(), submission(3));
    CHECK_FALSE(nv.has_bip(t, 2));
    CHECK(nv.buf_life(nv.buf(t, 0)) == M::L_NONE);
    CHECK(nv.end_io(t, 2) == M::E_DM_CLONE);
    // Already protected: the submitter's payload passes through untouched.
    const M sp(v, params(3, 1));
    const State u = run_all(sp, sp.initial(), submission(3));
    CHECK(sp.has_bip(u, 2));
    CHECK_FALSE(M::bip_block(sp.bip(u, 2)));
    CHECK_FALSE(sp.block_payload(u, 0));
    CHECK(sp.end_io(u, 2) == M::E_DM_CLONE);
    CHECK(sp.buf_life(sp.buf(u, 1)) == M::L_NONE);
  }
}

TEST_CASE("integrity: blk_queue_split chains a front piece that is prepped and completed apart") {
  const M m(M::V4_12, params(2, 0, 1, 1));
  State s = run_all(m, m.initial(),
                    {step(M::kSubmitter, M::SUBMIT), step(M::kSubmitter, M::CLONE, 0)});
  CHECK(m.sub_pc(s) == M::S_SPLIT);
  s = run(m, s, step(M::kSubmitter, M::SPLIT, 1));
  CHECK(m.sector(s, 2) == M::kBaseSector + M::kRemap);                     // front piece
  CHECK(m.sector(s, 1) == M::kBaseSector + M::kRemap + M::kSplitSectors);  // the rest
  CHECK(m.end_io(s, 2) == M::E_CHAIN);
  CHECK(m.remaining(s) == 2);
  CHECK(m.parent(2) == 1);
  CHECK(m.sub_pc(s) == M::S_PREP);
  CHECK(m.sub_arg(s) == 2);
  // The front piece is prepped and dispatched first, with buffer 1.
  s = run(m, s, step(M::kSubmitter, M::PREP, 2));
  CHECK(M::bip_buf(m.bip(s, 2)) == 1);
  CHECK(m.buf_seed(s, 1) == m.sector(s, 2));
  CHECK(m.end_io(s, 2) == M::E_INTEGRITY);
  CHECK(m.saved_end_io(s, 2) == M::E_CHAIN);
  CHECK(m.irq(s, 1) == M::I_PENDING);
  CHECK(m.irq(s, 0) == M::I_IDLE);
  // Now both the disk (front piece) and the submitter (prep of the rest) can move.
  const auto succ = successors(m, s);
  REQUIRE(succ.size() == 2);
  s = run(m, s, step(M::kSubmitter, M::PREP, 1));
  CHECK(M::bip_buf(m.bip(s, 1)) == 0);
  CHECK(m.buf_seed(s, 0) == m.sector(s, 1));
  CHECK(m.irq(s, 0) == M::I_PENDING);
  CHECK(m.sub_pc(s) == M::S_WAIT);

  // With a submitter payload the piece gets its own bip on the same buffer.
  const M o(M::StopAbusing, params(2, 1, 1, 1));
  const State t = run_all(o, o.initial(),
                          {step(M::kSubmitter, M::SUBMIT), step(M::kSubmitter, M::CLONE, 0),
                           step(M::kSubmitter, M::SPLIT, 1)});
  CHECK(o.has_bip(t, 2));
  CHECK(M::bip_buf(o.bip(t, 2)) == 0);
  CHECK_FALSE(M::bip_block(o.bip(t, 2)));
}

TEST_CASE("integrity: the disk's completion starts bio_endio of the lowest bio in irq context") {
  const M m(M::StopAbusing, params(2, 0));
  State s = run_all(m, m.initial(), submission(2));
  CHECK_FALSE(m.data_arrived(s, 1));
  CHECK_FALSE(m.data_arrived(s, 0));
  const auto succ = successors(m, s);
  REQUIRE(succ.size() == 1);
  CHECK(succ[0].first == step(M::kIrq, M::COMPLETE, 1));
  s = run(m, s, step(M::kIrq, M::COMPLETE, 1));
  CHECK(m.irq(s, 0) == M::I_DONE);
  CHECK(m.data_arrived(s, 1));
  CHECK(m.data_arrived(s, 0));
  CHECK(M::cursor_op(m.cursor(s, M::C_IRQ)) == M::OP_ENDIO);
  CHECK(M::cursor_bio(m.cursor(s, M::C_IRQ)) == 1);
  State dummy{};
  CHECK_FALSE(m.apply(s, step(M::kIrq, M::COMPLETE, 1), dummy));  // once only
}

TEST_CASE("integrity: bio_endio of a prepped bio defers verification to kintegrityd") {
  for (int v : kVariants) {
    INFO("variant " << v);
    const M m(v, params(2, 0));
    State s = run_all(m, m.initial(), submission(2));
    s = run_all(m, s, {step(M::kIrq, M::COMPLETE, 1), step(M::kIrq, M::ENDIO, 1)});
    // v4.12 through the bi_end_io prep installed, the others through the hook.
    CHECK(m.work(s) == 0b10);
    CHECK(m.cursor(s, M::C_IRQ) == 0);
    CHECK(m.has_bip(s, 1));
    const auto succ = successors(m, s);
    REQUIRE(succ.size() == 1);
    CHECK(succ[0].first == step(M::kWorker, M::VERIFY, 1));
    // The worker verifies with the prepped bio's own sector: right.
    const State n = run(m, s, step(M::kWorker, M::VERIFY, 1));
    CHECK(m.verified(n, 0) == 1);
    CHECK(m.flags(n) == 0);
    CHECK(m.work(n) == 0);
    CHECK(M::cursor_bio(m.cursor(n, M::C_WORKER)) == 1);
    if (v == M::V4_12) {  // bi_end_io restored; the payload lives until bio_put
      CHECK(m.end_io(n, 1) == M::E_DM_CLONE);
      CHECK(m.has_bip(n, 1));
      CHECK(m.buf_life(m.buf(n, 0)) == M::L_LIVE);
    } else {  // freed by bio_integrity_verify_fn
      CHECK(M::bip_life(m.bip(n, 1)) == M::L_FREED);
      CHECK(m.buf_life(m.buf(n, 0)) == M::L_FREED);
    }
    // The rest of the chain runs in the worker: bio_endio(1) -> clone_endio
    // -> bio_endio(0) -> end_io, then the submitter's bio_put.
    State e = n;
    const auto rest = follow(m, e);
    CHECK(m.finished(e));
    CHECK(m.endio_count(e) == 1);
    CHECK(M::bip_life(m.bip(e, 1)) == M::L_FREED);
    CHECK(m.buf_life(m.buf(e, 0)) == M::L_FREED);
    for (int p = 0; p < 5; ++p) CHECK_FALSE(m.violates(p, e));
    REQUIRE(rest.size() == 4);
    CHECK(rest[0] == step(M::kWorker, M::ENDIO, 1));
    CHECK(rest[1] == step(M::kWorker, M::ENDIO, 0));
    CHECK(rest[2] == step(M::kWorker, M::END_IO));
    CHECK(rest[3] == step(M::kSubmitter, M::PUT));
  }
}

TEST_CASE("integrity: v4.12 frees a payload in bio_put, after the bio's end_io") {
  const M m(M::V4_12, params(2, 0));
  State s = run_all(m, m.initial(), submission(2));
  s = run_all(m, s,
              {step(M::kIrq, M::COMPLETE, 1), step(M::kIrq, M::ENDIO, 1),
               step(M::kWorker, M::VERIFY, 1)});
  REQUIRE(m.has_bip(s, 1));
  s = run(m, s, step(M::kWorker, M::ENDIO, 1));  // clone_endio: bio_put(bio 1)
  CHECK(M::bip_life(m.bip(s, 1)) == M::L_FREED);
  CHECK(m.buf_life(m.buf(s, 0)) == M::L_FREED);
  CHECK(M::cursor_bio(m.cursor(s, M::C_WORKER)) == 0);
  // levels=1: the submitter's own bio is prepped; its bio_put frees the payload.
  const M one(M::V4_12, params(1, 0));
  State t = run_all(one, one.initial(), submission(1));
  CHECK(one.end_io(t, 0) == M::E_INTEGRITY);
  CHECK(one.saved_end_io(t, 0) == M::E_SUBMITTER);
  follow(one, t);
  CHECK(one.finished(t));
  CHECK(one.buf_life(one.buf(t, 0)) == M::L_FREED);
  CHECK(one.endio_count(t) == 1);
  for (int p = 0; p < 5; ++p) CHECK_FALSE(one.violates(p, t));
}

TEST_CASE("integrity: 7c20f11680a4 verifies a submitter's payload at every level with that level's sector") {
  const M m(M::StopAbusing, params(3, 1));
  State s = run_all(m, m.initial(), submission(3));
  const auto steps = follow(m, s);
  CHECK(m.finished(s));
  // Every level: bio_endio queues, kintegrityd verifies, bio_endio again.
  std::vector<int> verified_bios;
  for (const Step& st : steps)
    if (st.action == M::VERIFY) verified_bios.push_back(st.arg);
  CHECK(verified_bios == std::vector<int>{2, 1, 0});
  CHECK(m.verified(s, 0) == 3);
  CHECK((m.flags(s) & M::kBadVerify) != 0);
  CHECK((m.flags(s) & M::kOwnerVerified) != 0);
  CHECK((m.flags(s) & M::kOwnerFreed) != 0);      // bio 0's bip, before end_io
  CHECK((m.flags(s) & M::kEndioMismatch) != 0);
  CHECK((m.flags(s) & M::kDoubleFree) == 0);      // each bip is its own object
  CHECK(m.endio_count(s) == 1);
  CHECK(m.buf_life(m.buf(s, 0)) == M::L_FREED);  // by the submitter, in bio_put
  for (int b = 0; b < 3; ++b) CHECK(M::bip_life(m.bip(s, b)) == M::L_FREED);
  CHECK(m.violates(M::VerifyOnceAtPrepLevel, s));
  CHECK(m.violates(M::VerifyBeforeEndio, s));
  CHECK(m.violates(M::OwnerPayloadUntouched, s));
  CHECK_FALSE(m.violates(M::FreeOnce, s));
  CHECK_FALSE(m.violates(M::EndioOnce, s));

  // The first verification: the lowest clone, its sector 40 against seed 8.
  State f = run_all(m, m.initial(), submission(3));
  f = run_all(m, f, {step(M::kIrq, M::COMPLETE, 2), step(M::kIrq, M::ENDIO, 2)});
  CHECK(m.work(f) == 0b100);
  const State g = run(m, f, step(M::kWorker, M::VERIFY, 2));
  CHECK(m.verified(g, 0) == 1);
  CHECK(m.violates(M::VerifyOnceAtPrepLevel, g));
  CHECK(m.violates(M::OwnerPayloadUntouched, g));
  CHECK_FALSE(m.violates(M::VerifyBeforeEndio, g));  // end_io has not run yet
  const std::string d = m.describe(f, step(M::kWorker, M::VERIFY, 2));
  CHECK(d.find("sector 40") != std::string::npos);
  CHECK(d.find("seeded with 8") != std::string::npos);
  CHECK(d.find("MISMATCH") != std::string::npos);
}

TEST_CASE("integrity: a NULL verify_fn oopses kintegrityd under 7c20f11680a4 and nowhere else") {
  const M m(M::StopAbusing, params(2, 1, 0));
  State s = run_all(m, m.initial(), submission(2));
  s = run_all(m, s, {step(M::kIrq, M::COMPLETE, 1), step(M::kIrq, M::ENDIO, 1)});
  const std::string d = m.describe(s, step(M::kWorker, M::VERIFY, 1));
  CHECK(d.find("verify_fn is NULL") != std::string::npos);
  s = run(m, s, step(M::kWorker, M::VERIFY, 1));
  CHECK(m.oops(s) == 1);
  CHECK(m.verified(s, 0) == 0);
  CHECK(m.violates(M::OwnerPayloadUntouched, s));
  CHECK(m.violates(M::VerifyOnceAtPrepLevel, s));
  CHECK(successors(m, s).empty());
  CHECK_FALSE(m.finished(s));
  CHECK(m.summary(s).find("DEAD") != std::string::npos);

  for (int v : {M::V4_12, M::BipBlockIntegrity, M::OwnerKeeps}) {
    INFO("variant " << v);
    const M n(v, params(2, 1, 0));
    State t = run_all(n, n.initial(), submission(2));
    const auto taken = follow(n, t);
    CHECK(n.finished(t));
    CHECK(std::none_of(taken.begin(), taken.end(),
                       [](const Step& st) { return st.action == M::VERIFY; }));
  }
}

TEST_CASE("integrity: bip-block-integrity frees a submitter's bip at completion, even bio 0's") {
  const M m(M::BipBlockIntegrity, params(3, 1));
  State s = run_all(m, m.initial(), submission(3));
  s = run_all(m, s, {step(M::kIrq, M::COMPLETE, 2), step(M::kIrq, M::ENDIO, 2)});
  CHECK(m.work(s) == 0);                                // not verified ...
  CHECK(M::bip_life(m.bip(s, 2)) == M::L_FREED);        // ... but freed
  CHECK(m.buf_life(m.buf(s, 0)) == M::L_LIVE);          // not the submitter's buffer
  CHECK_FALSE(m.violates(M::OwnerPayloadUntouched, s));  // a dm clone's bip
  s = run_all(m, s, {step(M::kIrq, M::ENDIO, 1)});
  CHECK(M::bip_life(m.bip(s, 1)) == M::L_FREED);
  const std::string d = m.describe(s, step(M::kIrq, M::ENDIO, 0));
  CHECK(d.find("SUBMITTER's own bip") != std::string::npos);
  s = run(m, s, step(M::kIrq, M::ENDIO, 0));
  CHECK(M::bip_life(m.bip(s, 0)) == M::L_FREED);
  CHECK(m.violates(M::OwnerPayloadUntouched, s));
  CHECK(m.sub_pc(s) == M::S_WAIT);  // end_io has not run yet
  const std::string e = m.describe(s, step(M::kIrq, M::END_IO));
  CHECK(e.find("bio_integrity(bio 0) is NULL") != std::string::npos);
  follow(m, s);
  CHECK(m.finished(s));
  CHECK(m.verified(s, 0) == 0);
  CHECK_FALSE(m.violates(M::VerifyOnceAtPrepLevel, s));
  CHECK_FALSE(m.violates(M::VerifyBeforeEndio, s));
  CHECK_FALSE(m.violates(M::FreeOnce, s));
}

TEST_CASE("integrity: 85253bac4d02 and v4.12 leave a submitter's payload to its owner") {
  for (int v : {M::V4_12, M::OwnerKeeps}) {
    INFO("variant " << v);
    const M m(v, params(3, 1));
    State s = run_all(m, m.initial(), submission(3));
    s = run_all(m, s, {step(M::kIrq, M::COMPLETE, 2), step(M::kIrq, M::ENDIO, 2)});
    // dm's clone_endio puts the clone: its bip goes with it.
    CHECK(M::bip_life(m.bip(s, 2)) == M::L_FREED);
    CHECK(m.has_bip(s, 1));
    s = run_all(m, s, {step(M::kIrq, M::ENDIO, 1), step(M::kIrq, M::ENDIO, 0)});
    CHECK(m.has_bip(s, 0));  // still attached for the submitter's end_io
    s = run(m, s, step(M::kIrq, M::END_IO));
    CHECK(m.endio_count(s) == 1);
    CHECK(m.has_bip(s, 0));
    CHECK(m.sub_pc(s) == M::S_PUT);
    s = run(m, s, step(M::kSubmitter, M::PUT));
    CHECK(M::bip_life(m.bip(s, 0)) == M::L_FREED);
    CHECK(m.buf_life(m.buf(s, 0)) == M::L_FREED);
    CHECK(m.finished(s));
    for (int p = 0; p < 5; ++p) CHECK_FALSE(m.violates(p, s));
  }
}

TEST_CASE("integrity: the chained parent continues only on the last piece's bio_endio") {
  for (int v : kVariants) {
    INFO("variant " << v);
    const M m(v, params(2, 0, 1, 1));
    State s = run_all(m, m.initial(),
                      {step(M::kSubmitter, M::SUBMIT), step(M::kSubmitter, M::CLONE, 0),
                       step(M::kSubmitter, M::SPLIT, 1), step(M::kSubmitter, M::PREP, 2),
                       step(M::kSubmitter, M::PREP, 1)});
    // The rest completes first: its bio_endio only drops __bi_remaining.
    s = run_all(m, s, {step(M::kIrq, M::COMPLETE, 1), step(M::kIrq, M::ENDIO, 1)});
    CHECK(m.remaining(s) == 1);
    CHECK(m.work(s) == 0);
    CHECK(m.cursor(s, M::C_IRQ) == 0);
    // The front piece: verified, then bio_chain_endio -> bio_endio(parent).
    s = run_all(m, s,
                {step(M::kIrqSplit, M::COMPLETE, 2), step(M::kIrqSplit, M::ENDIO, 2),
                 step(M::kWorker, M::VERIFY, 2), step(M::kWorker, M::ENDIO, 2)});
    CHECK(m.verified(s, 1) == 1);
    CHECK(M::bip_life(m.bip(s, 2)) == M::L_FREED);
    CHECK(M::cursor_bio(m.cursor(s, M::C_WORKER)) == 1);
    s = run(m, s, step(M::kWorker, M::ENDIO, 1));
    CHECK(m.remaining(s) == 0);
    CHECK(m.work(s) == 0b10);  // now the parent's own payload
    follow(m, s);
    CHECK(m.finished(s));
    CHECK(m.verified(s, 0) == 1);
    CHECK(m.verified(s, 1) == 1);
    for (int p = 0; p < 5; ++p) CHECK_FALSE(m.violates(p, s));
  }
}

TEST_CASE("integrity: violates() reads the ghosts; free-once also catches a leak at the end") {
  const M m(M::V4_12, params(2, 0));
  const State s = m.initial();
  auto with = [&](std::uint8_t f) {
    State t = s;
    m.set_flags(t, f);
    CHECK(m.flags(t) == (f & 0x7f));
    return t;
  };
  CHECK(m.violates(M::VerifyOnceAtPrepLevel, with(M::kBadVerify)));
  CHECK(m.violates(M::VerifyBeforeEndio, with(M::kEarlyVerify)));
  CHECK(m.violates(M::VerifyBeforeEndio, with(M::kEndioMismatch)));
  CHECK(m.violates(M::FreeOnce, with(M::kDoubleFree)));
  CHECK(m.violates(M::FreeOnce, with(M::kUseAfterFree)));
  CHECK(m.violates(M::OwnerPayloadUntouched, with(M::kOwnerVerified)));
  CHECK(m.violates(M::OwnerPayloadUntouched, with(M::kOwnerFreed)));
  CHECK_FALSE(m.violates(M::VerifyOnceAtPrepLevel, with(M::kOwnerFreed)));
  CHECK_FALSE(m.violates(M::FreeOnce, with(M::kBadVerify | M::kEndioMismatch)));
  State twice = s;
  m.set_verified(twice, 1, 2);
  CHECK(m.violates(M::VerifyOnceAtPrepLevel, twice));
  State e = s;
  m.set_endio_count(e, 2);
  CHECK(m.violates(M::EndioOnce, e));
  CHECK_FALSE(m.violates(M::Deadlock, with(0xff)));
  CHECK_FALSE(m.violates(M::Progress, with(0xff)));

  // A finished run with a bip still attached leaks.
  State f = run_all(m, m.initial(), submission(2));
  follow(m, f);
  REQUIRE(m.finished(f));
  CHECK_FALSE(m.violates(M::FreeOnce, f));
  State leak = f;
  m.set_bip(leak, 1, M::L_LIVE);
  CHECK(m.violates(M::FreeOnce, leak));
  State leak2 = f;
  m.set_buf(leak2, 0, M::L_LIVE | M::kBufBlock);
  CHECK(m.violates(M::FreeOnce, leak2));
}

TEST_CASE("integrity: explorer verdicts for every variant and payload kind") {
  // Expected violations per (variant, owner, verify_fn); everything else holds.
  struct Row {
    int variant, owner, verify_fn;
    std::set<int> violated;
  };
  const std::vector<Row> rows = {
      {M::V4_12, 0, 1, {}},
      {M::V4_12, 1, 1, {}},
      {M::V4_12, 1, 0, {}},
      {M::StopAbusing, 0, 1, {}},
      {M::StopAbusing, 1, 1,
       {M::VerifyOnceAtPrepLevel, M::VerifyBeforeEndio, M::OwnerPayloadUntouched}},
      {M::StopAbusing, 1, 0,
       {M::VerifyOnceAtPrepLevel, M::OwnerPayloadUntouched, M::Deadlock, M::Progress}},
      {M::BipBlockIntegrity, 0, 1, {}},
      {M::BipBlockIntegrity, 1, 1, {M::OwnerPayloadUntouched}},
      {M::BipBlockIntegrity, 1, 0, {M::OwnerPayloadUntouched}},
      {M::OwnerKeeps, 0, 1, {}},
      {M::OwnerKeeps, 1, 1, {}},
      {M::OwnerKeeps, 1, 0, {}},
  };
  for (const Row& r : rows)
    for (int levels : {1, 3})
      for (int split : {0, 1}) {
        const M m(r.variant, params(levels, r.owner, r.verify_fn, split));
        SearchOptions o;
        o.progress = false;
        const auto res = explore(m, o);
        REQUIRE(res.stop == StopReason::Complete);
        for (const auto& po : res.props) {
          INFO("variant " << r.variant << " owner " << r.owner << " verify_fn " << r.verify_fn
                          << " levels " << levels << " split " << split << " prop "
                          << m.info().props[std::size_t(po.prop)].name);
          const bool want = r.violated.count(po.prop) > 0;
          CHECK((po.verdict == Verdict::Violated) == want);
          if (!want) CHECK(po.verdict == Verdict::Holds);
        }
      }
}

TEST_CASE("integrity: shortest counterexamples tell the seed's story") {
  SearchOptions o;
  o.progress = false;
  // 7c20f11680a4, submitter payload, verify-before-endio: the whole chain.
  const M m(M::StopAbusing, params(3, 1));
  o.props = {M::VerifyBeforeEndio};
  const auto r = explore(m, o);
  REQUIRE(r.props[0].trace);
  const auto& cx = *r.props[0].trace;
  CHECK(cx.steps.size() == 15);
  int verifies = 0;
  for (const Step& st : cx.steps) verifies += st.action == M::VERIFY;
  CHECK(verifies == 3);
  CHECK(cx.steps.back().action == M::END_IO);
  // With a NULL verify_fn: stuck after the oops.
  const M n(M::StopAbusing, params(3, 1, 0));
  o.props = {M::Deadlock};
  const auto d = explore(n, o);
  REQUIRE(d.props[0].trace);
  CHECK(d.props[0].trace->steps.size() == 7);
  CHECK(d.props[0].trace->steps.back() == step(M::kWorker, M::VERIFY, 2));
}

TEST_CASE("integrity: state counts are small") {
  auto count = [](int v, const Params& p) {
    const M m(v, p);
    SearchOptions o;
    o.progress = false;
    return explore(m, o).stats.states;
  };
  // One chain: the state space is a line.
  CHECK(count(M::V4_12, params(3, 0)) == 13);
  CHECK(count(M::StopAbusing, params(3, 1)) == 17);
  // A split adds the two pieces' interleavings.
  CHECK(count(M::V4_12, params(3, 0, 1, 1)) == 35);
  CHECK(count(M::OwnerKeeps, params(M::kMaxLevels, 1, 1, 1)) < 1000);
}

TEST_CASE("integrity: independent steps commute in every reachable state") {
  int independent = 0;
  for (int v : kVariants)
    for (int owner : {0, 1})
      for (int vf : {0, 1})
        for (int split : {0, 1}) {
          const M m(v, params(2, owner, vf, split));
          std::set<std::string> seen;
          std::deque<State> todo{m.initial()};
          while (!todo.empty()) {
            const State s = todo.front();
            todo.pop_front();
            const std::string key(reinterpret_cast<const char*>(s.b.data()), m.state_bytes());
            if (!seen.insert(key).second) continue;
            const auto succ = successors(m, s);
            for (std::size_t i = 0; i < succ.size(); ++i) {
              todo.push_back(succ[i].second);
              for (std::size_t j = i + 1; j < succ.size(); ++j) {
                const Step &a = succ[i].first, &b = succ[j].first;
                if (a.actor == b.actor) continue;
                if (!m.footprint(s, a).independent_of(m.footprint(s, b))) continue;
                ++independent;
                State ab{}, ba{};
                REQUIRE(m.apply(succ[i].second, b, ab));
                REQUIRE(m.apply(succ[j].second, a, ba));
                CHECK(std::memcmp(ab.b.data(), ba.b.data(), m.state_bytes()) == 0);
              }
            }
          }
        }
  CHECK(independent > 0);
}

TEST_CASE("integrity: footprints name the bios a step touches") {
  const M m(M::StopAbusing, params(3, 1, 1, 1));
  const State s = m.initial();
  const Footprint c = m.footprint(s, step(M::kSubmitter, M::CLONE, 1));
  for (const char* n : {"sector[1]", "bip[1]", "buffer[1]", "bi_end_io[1]"})
    CHECK(c.reads.test(std::size_t(var_index(m, n))));
  for (const char* n : {"sector[2]", "bip[2]", "bip_block_integrity[2]", "bip_end_io[2]"})
    CHECK(c.writes.test(std::size_t(var_index(m, n))));
  CHECK_FALSE(c.writes.test(std::size_t(var_index(m, "sector[1]"))));
  const Footprint v = m.footprint(s, step(M::kWorker, M::VERIFY, 3));
  CHECK(v.writes.test(std::size_t(var_index(m, "bip[3]"))));
  CHECK(v.reads.test(std::size_t(var_index(m, "disk[1]"))));  // data arrived?
  const Footprint k = m.footprint(s, step(M::kIrqSplit, M::COMPLETE, 3));
  CHECK(k.writes.test(std::size_t(var_index(m, "disk[1]"))));
  CHECK(k.writes.test(std::size_t(var_index(m, "next[2]"))));  // the split irq's context
  CHECK_FALSE(k.independent_of(v));
  // submitter 2, pieces 2, contexts 3 x 2, kintegrityd 2, remaining, 4 bios x 6,
  // 2 buffers x 5, ghost 8.
  CHECK(m.variable_names().size() == 2 + 2 + 6 + 2 + 1 + 24 + 10 + 8);
}

TEST_CASE("integrity: describe, summary and state_json") {
  const M m(M::V4_12, params(2, 0));
  State s = run(m, m.initial(), step(M::kSubmitter, M::SUBMIT));
  CHECK(m.describe(m.initial(), step(M::kSubmitter, M::SUBMIT)).find("submit_bio") == 0);
  const std::string c = m.describe(s, step(M::kSubmitter, M::CLONE, 0));
  CHECK(c.find("clone bio 1 (sector 24)") != std::string::npos);
  s = run(m, s, step(M::kSubmitter, M::CLONE, 0));
  const std::string p = m.describe(s, step(M::kSubmitter, M::PREP, 1));
  CHECK(p.find("BIP_BLOCK_INTEGRITY") != std::string::npos);
  CHECK(p.find("bi_end_io = bio_integrity_endio") != std::string::npos);
  s = run_all(m, s, {step(M::kSubmitter, M::PREP, 1), step(M::kIrq, M::COMPLETE, 1)});
  CHECK(m.describe(s, step(M::kIrq, M::ENDIO, 1)).find("bi_end_io = bio_integrity_endio") !=
        std::string::npos);
  s = run(m, s, step(M::kIrq, M::ENDIO, 1));
  const std::string v = m.describe(s, step(M::kWorker, M::VERIFY, 1));
  CHECK(v.find("tags match") != std::string::npos);
  CHECK(v.find("restored") != std::string::npos);
  CHECK(m.summary(s).find("work{1}") != std::string::npos);
  const auto j = m.state_json(s);
  CHECK(j["submitter"]["pc"] == "wait");
  CHECK(j["bios"][1]["bi_end_io"] == "bio_integrity_endio");
  CHECK(j["bios"][1]["bip_end_io"] == "clone_endio");
  CHECK(j["bios"][1]["bip"] == "live");
  CHECK(j["buffers"][0]["block"] == true);
  CHECK(j["kintegrityd"]["work"] == 2);
  CHECK(j["ghost"]["bad_verify"] == false);
  CHECK_FALSE(j.contains("irq_split"));
  // Bytes beyond state_bytes() stay zero along a run.
  follow(m, s);
  for (std::size_t i = m.state_bytes(); i < State::capacity; ++i) CHECK(s.b[i] == 0);
}

}  // namespace integrity_steps_test
