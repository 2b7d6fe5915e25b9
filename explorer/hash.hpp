// Hash of a state's bytes: 8 bytes at a time with a multiply-xorshift mix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace blkmc {

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

// States of kLanesFrom bytes or more (the kernel's own code keeps its
// memory in the state) are hashed 32 bytes at a time in four independent
// lanes, whose multiplies overlap; the rest word by word into the first.
inline constexpr std::size_t kLanesFrom = 512;
// (Not inlined: callers with small states never reach it, and the compiler
// need not reason about reads past them.)
[[gnu::noinline]] inline std::size_t hash_lanes(const std::uint8_t* p, std::size_t n, std::uint64_t& h) {
  std::uint64_t l[4] = {h, h ^ 0x632be59bd9b4e019ULL, h ^ 0x8cb92ba72f3d8dd7ULL, h ^ 0x1d8e4e27c47d124fULL};
  const std::size_t blocks = n / 32 * 32;
  for (std::size_t i = 0; i < blocks; i += 32)
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + i + 8 * std::size_t(k), 8);
      l[k] = (l[k] ^ w) * 0xbf58476d1ce4e5b9ULL;
      l[k] ^= l[k] >> 29;
    }
  h = mix64(l[0]) ^ (mix64(l[1]) * 3) ^ (mix64(l[2]) * 5) ^ (mix64(l[3]) * 7);
  return blocks;
}

// Reads whole 8-byte words past n up to the next multiple of 8: callers pass
// buffers whose padding is zero (ByteState) or use hash_bytes_exact.
inline std::uint64_t hash_padded(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (std::size_t i = n >= kLanesFrom ? hash_lanes(p, n, h) : 0; i < n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
  }
  return mix64(h);
}

inline std::uint64_t hash_bytes_exact(const std::uint8_t* p, std::size_t n) {
  std::uint8_t buf[8];
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (std::size_t i = n >= kLanesFrom ? hash_lanes(p, n, h) : 0; i < n; i += 8) {
    std::uint64_t w;
    if (i + 8 <= n) {
      std::memcpy(&w, p + i, 8);
    } else {
      std::memset(buf, 0, 8);
      std::memcpy(buf, p + i, n - i);
      std::memcpy(&w, buf, 8);
    }
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
  }
  return mix64(h);
}

}  // namespace blkmc
