// Batch waiting in the closed-form steady state: how long a new prompt is held by a scheduler
// that waits for contexts to accumulate before prefilling them (TensorRT-LLM's
// batch_wait_timeout_iters / batch_wait_max_tokens_ratio, catalog/engine.h BatchWait), when
// prompts arrive spread over the steps. The scheduler simulation (sim_engine.h) applies the rule
// step by step; this is its mean for the closed-form rules (batching.cpp), docs/model/inference.md §5.
#pragma once

#include "catalog/engine.h"

namespace gpuplan {

struct BatchWaitSteady {
  double wait_steps = 0;  // mean steps a new prompt is held before the step that prefills it
  double group = 1;       // mean prompts released together (prefilled in one step)
};

// Prompts arriving as a Poisson stream of `prompts_per_step` per step, `input_len` tokens each,
// into steps carrying `decodes` decode tokens under a budget of `token_budget` tokens. The first
// prompt of a window is held until `timeout_iters` steps have passed or the held prompts' tokens
// plus the decodes reach max_tokens_ratio × the budget (py_executor.py _waiting_requests), the
// prompts arriving meanwhile join it, and all are released together. The threshold is reached
// by the k-th prompt, k = ⌈(ratio·budget − decodes) / input_len⌉; the window is T steps when the
// T·λ prompts expected in it stay below k − 1, else the (k − 1)/λ steps the k − 1 take (their mean).
// Per window the first waits W and the λW later ones W/2 on average. No waiting without decodes
// (the engine's guard against dead waiting), or when either knob is 0 (then every step releases).
BatchWaitSteady batch_wait_steady(const BatchWait& w, double token_budget, double input_len, double decodes,
                                  double prompts_per_step);

}  // namespace gpuplan
