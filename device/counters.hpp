// device/counters: parsing the kernel's in-flight counter files, shared by
// `device stress` (live samples) and `device check`'s in-flight rows.
//   /sys/block/D[/Dk]/inflight   "reads writes"
//   /sys/block/D[/Dk]/stat       field 9: I/Os currently in progress
//   /proc/diskstats              "major minor name" then the stat fields
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace blkmc::device {

// reads + writes of an inflight file's text; -1 when it is not two numbers.
long long inflight_sum(std::string_view text);
// Field 9 of a stat file's text (or of the fields after a diskstats name);
// -1 with fewer than 9 fields.
long long stat_in_progress(std::string_view fields);
// Field 9 of each of `names` in /proc/diskstats' text (-1 where a line is
// missing).
std::vector<long long> diskstats_in_progress(std::string_view text, const std::vector<std::string>& names);

}  // namespace blkmc::device
