// The entry point of gpuplan-mpi.so (sweep/mpi_plugin_entry.h): the plugin is linked with
// -Bsymbolic, so open_mpi_transport() here is the plugin's own (mpi_transport.cpp), not the
// binary's loader of the same name.
#include "sweep/mpi_plugin_entry.h"

#include "sweep/mpi_transport.h"

extern "C" __attribute__((visibility("default"))) gpuplan::SweepTransport* gpuplan_mpi_plugin_open() {
  return gpuplan::open_mpi_transport().release();
}
