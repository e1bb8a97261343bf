// The one entry point of the MPI plugin (gpuplan-mpi.so): mpi_plugin.cpp in the binary finds
// it by name, mpi_plugin_entry.cpp in the plugin defines it.
#pragma once

#include "sweep/transport.h"

namespace gpuplan {

inline constexpr const char* kMpiPluginFile = "gpuplan-mpi.so";
inline constexpr const char* kMpiPluginOpenSymbol = "gpuplan_mpi_plugin_open";

// open_mpi_transport() of the plugin; the caller owns the transport.
using MpiPluginOpenFn = SweepTransport* (*)();

}  // namespace gpuplan
