#include "explorer/block_file.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "explorer/record_word.hpp"

namespace blkmc {

namespace {

constexpr std::size_t kBlockBytes = 256 * 1024;  // uncompressed, about
constexpr int kLevel = 1;                        // zstd's fastest ordinary level

bool no_room() { return errno == ENOSPC || errno == EDQUOT; }

void write_all(int fd, const std::uint8_t* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw DiskError(fmt::format("cannot write {}: {}", path, std::strerror(errno)), no_room());
    p += w;
    n -= std::size_t(w);
  }
}

void read_all(int fd, std::uint8_t* p, std::size_t n, std::uint64_t at, const std::string& path) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, off_t(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw DiskError(fmt::format("cannot read {}: {}", path, r < 0 ? std::strerror(errno) : "short file"));
    p += r;
    n -= std::size_t(r);
    at += std::uint64_t(r);
  }
}


}  // namespace

// Block layout: u32 compressed size, u32 records, then the zstd frame.
void BlockFile::read_block(std::size_t k, std::vector<std::uint8_t>& out) const {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DiskError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const std::uint64_t at = offsets.at(k);
  const std::uint64_t end = k + 1 < offsets.size() ? offsets[k + 1] : bytes;
  std::vector<std::uint8_t> packed(std::size_t(end - at));
  read_all(fd, packed.data(), packed.size(), at, path);
  std::uint32_t csize, n;
  std::memcpy(&csize, packed.data(), 4);
  std::memcpy(&n, packed.data() + 4, 4);
  out.resize(std::size_t(n) * record_bytes);
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), packed.data() + 8, csize);
  if (ZSTD_isError(got) || got != out.size())
    throw DiskError(fmt::format("{}: block {} is corrupt", path, k));
  if (delta)
    for (std::size_t i = 1; i < n; ++i)
      set_record_word(out.data() + i * record_bytes, record_word(out.data() + i * record_bytes) + record_word(out.data() + (i - 1) * record_bytes));
}

void BlockFile::remove() const {
  if (!path.empty()) ::unlink(path.c_str());
}

BlockWriter::BlockWriter(std::string path, std::size_t record_bytes, bool delta) {
  f_.path = std::move(path);
  f_.record_bytes = record_bytes;
  f_.per_block = std::max<std::size_t>(1, kBlockBytes / record_bytes);
  f_.delta = delta;
  fd_ = ::open(f_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) throw DiskError(fmt::format("cannot create {}: {}", f_.path, std::strerror(errno)), no_room());
  cctx_ = ZSTD_createCCtx();
  buf_.reserve(f_.per_block * record_bytes);
}

BlockWriter::~BlockWriter() {
  if (fd_ >= 0) ::close(fd_);
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
}

void BlockWriter::add(const std::uint8_t* rec) {
  buf_.insert(buf_.end(), rec, rec + f_.record_bytes);
  if (buf_.size() >= f_.per_block * f_.record_bytes) flush();
}

void BlockWriter::flush() {
  if (buf_.empty()) return;
  const std::size_t n = buf_.size() / f_.record_bytes;
  if (f_.delta)
    for (std::size_t i = n - 1; i > 0; --i)
      set_record_word(buf_.data() + i * f_.record_bytes,
               record_word(buf_.data() + i * f_.record_bytes) - record_word(buf_.data() + (i - 1) * f_.record_bytes));
  packed_.resize(8 + ZSTD_compressBound(buf_.size()));
  const std::size_t csize = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(cctx_), packed_.data() + 8,
                                              packed_.size() - 8, buf_.data(), buf_.size(), kLevel);
  if (ZSTD_isError(csize)) throw DiskError(fmt::format("{}: zstd: {}", f_.path, ZSTD_getErrorName(csize)));
  const auto c32 = std::uint32_t(csize), n32 = std::uint32_t(n);
  std::memcpy(packed_.data(), &c32, 4);
  std::memcpy(packed_.data() + 4, &n32, 4);
  write_all(fd_, packed_.data(), 8 + csize, f_.path);
  f_.offsets.push_back(f_.bytes);
  f_.bytes += 8 + csize;
  f_.records += n;
  buf_.clear();
}

BlockFile BlockWriter::finish() {
  flush();
  if (fd_ >= 0 && ::close(fd_) != 0) {
    fd_ = -1;
    throw DiskError(fmt::format("cannot write {}: {}", f_.path, std::strerror(errno)), no_room());
  }
  fd_ = -1;
  return f_;
}

}  // namespace blkmc
