#include "model/sched/scheduler.hpp"

#include <fmt/format.h>

namespace blkmc::sched {

const char* st_name(St s) {
  switch (s) {
    case St::Idle:
      return "idle";
    case St::Sched:
      return "sched";
    case St::SchedHead:
      return "sched-head";
    case St::Hctx:
      return "hctx";
    case St::Driver:
      return "driver";
    case St::Done:
      return "done";
  }
  return "?";
}

std::string RqTable::name(int r) const {
  return fmt::format("{}.{}", proc_of(r).name, info(r).index);
}

std::string RqTable::label(int r) const {
  static const char* const prio[] = {"RT", "BE", "IDLE"};
  return fmt::format("{} ({}, sector {}, {})", name(r), dir(r) == READ ? "read" : "write",
                     sector(r), prio[this->prio(r)]);
}

}  // namespace blkmc::sched
