// A fixed set of worker threads for the level-synchronous search: run(n, fn)
// calls fn(task, worker) for every task in [0, n) on the caller and the
// pool's threads (tasks handed out by an atomic counter) and returns when
// all are done, so each call is one phase between two barriers.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace blkmc {

class WorkerPool {
 public:
  // threads: the workers in all, the caller included (1: no thread is started).
  explicit WorkerPool(unsigned threads) : n_(std::max(1u, threads)) {
    for (unsigned w = 1; w < n_; ++w) threads_.emplace_back([this, w] { serve(w); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return n_; }

  // Below `serial_below` tasks the caller runs them alone: waking threads
  // costs more than a small phase gains. An exception in a task is rethrown
  // here after every worker has stopped.
  void run(std::size_t tasks, const std::function<void(std::size_t, unsigned)>& fn,
           std::size_t serial_below = 2) {
    run_beside(tasks, fn, nullptr, serial_below);
  }
  // run(), with the caller doing side() first while the pool's threads start
  // on the tasks (then it joins them): one thread's serial work overlapped
  // with the others' parallel work.
  void run_beside(std::size_t tasks, const std::function<void(std::size_t, unsigned)>& fn,
                  const std::function<void()>& side, std::size_t serial_below = 2) {
    if (n_ == 1 || tasks < serial_below) {
      if (side) side();
      for (std::size_t t = 0; t < tasks; ++t) fn(t, 0);
      return;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      fn_ = &fn;
      tasks_ = tasks;
      next_.store(0);
      busy_ = n_ - 1;
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    if (side) {
      try {
        side();
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
        next_.store(tasks_);
      }
    }
    work(0);
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [&] { return busy_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(unsigned w) {
    for (std::size_t t; (t = next_.fetch_add(1)) < tasks_;) {
      try {
        (*fn_)(t, w);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu_);
        if (!error_) error_ = std::current_exception();
        next_.store(tasks_);  // the others stop at their next task
      }
    }
  }
  void serve(unsigned w) {
    std::uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return quit_ || generation_ != seen; });
        if (quit_) return;
        seen = generation_;
      }
      work(w);
      std::lock_guard<std::mutex> l(mu_);
      if (--busy_ == 0) done_cv_.notify_one();
    }
  }

  const unsigned n_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(std::size_t, unsigned)>* fn_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned busy_ = 0;
  std::uint64_t generation_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
};

}  // namespace blkmc
