// libFuzzer target for the torchtitan job-TOML reader (`gpuplan train --from job.toml`): any
// input must either read or raise gpuplan::Error, never crash, hang or trip a sanitizer. Seed
// with the torchtitan.toml that `gpuplan train ... --emit torchtitan --json` writes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "emit/torchtitan_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::TrainRequest request;
  request.gpus = 64;
  try {
    gpuplan::read_torchtitan_toml(text, "fuzz.toml", 80, request);
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
