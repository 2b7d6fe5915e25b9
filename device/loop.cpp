#include "device/loop.hpp"

#include <fcntl.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "device/env.hpp"

extern char** environ;

namespace blkmc::device {

namespace fs = std::filesystem;

void Cleanup::run() {
  while (!steps_.empty()) {
    auto [what, undo] = std::move(steps_.back());
    steps_.pop_back();
    try {
      undo();
    } catch (const std::exception& e) {
      errors_.push_back(fmt::format("{}: {}", what, e.what()));
    }
  }
}

namespace {

std::string find_tool(const char* name) {
  for (const char* d : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
    const std::string p = std::string(d) + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// stdin_file: what the tool reads on standard input ("" for nothing).
void run_tool(const std::vector<std::string>& argv, const std::string& stdin_file = "") {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, stdin_file.empty() ? "/dev/null" : stdin_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw std::runtime_error(fmt::format("{} failed (status {})", argv[0], st));
}

// A loop device over `file`, found free and configured by us (LOOP_CONFIGURE
// fails with EBUSY on a device someone else configured in between).
LoopDev attach_loop(const std::string& file, bool direct_io, bool partscan = false) {
  const int ctl = ::open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (ctl < 0) throw EnvError(fmt::format("cannot open /dev/loop-control: {}", std::strerror(errno)));
  const int ffd = ::open(file.c_str(), O_RDWR | O_CLOEXEC | (direct_io ? O_DIRECT : 0));
  if (ffd < 0) {
    ::close(ctl);
    throw std::runtime_error(fmt::format("cannot open {}: {}", file, std::strerror(errno)));
  }
  LoopDev d;
  std::string err;
  for (int tries = 0; tries < 20 && d.fd < 0; ++tries) {
    const int n = ::ioctl(ctl, LOOP_CTL_GET_FREE);
    if (n < 0) {
      err = fmt::format("no free loop device: {}", std::strerror(errno));
      break;
    }
    const std::string path = fmt::format("/dev/loop{}", n);
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      err = fmt::format("cannot open {}: {}", path, std::strerror(errno));
      continue;
    }
    loop_config cfg{};
    cfg.fd = std::uint32_t(ffd);
    cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (direct_io ? LO_FLAGS_DIRECT_IO : 0) |
                        (partscan ? LO_FLAGS_PARTSCAN : 0);
    std::strncpy(reinterpret_cast<char*>(cfg.info.lo_file_name), file.c_str(), LO_NAME_SIZE - 1);
    if (::ioctl(fd, LOOP_CONFIGURE, &cfg) != 0) {
      err = fmt::format("LOOP_CONFIGURE {}: {}", path, std::strerror(errno));
      ::close(fd);
      continue;
    }
    struct stat st {};
    ::fstat(fd, &st);
    d.index = n;
    d.fd = fd;
    d.major = major(st.st_rdev);
    d.minor = minor(st.st_rdev);
    d.backing = file;
  }
  ::close(ffd);
  ::close(ctl);
  if (d.fd < 0) throw EnvError(err.empty() ? "no loop device" : err);
  return d;
}

void detach_loop(LoopDev& d) {
  if (d.fd < 0) return;
  ::ioctl(d.fd, LOOP_CLR_FD, 0);  // with AUTOCLEAR: detaches on the last close at the latest
  ::close(d.fd);
  d.fd = -1;
}

void make_file(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  std::vector<char> zero(1 << 20, 0);
  std::uint64_t left = bytes;
  while (left > 0) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(left, zero.size()));
    if (::write(fd, zero.data(), n) != ssize_t(n)) {
      ::close(fd);
      throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    left -= n;
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void check_environment() {
  if (::geteuid() != 0) throw EnvError("device runs need root (loop devices, tracefs, sysfs queue settings)");
  if (::access("/dev/loop-control", R_OK | W_OK) != 0)
    throw EnvError("no /dev/loop-control: the kernel lacks loop devices");
  if (!fs::is_directory("/sys/kernel/tracing") && !fs::is_directory("/sys/kernel/debug/tracing"))
    throw EnvError("no /sys/kernel/tracing: the kernel lacks tracefs");
  if (find_tool("mkfs.ext4").empty()) throw EnvError("mkfs.ext4 not found (e2fsprogs)");
}

Stack::Stack(std::uint64_t dut_bytes, const std::string& tmp_root, int partitions) {
  check_environment();
  if (partitions < 0 || partitions > kMaxPartitions)
    throw std::invalid_argument(fmt::format("Stack: {} partitions (0..{})", partitions, kMaxPartitions));
  const std::string sfdisk = partitions ? find_tool("sfdisk") : "";
  if (partitions && sfdisk.empty()) throw EnvError("sfdisk not found (fdisk, util-linux)");
  std::string templ = tmp_root + "/blkmc-dev-XXXXXX";
  if (!::mkdtemp(templ.data()))
    throw EnvError(fmt::format("cannot create a directory in {}: {}", tmp_root, std::strerror(errno)));
  tmp_ = templ;
  cleanup_.add("remove " + tmp_, [d = tmp_] { fs::remove_all(d); });
  write_file_new(tmp_ + "/owner", std::to_string(::getpid()) + "\n");
  const std::string outer = tmp_ + "/outer.img";
  make_file(outer, 32u << 20);
  outer_ = attach_loop(outer, false);
  cleanup_.add("detach " + outer_.name(), [this] { detach_loop(outer_); });
  run_tool({find_tool("mkfs.ext4"), "-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
            outer_.path()});
  mnt_ = tmp_ + "/mnt";
  if (::mkdir(mnt_.c_str(), 0700) != 0) throw std::runtime_error("cannot create " + mnt_);
  if (::mount(outer_.path().c_str(), mnt_.c_str(), "ext4", 0, nullptr) != 0)
    throw std::runtime_error(fmt::format("cannot mount ext4 on {}: {}", outer_.path(), std::strerror(errno)));
  cleanup_.add("unmount " + mnt_, [m = mnt_] {
    if (::umount2(m.c_str(), 0) != 0 && ::umount2(m.c_str(), MNT_DETACH) != 0)
      throw std::runtime_error(std::strerror(errno));
  });
  mnt_fd_ = ::open(mnt_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_.add("close " + mnt_, [this] {
    if (mnt_fd_ >= 0) ::close(mnt_fd_);
    mnt_fd_ = -1;
  });
  cleanup_.add("thaw " + mnt_, [this] { thaw(); });
  const std::string dut = mnt_ + "/dut.img";
  const std::uint64_t bytes = std::max<std::uint64_t>(dut_bytes, partitions ? (2u + 2u * unsigned(partitions)) << 20 : 1u << 20);
  make_file(dut, bytes);
  // Equal partitions from 1 MiB on, 1 MiB aligned: {start, size} in sectors.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> layout;
  const std::uint64_t each = partitions ? ((bytes / 512 - 2048) / unsigned(partitions)) / 2048 * 2048 : 0;
  for (int k = 0; k < partitions; ++k) layout.emplace_back(2048 + std::uint64_t(k) * each, each);
  if (partitions) {
    // An MBR, written into the backing file by sfdisk before the loop
    // device exists; LO_FLAGS_PARTSCAN then makes the kernel read it
    // (losetup -P).
    std::string script = "label: dos\n";
    for (const auto& [start, size] : layout) script += fmt::format("start={}, size={}, type=83\n", start, size);
    const std::string sf = tmp_ + "/dut.sfdisk";
    write_file_new(sf, script);
    run_tool({sfdisk, "-q", "--no-reread", "--no-tell-kernel", dut}, sf);
  }
  dut_ = attach_loop(dut, true, partitions > 0);
  cleanup_.add("detach " + dut_.name(), [this] { detach_loop(dut_); });
  // The partitions' sysfs directories and device nodes (devtmpfs) appear
  // during the scan LOOP_CONFIGURE started. A kernel built without the
  // table parsers (CONFIG_MSDOS_PARTITION off) finds none: then they are
  // added as partx -a adds them, one BLKPG_ADD_PARTITION each, with the
  // layout just written.
  auto present = [&](int k) {
    return fs::exists(fmt::format("/sys/block/{}/{}", dut_.name(), dut_.part_name(k))) &&
           fs::exists(dut_.part_path(k));
  };
  auto wait_parts = [&](int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    for (int k = 1; k <= partitions; ++k)
      while (!present(k)) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    return true;
  };
  partitions_by_ = "partition scan";
  if (partitions && !wait_parts(500)) {
    for (int k = 1; k <= partitions; ++k) {
      if (present(k)) continue;
      blkpg_partition part{};
      part.start = static_cast<long long>(layout[std::size_t(k - 1)].first * 512);
      part.length = static_cast<long long>(layout[std::size_t(k - 1)].second * 512);
      part.pno = k;
      blkpg_ioctl_arg arg{};
      arg.op = BLKPG_ADD_PARTITION;
      arg.datalen = sizeof part;
      arg.data = &part;
      if (::ioctl(dut_.fd, BLKPG, &arg) != 0)
        throw EnvError(fmt::format("cannot add partition {} to {}: {}", k, dut_.name(), std::strerror(errno)));
    }
    partitions_by_ = "BLKPG (the kernel read no partition table)";
    if (!wait_parts(5000))
      throw EnvError(fmt::format("the partitions of {} did not appear in sysfs and /dev", dut_.name()));
  }
  partitions_ = partitions;
  cleanup_.add("restore settings of " + dut_.name(), [this] { restore_settings(); });
}

Stack::~Stack() { cleanup_.run(); }

namespace {

bool pid_alive(long pid) {
  if (pid <= 0) return false;
  if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) return false;
  // A zombie holds nothing; a recycled pid of another program is not ours.
  try {
    const std::string stat = read_file(fmt::format("/proc/{}/stat", pid));
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') return false;
    // A killed process whose memory is gone (empty cmdline) is only
    // exiting: if it blocks on the frozen ext4 it exits once cleanup thaws.
    if (read_file(fmt::format("/proc/{}/cmdline", pid)).empty()) return false;
    return trim(read_file(fmt::format("/proc/{}/comm", pid))) == "blkmc";
  } catch (...) {
    return false;
  }
}

// Loop devices whose backing file lies under dir.
std::vector<std::pair<std::string, std::string>> loops_under(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/block", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    try {
      const std::string bf = trim(read_file(e.path().string() + "/loop/backing_file"));
      if (bf.rfind(dir + "/", 0) == 0) out.emplace_back(name, bf);
    } catch (...) {
    }
  }
  return out;
}

void clear_loop(const std::string& name) {
  const int fd = ::open(("/dev/" + name).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  ::ioctl(fd, LOOP_CLR_FD, 0);
  ::close(fd);
}

}  // namespace

std::vector<std::string> cleanup_stale(bool dry_run, const std::string& tmp_root) {
  std::vector<std::string> done;
  auto act = [&](std::string what, const std::function<void()>& f) {
    if (!dry_run) {
      try {
        f();
      } catch (const std::exception& e) {
        what += fmt::format(" (failed: {})", e.what());
      }
    }
    done.push_back(std::move(what));
  };
  const std::string inst = "/sys/kernel/tracing/instances";
  std::error_code ec;
  if (fs::is_directory(inst, ec))
    for (const auto& e : fs::directory_iterator(inst, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("blkmc-", 0) != 0) continue;
      const long pid = std::atol(n.c_str() + 6);
      if (pid_alive(pid)) continue;
      act("remove tracefs instance " + n, [p = e.path().string()] {
        if (::rmdir(p.c_str()) != 0) throw std::runtime_error(std::strerror(errno));
      });
    }
  for (const auto& e : fs::directory_iterator(tmp_root, ec)) {
    const std::string dir = e.path().string();
    if (e.path().filename().string().rfind("blkmc-dev-", 0) != 0 || !e.is_directory()) continue;
    long pid = 0;
    try {
      pid = std::atol(read_file(dir + "/owner").c_str());
    } catch (...) {
    }
    if (pid_alive(pid)) continue;
    const std::string mnt = dir + "/mnt";
    bool mounted = false;
    try {
      mounted = read_file("/proc/mounts").find(" " + mnt + " ") != std::string::npos;
    } catch (...) {
    }
    if (mounted) {
      act("thaw " + mnt, [&] {
        const int fd = ::open(mnt.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
          ::ioctl(fd, FITHAW, 0);  // EINVAL when not frozen
          ::close(fd);
        }
      });
      for (const auto& [name, bf] : loops_under(mnt)) act("detach " + name + " (" + bf + ")", [n = name] { clear_loop(n); });
      act("unmount " + mnt, [&] {
        if (::umount2(mnt.c_str(), 0) != 0 && ::umount2(mnt.c_str(), MNT_DETACH) != 0)
          throw std::runtime_error(std::strerror(errno));
      });
    }
    for (const auto& [name, bf] : loops_under(dir)) act("detach " + name + " (" + bf + ")", [n = name] { clear_loop(n); });
    if (fs::exists(dir + "/tracefs-mounted")) {
      act("unmount /sys/kernel/tracing (mounted by the dead run)", [] {
        bool others = false;
        std::error_code ec2;
        for (const auto& i : fs::directory_iterator("/sys/kernel/tracing/instances", ec2))
          others = others || i.path().filename().string().rfind("blkmc-", 0) == 0;
        if (!others) ::umount2("/sys/kernel/tracing", 0);
      });
    }
    act("remove " + dir, [&] {
      if (!dry_run) ::usleep(100000);  // let autoclear finish the detach
      fs::remove_all(dir);
    });
  }
  return done;
}

void Stack::freeze() {
  if (frozen_) return;
  if (::ioctl(mnt_fd_, FIFREEZE, 0) != 0)
    throw std::runtime_error(fmt::format("FIFREEZE {}: {}", mnt_, std::strerror(errno)));
  frozen_ = true;
}

void Stack::thaw() {
  if (!frozen_) return;
  if (::ioctl(mnt_fd_, FITHAW, 0) != 0)
    throw std::runtime_error(fmt::format("FITHAW {}: {}", mnt_, std::strerror(errno)));
  frozen_ = false;
}

void Stack::check_owned() const {
  if (dut_.fd < 0) throw std::runtime_error("no device under test");
  const std::string bf = trim(read_file(fmt::format("/sys/block/{}/loop/backing_file", dut_.name())));
  if (bf != dut_.backing)
    throw std::runtime_error(fmt::format("refusing to touch {}: its backing file is {}, not ours ({})",
                                         dut_.name(), bf, dut_.backing));
}

bool Stack::has_queue(const std::string& name) const { return fs::exists(dut_.queue() + name); }

std::string Stack::get_queue(const std::string& name) const {
  return trim(read_file(dut_.queue() + name));
}

void Stack::set_queue(const std::string& name, const std::string& value) {
  check_owned();
  const std::string path = dut_.queue() + name;
  // iosched/ files belong to the current scheduler instance: not restored.
  if (name.rfind("iosched/", 0) != 0) {
    bool seen = false;
    for (const auto& [p, v] : saved_) seen = seen || p == path;
    if (!seen) {
      std::string old = get_queue(name);
      if (name == "scheduler") {  // "none [mq-deadline] kyber bfq"
        const auto a = old.find('['), b = old.find(']');
        if (a != std::string::npos && b != std::string::npos) old = old.substr(a + 1, b - a - 1);
      }
      saved_.emplace_back(path, old);
    }
  }
  write_file(path, value);
}

void Stack::fresh_scheduler(const std::string& sched) {
  set_queue("scheduler", "none");
  if (sched == "none") return;
  try {
    set_queue("scheduler", sched);
  } catch (const std::runtime_error&) {
    // Writing a name makes the kernel load its module (elevator_get's
    // request_module): a name it still does not list is not in this kernel.
    std::string offered = get_queue("scheduler");  // "[none] mq-deadline kyber"
    std::erase_if(offered, [](char c) { return c == '[' || c == ']'; });
    std::string words = " " + offered + " ";
    if (words.find(" " + sched + " ") == std::string::npos) {
      utsname u{};
      uname(&u);
      throw SchedulerMissing(fmt::format("the running kernel ({}) has no {} scheduler (it offers {})", u.release,
                                         sched, offered));
    }
    throw;
  }
}

void Stack::set_depth(int depth) {
  set_queue("scheduler", "none");
  set_queue("nr_requests", std::to_string(depth + 1));
  set_queue("nr_requests", std::to_string(depth));
  const int now = std::atoi(get_queue("nr_requests").c_str());
  if (now != depth)
    throw std::runtime_error(fmt::format("{}: nr_requests is {} after writing {}", dut_.name(), now, depth));
}

void Stack::restore_settings() {
  if (dut_.fd < 0) {
    saved_.clear();
    return;
  }
  // Reverse order: the scheduler (saved first) goes back last.
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    try {
      write_file(it->first, it->second);
    } catch (...) {
    }
  }
  saved_.clear();
}

}  // namespace blkmc::device
