// app/html: escaping text for the HTML pages blkmc writes (report, simulate
// --report).
#pragma once

#include <string>

namespace blkmc {

// s with &, <, >, " and ' replaced by their character references.
inline std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

}  // namespace blkmc
