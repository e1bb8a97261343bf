// libFuzzer target for `gpuplan serve`'s request bodies: the first byte picks the endpoint,
// the rest is the body. Any input must become an ApiCall or raise gpuplan::Error; a call's
// words never carry a path-taking flag (checked here, not only by the unit tests).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "core/error.h"
#include "serve/api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog catalog = gpuplan::load_catalog(gpuplan::CatalogOptions{});
  if (size == 0) return 0;
  const auto& paths = gpuplan::api_paths();
  const gpuplan::ApiEndpoint endpoint = gpuplan::api_endpoint(paths[data[0] % paths.size()]);
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const gpuplan::ApiCall call = gpuplan::api_call_from_json(catalog, endpoint, body);
    for (const std::string& word : call.args) {
      for (std::string_view flag : {"--calibration", "--catalog", "--html"}) {
        if (word == flag || (word.starts_with(flag) && word.size() > flag.size() && word[flag.size()] == '=')) std::abort();
      }
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
