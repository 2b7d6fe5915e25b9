// model/sched/kernel/kernel_module: a compiled scheduler file loaded into
// blkmc, and the regions its code runs in.
//
// A Module is one shared object (kernel_build.hpp), loaded once per process
// and never unloaded; its module_init runs once, after which its writable
// globals are made read-only: a scheduler that writes a global after init
// keeps state blkmc's state does not hold, and the fault says so. A Region
// is the memory one copy of the scheduler's state lives in (shim/
// blkmc_region.h): the search gives each thread its own, and a state's
// words name addresses as offsets (kernel_codec.hpp), so any region can
// take any state.
//
// Every call (Module::call) runs under a sigsetjmp in the harness: a
// BUG, a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, on an alternate stack) or a
// call that has not returned after kStepTimeout seconds (a watchdog thread
// signals it) ends the call with a status, never blkmc.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/sched/kernel/shim/blkmc_region.h"

namespace blkmc::kernel {

inline constexpr double kStepTimeout = 2.0;  // seconds one scheduler call may run

class Module {
 public:
  // The loaded object at `so` (kept for the process; throws UsageError).
  static const Module& load(const std::string& so);

  // One harness call (blkmc_region.h's ops and flags); its status.
  int call(blkmc_region* r, int op, int a, int b, std::uint64_t now, int flags, long* result) const;

  const std::string& path() const { return path_; }
  const std::string& elevator() const { return elevator_; }
  std::size_t request_size() const { return request_size_; }  // sizeof(struct request)
  std::size_t rq_state_bytes() const { return rq_state_bytes_; }
  // The object's mapping: pointers into it are coded as offsets.
  std::uintptr_t lo() const { return lo_; }
  std::uintptr_t hi() const { return hi_; }
  // Writable globals, read-only after module_init.
  std::uintptr_t rw_lo() const { return rw_lo_; }
  std::uintptr_t rw_hi() const { return rw_hi_; }
  // The sysfs attributes of its elevator_attrs, in order.
  const std::vector<std::string>& attrs() const { return attrs_; }
  // The data object (a static or global variable) at addr, or nullptr. The
  // file's own symbol table: dladdr sees exported symbols only, and the
  // scheduler's variables are static. Safe in a signal handler.
  const char* object_at(std::uintptr_t addr) const;

  // Where code addresses of this object lie in its sources: for each pc (a
  // return address, as the memory hooks record them), the chain of inlined
  // frames, innermost first, from the object's line tables (addr2line).
  // Empty where it cannot say. Not for the search's hot path: it runs a
  // process.
  struct Frame {
    std::string function, file;  // file: the source's base name
    int line = 0;
  };
  std::vector<std::vector<Frame>> frames(const std::vector<std::uint64_t>& pcs) const;

  // From the signal handler: ends the call running on this thread.
  void fault(int status, const char* text) const;

  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

 private:
  explicit Module(std::string so);
  using CallFn = int (*)(blkmc_region*, int, int, int, unsigned long, int, long*);
  using FaultFn = void (*)(int, const char*);
  std::string path_, elevator_;
  void* handle_ = nullptr;
  CallFn call_ = nullptr;
  FaultFn fault_ = nullptr;
  std::size_t request_size_ = 0, rq_state_bytes_ = 0;
  std::uintptr_t lo_ = 0, hi_ = 0, rw_lo_ = 0, rw_hi_ = 0, base_ = 0;
  std::vector<std::string> attrs_;
  struct Object {
    std::uintptr_t lo, hi;
    std::size_t name;  // offset into names_
  };
  void read_objects(std::uintptr_t base);
  std::vector<Object> objects_;  // sorted by lo
  std::string names_;
};

// The memory of one copy of a scheduler's state: the header, the arena,
// the request slots (two pages each: blkmc_region.h), with an unmapped page
// on either side. state_words: how many words of a request's head are state.
class Region {
 public:
  Region(const Module& m, int nrqs, int state_words, std::size_t arena_bytes = 64 * 1024);
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  blkmc_region* hdr() const { return hdr_; }
  std::uintptr_t base() const { return reinterpret_cast<std::uintptr_t>(hdr_); }
  std::size_t size() const { return size_; }
  std::uint8_t* at(std::uint64_t off) const { return reinterpret_cast<std::uint8_t*>(hdr_) + off; }
  // After init: the requests' constant fields read-only.
  void protect_constants();

 private:
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0, size_ = 0;
  blkmc_region* hdr_ = nullptr;
};

// A status as words ("BUG", "fault", ...).
const char* status_name(int status);

}  // namespace blkmc::kernel
