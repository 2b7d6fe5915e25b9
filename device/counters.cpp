#include "device/counters.hpp"

#include <algorithm>
#include <sstream>

namespace blkmc::device {

long long inflight_sum(std::string_view text) {
  std::istringstream in{std::string(text)};
  long long r = 0, w = 0;
  if (!(in >> r >> w)) return -1;
  return r + w;
}

long long stat_in_progress(std::string_view fields) {
  std::istringstream in{std::string(fields)};
  long long f[9] = {};
  for (auto& x : f)
    if (!(in >> x)) return -1;
  return f[8];
}

std::vector<long long> diskstats_in_progress(std::string_view text, const std::vector<std::string>& names) {
  std::vector<long long> out(names.size(), -1);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    std::istringstream ls{std::string(line)};
    unsigned maj = 0, min = 0;
    std::string dev;
    if (!(ls >> maj >> min >> dev)) continue;
    const auto it = std::find(names.begin(), names.end(), dev);
    if (it == names.end()) continue;
    std::string rest;
    std::getline(ls, rest);
    out[std::size_t(it - names.begin())] = stat_in_progress(rest);
  }
  return out;
}

}  // namespace blkmc::device
