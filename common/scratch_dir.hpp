// common/scratch_dir: a directory of scratch files, created under `parent`
// (empty: $TMPDIR or /tmp) as PREFIX-XXXXXX and removed with everything in
// it when this goes away (the disk store's levels, a kernel file's compile).
#pragma once

#include <cstdint>
#include <string>

namespace blkmc {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& parent, const std::string& prefix = "blkmc-disk");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Bytes free on its filesystem.
  std::uint64_t free_bytes() const;
  // Bytes its files take.
  std::uint64_t used_bytes() const;

 private:
  std::string path_;
};

}  // namespace blkmc
