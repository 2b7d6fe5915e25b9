// device/tracefs: the kernel's block_rq_* events from a private tracefs
// instance, and the parser of their text lines.
//
// A line of the instance's `trace` file, e.g. (6.18)
//   blkmc-812 [000] ..... 1234.567890: block_rq_issue: 7,1 WS 4096 () 1600 + 8 be,0,4 [blkmc]
//   <idle>-0  [000] ..s1. 1234.567990: block_rq_complete: 7,1 WS () 1600 + 8 be,0,4 [0]
// names the event, the device, the request's flags (rwbs), its start sector
// (512-byte units) and length; the timestamp is CLOCK_MONOTONIC (trace_clock
// mono), in seconds with microseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blkmc::device {

enum class EvKind : char { Insert = 'I', Issue = 'D', Complete = 'C', Merge = 'M', Requeue = 'R' };

struct RawEvent {
  EvKind kind = EvKind::Insert;
  unsigned major = 0, minor = 0;
  std::string rwbs;
  std::uint64_t sector = 0;
  unsigned nr_sectors = 0;
  std::int64_t ts_us = 0;  // CLOCK_MONOTONIC, microseconds
  int dir() const;         // 0 read, 1 write, -1 neither (flush, discard, ...)
};

// nullopt for lines that are not block_rq_{insert,issue,complete,merge,requeue}
// events (comments, other events, lost-event markers).
std::optional<RawEvent> parse_trace_line(std::string_view line);
std::vector<RawEvent> parse_trace_text(std::string_view text);

// The tracefs filter that keeps one device's events (dev_t as the kernel
// stores it: major << 20 | minor).
std::string dev_filter(unsigned major, unsigned minor);

// A private instance (instances/blkmc-PID-N) with the block_rq_* events of
// one device enabled; removed (and tracefs unmounted, when this mounted it)
// by the destructor. Throws EnvError when tracefs is missing.
class TraceInstance {
 public:
  // marker: a file written while this instance has tracefs mounted (so
  // that `blkmc device cleanup` can unmount it after a SIGKILL); "" for none.
  TraceInstance(unsigned major, unsigned minor, std::string marker = "");
  ~TraceInstance();
  TraceInstance(const TraceInstance&) = delete;
  TraceInstance& operator=(const TraceInstance&) = delete;
  void clear();  // empty the buffer
  void on(bool enable);
  std::string read() const;  // the buffer's text
  const std::string& dir() const { return dir_; }

 private:
  std::string root_, dir_, marker_;
  bool mounted_ = false, created_ = false;
};

}  // namespace blkmc::device
