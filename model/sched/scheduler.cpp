#include "model/sched/scheduler.hpp"

#include <fmt/format.h>

namespace blkmc::sched {

void RqTable::declare(Schema& sc) const {
  const int b = sc.block("rq", size());
  // The status and the two flags share one byte per request (3 + 1 + 1 bits).
  sc.pack({sc.enumeration("rq_status", st_names(), b), sc.bit("rq_inserted", b),
           sc.bit("rq_nofifotime", b)});
  sc.integer("rq_seq", 0, 255, b);  // 255: a new arrival, before renumbering
  sc.integer("rq_age", 0, 255, b);
}

void RqTable::resolve(const Schema& sc) {
  status_ = sc.field_var(sc.find("rq_status"));
  inserted_ = sc.field_var(sc.find("rq_inserted"));
  nofifo_ = sc.field_var(sc.find("rq_nofifotime"));
  seq_ = sc.byte_var(sc.find("rq_seq"));
  age_ = sc.byte_var(sc.find("rq_age"));
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
