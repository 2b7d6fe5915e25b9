#include "model/sched/kernel/kernel_codec.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace blkmc::kernel {

namespace {

// An object's 8-byte code: the tag in the top 16 bits.
constexpr std::uint64_t kTagShift = 48;
constexpr std::uint64_t kRegionTag = 0xB1C0, kObjectTag = 0xB1C1, kJiffiesTag = 0xB1C2, kKtimeTag = 0xB1C3;
constexpr std::uint64_t kLow = (std::uint64_t(1) << kTagShift) - 1;
constexpr std::uint64_t kJiffiesWindow = std::uint64_t(1) << 40;
constexpr std::uint64_t kKtimeWindow = std::uint64_t(1) << 46;
constexpr std::int64_t kNsPerTick = 1000000;

// A request word's 4-byte code: the top 3 bits.
constexpr std::uint32_t kSmall = 0, kRqRegion = 1, kRqObject = 2, kRqJiffies = 3, kRqKtime = 4, kRqFree = 5,
                        kRqNegative = 6;
constexpr std::uint32_t kValueBits = 29, kValueMask = (1u << kValueBits) - 1;
constexpr std::uint64_t kFreeWord = 0x6b6b6b6b6b6b6b6bULL;  // BLKMC_FREE_BYTE x 8
static_assert(BLKMC_FREE_BYTE == 0x6b);
static_assert(BLKMC_REDZONE_BYTE == 0xa5 && BLKMC_REDZONE % 8 == 0);

std::uint64_t ktime_at(std::uint64_t jiffies) { return BLKMC_K0 + (jiffies - BLKMC_J0) * std::uint64_t(kNsPerTick); }

bool fits29(std::int64_t d) { return d >= -(std::int64_t(1) << (kValueBits - 1)) && d < (std::int64_t(1) << (kValueBits - 1)); }

}  // namespace

// What coding a word needs to know: where the region and the object lie,
// the clock, and whether old times are capped.
struct Codec::Ctx {
  std::uintptr_t base, lo;
  std::uint64_t size, osize, now, kt;
  bool key;
  std::int64_t clamp;
  Ctx(const Region& r, const Module& m, std::uint64_t now_, bool key_, std::int64_t clamp_)
      : base(r.base()), lo(m.lo()), size(r.size()), osize(m.hi() - m.lo()), now(now_), kt(ktime_at(now_)),
        key(key_), clamp(clamp_) {}
  bool is_jiffies(std::uint64_t v) const { return v - (BLKMC_J0 - kJiffiesWindow) < 2 * kJiffiesWindow; }
  bool is_ktime(std::uint64_t v) const { return v - (BLKMC_K0 - kKtimeWindow) < 2 * kKtimeWindow; }
  std::int64_t jiffies_delta(std::uint64_t v) const {
    const std::int64_t d = std::int64_t(v - now);
    return key && d < -clamp ? -clamp : d;
  }
  std::int64_t ktime_delta(std::uint64_t v) const {
    const std::int64_t d = std::int64_t(v - kt);
    return key && d < -clamp * kNsPerTick ? -clamp * kNsPerTick : d;
  }
};

Codec::Codec(const Region& r, const Module& m) : m_(m) {
  const blkmc_region& h = *r.hdr();
  for (int i = 0; i < h.nobjs; ++i) {
    const blkmc_obj& o = h.objs[i];
    runs_.push_back({std::uint32_t(o.off), std::uint32_t(o.size / 8), std::uint32_t(words_.size())});
    for (std::uint64_t w = 0; w < o.size; w += 8) words_.push_back(std::uint32_t(o.off + w));
    redzones_.push_back({std::uint32_t(o.off + o.size), BLKMC_REDZONE});
  }
  for (int i = 0; i < h.nrqs; ++i) {
    const std::uint64_t slot = h.slots_off + std::uint64_t(i) * h.slot_stride + h.slot_lead;
    rq_runs_.push_back({std::uint32_t(slot), h.rq_state_words, std::uint32_t(rq_words_.size())});
    for (std::uint32_t w = 0; w < h.rq_state_words; ++w) rq_words_.push_back(std::uint32_t(slot + 8 * w));
  }
  per_rq_ = std::max<std::size_t>(1, h.rq_state_words);
}

