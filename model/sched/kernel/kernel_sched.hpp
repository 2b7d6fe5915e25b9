// model/sched/kernel/kernel_sched: the kernel's own scheduler code as a
// scheduler of the framework (model/sched/sched_model.hpp): the user's
// block/mq-deadline.c or BFQ (block/bfq-iosched.c with bfq-wf2q.c and
// bfq-cgroup.c), compiled against blkmc's shim (kernel_build.hpp) and
// driven through its elevator_mq_ops, one call per step, as blk-mq calls
// it under the elevator lock (shim/harness.c says which blk-mq path each
// call stands for). What differs between the families (names, tunables,
// the canonical form) is a Code class: DeadlineCode, BfqCode.
//
// Its variants are the sources this process loaded (kernel_source.hpp);
// its tunables are set through the file's own sysfs store functions, as
// `echo V > queue/iosched/NAME` would, after init_sched, and read back
// through show. Its state: the framework's variables (the requests' place,
// the processes, the device, the ghosts), the region's words
// (kernel_codec.hpp, the block "kernel"), and what the last call left that
// the framework asks for without a call: has_work, the file's books
// (dd_queued per priority, from the walker) and how the call ended.
//
// kernel_state=key (default) stores a state in its canonical form: for
// mq-deadline the rb-trees rebuilt in one shape per order, the file's
// counters rebased (shim/walk_deadline.h), times older than time_cap ticks
// as time_cap; for BFQ only q->last_merge cleared (its service trees carry
// data derived from their shape, and its times reach seconds back), and
// times past time_cap where one is given. kernel_state=raw stores the
// region's words as the code left them (positions and times relative,
// nothing else changed): the reference the canonical key is tested against.
//
// BFQ's idle-slice hrtimer is armed in the region and fired by the harness:
// at its expiry tick (clock=1), or when blk-mq finds nothing to dispatch
// while it is armed (clock=0, as the hand models do). `current` is the
// workload process for a request's allocation and insert (its io_context
// and io_cq: BFQ's per-process queues), blkmc's kernel thread otherwise.
//
// A call that ends in BUG, WARN, a fault, no return or a request pointer
// that is none is a violation of `kernel-bug`; one that does what blkmc
// does not model (a merge, an allocation after init, a write to a global
// or to a request field blkmc keeps constant) of `kernel-in-model`. The
// state after either is halted (no successors: the kernel stopped there).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/sched/kernel/kernel_build.hpp"
#include "model/sched/kernel/kernel_codec.hpp"
#include "model/sched/kernel/kernel_module.hpp"
#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

// A state of the kernel-code model: the framework's bytes and a region's
// (at most Code::kStateBytes).

// What the framework knows of the requests, for the books' check: per
// priority those inserted and not completed, and how many are in the
// scheduler's queues and on its dispatch list (inserted at head).
struct Truth {
  int outstanding[3] = {0, 0, 0};
  int sched = 0, head = 0;
};

// mq-deadline: block/mq-deadline.c, its tunables and its walker.
struct DeadlineCode {
  static const char* name() { return "deadline"; }
  static const char* summary();
  static std::vector<ParamInfo> tunables();
  static constexpr bool kCanonTrees = true;  // its lookups depend on order only
  static constexpr bool kFifoPerClass = true;
  static constexpr int kLearnWalks = 64;  // random runs that find the words init's values keep
  static constexpr int kExtraWide = 0;    // wide slots beyond the codec's own rule
  static constexpr std::size_t kStateBytes = 3072;
  // Request deadlines in ticks (expire), the age a request saturates at,
  // the default time cap of kernel_state=key, and how far the learning
  // walks' clock jumps.
  static void times(const Params& p, int& read_expire, int& write_expire, int& age_cap, std::int64_t& clamp,
                    int& learn_span);
  // The walker's books against the framework's, and the walker's view as a
  // state's line and JSON.
  static bool books_ok(const int books[3], const Truth& t);
  static std::string story(const RqTable& t, const blkmc_region& r);
  static void story_json(const RqTable& t, const blkmc_region& r, nlohmann::json& j);
};

// BFQ: block/bfq-iosched.c with bfq-wf2q.c and bfq-cgroup.c.
struct BfqCode {
  static const char* name() { return "bfq"; }
  static const char* summary();
  static std::vector<ParamInfo> tunables();
  static constexpr bool kCanonTrees = false;  // wf2q's trees keep min_start by shape
  static constexpr bool kFifoPerClass = false;
  static constexpr int kLearnWalks = 512;  // more paths: injection, idling, merging, splitting
  // Its rate and think-time estimates, seek histories and budgets take
  // values of any width once the clock runs.
  static constexpr int kExtraWide = 16;
  // Its queues (a pool of bfq_queue objects) and its bfq_data are most of
  // a state: 2.7 KB on two processes' eight requests.
  static constexpr std::size_t kStateBytes = 8192;
  static void times(const Params& p, int& read_expire, int& write_expire, int& age_cap, std::int64_t& clamp,
                    int& learn_span);
  static bool books_ok(const int books[3], const Truth& t);
  static std::string story(const RqTable& t, const blkmc_region& r);
  static void story_json(const RqTable& t, const blkmc_region& r, nlohmann::json& j);
};

