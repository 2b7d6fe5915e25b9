// blkmc-mpi: the command line of blkmc on every rank of an MPI job
// (`mpirun -np N blkmc check ...`; blkmc hands over to it). Each rank runs
// the same command; `check` spreads its search over the ranks (explorer/
// distributed_search.hpp) and rank 0 prints.
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/entry.hpp"
#include "common/errors.hpp"
#include "explorer/mpi_cluster.hpp"

int main(int argc, char** argv) {
  try {
    blkmc::MpiCluster cluster(argc, argv);
    blkmc::process_cluster() = &cluster;
    const int rc = blkmc::blkmc_main(argc, argv);
    blkmc::process_cluster() = nullptr;
    // Rank 0 reports, its exit code too (mpirun returns the first non-zero
    // one): the others' would only add mpirun's notices.
    return cluster.rank() == 0 ? rc : 0;
  } catch (const std::exception& e) {
    std::cerr << "blkmc: " << e.what() << '\n';
    return blkmc::kExitUsage;
  }
}
