#include "model/sched/kernel/kernel_codec.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace blkmc::kernel {

namespace {

// A wide word's 8-byte code: the tag in the top 16 bits.
constexpr std::uint64_t kTagShift = 48;
constexpr std::uint64_t kRegionTag = 0xB1C0, kObjectTag = 0xB1C1, kJiffiesTag = 0xB1C2, kKtimeTag = 0xB1C3;
constexpr std::uint64_t kLow = (std::uint64_t(1) << kTagShift) - 1;
constexpr std::uint64_t kJiffiesWindow = std::uint64_t(1) << 40;
constexpr std::uint64_t kKtimeWindow = std::uint64_t(1) << 46;
constexpr std::int64_t kNsPerTick = 1000000;
// The shim's MAX_JIFFY_OFFSET: `jiffies - MAX_JIFFY_OFFSET` is the earliest
// time there is (BFQ's bfq_smallest_from_now), coded as its distance to
// that (kAncient), or with `key` as it: every window compares it as long ago.
constexpr std::uint64_t kMaxJiffyOffset = (std::uint64_t(INT64_MAX) >> 1) - 1;

// A word's 4-byte code: the top 4 bits.
constexpr std::uint32_t kSmall = 0, kInRegion = 1, kInObject = 2, kJiffies = 3, kKtime = 4, kFree = 5,
                        kNegative = 6, kPair = 7, kWide = 8, kAncient = 9;
constexpr std::uint32_t kValueBits = 28, kValueMask = (1u << kValueBits) - 1;
constexpr int kHalfBits = 14;  // each int of a pair
constexpr std::size_t kSlotBytes = 12;  // a wide slot: owner word + 1 (0: free), its 8-byte code
constexpr std::uint64_t kFreeWord = 0x6b6b6b6b6b6b6b6bULL;  // BLKMC_FREE_BYTE x 8
static_assert(BLKMC_FREE_BYTE == 0x6b);
static_assert(BLKMC_REDZONE_BYTE == 0xa5 && BLKMC_REDZONE % 8 == 0);

std::uint64_t ktime_at(std::uint64_t jiffies) { return BLKMC_K0 + (jiffies - BLKMC_J0) * std::uint64_t(kNsPerTick); }

bool fits(std::int64_t d, int bits) { return d >= -(std::int64_t(1) << (bits - 1)) && d < (std::int64_t(1) << (bits - 1)); }
std::int64_t sext(std::uint64_t v, int bits) { return std::int64_t(v << (64 - bits)) >> (64 - bits); }
std::uint32_t code(std::uint32_t tag, std::uint64_t value) { return tag << kValueBits | std::uint32_t(value & kValueMask); }
bool is_wide(std::uint32_t c) { return c >> kValueBits == kWide; }
// A ktime difference in 28 bits: whole ticks (milliseconds: the clock's and
// the sysfs tunables' unit) with the low bit set, else nanoseconds.
bool ktime_code(std::int64_t d, std::uint32_t* out) {
  if (d % kNsPerTick == 0 && fits(d / kNsPerTick, kValueBits - 1)) {
    *out = code(kKtime, std::uint64_t(d / kNsPerTick) << 1 | 1);
    return true;
  }
  if (!fits(d, kValueBits - 1)) return false;
  *out = code(kKtime, std::uint64_t(d) << 1);
  return true;
}

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
  // A time about MAX_JIFFY_OFFSET before now: its distance to now - MAX.
  bool is_ancient(std::uint64_t v) const { return fits(std::int64_t(v - (now - kMaxJiffyOffset)), kValueBits); }
  std::int64_t ancient_delta(std::uint64_t v) const { return key ? 0 : std::int64_t(v - (now - kMaxJiffyOffset)); }
  std::int64_t ktime_delta(std::uint64_t v) const {
    const std::int64_t d = std::int64_t(v - kt);
    return key && d < -clamp * kNsPerTick ? -clamp * kNsPerTick : d;
  }
};

