// libFuzzer target for the catalog data-file parser: any input must either load or raise
// gpuplan::Error, never crash, hang or trip a sanitizer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "catalog/catalog.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Catalog catalog;
  try {
    gpuplan::load_catalog_text(catalog, text, "fuzz.toml", false);
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
