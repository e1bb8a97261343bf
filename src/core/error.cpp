#include "core/error.h"

#include <cstdio>
#include <cstdlib>

namespace gpuplan {

void assert_fail(const char* cond, const char* why, const char* file, int line) {
  std::fprintf(stderr, "gpuplan: internal error at %s:%d: %s (%s)\n", file, line, why, cond);
  std::abort();
}

}  // namespace gpuplan
