// The ranks of an MPI job (Open MPI: mpirun -np N blkmc check ...) as a
// Cluster for the distributed search. Built into blkmc-mpi only, where
// CMake finds MPI.
#pragma once

#include "explorer/cluster.hpp"

namespace blkmc {

class MpiCluster final : public Cluster {
 public:
  // MPI_Init_thread (funneled: the search's worker threads never call MPI);
  // ranks above 0 write nothing to stdout or stderr but fail()'s line.
  MpiCluster(int& argc, char**& argv);
  ~MpiCluster() override;  // MPI_Finalize
  MpiCluster(const MpiCluster&) = delete;
  MpiCluster& operator=(const MpiCluster&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void exchange(const std::vector<Bytes>& out, std::vector<Bytes>& in) override;
  void min(std::vector<std::uint64_t>& v) override;
  void max(std::vector<std::uint64_t>& v) override;
  void sum(std::vector<std::uint64_t>& v) override;
  void fail(const char* why) override;

 private:
  int rank_ = 0, size_ = 1;
  int stderr_fd_ = 2;  // where fail() writes (the real stderr on every rank)
};

}  // namespace blkmc
