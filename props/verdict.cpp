#include "props/verdict.hpp"

#include "common/errors.hpp"

namespace blkmc {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Holds:
      return "holds";
    case Verdict::Violated:
      return "violated";
    case Verdict::Incomplete:
      return "incomplete";
  }
  return "?";
}

Verdict parse_verdict(const std::string& s) {
  if (s == "holds") return Verdict::Holds;
  if (s == "violated") return Verdict::Violated;
  if (s == "incomplete") return Verdict::Incomplete;
  throw UsageError("unknown verdict '" + s + "' (valid: holds, violated, incomplete)");
}

}  // namespace blkmc
