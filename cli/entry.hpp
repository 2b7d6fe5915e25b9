// The command line behind both executables: blkmc (cli/blkmc.cpp) and the
// MPI runner blkmc-mpi (cli/mpi_main.cpp).
#pragma once

namespace blkmc {
int blkmc_main(int argc, char** argv);  // cli/main.cpp
}
