// device/loop: the stack `blkmc device run` builds, and tears down again.
//
//   tmpfs dir (mkdtemp under /dev/shm)
//     outer.img  -> loop (the outer device) -> ext4, mounted at dir/mnt
//       mnt/dut.img -> loop with direct I/O: the device under test (DUT)
//
// Freezing the ext4 (FIFREEZE) makes the DUT's writes hang in the loop
// driver while they hold driver tags: the gate. Every part is undone in
// reverse order by the destructor (thaw, detach, unmount, remove files),
// also when construction fails half way. The DUT's queue settings are
// written only through Stack, which checks that the device's backing file is
// the one this stack created.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace blkmc::device {

// Undo actions, run in reverse order of registration (destructor or run()).
class Cleanup {
 public:
  Cleanup() = default;
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() { run(); }
  void add(std::string what, std::function<void()> undo) {
    steps_.emplace_back(std::move(what), std::move(undo));
  }
  void run();
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::pair<std::string, std::function<void()>>> steps_;
  std::vector<std::string> errors_;
};

struct LoopDev {
  int index = -1, fd = -1;
  unsigned major = 0, minor = 0;
  std::string backing;
  std::string name() const { return "loop" + std::to_string(index); }
  std::string path() const { return "/dev/" + name(); }
  std::string queue() const { return "/sys/block/" + name() + "/queue/"; }
  // Partition k (1-based) of a device attached with a partition scan.
  std::string part_name(int k) const { return name() + "p" + std::to_string(k); }
  std::string part_path(int k) const { return "/dev/" + part_name(k); }
};

// Checks what a run needs (root, /dev/loop-control, mkfs.ext4, tracefs
// directory); throws EnvError with a one-line reason.
void check_environment();

// Leftovers of runs whose process is gone (SIGKILL, a crash): the
// directories /dev/shm/blkmc-dev-* whose owner pid is dead, with their
// frozen ext4, mounts and loop devices (found by backing file inside the
// directory), tracefs instances blkmc-PID-N of dead pids, and tracefs when
// a dead run had mounted it. Returns one line per action (what would be done
// with dry_run). Touches nothing that is not named after blkmc.
std::vector<std::string> cleanup_stale(bool dry_run, const std::string& tmp_root = "/dev/shm");

class Stack {
 public:
  static constexpr int kMaxPartitions = 4;
  // dut_bytes: size of the DUT's backing file; tmpfs: where the temporary
  // directory goes (default /dev/shm); partitions: an MBR of that many equal
  // partitions written by sfdisk into the backing file, and the DUT
  // attached with a partition scan (losetup -P), so that loopNp1.. exist.
  explicit Stack(std::uint64_t dut_bytes, const std::string& tmp_root = "/dev/shm", int partitions = 0);
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  const LoopDev& dut() const { return dut_; }
  int partitions() const { return partitions_; }
  // How the partitions came to be: "partition scan", or "BLKPG (...)" on a
  // kernel without the table parsers.
  const std::string& partitions_by() const { return partitions_by_; }
  void freeze();
  void thaw();
  bool frozen() const { return frozen_; }

  // Queue settings of the DUT (queue/NAME, queue/iosched/NAME); the first
  // write of each remembers its value, restored by restore_settings() and
  // the destructor. Refuses any device but this stack's DUT.
  void set_queue(const std::string& name, const std::string& value);
  std::string get_queue(const std::string& name) const;
  bool has_queue(const std::string& name) const;
  // A fresh instance of the scheduler: switch to `none` and back. Throws
  // SchedulerMissing when the running kernel has no such scheduler.
  void fresh_scheduler(const std::string& sched);
  // Driver tags: nr_requests under `none` (written twice, to another value
  // first: writing the current value does nothing).
  void set_depth(int depth);
  void restore_settings();
  const std::string& tmpdir() const { return tmp_; }

 private:
  void check_owned() const;
  std::string tmp_, mnt_;
  LoopDev outer_, dut_;
  int mnt_fd_ = -1;
  bool frozen_ = false;
  int partitions_ = 0;
  std::string partitions_by_;
  std::vector<std::pair<std::string, std::string>> saved_;  // path, original value
  Cleanup cleanup_;  // last: destroyed first, while the members it undoes still exist
};

}  // namespace blkmc::device
