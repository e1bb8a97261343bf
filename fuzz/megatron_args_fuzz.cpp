// libFuzzer target for the Megatron-LM argument reader (`gpuplan train --from`): any input must
// either read or raise gpuplan::Error, never crash, hang or trip a sanitizer. Seed with the
// pretrain_args.txt that `gpuplan train ... --emit megatron --json` writes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "emit/megatron_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::TrainRequest request;
  request.gpus = 64;
  try {
    gpuplan::read_megatron_args(text, "fuzz.txt", request);
    (void)gpuplan::megatron_shape(text, "fuzz.txt");
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
