// The ranks of a distributed search (explorer/distributed_search.hpp) and
// the few collective operations it needs, whatever carries them: MPI
// between processes (explorer/mpi_cluster.cpp, in blkmc-mpi only), or
// threads of one process (LocalCluster below: the tests run the distributed
// search with it where there is no mpirun).
//
// Every operation is collective: all ranks call it, in the same order.
#pragma once

#include <barrier>
#include <cstdint>
#include <memory>
#include <vector>

namespace blkmc {

using Bytes = std::vector<std::uint8_t>;

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // out[d] goes to rank d; in[s] is what rank s sent here.
  virtual void exchange(const std::vector<Bytes>& out, std::vector<Bytes>& in) = 0;
  // Element-wise over the ranks, the result on every rank (v: the same
  // length everywhere).
  virtual void min(std::vector<std::uint64_t>& v) = 0;
  virtual void max(std::vector<std::uint64_t>& v) = 0;
  virtual void sum(std::vector<std::uint64_t>& v) = 0;
  // This rank failed where the others may be waiting for it: stop them all
  // (MPI: abort the job after saying why); LocalCluster: nothing.
  virtual void fail(const char* /*why*/) {}

  std::uint64_t max(std::uint64_t x) {
    std::vector<std::uint64_t> v{x};
    max(v);
    return v[0];
  }
  std::uint64_t sum(std::uint64_t x) {
    std::vector<std::uint64_t> v{x};
    sum(v);
    return v[0];
  }
  // root's bytes, on every rank.
  void broadcast(Bytes& b, int root) {
    std::vector<Bytes> out(static_cast<std::size_t>(size()));
    if (rank() == root) out.assign(std::size_t(size()), b);
    std::vector<Bytes> in;
    exchange(out, in);
    b = std::move(in[std::size_t(root)]);
  }
};

// The cluster this process is a rank of (set by the MPI runner, cli/
// mpi_main.cpp), or null.
inline Cluster*& process_cluster() {
  static Cluster* c = nullptr;
  return c;
}

// n ranks on n threads of this process; each thread holds the Cluster of
// its rank (LocalCluster::group(n)[r]).
class LocalCluster final : public Cluster {
  struct Shared {
    explicit Shared(int ranks) : n(ranks), sync(ranks), mail(std::size_t(ranks) * std::size_t(ranks)), words(std::size_t(ranks)) {}
    int n;
    std::barrier<> sync;
    std::vector<Bytes> mail;  // [from * n + to]
    std::vector<std::vector<std::uint64_t>> words;
  };

 public:
  static std::vector<std::unique_ptr<LocalCluster>> group(int n) {
    auto shared = std::make_shared<Shared>(n);
    std::vector<std::unique_ptr<LocalCluster>> v;
    for (int r = 0; r < n; ++r) v.push_back(std::unique_ptr<LocalCluster>(new LocalCluster(shared, r)));
    return v;
  }
  int rank() const override { return rank_; }
  int size() const override { return s_->n; }
  void exchange(const std::vector<Bytes>& out, std::vector<Bytes>& in) override {
    const auto n = std::size_t(s_->n), me = std::size_t(rank_);
    for (std::size_t d = 0; d < n; ++d) s_->mail[me * n + d] = d < out.size() ? out[d] : Bytes{};
    s_->sync.arrive_and_wait();
    in.assign(n, {});
    for (std::size_t f = 0; f < n; ++f) in[f] = std::move(s_->mail[f * n + me]);
    s_->sync.arrive_and_wait();
  }
  void min(std::vector<std::uint64_t>& v) override {
    reduce(v, [](std::uint64_t a, std::uint64_t b) { return a < b ? a : b; });
  }
  void max(std::vector<std::uint64_t>& v) override {
    reduce(v, [](std::uint64_t a, std::uint64_t b) { return a > b ? a : b; });
  }
  void sum(std::vector<std::uint64_t>& v) override {
    reduce(v, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  }

 private:
  LocalCluster(std::shared_ptr<Shared> s, int rank) : s_(std::move(s)), rank_(rank) {}
  template <class Op>
  void reduce(std::vector<std::uint64_t>& v, Op op) {
    s_->words[std::size_t(rank_)] = v;
    s_->sync.arrive_and_wait();
    for (int f = 0; f < s_->n; ++f)
      if (f != rank_)
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = op(v[i], s_->words[std::size_t(f)][i]);
    s_->sync.arrive_and_wait();
  }
  std::shared_ptr<Shared> s_;
  int rank_;
};

}  // namespace blkmc
