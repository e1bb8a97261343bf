// libFuzzer target for the NeMo launch-script reader (`gpuplan train --from job.sbatch`): any
// input must either read or raise gpuplan::Error, never crash, hang or trip a sanitizer. Seed
// with the job.sbatch that `gpuplan train ... --emit nemo --json` writes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "emit/nemo_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::TrainRequest request;
  (void)gpuplan::looks_like_nemo_overrides(text);
  try {
    gpuplan::read_nemo_overrides(text, "fuzz.sbatch", request);
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
