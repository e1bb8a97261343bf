// Built when CMake found no MPI (or GPUPLAN_MPI is off): `gpuplan sweep` runs in one process
// and says so when it finds itself under mpirun.
#include "sweep/mpi_transport.h"

namespace gpuplan {

bool mpi_available() { return false; }

std::unique_ptr<SweepTransport> open_mpi_transport() { return nullptr; }

}  // namespace gpuplan
