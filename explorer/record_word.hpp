// The leading 64-bit word of a record of the disk store's files (a hash or
// an origin, in host order): what their sorts order by first.
#pragma once

#include <cstdint>
#include <cstring>

namespace blkmc {

inline std::uint64_t record_word(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void set_record_word(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }

}  // namespace blkmc
