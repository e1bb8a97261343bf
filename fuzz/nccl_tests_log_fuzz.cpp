// libFuzzer target for nccl-tests output (`validate collectives LOG`, `collective --calibration
// LOG`): any text must parse into runs, or raise gpuplan::Error naming a line, never crash, hang
// or trip a sanitizer. Every parsed run must hold what the parser promises (rows, ranks, times).
// Seed with tests/fixtures/nccl-tests/*.log.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "calibration/nccl_tests_log.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::NcclTestsLog log = gpuplan::parse_nccl_tests_log(text, "fuzz.log");
    for (const auto& run : log.runs) {
      if (run.rows.empty() || run.ranks < 1) std::abort();
      for (const auto& row : run.rows) {
        if (!(row.bytes > 0) || !(row.time_s > 0) || !std::isfinite(row.busbw_bytes_per_s)) std::abort();
      }
    }
    gpuplan::nccl_tests_profile(log);
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