Codec::Codec(const Region& r, const Module& m, const std::vector<bool>& fixed, int extra_wide) : m_(m) {
  const blkmc_region& h = *r.hdr();
  const std::uint8_t* mem = r.at(0);
  const Ctx c(r, m, BLKMC_J0, false, 0);
  // Runs of words alike (coded, or fixed): an object splits where that changes.
  auto add = [&](std::uint32_t off, bool fix) {
    const std::uint32_t i = std::uint32_t(fixed_.size());
    std::uint64_t v;
    std::memcpy(&v, mem + off, 8);
    fixed_.push_back(fix ? code8(v, c, i) : 0);  // position free: every region has its own
    is_fixed_.push_back(fix);
    pos_.push_back(fix ? -1 : int(live_++));
    if (!runs_.empty() && !runs_.back().end && runs_.back().fixed == fix && runs_.back().off + 8 * runs_.back().n == off &&
        runs_.back().first + runs_.back().n == i)
      ++runs_.back().n;
    else
      runs_.push_back({off, 1, i, std::uint32_t(fix ? 0 : pos_.back()), fix});
  };
  for (int i = 0; i < h.nobjs; ++i) {
    const blkmc_obj& o = h.objs[i];
    for (std::uint64_t w = 0; w < o.size; w += 8) {
      const std::size_t k = words_.size();
      words_.push_back(std::uint32_t(o.off + w));
      add(std::uint32_t(o.off + w), k < fixed.size() && fixed[k]);
    }
    runs_.back().end = true;  // the next object is a run of its own
    redzones_.push_back({std::uint32_t(o.off + o.size), BLKMC_REDZONE});
  }
  for (int i = 0; i < h.nrqs; ++i) {
    const std::uint64_t slot = h.slots_off + std::uint64_t(i) * h.slot_stride + h.slot_lead;
    for (std::uint32_t w = 0; w < h.rq_state_words; ++w) {
      rq_words_.push_back(std::uint32_t(slot + 8 * w));
      add(std::uint32_t(slot + 8 * w), false);
    }
    runs_.back().end = true;
  }
  per_rq_ = std::max<std::size_t>(1, h.rq_state_words);
  // Room for the wide words init left, as many again and three more, and
  // three more where words are fixed (for those that are not, after all).
  std::size_t wide = 0;
  for (std::size_t i = 0; i < words(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + offset(i), 8);
    wide += !is_fixed_[i] && !narrow(v, c, nullptr);
  }
  wide_slots_ = 2 * wide + 3 + (live_ < words() ? 3 : 0) + std::size_t(std::max(0, extra_wide));
}

std::string Codec::word_name(std::size_t i) const {
  if (i < words_.size()) {
    // The object it lies in: init's n-th allocation, and where in it.
    std::size_t obj = 0;
    std::uint32_t start = words_[0];
    for (std::size_t k = 1; k <= i; ++k)
      if (words_[k] != words_[k - 1] + 8) {
        ++obj;
        start = words_[k];
      }
    return fmt::format("the word at region offset {:#x} (init's allocation {}, byte {})", words_[i], obj,
                       words_[i] - start);
  }
  i -= words_.size();
  return fmt::format("request {}'s word at offset {} of struct request", i / per_rq_, 8 * (i % per_rq_));
}

