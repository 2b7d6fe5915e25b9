// model/sched/kernel/kernel_codec: a region's state as bytes of a model
// state, and back.
//
// The words of a state are those the scheduler may change: every object
// its init allocated (in allocation order), then the first
// BLKMC_RQ_STATE_BYTES of every request slot (struct request's head in
// shim/blkmc_shim.h). Each word is coded on its own, by its value:
//   into the region          the offset: states are position free, so
//                            every thread's region takes them
//   into the compiled object the offset (e.g. eq->type)
//   a jiffies time           the difference to jiffies (times are
//                            relative: a state does not age)
//   a ktime (ns)             the same in nanoseconds
//   anything else            itself
// An object's word takes 8 bytes (a tag in the top 16 bits: 0xB1C0 region,
// 0xB1C1 object, 0xB1C2 jiffies, 0xB1C3 ktime; a plain word that looks
// like one is an error). A request's word takes 4 (a tag in the top 3
// bits, 29 bits of value: small numbers, offsets, differences, and the
// poison of a free slot): the requests are most of a state, and what a
// scheduler keeps in them (links, flags, its time, a pointer) fits; a value
// that does not is an error naming the word.
// With `key` (kernel_state=key, the default) differences below -clamp
// ticks are stored as -clamp: past every time tunable, older is the same.
// Everything else of the region (the slots' constant fields, the redzones
// between objects) must not change: check() says what did.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/sched/kernel/kernel_module.hpp"

namespace blkmc::kernel {

class Codec {
 public:
  // The layout of a region after BLKMC_OP_INIT.
  Codec(const Region& r, const Module& m);

  std::size_t bytes() const { return words_.size() * 8 + rq_words_.size() * 4; }
  std::size_t words() const { return words_.size() + rq_words_.size(); }

  // Region -> state bytes, relative to `now` (jiffies; ktime follows).
  // Throws std::runtime_error for a word that no code can hold.
  void encode(const Region& r, std::uint8_t* out, std::uint64_t now, bool key, std::int64_t clamp) const;
  // State bytes -> region, at jiffies BLKMC_J0.
  void decode(const std::uint8_t* in, Region& r) const;

  // What the code changed that a state does not hold ("" when nothing): a
  // redzone after a kmalloc'd object, a constant field of a request slot.
  // `pristine` is the region's image after init (Region::size() bytes).
  std::string check(const Region& r, const std::vector<std::uint8_t>& pristine) const;

 private:
  const Module& m_;
  std::vector<std::uint32_t> words_, rq_words_;  // region offsets: objects' words, requests' words
  std::vector<std::pair<std::uint32_t, std::uint32_t>> redzones_;  // offset, bytes
  std::vector<std::pair<std::uint32_t, std::uint32_t>> constant_;  // slot tails: offset, bytes
};

}  // namespace blkmc::kernel
