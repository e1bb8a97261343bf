// The one exception type for bad user input; caught once in main (exit code 2).
// Infeasible plans are values, not errors; programmer errors use GP_ASSERT.
#pragma once

#include <stdexcept>
#include <string>

namespace gpuplan {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Always-on assertion for programmer errors; never reachable from user input.
[[noreturn]] void assert_fail(const char* cond, const char* why, const char* file, int line);

#define GP_ASSERT(cond, why)                                              \
  do {                                                                    \
    if (!(cond)) ::gpuplan::assert_fail(#cond, (why), __FILE__, __LINE__); \
  } while (false)

}  // namespace gpuplan
