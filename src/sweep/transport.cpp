#include "sweep/transport.h"

#include <charconv>
#include <cstring>
#include <utility>

namespace gpuplan {
namespace {

int env_int(const std::function<const char*(const char*)>& getenv_fn, const char* name, int fallback) {
  const char* text = getenv_fn(name);
  if (!text) return fallback;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  return ec == std::errc() && ptr == end ? value : fallback;
}

}  // namespace

LaunchInfo detect_launch(const std::function<const char*(const char*)>& getenv_fn) {
  LaunchInfo info;
  for (const auto& [size_var, rank_var] :
       {std::pair{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, std::pair{"PMI_SIZE", "PMI_RANK"}}) {
    const int size = env_int(getenv_fn, size_var, 0);
    if (size > 1) {
      info.size = size;
      info.rank = env_int(getenv_fn, rank_var, 0);
      return info;
    }
  }
  return info;
}

}  // namespace gpuplan