template <class Code>
class KernelSched {
 public:
  using State = ByteState<Code::kStateBytes>;
  static const std::vector<VariantInfo>& variants();  // the loaded sources
  static unsigned variants_generation();
  static std::vector<ParamInfo> params();
  static const char* name() { return Code::name(); }
  static const char* dispatch_fn() { return ".dispatch_request"; }
  static constexpr bool kFifoPerClass = Code::kFifoPerClass;
  static const char* summary() { return Code::summary(); }
  static std::vector<PropInfo> extra_props();

  KernelSched(int variant, const Params& p, const RqTable& t);
  ~KernelSched();

  void declare(Schema& sc, SchemaSlots& slots);
  void resolve(const Schema& sc);  // after the layout: the region's bytes contiguous
  void init(State& s) const;
  void insert(State& s, int rq, bool at_head, bool requeue, Why* why) const;
  int dispatch(State& s, Why* why) const;
  bool has_work(const State& s) const { return has_work_.test(s); }
  void completed(State& s, int rq, Why* why) const;
  void timer(State& s, Why* why) const;
  bool accounting_ok(const State& s) const;
  int expire(int dir) const { return dir == READ ? read_expire_ : write_expire_; }
  int age_cap() const { return age_cap_; }
  std::string summary(const State& s) const;
  nlohmann::json json(const State& s) const;
  // kernel-bug: a call ended in BUG, WARN, a fault, no return or a bad
  // request pointer; kernel-in-model: in something blkmc does not model.
  bool violates_extra(int i, const State& s) const {
    const int st = status(s);
    return i == 0 ? st != BLKMC_OK && st != BLKMC_HARNESS : i == 1 && st == BLKMC_HARNESS;
  }
  // The kernel stopped (a kernel-bug state): no step follows.
  bool halted(const State& s) const { return status(s) != BLKMC_OK; }

  const kernel::Source& source() const { return src_; }
  bool key_mode() const { return key_; }
  bool has_walker() const { return built_.walker; }
  std::size_t kernel_bytes() const { return codec_->bytes(); }
  // How the call that made s ended (blkmc_status).
  int status(const State& s) const { return status_.get(s); }
  // The region with the walker's view of s (BLKMC_OP_VIEW; valid until the
  // next call on this thread), or nullptr without a walker or in a halted state.
  const blkmc_region* viewed(const State& s) const;
  // A trace's record of the code: file, version, sha256.
  nlohmann::json source_json() const;

 private:
  struct Instance;
  Instance& instance() const;
  std::unique_ptr<Instance> make_instance() const;  // a region after init and the tunables
  std::vector<bool> learn_fixed() const;
  int learn_span_ = 2;  // the learning walks' clock steps: 1 to this many ticks
  void restore(Instance& in, const State& s) const;
  // One harness call on s's region; the result, and s updated (status,
  // region words, has_work, books) as the call left it.
  long run(State& s, int op, int a, int b, bool tick, Why* why, const char* what) const;
  std::string memory_error(const blkmc_region& h) const;
  void store_tunables(kernel::Region& r, const Params& p);

  const RqTable& t_;
  const kernel::Source& src_;
  kernel::Built built_;
  const kernel::Module* mod_ = nullptr;
  bool key_ = true;
  int read_expire_ = 0, write_expire_ = 0, age_cap_ = 1;
  std::int64_t clamp_ = 1;
  std::vector<blkmc_rq_spec> specs_;
  int depth_ = 1, rotational_ = 0, clock_ = 0;
  std::vector<blkmc_proc_spec> procs_;
  std::vector<std::pair<int, std::string>> tunables_;  // attribute index, value
  std::unique_ptr<kernel::Codec> codec_;
  mutable std::vector<blkmc_obj> layout_;  // the objects init allocated, in every region alike
  std::vector<std::uint8_t> init_words_;
  int init_has_work_ = 0, init_books_valid_ = 0, init_books_[3] = {0, 0, 0};
  // The state's slots.
  ByteVar kmem_, books_, status_;
  BitVar has_work_;
  std::uint64_t serial_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<Instance>> pool_;
};

using KernelScheduler = KernelSched<DeadlineCode>;
using KernelBfqScheduler = KernelSched<BfqCode>;
extern template class KernelSched<DeadlineCode>;
extern template class KernelSched<BfqCode>;

}  // namespace blkmc::sched
