// d(n): a model size (layers, hidden, heads, tokens: std::int64_t) as a double, for the cost
// formulas of workload/ and plan/. -Wconversion wants each such conversion spelled out, and a
// formula reads better with d(m.hidden) than with static_cast<double>(m.hidden). In a namespace
// of its own, so the one-letter name is seen only where a file asks for it (using size_math::d).
#pragma once

#include <cstdint>

namespace gpuplan::size_math {

constexpr double d(std::int64_t v) { return static_cast<double>(v); }

}  // namespace gpuplan::size_math
