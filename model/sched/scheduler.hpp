// model/sched/scheduler: what an I/O scheduler model sees of the requests,
// and the interface every scheduler implements (mq-deadline, `none`, BFQ,
// CFQ).
//
// Requests are the workload's request slots, referenced by small ids. The
// framework (model/sched/sched_model.hpp) declares one copy of these
// variables per request (the schema's block "rq", model/schema.hpp):
//   status           where it is (St)
//   inserted         kInserted: inserted into the scheduler in this life
//   nofifotime       kNoFifoTime: rq->fifo_time never set
//   seq              order of entering its current place: fifo order in the
//                    scheduler, list order on hctx->dispatch, issue order in
//                    the driver (renumbered 0..k-1 within each list after every
//                    step)
//   age              ticks since insertion while queued (saturating at the
//                    scheduler's age_cap()); remaining service ticks in the driver
// A scheduler declares its own variables in the same schema (declare, before
// the layout), each bound there to the member that reads it (SchemaSlots,
// model/schema.hpp: bound after the layout): every byte of the state comes
// from one declaration, and every variable is named once.
//
// The interface (a template parameter of SchedModel, no virtual calls):
//   static const std::vector<VariantInfo>& variants();
//   static std::vector<ParamInfo> params();        // tunables
//   static const char* name();                      // the model name
//   static const char* dispatch_fn();               // its .dispatch_request
//   static constexpr bool kFifoPerClass;            // seq compared only within (prio, dir)
//   static const char* summary();
//   Sched(int variant, const Params&, const RqTable&);
//   void declare(Schema&, SchemaSlots&);           // its variables, bound to its slots
//   void resolve(const Schema&);                   // optional: checks after the layout
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
#include "model/schema.hpp"
#include "model/sched/workload.hpp"

namespace blkmc::sched {

// 64 requests x 3.25 bytes + 12 processes x 2 + device, ghost and scheduler
// bytes; BFQ's v6.12 variant keeps about 45 bytes a queue and one a request
// (gated-write-idle: 409). A state stores only the bytes its schema uses.
using SchedState = ByteState<512>;

// The state a scheduler's model uses: SchedState, unless the scheduler
// names a larger one (Sched::State: the kernel's own code keeps its memory
// in the state).
template <class Sched>
struct SchedStateOf {
  using type = SchedState;
};
template <class Sched>
  requires requires { typename Sched::State; }
struct SchedStateOf<Sched> {
  using type = typename Sched::State;
};

enum class St : std::uint8_t {
  Idle = 0,       // not submitted (or completed, in a cyclic process)
  Sched = 1,      // in the scheduler's sort and fifo lists
  SchedHead = 2,  // on the scheduler's dispatch list (inserted at head)
  Hctx = 3,       // on hctx->dispatch
  Driver = 4,     // issued, holds a driver tag
  Done = 5,       // completed
};
// St's value names (state_json, the schema's enumeration).
inline const std::vector<std::string>& st_names() {
  static const std::vector<std::string> v{"idle", "sched", "sched-head", "hctx", "driver", "done"};
  return v;
}
inline const char* st_name(St s) {
  const auto i = static_cast<std::size_t>(s);
  return i < st_names().size() ? st_names()[i].c_str() : "?";
}

// Per-request flags (a mask of them for flag/set_flag).
inline constexpr std::uint8_t kInserted = 0x08;    // inserted into the scheduler in this life
                                                   // (rq->elv.priv[0] in 6.18, priv[1] in 5.15)
inline constexpr std::uint8_t kNoFifoTime = 0x10;  // rq->fifo_time never set (322cff70d46c)
inline constexpr std::uint8_t kFlagMask = kInserted | kNoFifoTime;

// What the scheduler did, for the stories: appended to by the scheduler.
using Why = std::string;

class RqTable {
 public:
  explicit RqTable(const Workload& wl) : wl_(&wl) {}

  // The block "rq": one copy of the request variables per request, bound
  // to this table's slots by slots.bind() after the layout.
  void declare(Schema& sc, SchemaSlots& slots);

  int size() const { return static_cast<int>(wl_->rqs.size()); }
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

  // Accessors over any state that holds the block "rq" (SchedState, or a
  // scheduler's larger State: model/sched/kernel/kernel_sched.hpp).
  template <class S>
  St status(const S& s, int r) const { return St(status_.get(s, r)); }
  template <class S>
  void set_status(S& s, int r, St v) const { status_.set(s, r, int(v)); }
  // f: a mask of kInserted and kNoFifoTime (any of them set).
  template <class S>
  bool flag(const S& s, int r, std::uint8_t f) const {
    return ((f & kInserted) && inserted_.test(s, r)) || ((f & kNoFifoTime) && nofifo_.test(s, r));
  }
  template <class S>
  void set_flag(S& s, int r, std::uint8_t f, bool on) const {
    if (f & kInserted) inserted_.set(s, r, on);
    if (f & kNoFifoTime) nofifo_.set(s, r, on);
  }
  template <class S>
  int seq(const S& s, int r) const { return seq_.get(s, r); }
  template <class S>
  void set_seq(S& s, int r, int v) const { seq_.set(s, r, v); }
  template <class S>
  int age(const S& s, int r) const { return age_.get(s, r); }
  template <class S>
  void set_age(S& s, int r, int v) const { age_.set(s, r, v); }

  // In the scheduler (sort/fifo lists or its dispatch list).
  template <class S>
  bool queued(const S& s, int r) const {
    const St v = status(s, r);
    return v == St::Sched || v == St::SchedHead;
  }
  // Inserted and not yet completed: what the scheduler's books should count.
  template <class S>
  bool outstanding(const S& s, int r) const {
    const St v = status(s, r);
    return flag(s, r, kInserted) && v != St::Idle && v != St::Done;
  }

 private:
  const Workload* wl_;
  ByteVar seq_, age_;
  FieldVar status_, inserted_, nofifo_;  // one byte per request
};

}  // namespace blkmc::sched
