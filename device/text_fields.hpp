// device/text_fields: the two helpers the trace-text readers share
// (device/tracefs.cpp, device/capture.cpp): the next blank-separated field
// of a line, and a whole field as a number.
#pragma once

#include <charconv>
#include <string_view>

namespace blkmc::device {

// The next field of s (spaces and tabs separate), removed from s; "" at the end.
inline std::string_view next_token(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  std::size_t j = i;
  while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
  const std::string_view t = s.substr(i, j - i);
  s.remove_prefix(j);
  return t;
}

// t, all of it, as a number.
template <class T>
bool to_num(std::string_view t, T& out) {
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size() && !t.empty();
}

}  // namespace blkmc::device
