// device/capture: a block trace of one device, as users record it, read
// into one list of request events:
//   - blktrace's binary files (one per CPU: sda.blktrace.0, .1, ...): the
//     kernel's struct blk_io_trace records, 48 bytes each and a payload
//     (pdu_len bytes; a process-name notification carries the comm there),
//     in the byte order of the machine that wrote them (either is read);
//   - blkparse's default text ("8,0  1  5  0.000012345  697  Q  WS 2048 + 8
//     [fio]"), with its per-CPU summary after the events;
//   - tracefs text: the block_bio_queue, block_rq_insert, block_rq_issue,
//     block_rq_complete and block_rq_requeue events ("fio-697 [001] .....
//     12.345678: block_rq_insert: 7,1 WS 4096 () 2048 + 8 be,0,4 [fio]"; the
//     ioprio field is absent before 6.10), as trace-cmd or `blkmc device`
//     record them, and the `blk` tracer's lines ("fio-697 [001] ...
//     12.345678: 7,1 Q WS 2048 + 8 [fio]").
// Other records (plugs, merges, splits, remaps, messages) are skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace blkmc::device {

enum class CapAct : char { Queue = 'Q', Insert = 'I', Issue = 'D', Complete = 'C', Requeue = 'R' };

struct CapEvent {
  CapAct act = CapAct::Queue;
  std::uint64_t ts_ns = 0;  // as recorded (blktrace: since the trace began; tracefs: the trace clock)
  std::uint32_t pid = 0;    // 0 where the line has none (completions in interrupt context)
  std::string comm;         // "" where unknown
  unsigned major = 0, minor = 0;
  std::string rwbs;
  std::uint64_t sector = 0;  // 512-byte sectors
  unsigned nr_sectors = 0;
  int prio_class = -1;  // 0 none, 1 rt, 2 be, 3 idle; -1 when the trace does not say
  int prio_level = -1;
  std::size_t where = 0;  // line (text) or record (binary) number, from 1, for messages
  int dir() const;        // 0 read, 1 write, -1 neither (flush alone, discard)
};

struct Capture {
  std::string name;    // the file (the first, for per-CPU files), for messages
  std::string format;  // "blktrace", "blkparse" or "tracefs"
  std::size_t records = 0;  // lines or records read, kept or not
  std::vector<CapEvent> events;  // in time order
};

// Reads a capture: one text file, or blktrace's binary files of one run
// (several paths; a path that does not exist but PATH.blktrace.0 does means
// every PATH.blktrace.N). Throws UsageError naming the file and the event:
// not a capture, a truncated record, events of several devices (unless
// major/minor pick one: major < 0 means any), events out of time order.
Capture read_capture(const std::vector<std::string>& paths, int major = -1, int minor = -1);

// The readers behind it, on bytes in memory (tests build captures).
Capture parse_capture_text(std::string_view text, const std::string& name);
Capture parse_capture_binary(const std::vector<std::string_view>& files, const std::vector<std::string>& names);
bool is_blktrace_binary(std::string_view bytes);

// Keeps one device's events: that of major/minor (major >= 0), or else the
// only one there is (several: a UsageError naming them).
void keep_one_device(Capture& cap, int major, int minor);

}  // namespace blkmc::device
