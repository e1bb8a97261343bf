// libFuzzer target for NCCL's topology dump (`gpuplan import-topology FILE`, NCCL_TOPO_DUMP_FILE):
// any text must parse into GPUs and NICs whose matrix is square, or raise gpuplan::Error naming
// a line, never crash, hang or trip a sanitizer. Seed with tests/fixtures/topology/*.xml.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "catalog/nccl_topo_xml.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::NcclTopo topo = gpuplan::parse_nccl_topo_xml(text, "fuzz.xml");
    if (topo.gpus.empty()) std::abort();
    const gpuplan::TopoMatrix m = gpuplan::nccl_topo_matrix(topo);
    const std::size_t n = m.gpus.size();
    if (n != topo.gpus.size() || m.gpu_gpu.size() != n || m.gpu_nic.size() != n) std::abort();
    for (std::size_t i = 0; i < n; ++i) {
      if (m.gpu_gpu[i].size() != n || m.gpu_gpu[i][i] != "X" || m.gpu_nic[i].size() != topo.nics.size()) std::abort();
      for (std::size_t j = 0; j < n; ++j) {
        // PCIe relations are symmetric; NVLink counts may not be (each GPU lists its own links).
        const bool pcie = gpuplan::nvlink_count(m.gpu_gpu[i][j]) == 0 && gpuplan::nvlink_count(m.gpu_gpu[j][i]) == 0;
        if (pcie && m.gpu_gpu[i][j] != m.gpu_gpu[j][i]) std::abort();
      }
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
