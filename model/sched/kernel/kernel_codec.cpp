#include "model/sched/kernel/kernel_codec.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace blkmc::kernel {

namespace {

constexpr std::uint64_t kTagShift = 48;
constexpr std::uint64_t kRegionTag = 0xB1C0, kObjectTag = 0xB1C1, kJiffiesTag = 0xB1C2, kKtimeTag = 0xB1C3;
constexpr std::uint64_t kLow = (std::uint64_t(1) << kTagShift) - 1;
constexpr std::uint64_t kJiffiesWindow = std::uint64_t(1) << 40;
constexpr std::uint64_t kKtimeWindow = std::uint64_t(1) << 46;
constexpr std::int64_t kNsPerTick = 1000000;

std::uint64_t ktime_at(std::uint64_t jiffies) { return BLKMC_K0 + (jiffies - BLKMC_J0) * std::uint64_t(kNsPerTick); }

// A request word's 4-byte code: the top 3 bits.
constexpr std::uint32_t kSmall = 0, kRqRegion = 1, kRqObject = 2, kRqJiffies = 3, kRqKtime = 4, kRqFree = 5,
                        kRqNegative = 6;
constexpr std::uint32_t kValueBits = 29, kValueMask = (1u << kValueBits) - 1;
constexpr std::uint64_t kFreeWord = 0x6b6b6b6b6b6b6b6bULL;  // BLKMC_FREE_BYTE x 8
static_assert(BLKMC_FREE_BYTE == 0x6b);

std::uint32_t rq_code(std::uint32_t tag, std::uint64_t value) { return tag << kValueBits | std::uint32_t(value & kValueMask); }
bool fits_signed(std::int64_t d) { return d >= -(std::int64_t(1) << (kValueBits - 1)) && d < (std::int64_t(1) << (kValueBits - 1)); }

}  // namespace

Codec::Codec(const Region& r, const Module& m) : m_(m) {
  const blkmc_region& h = *r.hdr();
  for (int i = 0; i < h.nobjs; ++i) {
    const blkmc_obj& o = h.objs[i];
    for (std::uint64_t w = 0; w < o.size; w += 8) words_.push_back(std::uint32_t(o.off + w));
    redzones_.push_back({std::uint32_t(o.off + o.size), BLKMC_REDZONE});
  }
  for (int i = 0; i < h.nrqs; ++i) {
    const std::uint64_t slot = h.slots_off + std::uint64_t(i) * h.slot_size;
    for (std::uint64_t w = 0; w < m.rq_state_bytes(); w += 8) rq_words_.push_back(std::uint32_t(slot + w));
    constant_.push_back({std::uint32_t(slot + m.rq_state_bytes()), std::uint32_t(h.slot_size - m.rq_state_bytes())});
  }
}

void Codec::encode(const Region& r, std::uint8_t* out, std::uint64_t now, bool key, std::int64_t clamp) const {
  const std::uintptr_t base = r.base(), lo = m_.lo();
  const std::uint64_t size = r.size(), osize = m_.hi() - m_.lo();
  const std::uint64_t kt = ktime_at(now);
  const std::uint8_t* mem = r.at(0);
  for (std::size_t i = 0; i < words_.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + words_[i], 8);
    std::uint64_t c;
    if (v - base < size) {
      c = kRegionTag << kTagShift | (v - base);
    } else if (v - lo < osize) {
      c = kObjectTag << kTagShift | (v - lo);
    } else if (v - (BLKMC_J0 - kJiffiesWindow) < 2 * kJiffiesWindow) {
      std::int64_t d = std::int64_t(v - now);
      if (key && d < -clamp) d = -clamp;
      c = kJiffiesTag << kTagShift | (std::uint64_t(d) & kLow);
    } else if (v - (BLKMC_K0 - kKtimeWindow) < 2 * kKtimeWindow) {
      std::int64_t d = std::int64_t(v - kt);
      if (key && d < -clamp * kNsPerTick) d = -clamp * kNsPerTick;
      c = kKtimeTag << kTagShift | (std::uint64_t(d) & kLow);
    } else {
      const std::uint64_t tag = v >> kTagShift;
      if (tag >= kRegionTag && tag <= kKtimeTag)
        throw std::runtime_error(fmt::format(
            "kernel state: the word at region offset {:#x} holds {:#x}, which blkmc's state coding cannot tell "
            "from its own tags",
            words_[i], v));
      c = v;
    }
    std::memcpy(out + 8 * i, &c, 8);
  }
  out += 8 * words_.size();
  for (std::size_t i = 0; i < rq_words_.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + rq_words_[i], 8);
    std::uint32_t c = 0;
    bool ok = true;
    if (v <= kValueMask) {
      c = rq_code(kSmall, v);
    } else if (v - base < size) {
      ok = v - base <= kValueMask;
      c = rq_code(kRqRegion, v - base);
    } else if (v - lo < osize) {
      ok = v - lo <= kValueMask;
      c = rq_code(kRqObject, v - lo);
    } else if (v - (BLKMC_J0 - kJiffiesWindow) < 2 * kJiffiesWindow) {
      std::int64_t d = std::int64_t(v - now);
      if (key && d < -clamp) d = -clamp;
      ok = fits_signed(d);
      c = rq_code(kRqJiffies, std::uint64_t(d));
    } else if (v - (BLKMC_K0 - kKtimeWindow) < 2 * kKtimeWindow) {
      std::int64_t d = std::int64_t(v - kt);
      if (key && d < -clamp * kNsPerTick) d = -clamp * kNsPerTick;
      ok = fits_signed(d);
      c = rq_code(kRqKtime, std::uint64_t(d));
    } else if (v == kFreeWord) {
      c = rq_code(kRqFree, 0);
    } else if (std::int64_t(v) < 0 && fits_signed(std::int64_t(v))) {
      c = rq_code(kRqNegative, v);
    } else {
      ok = false;
    }
    if (!ok)
      throw std::runtime_error(fmt::format(
          "kernel state: request {} holds {:#x} at offset {} of struct request, a value blkmc's 4-byte request "
          "word cannot hold",
          i / (m_.rq_state_bytes() / 8), v, 8 * (i % (m_.rq_state_bytes() / 8))));
    std::memcpy(out + 4 * i, &c, 4);
  }
}

