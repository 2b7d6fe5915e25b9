#include "explorer/progress.hpp"

#include <algorithm>

namespace blkmc {

void EdgeLog::ensure(std::uint32_t id) {
  if (id >= begin_.size()) {
    const std::size_t n = std::max<std::size_t>(std::size_t(id) + 1, begin_.size() * 2);
    begin_.resize(n, 0);
    count_.resize(n, 0);
    finished_.resize(n, false);
    expanded_.resize(n, false);
  }
}

void EdgeLog::begin_state(std::uint32_t id, bool finished) {
  ensure(id);
  finished_[id] = finished;
  open_ = dst_.size();
}

void EdgeLog::end_state(std::uint32_t id) {
  begin_[id] = open_;
  count_[id] = std::uint32_t(dst_.size() - open_);
  expanded_[id] = true;
}

std::size_t EdgeLog::memory_bytes() const {
  return dst_.capacity() * 4 + actor_.capacity() + count_.capacity() * 4 + begin_.capacity() * 8 +
         (finished_.capacity() + expanded_.capacity()) / 8;
}

std::optional<Lasso> find_stuck_lasso(const EdgeLog& log, std::size_t n) {
  // Reverse adjacency (CSR) by counting sort on the target.
  std::vector<std::uint64_t> rbegin(n + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u)
    for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v) ++rbegin[*v + 1];
  for (std::size_t i = 0; i < n; ++i) rbegin[i + 1] += rbegin[i];
  std::vector<std::uint32_t> rsrc(rbegin[n]);
  {
    std::vector<std::uint64_t> fill(rbegin.begin(), rbegin.end() - 1);
    for (std::uint32_t u = 0; u < n; ++u)
      for (const std::uint32_t* v = log.succ_begin(u); v != log.succ_end(u); ++v)
        rsrc[fill[*v]++] = u;
  }
  // Backward reachability from the finished states.
  std::vector<bool> can_finish(n, false);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t u = 0; u < n; ++u)
    if (log.finished(u)) {
      can_finish[u] = true;
      queue.push_back(u);
    }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t v = queue[head];
    for (std::uint64_t k = rbegin[v]; k < rbegin[v + 1]; ++k)
      if (!can_finish[rsrc[k]]) {
        can_finish[rsrc[k]] = true;
        queue.push_back(rsrc[k]);
      }
  }
  std::uint32_t stuck = 0;
  while (stuck < n && can_finish[stuck]) ++stuck;
  if (stuck == n) return std::nullopt;

  // Depth-first walk among stuck states (every successor of a stuck state is
  // stuck) until a state without successors or an edge back onto the walk.
  Lasso l;
  l.stuck = stuck;
  enum : std::uint8_t { kWhite, kOnWalk, kDone };
  std::vector<std::uint8_t> color(n, kWhite);
  std::vector<std::pair<std::uint32_t, const std::uint32_t*>> stack{{stuck, log.succ_begin(stuck)}};
  color[stuck] = kOnWalk;
  while (!stack.empty()) {
    auto& [u, next] = stack.back();
    if (log.succ_begin(u) == log.succ_end(u)) {  // no successors: a deadlock
      for (const auto& fr : stack) l.walk.push_back(fr.first);
      l.loop_start = l.walk.size() - 1;
      return l;
    }
    if (next == log.succ_end(u)) {
      color[u] = kDone;
      stack.pop_back();
      continue;
    }
    const std::uint32_t v = *next++;
    if (color[v] == kOnWalk) {  // a cycle back to v
      for (const auto& fr : stack) l.walk.push_back(fr.first);
      l.loop_start = std::size_t(std::find(l.walk.begin(), l.walk.end(), v) - l.walk.begin());
      l.walk.push_back(v);
      return l;
    }
    if (color[v] == kWhite) {
      color[v] = kOnWalk;
      stack.push_back({v, log.succ_begin(v)});
    }
  }
  // Unreachable: a finite stuck region always has a cycle or a dead end.
  l.walk = {stuck};
  l.loop_start = 0;
  return l;
}

}  // namespace blkmc
