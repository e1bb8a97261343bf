// The binary's side of the MPI transport: open_mpi_transport() loads gpuplan-mpi.so, the
// plugin that holds mpi_transport.cpp and links Open MPI (src/CMakeLists.txt), so the binary
// itself links no MPI library and no other command pays for loading one (docs/performance.md,
// "Start-up"). Only `sweep` started by an MPI launcher calls it.
#include <memory>

#include "core/plugin.h"
#include "sweep/mpi_plugin_entry.h"
#include "sweep/mpi_transport.h"

namespace gpuplan {

bool mpi_available() { return plugin_present(kMpiPluginFile); }

std::unique_ptr<SweepTransport> open_mpi_transport() {
  auto open = reinterpret_cast<MpiPluginOpenFn>(plugin_symbol(kMpiPluginFile, kMpiPluginOpenSymbol));
  return std::unique_ptr<SweepTransport>(open());
}

}  // namespace gpuplan
