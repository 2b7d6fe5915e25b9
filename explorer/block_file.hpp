// Files of fixed-size records in zstd-compressed blocks: the disk store's
// levels and the sorted runs of its visited set and of its sorts
// (explorer/disk_store.hpp). A file is written once, in order, and read back
// in order or by record index (one offset per block is kept in memory).
//
// Where the records are sorted by a leading 64-bit word (a hash, an origin),
// the block stores each word as its difference from the one before: sorted
// hashes then have leading zero bytes, which zstd packs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/scratch_dir.hpp"

namespace blkmc {

// A write or read of the scratch files failed (disk full, removed): the
// search cannot go on. full: the filesystem had no room left (ENOSPC,
// EDQUOT), where the search stops with what it found.
struct DiskError : std::runtime_error {
  explicit DiskError(const std::string& what, bool full_ = false) : std::runtime_error(what), full(full_) {}
  bool full = false;
};

struct BlockFile {
  std::string path;
  std::size_t record_bytes = 0;
  std::size_t per_block = 0;          // records per block (the last may hold fewer)
  bool delta = false;                 // leading 64-bit words stored as differences
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;            // on disk
  std::vector<std::uint64_t> offsets; // where block k starts

  // Reads block k, decompressed, into out (records of block k).
  void read_block(std::size_t k, std::vector<std::uint8_t>& out) const;
  void remove() const;  // deletes the file
};

class BlockWriter {
 public:
  // Creates (truncates) path.
  BlockWriter(std::string path, std::size_t record_bytes, bool delta);
  ~BlockWriter();
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;

  void add(const std::uint8_t* rec);
  std::uint64_t records() const { return f_.records; }
  std::uint64_t bytes() const { return f_.bytes + buf_.size(); }
  // Writes the last block and closes the file.
  BlockFile finish();

 private:
  void flush();
  BlockFile f_;
  int fd_ = -1;
  std::vector<std::uint8_t> buf_, packed_;
  void* cctx_ = nullptr;
};

// Reads a BlockFile's records in order.
class BlockReader {
 public:
  explicit BlockReader(const BlockFile& f) : f_(&f) {}
  // The next record, or nullptr at the end; valid until the next call.
  const std::uint8_t* next() {
    if (pos_ == buf_.size()) {
      if (block_ >= f_->offsets.size()) return nullptr;
      f_->read_block(block_++, buf_);
      pos_ = 0;
      if (buf_.empty()) return nullptr;
    }
    const std::uint8_t* r = buf_.data() + pos_;
    pos_ += f_->record_bytes;
    return r;
  }

 private:
  const BlockFile* f_;
  std::size_t block_ = 0, pos_ = 0;
  std::vector<std::uint8_t> buf_;
};

}  // namespace blkmc
