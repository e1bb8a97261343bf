// libFuzzer target for the JSON inputs people hand to gpuplan: a calibration profile
// (gpuplan-bench's output, --calibration), a sweep spec (gpuplan sweep) and a Hugging Face
// config.json (--model). The first byte picks the parser; any input must either parse or raise
// gpuplan::Error, never crash, hang or trip a sanitizer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "calibration/profile.h"
#include "core/error.h"
#include "core/json_fields.h"
#include "sweep/spec.h"
#include "workload/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        gpuplan::parse_calibration(gpuplan::parse_json_strict(text, "fuzz.json"), "fuzz.json");
        break;
      case 1:
        gpuplan::parse_sweep_spec(text, "fuzz.json");
        break;
      default:
        gpuplan::model_from_hf_config(gpuplan::parse_json_strict(text, "config.json"), "config.json", true);
        break;
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
