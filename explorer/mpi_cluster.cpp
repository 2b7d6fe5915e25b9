#include "explorer/mpi_cluster.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <mpi.h>

namespace blkmc {

namespace {
constexpr int kTag = 4711;
// Messages go in pieces of at most 1 GiB (MPI counts are ints).
constexpr std::uint64_t kPiece = std::uint64_t(1) << 30;
}  // namespace

MpiCluster::MpiCluster(int& argc, char**& argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (rank_ > 0) {
    stderr_fd_ = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
      close(null);
    }
  }
}

MpiCluster::~MpiCluster() { MPI_Finalize(); }

void MpiCluster::exchange(const std::vector<Bytes>& out, std::vector<Bytes>& in) {
  const auto n = std::size_t(size_);
  std::vector<std::uint64_t> sent(n, 0), got(n, 0);
  for (std::size_t d = 0; d < n && d < out.size(); ++d) sent[d] = out[d].size();
  MPI_Alltoall(sent.data(), 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  in.assign(n, {});
  std::vector<MPI_Request> reqs;
  for (std::size_t s = 0; s < n; ++s) {
    in[s].resize(got[s]);
    for (std::uint64_t at = 0; at < got[s]; at += kPiece) {
      reqs.emplace_back();
      MPI_Irecv(in[s].data() + at, int(std::min(kPiece, got[s] - at)), MPI_BYTE, int(s), kTag,
                MPI_COMM_WORLD, &reqs.back());
    }
  }
  for (std::size_t d = 0; d < n; ++d)
    for (std::uint64_t at = 0; at < sent[d]; at += kPiece) {
      reqs.emplace_back();
      MPI_Isend(out[d].data() + at, int(std::min(kPiece, sent[d] - at)), MPI_BYTE, int(d), kTag,
                MPI_COMM_WORLD, &reqs.back());
    }
  MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

void MpiCluster::min(std::vector<std::uint64_t>& v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
}
void MpiCluster::max(std::vector<std::uint64_t>& v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
}
void MpiCluster::sum(std::vector<std::uint64_t>& v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void MpiCluster::fail(const char* why) {
  const std::string line = "blkmc: rank " + std::to_string(rank_) + ": " + why + "\n";
  if (write(stderr_fd_, line.data(), line.size()) < 0) {
  }
  MPI_Abort(MPI_COMM_WORLD, 2);
}

}  // namespace blkmc
