#include "common/scratch_dir.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace blkmc {

ScratchDir::ScratchDir(const std::string& parent, const std::string& prefix) {
  std::string base = parent;
  if (base.empty()) {
    const char* t = std::getenv("TMPDIR");
    base = t && *t ? t : "/tmp";
  }
  std::string tmpl = base + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot create a scratch directory in {}: {}", base, std::strerror(errno)));
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::uint64_t ScratchDir::free_bytes() const {
  struct statvfs v {};
  if (::statvfs(path_.c_str(), &v) != 0) return 0;
  return std::uint64_t(v.f_bavail) * v.f_frsize;
}

std::uint64_t ScratchDir::used_bytes() const {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path_, ec))
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  return n;
}

}  // namespace blkmc
