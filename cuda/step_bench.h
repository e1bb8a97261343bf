// gpuplan-bench's end-to-end training step (train_step.h): checked once on a small shape
// against the CPU references, then timed, forward alone and whole steps.
#pragma once

#include <string>
#include <vector>

#include "calibration/step_shape.h"

namespace gpuplan::cuda {

struct StepRun {
  std::vector<double> fwd_times_s;
  std::vector<double> step_times_s;
  bool correct = false;
  std::string check;
};

// One step on fresh random weights: the loss and every parameter's gradient against the CPU
// double reference (calibration/step_reference.h: the loss to 2e-3, gradients against finite
// differences along 3 random ±1 directions to 5% of their norm), then one AdamW update of
// every parameter against the CPU formula (calibration/adamw_reference.h). For small shapes:
// the reference is O(layers · seq²) per loss and runs ~6 losses per tensor.
StepRun check_training_step(const StepShape& shape, unsigned seed);
// Forward alone, then whole steps (forward, backward, AdamW), each timed with CUDA events after
// warm-up; then every buffer checked to be finite (all start as NaN).
StepRun time_training_step(const StepShape& shape, int runs, unsigned seed);

}  // namespace gpuplan::cuda
