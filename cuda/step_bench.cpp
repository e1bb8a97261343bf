#include "step_bench.h"

#include <fmt/format.h>

#include "bench_support/adamw_reference.h"
#include "bench_support/step_reference.h"
#include "train_step.h"

namespace gpuplan::cuda {
namespace {

// Llama 3's optimizer (Meta 2024, §3.4.1: AdamW, β = (0.9, 0.95), weight decay 0.1); eps is
// PyTorch's default. The check takes a larger step than training would, so the update stands
// well above the master weights' own fp32 rounding.
constexpr AdamWConfig kTrainConfig{3e-4, 0.9, 0.95, 1e-8, 0.1};
constexpr AdamWConfig kCheckConfig{1e-3, 0.9, 0.95, 1e-8, 0.1};

AdamWArrays download_state(const TrainingStep& step) {
  const std::size_t n = step.layout().total;
  return {download_floats(step.master(), Elem::f32, n), download_floats(step.adam_m(), Elem::f32, n),
          download_floats(step.adam_v(), Elem::f32, n)};
}

}  // namespace

StepRun check_training_step(const StepShape& shape, unsigned seed) {
  TrainingStep step(shape, seed);
  const std::size_t n = step.layout().total;
  // What the device holds before the step: the reference computes from exactly these values.
  const AdamWArrays before = download_state(step);
  const StepWeights weights = unpack_step_weights(shape, download(step.params(), Elem::bf16, n));

  step.forward();
  step.backward();
  GP_CUDA(cudaDeviceSynchronize());
  const double loss = read_element(step.loss(), Elem::f32, 0);
  const std::vector<float> grads = download_floats(step.grads(), Elem::f32, n);
  const std::vector<double> wide_grads(grads.begin(), grads.end());
  const StepReferenceCheck model = check_step_against_reference(
      shape, step.batch(), weights, loss, unpack_step_weights(shape, wide_grads), all_step_tensors(shape));

  step.optimizer_step(kCheckConfig);
  GP_CUDA(cudaDeviceSynchronize());
  const AdamWArrays after = download_state(step);
  const AdamWCheck optimizer =
      check_adamw_against_reference(kCheckConfig, step.steps_done(), step.layout().decayed, grads, before, after,
                                    download_floats(step.params(), Elem::bf16, n));
  StepRun run;
  run.correct = model.correct && optimizer.correct;
  run.check = model.check + "; " + optimizer.check;
  return run;
}

StepRun time_training_step(const StepShape& shape, int runs, unsigned seed) {
  TrainingStep step(shape, seed);
  StepRun run;
  run.fwd_times_s = time_runs([&] { step.forward(); }, runs);
  run.step_times_s = time_runs(
      [&] {
        step.forward();
        step.backward();
        step.optimizer_step(kTrainConfig);
      },
      runs);
  unsigned long long bad = 0;
  std::string where;
  for (const TrainingStep::Buffer& b : step.buffers()) {
    const unsigned long long count = count_nonfinite(b.data, b.elem, b.count);
    if (count > 0) where += fmt::format(" {} in {}", count, b.name);
    bad += count;
  }
  run.correct = bad == 0;
  run.check = bad == 0 ? "loss, logits, activations, gradients, weights and Adam state finite"
                       : "non-finite values:" + where;
  return run;
}

}  // namespace gpuplan::cuda