void Codec::decode(const std::uint8_t* in, Region& r) const {
  const std::uintptr_t base = r.base(), lo = m_.lo();
  const std::uint64_t kt = ktime_at(BLKMC_J0);
  std::uint8_t* mem = r.at(0);
  for (std::size_t i = 0; i < words_.size(); ++i) {
    std::uint64_t c;
    std::memcpy(&c, in + 8 * i, 8);
    const std::uint64_t low = c & kLow;
    // Sign-extend a difference of 48 bits.
    const std::int64_t d = std::int64_t(low << 16) >> 16;
    std::uint64_t v;
    switch (c >> kTagShift) {
      case kRegionTag: v = base + low; break;
      case kObjectTag: v = lo + low; break;
      case kJiffiesTag: v = BLKMC_J0 + std::uint64_t(d); break;
      case kKtimeTag: v = kt + std::uint64_t(d); break;
      default: v = c;
    }
    std::memcpy(mem + words_[i], &v, 8);
  }
  in += 8 * words_.size();
  for (std::size_t i = 0; i < rq_words_.size(); ++i) {
    std::uint32_t c;
    std::memcpy(&c, in + 4 * i, 4);
    const std::uint64_t low = c & kValueMask;
    const std::int64_t d = std::int64_t(std::int32_t(c << (32 - kValueBits)) >> (32 - kValueBits));
    std::uint64_t v;
    switch (c >> kValueBits) {
      case kSmall: v = low; break;
      case kRqRegion: v = base + low; break;
      case kRqObject: v = lo + low; break;
      case kRqJiffies: v = BLKMC_J0 + std::uint64_t(d); break;
      case kRqKtime: v = kt + std::uint64_t(d); break;
      case kRqFree: v = kFreeWord; break;
      default: v = std::uint64_t(d); break;
    }
    std::memcpy(mem + rq_words_[i], &v, 8);
  }
}

std::string Codec::check(const Region& r, const std::vector<std::uint8_t>& pristine) const {
  const std::uint8_t* mem = r.at(0);
  for (const auto& [off, n] : redzones_)
    for (std::uint32_t k = 0; k < n; ++k)
      if (mem[off + k] != BLKMC_REDZONE_BYTE)
        return fmt::format("a write past the end of a kmalloc'd object (region offset {:#x})", off + k);
  for (std::size_t i = 0; i < constant_.size(); ++i) {
    const auto [off, n] = constant_[i];
    if (std::memcmp(mem + off, pristine.data() + off, n) != 0) {
      std::uint32_t k = 0;
      while (k < n && mem[off + k] == pristine[off + k]) ++k;
      return fmt::format("request {}'s field at offset {} changed, which blkmc keeps constant for its slot "
                         "(struct request past the scheduler's fields, shim/blkmc_shim.h)",
                         i, m_.rq_state_bytes() + k);
    }
  }
  return "";
}

}  // namespace blkmc::kernel
