#include "device/tracefs.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "device/env.hpp"
#include "device/text_fields.hpp"

namespace blkmc::device {

int RawEvent::dir() const {
  for (char c : rwbs) {
    if (c == 'W') return 1;
    if (c == 'R') return 0;
    if (c == 'D' || c == 'F' || c == 'N') return -1;
  }
  return -1;
}

std::optional<RawEvent> parse_trace_line(std::string_view line) {
  static const struct {
    const char* name;
    EvKind kind;
    bool bytes;  // a byte count follows rwbs
  } kinds[] = {{"block_rq_insert: ", EvKind::Insert, true},
               {"block_rq_issue: ", EvKind::Issue, true},
               {"block_rq_complete: ", EvKind::Complete, false},
               {"block_rq_merge: ", EvKind::Merge, true},
               {"block_rq_requeue: ", EvKind::Requeue, false}};
  if (!line.empty() && line[0] == '#') return std::nullopt;
  for (const auto& k : kinds) {
    const auto at = line.find(k.name);
    if (at == std::string_view::npos) continue;
    RawEvent e;
    e.kind = k.kind;
    // Timestamp: "SECONDS.MICROS:" just before the event name.
    std::string_view head = line.substr(0, at);
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
    if (head.empty() || head.back() != ':') return std::nullopt;
    head.remove_suffix(1);
    const auto sp = head.rfind(' ');
    const std::string_view ts = sp == std::string_view::npos ? head : head.substr(sp + 1);
    const auto dot = ts.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    std::int64_t sec = 0, frac = 0;
    std::string_view fr = ts.substr(dot + 1);
    if (!to_num(ts.substr(0, dot), sec) || !to_num(fr, frac)) return std::nullopt;
    for (std::size_t n = fr.size(); n < 6; ++n) frac *= 10;
    for (std::size_t n = fr.size(); n > 6; --n) frac /= 10;
    e.ts_us = sec * 1000000 + frac;
    std::string_view rest = line.substr(at + std::strlen(k.name));
    const std::string_view dev = next_token(rest);
    const auto comma = dev.find(',');
    if (comma == std::string_view::npos || !to_num(dev.substr(0, comma), e.major) ||
        !to_num(dev.substr(comma + 1), e.minor))
      return std::nullopt;
    e.rwbs = std::string(next_token(rest));
    if (k.bytes) {
      unsigned bytes = 0;
      if (!to_num(next_token(rest), bytes)) return std::nullopt;
    }
    // "(CMD)": skip to the closing parenthesis.
    const auto open = rest.find('(');
    const auto close = rest.find(')', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(close + 1);
    if (!to_num(next_token(rest), e.sector)) return std::nullopt;
    if (next_token(rest) != "+") return std::nullopt;
    if (!to_num(next_token(rest), e.nr_sectors)) return std::nullopt;
    return e;
  }
  return std::nullopt;
}

std::vector<RawEvent> parse_trace_text(std::string_view text) {
  std::vector<RawEvent> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (auto e = parse_trace_line(line)) out.push_back(*e);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::string dev_filter(unsigned major, unsigned minor) {
  return fmt::format("dev == {}", (std::uint64_t(major) << 20) | minor);
}

namespace {
constexpr long kTracefsMagic = 0x74726163;
bool is_tracefs(const std::string& path) {
  struct statfs st {};
  return ::statfs(path.c_str(), &st) == 0 && long(st.f_type) == kTracefsMagic;
}
int g_instance_seq = 0;
}  // namespace

TraceInstance::TraceInstance(unsigned major, unsigned minor, std::string marker) : marker_(std::move(marker)) {
  root_ = "/sys/kernel/tracing";
  if (!is_tracefs(root_)) {
    if (!std::filesystem::is_directory(root_))
      throw EnvError("no /sys/kernel/tracing: the kernel lacks tracefs");
    if (::mount("tracefs", root_.c_str(), "tracefs", 0, nullptr) != 0)
      throw EnvError(fmt::format("cannot mount tracefs at {}: {}", root_, std::strerror(errno)));
    mounted_ = true;
    if (!marker_.empty()) {
      try {
        write_file_new(marker_, root_ + "\n");
      } catch (...) {
      }
    }
  }
  try {
    dir_ = fmt::format("{}/instances/blkmc-{}-{}", root_, ::getpid(), g_instance_seq++);
    if (::mkdir(dir_.c_str(), 0700) != 0)
      throw EnvError(fmt::format("cannot create tracefs instance {}: {}", dir_, std::strerror(errno)));
    created_ = true;
    write_file(dir_ + "/tracing_on", "0");
    write_file(dir_ + "/trace_clock", "mono");
    write_file(dir_ + "/buffer_size_kb", "1024");
    const std::string filt = dev_filter(major, minor);
    for (const char* ev : {"block_rq_insert", "block_rq_issue", "block_rq_complete",
                           "block_rq_merge", "block_rq_requeue"}) {
      const std::string d = fmt::format("{}/events/block/{}", dir_, ev);
      if (!std::filesystem::exists(d)) throw EnvError(fmt::format("no tracepoint block:{}", ev));
      write_file(d + "/filter", filt);
      write_file(d + "/enable", "1");
    }
  } catch (...) {
    this->~TraceInstance();
    throw;
  }
}

TraceInstance::~TraceInstance() {
  if (created_) {
    try {
      write_file(dir_ + "/tracing_on", "0");
    } catch (...) {
    }
    // rmdir disables the instance's events and frees its buffer.
    for (int i = 0; i < 50 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++i) ::usleep(20000);
    created_ = false;
  }
  if (mounted_) {
    ::umount2(root_.c_str(), 0);
    mounted_ = false;
    if (!marker_.empty()) ::unlink(marker_.c_str());
  }
}

void TraceInstance::clear() {
  const std::string p = dir_ + "/trace";
  const int fd = ::open(p.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot clear {}: {}", p, std::strerror(errno)));
  ::close(fd);
}
void TraceInstance::on(bool enable) { write_file(dir_ + "/tracing_on", enable ? "1" : "0"); }
std::string TraceInstance::read() const { return read_file(dir_ + "/trace"); }

}  // namespace blkmc::device
