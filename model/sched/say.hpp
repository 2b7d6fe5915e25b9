// model/sched/say: a scheduler's step explains itself: `say` appends a
// clause to the step's Why (nothing when no one asks for the story).
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>

#include "model/sched/scheduler.hpp"

namespace blkmc::sched {

inline void say(Why* why, const std::string& text) {
  if (!why) return;
  if (!why->empty()) *why += "; ";
  *why += text;
}
template <class... Args>
void say(Why* why, fmt::format_string<Args...> f, Args&&... args) {
  if (why) say(why, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace blkmc::sched
