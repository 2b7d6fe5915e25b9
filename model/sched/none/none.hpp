// model/sched/none/none: the `none` elevator, blk-mq without an I/O scheduler.
#pragma once

#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

// No elevator: blk-mq's software queues, dispatched in arrival order; an
// at-head insert goes in front (blk_mq_insert_request(rq, AT_HEAD)).
class NoneScheduler {
 public:
  static const std::vector<VariantInfo>& variants();
  static std::vector<ParamInfo> params() { return {}; }
  static const char* name() { return "none"; }
  static const char* dispatch_fn() { return "blk_mq_flush_busy_ctxs"; }
  // Fifo order matters only within one priority and direction.
  static constexpr bool kFifoPerClass = false;
  static const char* summary();

  NoneScheduler(int variant, const Params&, const RqTable& t);
  void declare(Schema&, SchemaSlots&) {}  // no variables of its own
  void init(SchedState&) const {}
  void insert(SchedState& s, int rq, bool at_head, bool requeue, Why* why) const;
  int dispatch(SchedState& s, Why* why) const;
  bool has_work(const SchedState& s) const;
  void completed(SchedState&, int, Why*) const {}
  void timer(SchedState&, Why*) const {}
  bool accounting_ok(const SchedState&) const { return true; }
  int expire(int) const { return 256; }  // no deadlines
  int age_cap() const { return 1; }
  // Symmetry (model/sched/sched_symmetry.hpp): a fifo, no sector read,
  // nothing kept per process.
  static constexpr bool kReadsSectors = false;
  void rename(SchedState&, const SchedState&, const std::vector<int>&, const std::vector<int>&) const {}
  int compare_procs(const SchedState&, int, int) const { return 0; }
  // Abstraction (model/sched/sched_abstraction.hpp): the fifo holds what is
  // not yet dispatched; nothing reads the driver's order.
  static constexpr bool kReadsServiceOrder = false;
  std::string summary(const SchedState&) const { return "none"; }
  nlohmann::json json(const SchedState&) const { return nlohmann::json::object(); }

 private:
  const RqTable& t_;
};

}  // namespace blkmc::sched
