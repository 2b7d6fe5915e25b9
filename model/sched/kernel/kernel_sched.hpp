// model/sched/kernel/kernel_sched: the kernel's own scheduler code as a
// scheduler of the framework (model/sched/sched_model.hpp): the user's
// block/mq-deadline.c, compiled against blkmc's shim (kernel_build.hpp) and
// driven through its elevator_mq_ops, one call per step, as blk-mq calls
// it under the elevator lock (shim/harness.c says which blk-mq path each
// call stands for).
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
// kernel_state=key (default) stores a state in its canonical form: the
// rb-trees rebuilt in one shape per order, the file's counters rebased
// (shim/walk_deadline.h), times older than time_cap ticks as time_cap;
// kernel_state=raw stores the region's words as the code left them
// (positions and times relative, nothing else changed): the reference the
// canonical key is tested against.
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

// A state of the kernel-code model: the framework's bytes and a region's.
using KernelState = ByteState<3072>;

class KernelScheduler {
 public:
  using State = KernelState;
  static const std::vector<VariantInfo>& variants();  // the loaded sources
  static unsigned variants_generation();
  static std::vector<ParamInfo> params();
  static const char* name() { return "deadline"; }
  static const char* dispatch_fn() { return ".dispatch_request"; }
  static constexpr bool kFifoPerClass = true;
  static const char* summary();
  static std::vector<PropInfo> extra_props();

  KernelScheduler(int variant, const Params& p, const RqTable& t);
  ~KernelScheduler();

  void declare(Schema& sc) const;
  void resolve(const Schema& sc);
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
  // The harness's view of the file's structs in s (walker; valid = 0 without).
  blkmc_dd_view view(const State& s) const;
  // A trace's record of the code: file, version, sha256.
  nlohmann::json source_json() const;

 private:
  struct Instance;
  Instance& instance() const;
  std::unique_ptr<Instance> make_instance() const;  // a region after init and the tunables
  std::vector<bool> learn_fixed() const;
  static constexpr int kLearnWalks = 64;
  void restore(Instance& in, const State& s) const;
  // One harness call on s's region; the result, and s updated (status,
  // region words, has_work, books) as the call left it.
  long run(State& s, int op, int a, int b, bool tick, Why* why, const char* what) const;
  void store_tunables(kernel::Region& r, const Params& p);

  const RqTable& t_;
  const kernel::Source& src_;
  kernel::Built built_;
  const kernel::Module* mod_ = nullptr;
  bool key_ = true;
  int read_expire_ = 0, write_expire_ = 0, prio_aging_expire_ = 0, age_cap_ = 1;
  std::int64_t clamp_ = 1;
  std::vector<blkmc_rq_spec> specs_;
  int depth_ = 1, rotational_ = 0;
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

}  // namespace blkmc::sched
