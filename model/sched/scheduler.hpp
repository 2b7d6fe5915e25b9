// model/sched/scheduler: what an I/O scheduler model sees of the requests,
// and the interface every scheduler implements (mq-deadline, `none`; BFQ and
// CFQ later).
//
// Requests are the workload's request slots, referenced by small ids. Each
// has three state bytes, kept by the framework (model/sched/sched_model.hpp):
//   status | flags   where it is (St) and per-request flags (k*)
//   seq              order of entering its current place: fifo order in the
//                    scheduler, list order on hctx->dispatch, issue order in
//                    the driver (renumbered 0..k-1 within each list after every
//                    step)
//   age              ticks since insertion while queued (saturating at the
//                    scheduler's age_cap()); remaining service ticks in the driver
// A scheduler keeps its own bytes at an offset the framework gives it.
//
// The interface (a template parameter of SchedModel, no virtual calls):
//   static const std::vector<VariantInfo>& variants();
//   static std::vector<ParamInfo> params();        // tunables
//   static const char* name();                      // the model name
//   static const char* dispatch_fn();               // its .dispatch_request
//   static constexpr bool kFifoPerClass;            // seq compared only within (prio, dir)
//   static const char* summary();
//   Sched(int variant, const Params&, const RqTable&, std::size_t offset);
//   std::size_t bytes() const;
//   void init(SchedState&) const;
//   void insert(SchedState&, int rq, bool at_head, bool requeue, Why*) const;
//   int dispatch(SchedState&, Why*) const;         // a request id or -1
//   bool has_work(const SchedState&) const;
//   void completed(SchedState&, int rq, Why*) const;   // .finish_request
//   void timer(SchedState&, Why*) const;                // one tick passed
//   bool accounting_ok(const SchedState&) const;   // the books match reality
//   int expire(int dir) const;                     // ticks (>= age_cap: never)
//   int age_cap() const;
//   std::string summary(const SchedState&) const;
//   nlohmann::json json(const SchedState&) const;
//   std::vector<std::string> variable_names() const;  // footprint variables
// Optional, for properties of one scheduler only (after the generic ones):
//   static std::vector<PropInfo> extra_props();    // Invariant properties
//   bool violates_extra(int i, const SchedState&) const;  // i: index in extra_props()
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"
#include "model/params.hpp"
#include "model/sched/workload.hpp"

namespace blkmc::sched {

// 64 requests x 3 bytes + 12 processes x 2 + device, ghost and scheduler bytes.
using SchedState = ByteState<256>;

enum class St : std::uint8_t {
  Idle = 0,       // not submitted (or completed, in a cyclic process)
  Sched = 1,      // in the scheduler's sort and fifo lists
  SchedHead = 2,  // on the scheduler's dispatch list (inserted at head)
  Hctx = 3,       // on hctx->dispatch
  Driver = 4,     // issued, holds a driver tag
  Done = 5,       // completed
};
const char* st_name(St s);

// Per-request flags (high bits of the status byte).
inline constexpr std::uint8_t kInserted = 0x08;    // inserted into the scheduler in this life
                                                   // (rq->elv.priv[0] in 6.18, priv[1] in 5.15)
inline constexpr std::uint8_t kNoFifoTime = 0x10;  // rq->fifo_time never set (322cff70d46c)
inline constexpr std::uint8_t kFlagMask = 0xf8;

// What the scheduler did, for the stories: appended to by the scheduler.
using Why = std::string;

class RqTable {
 public:
  RqTable(const Workload& wl, std::size_t offset) : wl_(&wl), off_(offset) {}

  int size() const { return static_cast<int>(wl_->rqs.size()); }
  std::size_t bytes() const { return 3 * wl_->rqs.size(); }
  const Workload& workload() const { return *wl_; }
  const WlRequest& info(int r) const { return wl_->rqs[static_cast<std::size_t>(r)]; }
  const WlProc& proc_of(int r) const { return wl_->procs[static_cast<std::size_t>(info(r).proc)]; }
  int dir(int r) const { return info(r).dir; }
  int sector(int r) const { return info(r).sector; }
  int prio(int r) const { return proc_of(r).prio; }
  // "reader.3" : process name and index in its list.
  std::string name(int r) const;
  // "reader.3 (read, sector 5, BE)"
  std::string label(int r) const;

  St status(const SchedState& s, int r) const { return St(s.b[at(r)] & 7); }
  void set_status(SchedState& s, int r, St v) const {
    s.b[at(r)] = std::uint8_t((s.b[at(r)] & kFlagMask) | std::uint8_t(v));
  }
  bool flag(const SchedState& s, int r, std::uint8_t f) const { return s.b[at(r)] & f; }
  void set_flag(SchedState& s, int r, std::uint8_t f, bool on) const {
    s.b[at(r)] = std::uint8_t(on ? (s.b[at(r)] | f) : (s.b[at(r)] & ~f));
  }
  std::uint8_t seq(const SchedState& s, int r) const { return s.b[at(r) + 1]; }
  std::uint8_t& seq(SchedState& s, int r) const { return s.b[at(r) + 1]; }
  std::uint8_t age(const SchedState& s, int r) const { return s.b[at(r) + 2]; }
  std::uint8_t& age(SchedState& s, int r) const { return s.b[at(r) + 2]; }

  // In the scheduler (sort/fifo lists or its dispatch list).
  bool queued(const SchedState& s, int r) const {
    const St v = status(s, r);
    return v == St::Sched || v == St::SchedHead;
  }
  // Inserted and not yet completed: what the scheduler's books should count.
  bool outstanding(const SchedState& s, int r) const {
    const St v = status(s, r);
    return flag(s, r, kInserted) && v != St::Idle && v != St::Done;
  }

 private:
  std::size_t at(int r) const { return off_ + 3 * static_cast<std::size_t>(r); }
  const Workload* wl_;
  std::size_t off_;
};

}  // namespace blkmc::sched
