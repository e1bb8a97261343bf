// The MPI transport of `gpuplan sweep`, built only where CMake finds MPI (GPUPLAN_MPI); the
// declaration carries no MPI types, so nothing else includes <mpi.h>. Two definitions:
// mpi_transport.cpp (with MPI) and mpi_transport_none.cpp (without); CMake links one.
#pragma once

#include <memory>

#include "sweep/transport.h"

namespace gpuplan {

// Whether this gpuplan was built with MPI.
bool mpi_available();

// Initialises MPI (MPI_Finalize runs when the transport is destroyed) and returns a transport
// over MPI_COMM_WORLD; nullptr when built without MPI. Call it only when launched by mpirun:
// MPI_Init in a plain process would start a singleton runtime for nothing.
std::unique_ptr<SweepTransport> open_mpi_transport();

}  // namespace gpuplan
