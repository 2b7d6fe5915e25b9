// model/sched/kernel/kernel_codec: a region's state as bytes of a model
// state, and back.
//
// The words of a state are those the scheduler may change: every object
// its init allocated (in allocation order), then the first
// region->rq_state_words words of every request slot (the fields of
// struct request's head that the family's scheduler writes,
// shim/blkmc_shim.h; the rest of a slot is read-only once init is done).
// Each word is coded on its own, by its value:
//   into the region          the offset: states are position free, so
//                            every thread's region takes them
//   into the compiled object the offset (e.g. eq->type)
//   a jiffies time           the difference to jiffies (times are
//                            relative: a state does not age)
//   a ktime (ns)             the same in nanoseconds
//   anything else            itself
// Every word takes 4 bytes of code (a tag in the top 4 bits, 28 bits of
// value: small numbers, offsets, differences, negatives, a pair of small
// ints, the poison of a free slot). A word whose value none of them holds
// is wide: its code names one of the state's wide slots (12 bytes each:
// the word's number + 1, then the same codes in 64 bits, a tag in the top
// 16: 0xB1C0 region, 0xB1C1 object, 0xB1C2 jiffies, 0xB1C3 ktime; a plain
// value that looks like one is an error), the j-th wide word in word order
// slot j, so a region has one coding. A fixed object word (one the code is
// not expected to change) has no code while it holds its value at init;
// when it does not, it takes a wide slot too. There are twice as many
// slots as init left wide words, and three more (three more again where
// words are fixed, and the family's extra: BFQ's 16); a state that needs
// more is an error naming the word.
// With `key` (kernel_state=key, the default) differences below -clamp
// ticks are stored as -clamp: past every time tunable, older is the same.
// The redzones after the arena's objects must not change: check() says
// whether one did (a write past the end of a kmalloc'd object).
//
// A region that has just been decoded from a state, or encoded into one,
// is mirrored (the state's bytes and the raw words behind them): the next
// decode writes only the words in which the new state differs, and after
// a call only the words the call changed are coded again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/sched/kernel/kernel_module.hpp"

namespace blkmc::kernel {

class Codec {
 public:
  struct Mirror {
    std::vector<std::uint8_t> bytes;  // the state bytes the region holds
    std::vector<std::uint64_t> raw;   // the region's words behind them
    // The words that calls changed since: the region is the mirrored state
    // but for these (undone by the next decode, which then writes only where
    // its state differs from the mirrored one: nothing for the next
    // successor of the same state).
    std::vector<std::uint32_t> undo;
    bool valid = false;
  };

  // The layout of a region after BLKMC_OP_INIT.
  // fixed[i]: object word i is expected to keep the value it has now
  // (KernelScheduler::learn_fixed): no code while it does, a wide slot
  // when it does not after all.
  // extra_wide: wide slots beyond the rule below (a family whose code
  // keeps estimates of any width).
  Codec(const Region& r, const Module& m, const std::vector<bool>& fixed = {}, int extra_wide = 0);

  std::size_t bytes() const { return 4 * live_ + 12 * wide_slots_; }
  std::size_t words() const { return words_.size() + rq_words_.size(); }
  std::size_t fixed_words() const { return words() - live_; }

  // Region -> state bytes, relative to `now` (jiffies; ktime follows); a
  // capped time is written back as its cap. Throws std::runtime_error for
  // a word that no code can hold. With a mirror, it mirrors the result
  // (valid for a region at BLKMC_J0 only).
  void encode(Region& r, std::uint8_t* out, std::uint64_t now, bool key, std::int64_t clamp,
              Mirror* mirror = nullptr) const;
  // After a call at BLKMC_J0 on a mirrored region: out (the mirrored
  // bytes) gets the words the call changed; the mirror stays the state
  // before the call, and the changed words go on its undo list.
  void encode_changes(Region& r, std::uint8_t* out, bool key, std::int64_t clamp, Mirror& mirror) const;
  // State bytes -> region at jiffies BLKMC_J0: every word, or with a valid
  // mirror the words that differ from it; the mirror follows.
  void decode(const std::uint8_t* in, Region& r, Mirror* mirror = nullptr) const;

  // Whether no redzone was written; which one was ("" when none).
  bool redzones_intact(const Region& r) const;
  std::string check(const Region& r) const;
  void restore_redzones(Region& r) const;

 private:
  struct Ctx;
  std::uint64_t code8(std::uint64_t v, const Ctx& c, std::size_t i) const;
  std::uint64_t value8(std::uint64_t code, const Ctx& c) const;
  // v's 4-byte code into *out (when out); false for a wide value.
  bool narrow(std::uint64_t v, const Ctx& c, std::uint32_t* out) const;
  std::uint64_t value4(std::uint32_t code, const Ctx& c, const std::uint8_t* wide) const;
  std::string word_name(std::size_t i) const;
  // Word i's region offset: the objects' words, then the requests'.
  std::uint32_t offset(std::size_t i) const {
    return i < words_.size() ? words_[i] : rq_words_[i - words_.size()];
  }

  const Module& m_;
  std::vector<std::uint32_t> words_, rq_words_;  // region offsets: objects' words, requests' words
  struct Run {
    std::uint32_t off, n, first, code;  // n words at region offset off: words first.., codes code..
    bool fixed;                         // fixed words (no codes)
    bool end = false;                   // an object's or a request's last run
  };
  std::vector<Run> runs_;  // the objects' words, then the requests'
  std::vector<std::uint64_t> fixed_;  // per word: a fixed word's 8-byte code
  std::vector<bool> is_fixed_;
  std::vector<int> pos_;  // per word: its code's place (-1: fixed)
  std::size_t live_ = 0;  // coded words
  std::vector<std::pair<std::uint32_t, std::uint32_t>> redzones_;  // offset, bytes
  std::size_t per_rq_ = 1;  // state words per request
  std::size_t wide_slots_ = 4;
};

}  // namespace blkmc::kernel
