// Option helpers the subcommands share (cli/options.hpp).
#include "cli/options.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cli/compare.hpp"
#include "common/errors.hpp"

namespace blkmc {

const CLI::Validator kUnsigned64(
    [](std::string& s) -> std::string {
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return fmt::format("'{}' is not a number from 0 to 18446744073709551615", s.substr(0, 40));
      return "";
    },
    "0..2^64-1");

CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return fmt::format("'{}' is not a number from {} to {}", text, lo, hi);
        return "";
      },
      fmt::format("NUMBER in [{} - {}]", lo, hi));
}

void no_repeats(const std::vector<std::string>& xs, const char* opt) {
  for (std::size_t i = 0; i < xs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (xs[i] == xs[j]) throw UsageError(fmt::format("{} {} given twice", opt, xs[i].substr(0, 80)));
}

void add_workload_param(const std::string& w, std::vector<std::string>& params) {
  if (w.empty()) return;
  for (const auto& kv : params)
    if (kv.rfind("workload=", 0) == 0) throw UsageError("--workload and -p workload= exclude each other");
  params.push_back("workload=" + w);
}

void add_kernel_options(CLI::App* cmd, KernelArgs& k, const char* what) {
  cmd->add_option("--kernel", k.kernel,
                  fmt::format("{}: the scheduler file of a kernel tree DIR, a linux-source tarball, or debian:X.Y "
                              "(/usr/src/linux-source-X.Y.tar.xz), compiled against blkmc's shim",
                              what));
  cmd->add_option("--source", k.source, fmt::format("{}: a scheduler FILE.c alone", what));
  cmd->add_option("--kernel-version", k.version, "the kernel version of a --source file (default: read off its interfaces)");
}

void require_parent_dir(const std::string& what, const std::string& path) {
  if (path.empty()) return;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("{}: no directory '{}'", what, dir.string()));
}

std::string shell_quote(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=:,+@%", c);
  });
  if (plain) return w;
  std::string q = "'";
  for (const char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string command_line(int argc, char** argv) {
  std::string s = "blkmc";
  for (int i = 1; i < argc; ++i) {
    s += ' ';
    s += shell_quote(argv[i]);
  }
  return s;
}

std::string trace_path(const std::string& base, const std::string& prop_spec, bool several) {
  if (!several) return base;
  const std::string prop = prop_file_name(prop_spec);
  const auto dot = base.rfind('.');
  const auto slash = base.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return base + "-" + prop;
  return base.substr(0, dot) + "-" + prop + base.substr(dot);
}

}  // namespace blkmc
