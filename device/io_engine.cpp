#include "device/io_engine.hpp"

#include <libaio.h>
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)  // linux/aio_abi.h, which clashes with libaio.h
#endif
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace blkmc::device {

namespace {

class Libaio final : public IoEngine {
 public:
  explicit Libaio(int depth) : cbs_(std::size_t(depth)) {
    if (const int rc = io_setup(depth, &ctx_); rc != 0)
      throw std::runtime_error(fmt::format("libaio io_setup: {}", std::strerror(-rc)));
  }
  ~Libaio() override { io_destroy(ctx_); }

  int submit(int fd, bool write, void* buf, std::size_t bytes, std::uint64_t offset, int id,
             int ioprio) override {
    if (next_ >= cbs_.size()) return -EAGAIN;
    iocb* cb = &cbs_[next_++];
    if (write)
      io_prep_pwrite(cb, fd, buf, bytes, static_cast<long long>(offset));
    else
      io_prep_pread(cb, fd, buf, bytes, static_cast<long long>(offset));
    cb->data = reinterpret_cast<void*>(std::intptr_t(id));
    cb->u.c.flags |= IOCB_FLAG_IOPRIO;
    cb->aio_reqprio = short(ioprio);
    int rc;
    while ((rc = io_submit(ctx_, 1, &cb)) == -EINTR || rc == -EAGAIN) {
    }
    return rc == 1 ? 0 : rc;
  }

  int reap(int min, int timeout_ms, const std::function<void(int, int)>& done) override {
    io_event ev[64];
    timespec to{timeout_ms / 1000, long(timeout_ms % 1000) * 1000000L};
    int got;
    while ((got = io_getevents(ctx_, std::max(min, 1), 64, ev, &to)) == -EINTR) {
    }
    for (int k = 0; k < got; ++k)
      done(int(reinterpret_cast<std::intptr_t>(ev[k].data)), int(static_cast<long>(ev[k].res)));
    return got;
  }

 private:
  io_context_t ctx_{};
  std::vector<iocb> cbs_;  // one per request: the kernel reads it at submission
  std::size_t next_ = 0;
};

class IoUring final : public IoEngine {
 public:
  explicit IoUring(int depth) {
    if (const int rc = io_uring_queue_init(unsigned(depth), &ring_, 0); rc < 0)
      throw std::runtime_error(fmt::format("io_uring_queue_init: {}", std::strerror(-rc)));
  }
  ~IoUring() override { io_uring_queue_exit(&ring_); }

  int submit(int fd, bool write, void* buf, std::size_t bytes, std::uint64_t offset, int id,
             int ioprio) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) return -EAGAIN;
    if (write)
      io_uring_prep_write(sqe, fd, buf, unsigned(bytes), offset);
    else
      io_uring_prep_read(sqe, fd, buf, unsigned(bytes), offset);
    sqe->ioprio = std::uint16_t(ioprio);
    io_uring_sqe_set_data64(sqe, std::uint64_t(id));
    int rc;
    while ((rc = io_uring_submit(&ring_)) == -EINTR || rc == -EAGAIN) {
    }
    return rc == 1 ? 0 : (rc < 0 ? rc : -EIO);
  }

  int reap(int min, int timeout_ms, const std::function<void(int, int)>& done) override {
    int got = 0;
    while (got < std::max(min, 1)) {
      __kernel_timespec to{timeout_ms / 1000, long(timeout_ms % 1000) * 1000000L};
      io_uring_cqe* cqe = nullptr;
      const int rc = io_uring_wait_cqe_timeout(&ring_, &cqe, &to);
      if (rc == -EINTR) continue;
      if (rc == -ETIME) return got;
      if (rc < 0) return got ? got : rc;
      done(int(io_uring_cqe_get_data64(cqe)), cqe->res);
      io_uring_cqe_seen(&ring_, cqe);
      ++got;
    }
    // Take whatever else is already there.
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe) {
      done(int(io_uring_cqe_get_data64(cqe)), cqe->res);
      io_uring_cqe_seen(&ring_, cqe);
      ++got;
    }
    return got;
  }

 private:
  io_uring ring_{};
};

}  // namespace

bool known_io_engine(const std::string& name) { return name == "libaio" || name == "io_uring"; }

std::unique_ptr<IoEngine> make_io_engine(const std::string& name, int depth) {
  depth = std::max(depth, 1);
  if (name == "libaio") return std::make_unique<Libaio>(depth);
  if (name == "io_uring") return std::make_unique<IoUring>(depth);
  throw std::runtime_error(fmt::format("unknown I/O engine '{}'", name));
}

}  // namespace blkmc::device
