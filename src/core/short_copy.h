// A copy of a few hundred bytes of a length known only at run time, without a byte loop.
// The library is built with -mmemcpy-strategy=vector_loop (src/CMakeLists.txt: no `rep movs`
// for its fixed-size copies), under which GCC copies a run-time length in 64-byte blocks and
// the rest byte by byte: six instructions a byte, ~340 for a 57-byte out-of-memory reason
// (docs/performance.md, "A cold plan, tenth round"). Here: 16-byte blocks, the last one
// overlapping the one before, then 8-, 4- or 1-byte moves for the shortest lengths. The same
// bytes as std::memcpy; the ranges must not overlap.
#pragma once

#include <cstddef>
#include <cstring>

namespace gpuplan {

inline void short_copy(void* dst_ptr, const void* src_ptr, std::size_t n) {
  auto* dst = static_cast<unsigned char*>(dst_ptr);
  const auto* src = static_cast<const unsigned char*>(src_ptr);
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16) std::memcpy(dst + i, src + i, 16);
    std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

}  // namespace gpuplan
