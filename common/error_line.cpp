#include "common/error_line.hpp"

#include <cstdio>

namespace blkmc {

namespace {

constexpr std::size_t kQuotedMax = 80, kQuotedKept = 60, kLineMax = 1000;

std::string escaped(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string error_line(const std::string& msg) {
  const std::string s = escaped(msg);
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t open = s.find('\'', i);
    const std::size_t close = open == std::string::npos ? std::string::npos : s.find('\'', open + 1);
    if (close == std::string::npos) {
      out.append(s, i, std::string::npos);
      break;
    }
    out.append(s, i, open + 1 - i);
    const std::size_t n = close - open - 1;
    if (n > kQuotedMax)
      out += s.substr(open + 1, kQuotedKept) + "...' (" + std::to_string(n) + " bytes)";
    else
      out += s.substr(open + 1, n + 1);
    i = close + 1;
  }
  if (out.size() > kLineMax) out = out.substr(0, kLineMax) + "... (" + std::to_string(out.size()) + " bytes)";
  return out;
}

}  // namespace blkmc