std::uint64_t Codec::code8(std::uint64_t v, const Ctx& c, std::size_t i) const {
  if (v - c.base < c.size) return kRegionTag << kTagShift | (v - c.base);
  if (v - c.lo < c.osize) return kObjectTag << kTagShift | (v - c.lo);
  if (c.is_jiffies(v)) return kJiffiesTag << kTagShift | (std::uint64_t(c.jiffies_delta(v)) & kLow);
  if (c.is_ktime(v)) return kKtimeTag << kTagShift | (std::uint64_t(c.ktime_delta(v)) & kLow);
  const std::uint64_t tag = v >> kTagShift;
  if (tag >= kRegionTag && tag <= kKtimeTag)
    throw std::runtime_error(fmt::format(
        "kernel state: the word at region offset {:#x} holds {:#x}, which blkmc's state coding cannot tell from "
        "its own tags",
        words_[i], v));
  return v;
}

std::uint64_t Codec::value8(std::uint64_t code, const Ctx& c) const {
  const std::uint64_t low = code & kLow;
  const std::int64_t d = std::int64_t(low << 16) >> 16;  // a 48-bit difference, sign-extended
  switch (code >> kTagShift) {
    case kRegionTag: return c.base + low;
    case kObjectTag: return c.lo + low;
    case kJiffiesTag: return c.now + std::uint64_t(d);
    case kKtimeTag: return c.kt + std::uint64_t(d);
    default: return code;
  }
}

std::uint32_t Codec::code4(std::uint64_t v, const Ctx& c, std::size_t i) const {
  auto code = [](std::uint32_t tag, std::uint64_t value) { return tag << kValueBits | std::uint32_t(value & kValueMask); };
  bool ok = true;
  std::uint32_t out = 0;
  if (v <= kValueMask) {
    out = code(kSmall, v);
  } else if (v - c.base < c.size) {
    ok = v - c.base <= kValueMask;
    out = code(kRqRegion, v - c.base);
  } else if (v - c.lo < c.osize) {
    ok = v - c.lo <= kValueMask;
    out = code(kRqObject, v - c.lo);
  } else if (c.is_jiffies(v)) {
    const std::int64_t d = c.jiffies_delta(v);
    ok = fits29(d);
    out = code(kRqJiffies, std::uint64_t(d));
  } else if (c.is_ktime(v)) {
    const std::int64_t d = c.ktime_delta(v);
    ok = fits29(d);
    out = code(kRqKtime, std::uint64_t(d));
  } else if (v == kFreeWord) {
    out = code(kRqFree, 0);
  } else if (std::int64_t(v) < 0 && fits29(std::int64_t(v))) {
    out = code(kRqNegative, v);
  } else {
    ok = false;
  }
  if (!ok)
    throw std::runtime_error(fmt::format(
        "kernel state: request {} holds {:#x} in its word at offset {} of struct request, a value blkmc's 4-byte "
        "request word cannot hold",
        i / per_rq_, v, 8 * (i % per_rq_)));
  return out;
}

std::uint64_t Codec::value4(std::uint32_t code, const Ctx& c) const {
  const std::uint64_t low = code & kValueMask;
  const std::int64_t d = std::int64_t(std::int32_t(code << (32 - kValueBits)) >> (32 - kValueBits));
  switch (code >> kValueBits) {
    case kSmall: return low;
    case kRqRegion: return c.base + low;
    case kRqObject: return c.lo + low;
    case kRqJiffies: return c.now + std::uint64_t(d);
    case kRqKtime: return c.kt + std::uint64_t(d);
    case kRqFree: return kFreeWord;
    default: return std::uint64_t(d);
  }
}

