// libFuzzer target for `nvidia-smi topo -m` output (`gpuplan import-topology FILE`): any text
// must parse into a square GPU matrix or raise gpuplan::Error naming a line, never crash, hang
// or trip a sanitizer. Seed with tests/fixtures/topology/*.txt.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "catalog/nvidia_smi_topo.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::TopoMatrix m = gpuplan::parse_nvidia_smi_topo(text, "fuzz.txt");
    const std::size_t n = m.gpus.size();
    if (m.gpu_gpu.size() != n || m.gpu_nic.size() != n) std::abort();
    for (std::size_t i = 0; i < n; ++i) {
      if (m.gpu_gpu[i].size() != n || m.gpu_gpu[i][i] != "X" || m.gpu_nic[i].size() != m.nics.size()) std::abort();
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
