#include "infer/batch_wait.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

BatchWaitSteady batch_wait_steady(const BatchWait& w, double token_budget, double input_len, double decodes,
                                  double prompts_per_step) {
  BatchWaitSteady s;
  // TensorRT-LLM releases when held_steps >= timeout_iters or tokens >= ratio × max_num_tokens:
  // a knob at 0 makes the first test true at once, so both must be set for any wait.
  if (w.timeout_iters <= 0 || w.max_tokens_ratio <= 0 || decodes < 1 || input_len <= 0 || prompts_per_step <= 0) {
    return s;
  }
  const double k = std::ceil((w.max_tokens_ratio * token_budget - decodes) / input_len - 1e-9);
  if (k <= 1) return s;  // the first prompt alone reaches the threshold
  const double timeout = w.timeout_iters;
  const double window = prompts_per_step * timeout < k - 1 ? timeout : (k - 1) / prompts_per_step;
  const double joiners = prompts_per_step * window;
  s.wait_steps = (window + joiners * window / 2) / (1 + joiners);
  s.group = 1 + joiners;
  return s;
}

}  // namespace gpuplan