// A word as coded, and the value it decodes to at c's clock: the region
// takes that value back, so a capped time reads as its cap from now on and
// the region is always what its state bytes decode to.
template <class Code>
void Codec::put(Region& r, std::uint8_t* out, std::size_t at, std::uint32_t off, Code code, std::uint64_t value,
                std::uint64_t raw, Mirror* mirror, std::size_t i) const {
  std::memcpy(out + at, &code, sizeof code);
  if (value != raw) std::memcpy(r.at(off), &value, 8);
  if (mirror) {
    std::memcpy(mirror->bytes.data() + at, &code, sizeof code);
    mirror->raw[i] = value;
  }
}

void Codec::encode(Region& r, std::uint8_t* out, std::uint64_t now, bool key, std::int64_t clamp, Mirror* mirror) const {
  const Ctx c(r, m_, now, key, clamp);
  if (mirror) {
    mirror->bytes.resize(bytes());
    mirror->raw.resize(words());
  }
  const std::uint8_t* mem = r.at(0);
  for (std::size_t i = 0; i < words_.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + words_[i], 8);
    const std::uint64_t code = code8(v, c, i);
    put(r, out, 8 * i, words_[i], code, value8(code, c), v, mirror, i);
  }
  const std::size_t at = 8 * words_.size();
  for (std::size_t i = 0; i < rq_words_.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + rq_words_[i], 8);
    const std::uint32_t code = code4(v, c, i);
    put(r, out, at + 4 * i, rq_words_[i], code, value4(code, c), v, mirror, words_.size() + i);
  }
  // The region now reads relative to `now`; a mirror holds for BLKMC_J0.
  if (mirror) {
    mirror->valid = now == BLKMC_J0;
    mirror->undo.clear();
  }
}

// Whether n words at a equal n at b. The state bytes carry no alignment, so
// the words are loaded through memcpy (plain loads on x86); a request's run
// has one size, and a compare of a constant size compiles to a few unrolled
// loads; other runs in a loop without early exit, which the compiler
// vectorises.
template <typename W>
static bool same_words(const void* a, const void* b, std::uint32_t n) {
  switch (n * sizeof(W)) {
    case 32: return std::memcmp(a, b, 32) == 0;
    case 40: return std::memcmp(a, b, 40) == 0;
    case 64: return std::memcmp(a, b, 64) == 0;
    case 80: return std::memcmp(a, b, 80) == 0;
    default: break;
  }
  const auto* p = static_cast<const std::uint8_t*>(a);
  const auto* q = static_cast<const std::uint8_t*>(b);
  W d = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    W x, y;
    std::memcpy(&x, p + sizeof(W) * i, sizeof(W));
    std::memcpy(&y, q + sizeof(W) * i, sizeof(W));
    d |= x ^ y;
  }
  return d == 0;
}

void Codec::encode_changes(Region& r, std::uint8_t* out, bool key, std::int64_t clamp, Mirror& mirror) const {
  const Ctx c(r, m_, BLKMC_J0, key, clamp);
  const std::uint8_t* mem = r.at(0);
  for (const Run& run : runs_) {
    const std::uint8_t* now = mem + run.off;
    if (same_words<std::uint64_t>(now, mirror.raw.data() + run.first, run.n)) continue;
    for (std::uint32_t k = 0; k < run.n; ++k) {
      const std::size_t i = run.first + k;
      std::uint64_t v;
      std::memcpy(&v, now + 8 * k, 8);
      if (v == mirror.raw[i]) continue;
      const std::uint64_t code = code8(v, c, i);
      put(r, out, 8 * i, words_[i], code, value8(code, c), v, nullptr, i);
      mirror.undo.push_back(std::uint32_t(i));
    }
  }
  const std::size_t at = 8 * words_.size(), n = words_.size();
  for (const Run& run : rq_runs_) {
    const std::uint8_t* now = mem + run.off;
    if (same_words<std::uint64_t>(now, mirror.raw.data() + n + run.first, run.n)) continue;
    for (std::uint32_t k = 0; k < run.n; ++k) {
      const std::size_t i = run.first + k;
      std::uint64_t v;
      std::memcpy(&v, now + 8 * k, 8);
      if (v == mirror.raw[n + i]) continue;
      const std::uint32_t code = code4(v, c, i);
      put(r, out, at + 4 * i, rq_words_[i], code, value4(code, c), v, nullptr, n + i);
      mirror.undo.push_back(std::uint32_t(n + i));
    }
  }
}

