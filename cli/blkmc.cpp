// blkmc's main(). Started by mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE,
// PMIx launchers PMIX_RANK), it hands over to the MPI runner blkmc-mpi
// beside it, so that `mpirun -np N blkmc check ...` spreads the search over
// N ranks while blkmc itself never links MPI.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/entry.hpp"
#include "common/errors.hpp"

int main(int argc, char** argv) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK")) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::string runner = (self.parent_path() / "blkmc-mpi").string();
    if (!ec) execv(runner.c_str(), argv);
    std::cerr << "blkmc: started by mpirun, but there is no MPI runner " << runner
              << " (build blkmc with libopenmpi-dev installed)\n";
    return blkmc::kExitUsage;
  }
  return blkmc::blkmc_main(argc, argv);
}
