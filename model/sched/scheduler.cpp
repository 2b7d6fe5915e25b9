#include "model/sched/scheduler.hpp"

#include <fmt/format.h>

namespace blkmc::sched {

void RqTable::declare(Schema& sc, SchemaSlots& slots) {
  const int b = sc.block("rq", size());
  // The status and the two flags share one byte per request (3 + 1 + 1 bits).
  sc.pack({slots.field(status_, sc.enumeration("rq_status", st_names(), b)),
           slots.field(inserted_, sc.bit("rq_inserted", b)), slots.field(nofifo_, sc.bit("rq_nofifotime", b))});
  slots.byte(seq_, sc.integer("rq_seq", 0, 255, b));  // 255: a new arrival, before renumbering
  slots.byte(age_, sc.integer("rq_age", 0, 255, b));
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