std::uint64_t Codec::code8(std::uint64_t v, const Ctx& c, std::size_t i) const {
  if (v - c.base < c.size) return kRegionTag << kTagShift | (v - c.base);
  if (v - c.lo < c.osize) return kObjectTag << kTagShift | (v - c.lo);
  if (c.is_jiffies(v)) return kJiffiesTag << kTagShift | (std::uint64_t(c.jiffies_delta(v)) & kLow);
  if (c.is_ktime(v)) return kKtimeTag << kTagShift | (std::uint64_t(c.ktime_delta(v)) & kLow);
  const std::uint64_t tag = v >> kTagShift;
  if (tag >= kRegionTag && tag <= kKtimeTag)
    throw std::runtime_error(fmt::format(
        "kernel state: {} holds {:#x}, which blkmc's state coding cannot tell from its own tags", word_name(i), v));
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

bool Codec::narrow(std::uint64_t v, const Ctx& c, std::uint32_t* out) const {
  std::uint32_t x;
  if (v <= kValueMask) {
    x = code(kSmall, v);
  } else if (v - c.base < c.size && v - c.base <= kValueMask) {
    x = code(kInRegion, v - c.base);
  } else if (v - c.lo < c.osize && v - c.lo <= kValueMask) {
    x = code(kInObject, v - c.lo);
  } else if (c.is_jiffies(v) && fits(c.jiffies_delta(v), kValueBits)) {
    x = code(kJiffies, std::uint64_t(c.jiffies_delta(v)));
  } else if (c.is_ktime(v) && ktime_code(c.ktime_delta(v), &x)) {
  } else if (c.is_ancient(v)) {
    x = code(kAncient, std::uint64_t(c.ancient_delta(v)));
  } else if (v == kFreeWord) {
    x = code(kFree, 0);
  } else if (std::int64_t(v) < 0 && fits(std::int64_t(v), kValueBits)) {
    x = code(kNegative, v);
  } else if (const std::int32_t lo = std::int32_t(v), hi = std::int32_t(v >> 32);
             fits(lo, kHalfBits) && fits(hi, kHalfBits)) {
    x = code(kPair, (std::uint64_t(std::uint32_t(hi) & ((1u << kHalfBits) - 1)) << kHalfBits) |
                        (std::uint32_t(lo) & ((1u << kHalfBits) - 1)));
  } else {
    return false;
  }
  if (out) *out = x;
  return true;
}

std::uint64_t Codec::value4(std::uint32_t code, const Ctx& c, const std::uint8_t* wide) const {
  const std::uint64_t low = code & kValueMask;
  const std::int64_t d = sext(low, kValueBits);
  switch (code >> kValueBits) {
    case kSmall: return low;
    case kInRegion: return c.base + low;
    case kInObject: return c.lo + low;
    case kJiffies: return c.now + std::uint64_t(d);
    case kKtime: return c.kt + std::uint64_t(d & 1 ? (d >> 1) * kNsPerTick : d >> 1);
    case kFree: return kFreeWord;
    case kAncient: return c.now - kMaxJiffyOffset + std::uint64_t(d);
    case kNegative: return std::uint64_t(d);
    case kPair:
      return std::uint64_t(std::uint32_t(std::int32_t(sext(low, kHalfBits)))) |
             std::uint64_t(std::uint32_t(std::int32_t(sext(low >> kHalfBits, kHalfBits)))) << 32;
    default: {
      std::uint64_t c8;
      std::memcpy(&c8, wide + kSlotBytes * low + 4, 8);
      return value8(c8, c);
    }
  }
}

void Codec::encode(Region& r, std::uint8_t* out, std::uint64_t now, bool key, std::int64_t clamp, Mirror* mirror) const {
  const Ctx c(r, m_, now, key, clamp);
  if (mirror) {
    mirror->bytes.resize(bytes());
    mirror->raw.resize(words());
  }
  std::uint8_t* mem = r.at(0);
  std::uint8_t* wide = out + 4 * live_;
  std::memset(wide, 0, kSlotBytes * wide_slots_);
  std::size_t nwide = 0;
  for (std::size_t i = 0; i < words(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, mem + offset(i), 8);
    std::uint64_t back = v;
    std::uint32_t x = 0;
    if (is_fixed_[i] ? v != value8(fixed_[i], c) : !narrow(v, c, &x)) {
      // The j-th wide word in word order takes slot j (its word index + 1,
      // then its 8-byte code): one coding per region.
      if (nwide == wide_slots_)
        throw std::runtime_error(fmt::format(
            "kernel state: {} holds {:#x}, and the {} slots of the state for words wider than 4 bytes of code are "
            "taken",
            word_name(i), v, wide_slots_));
      const std::uint64_t c8 = code8(v, c, i);
      const std::uint32_t owner = std::uint32_t(i + 1);
      std::memcpy(wide + kSlotBytes * nwide, &owner, 4);
      std::memcpy(wide + kSlotBytes * nwide + 4, &c8, 8);
      back = value8(c8, c);
      x = code(kWide, nwide++);
    } else if (!is_fixed_[i]) {
      back = value4(x, c, wide);
    }
    if (!is_fixed_[i]) std::memcpy(out + 4 * std::size_t(pos_[i]), &x, 4);
    // The region takes back what the code decodes to: a capped time reads
    // as its cap from now on, and the region is what its state decodes to.
    if (back != v) std::memcpy(mem + offset(i), &back, 8);
    if (mirror) mirror->raw[i] = back;
  }
  if (mirror) {
    std::memcpy(mirror->bytes.data(), out, bytes());
    // The region now reads relative to `now`; a mirror holds for BLKMC_J0.
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
  std::uint8_t* mem = r.at(0);
  const std::uint8_t* wide = mirror.bytes.data() + 4 * live_;
  const std::size_t undo0 = mirror.undo.size();
  auto changes = [&] {
    for (const Run& run : runs_) {
      const std::uint8_t* now = mem + run.off;
      if (same_words<std::uint64_t>(now, mirror.raw.data() + run.first, run.n)) continue;
      // A fixed word changed: it takes a wide slot, and the slots move.
      if (run.fixed) return false;
      for (std::uint32_t k = 0; k < run.n; ++k) {
        const std::size_t i = run.first + k;
        std::uint64_t v;
        std::memcpy(&v, now + 8 * k, 8);
        if (v == mirror.raw[i]) continue;
        std::uint32_t x, had;
        const std::size_t at = 4 * std::size_t(run.code + k);
        std::memcpy(&had, mirror.bytes.data() + at, 4);
        // A wide word changed, or a word became wide: the slots move.
        if (is_wide(had) || !narrow(v, c, &x)) return false;
        std::memcpy(out + at, &x, 4);
        const std::uint64_t back = value4(x, c, wide);
        if (back != v) std::memcpy(mem + run.off + 8 * k, &back, 8);
        mirror.undo.push_back(std::uint32_t(i));
      }
    }
    return true;
  };
  if (changes()) return;
  // Coded again as a whole (rare: wide values are few); every word goes on
  // the undo list, so the next decode restores the mirrored state.
  mirror.undo.resize(undo0);
  encode(r, out, BLKMC_J0, key, clamp);
  for (std::size_t i = 0; i < words(); ++i) mirror.undo.push_back(std::uint32_t(i));
}

void Codec::decode(const std::uint8_t* in, Region& r, Mirror* mirror) const {
  const Ctx c(r, m_, BLKMC_J0, false, 0);
  std::uint8_t* mem = r.at(0);
  bool diff = mirror && mirror->valid;
  if (mirror) {
    mirror->bytes.resize(bytes());
    mirror->raw.resize(words());
  }
  const std::uint8_t* wide = in + 4 * live_;
  if (diff) {
    // Back to the mirrored state: the words the calls since changed.
    for (const std::uint32_t i : mirror->undo) std::memcpy(mem + offset(i), &mirror->raw[i], 8);
    mirror->undo.clear();
    // The next successor of the same state: nothing more to write.
    if (std::memcmp(in, mirror->bytes.data(), bytes()) == 0) return;
    // Other wide values: a word's code alone no longer says its value.
    if (std::memcmp(wide, mirror->bytes.data() + 4 * live_, kSlotBytes * wide_slots_) != 0) diff = false;
  } else if (mirror) {
    mirror->undo.clear();
  }
  auto set = [&](std::size_t i, std::uint64_t v) {
    std::memcpy(mem + offset(i), &v, 8);
    if (mirror) mirror->raw[i] = v;
  };
  for (const Run& run : runs_) {
    if (run.fixed) {
      // Their values, unless a wide slot says otherwise (below).
      if (!diff)
        for (std::uint32_t k = 0; k < run.n; ++k) set(run.first + k, value8(fixed_[run.first + k], c));
      continue;
    }
    const std::size_t at = 4 * std::size_t(run.code);
    if (diff && same_words<std::uint32_t>(in + at, mirror->bytes.data() + at, run.n)) continue;
    for (std::uint32_t k = 0; k < run.n; ++k) {
      std::uint32_t x;
      std::memcpy(&x, in + at + 4 * k, 4);
      if (diff) {
        std::uint32_t had;
        std::memcpy(&had, mirror->bytes.data() + at + 4 * k, 4);
        if (had == x) continue;
      }
      set(run.first + k, value4(x, c, wide));
    }
  }
  if (!diff)
    for (std::size_t j = 0; j < wide_slots_; ++j) {
      std::uint32_t owner;
      std::memcpy(&owner, wide + kSlotBytes * j, 4);
      if (owner == 0 || owner > words()) break;
      if (!is_fixed_[owner - 1]) continue;  // a coded word: its code named the slot
      std::uint64_t c8;
      std::memcpy(&c8, wide + kSlotBytes * j + 4, 8);
      set(owner - 1, value8(c8, c));
    }
  if (mirror) {
    std::memcpy(mirror->bytes.data(), in, bytes());
    mirror->valid = true;
  }
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
