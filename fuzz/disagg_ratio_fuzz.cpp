// libFuzzer target for `infer --disagg P:D` (parse_disagg_ratio): any input must give two whole
// numbers >= 1 or raise gpuplan::Error, never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "infer/infer_features.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto [prefill, decode] = gpuplan::parse_disagg_ratio(text);
    if (prefill < 1 || decode < 1) std::abort();
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
