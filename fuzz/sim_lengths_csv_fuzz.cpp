// libFuzzer target for the scheduler simulation's lengths CSV (parse_sim_lengths_csv,
// infer/sim_workload.h): any bytes must give one prompt and one output length per row, each a
// whole number of tokens in 1..kSimMaxLengthTokens, or raise gpuplan::Error, never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "infer/sim_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::SimLengths l = gpuplan::parse_sim_lengths_csv(text, "fuzz.csv");
    if (l.input.empty() || l.input.size() != l.output.size()) std::abort();
    for (std::size_t i = 0; i < l.input.size(); ++i) {
      if (l.input[i] < 1 || l.output[i] < 1 || l.input[i] > gpuplan::kSimMaxLengthTokens ||
          l.output[i] > gpuplan::kSimMaxLengthTokens) {
        std::abort();
      }
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