void Codec::decode(const std::uint8_t* in, Region& r, Mirror* mirror) const {
  const Ctx c(r, m_, BLKMC_J0, false, 0);
  std::uint8_t* mem = r.at(0);
  const bool diff = mirror && mirror->valid;
  if (mirror) {
    mirror->bytes.resize(bytes());
    mirror->raw.resize(words());
  }
  const std::size_t at = 8 * words_.size(), n = words_.size();
  if (diff) {
    // Back to the mirrored state: the words the calls since changed.
    for (const std::uint32_t i : mirror->undo)
      std::memcpy(mem + (i < n ? words_[i] : rq_words_[i - n]), &mirror->raw[i], 8);
    mirror->undo.clear();
    // The next successor of the same state: nothing more to write.
    if (std::memcmp(in, mirror->bytes.data(), bytes()) == 0) return;
  } else if (mirror) {
    mirror->undo.clear();
  }
  for (const Run& run : runs_) {
    const std::uint8_t* codes = in + 8 * run.first;
    if (diff && same_words<std::uint64_t>(codes, mirror->bytes.data() + 8 * run.first, run.n))
      continue;
    for (std::uint32_t k = 0; k < run.n; ++k) {
      const std::size_t i = run.first + k;
      std::uint64_t code;
      std::memcpy(&code, in + 8 * i, 8);
      if (diff) {
        std::uint64_t had;
        std::memcpy(&had, mirror->bytes.data() + 8 * i, 8);
        if (had == code) continue;
      }
      const std::uint64_t v = value8(code, c);
      std::memcpy(mem + words_[i], &v, 8);
      if (mirror) {
        std::memcpy(mirror->bytes.data() + 8 * i, &code, 8);
        mirror->raw[i] = v;
      }
    }
  }
  for (const Run& run : rq_runs_) {
    const std::uint8_t* codes = in + at + 4 * run.first;
    if (diff && same_words<std::uint32_t>(codes, mirror->bytes.data() + at + 4 * run.first, run.n))
      continue;
    for (std::uint32_t k = 0; k < run.n; ++k) {
      const std::size_t i = run.first + k;
      std::uint32_t code;
      std::memcpy(&code, in + at + 4 * i, 4);
      if (diff) {
        std::uint32_t had;
        std::memcpy(&had, mirror->bytes.data() + at + 4 * i, 4);
        if (had == code) continue;
      }
      const std::uint64_t v = value4(code, c);
      std::memcpy(mem + rq_words_[i], &v, 8);
      if (mirror) {
        std::memcpy(mirror->bytes.data() + at + 4 * i, &code, 4);
        mirror->raw[n + i] = v;
      }
    }
  }
  if (mirror) mirror->valid = true;
}

bool Codec::redzones_intact(const Region& r) const {
  std::uint64_t d = 0;
  for (const auto& [off, n] : redzones_)
    for (std::uint32_t k = 0; k < n; k += 8) {
      std::uint64_t w;
      std::memcpy(&w, r.at(off + k), 8);
      d |= w ^ 0xa5a5a5a5a5a5a5a5ULL;
    }
  return d == 0;
}

std::string Codec::check(const Region& r) const {
  const std::uint8_t* mem = r.at(0);
  for (const auto& [off, n] : redzones_)
    for (std::uint32_t k = 0; k < n; ++k)
      if (mem[off + k] != BLKMC_REDZONE_BYTE)
        return fmt::format("a write past the end of a kmalloc'd object (region offset {:#x})", off + k);
  return "";
}

void Codec::restore_redzones(Region& r) const {
  for (const auto& [off, n] : redzones_) std::memset(r.at(off), BLKMC_REDZONE_BYTE, n);
}

}  // namespace blkmc::kernel
