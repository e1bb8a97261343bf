// Random inputs for the tests of gpuplan-bench's CPU references (layer and training step).
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace gpuplan::testing {

// `size` values drawn uniformly from [-scale, scale] by std::mt19937(seed).
inline std::vector<double> random_vector(std::size_t size, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-scale, scale);
  std::vector<double> v(size);
  for (double& e : v) e = uniform(rng);
  return v;
}

}  // namespace gpuplan::testing
