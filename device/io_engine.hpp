// device/io_engine: one process's asynchronous submission, through libaio
// (io_submit / io_getevents, the default) or io_uring (liburing).
//
// Both carry the request's ioprio (IOCB_FLAG_IOPRIO + aio_reqprio; the
// sqe's ioprio) and submit one request per call, so that a process's
// requests reach the block layer in plan order. io_uring may still punt a
// request to an io-wq worker when the inline issue would block (a full tag
// map), which can reorder one process's requests: the reason libaio is the
// default (docs/devices.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace blkmc::device {

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  // 0, or -errno.
  virtual int submit(int fd, bool write, void* buf, std::size_t bytes, std::uint64_t offset,
                     int id, int ioprio) = 0;
  // Waits up to timeout_ms for at least `min` completions and reports each
  // as done(id, result); returns how many, 0 on timeout, or -errno.
  virtual int reap(int min, int timeout_ms, const std::function<void(int, int)>& done) = 0;
};

// "libaio" or "io_uring", for up to `depth` requests in flight; throws
// std::runtime_error when the engine cannot be set up.
std::unique_ptr<IoEngine> make_io_engine(const std::string& name, int depth);

bool known_io_engine(const std::string& name);

}  // namespace blkmc::device
