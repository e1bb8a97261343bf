// Memory per GPU during training: weights, gradients and optimizer states (mixed-precision
// Adam at 32-, 16- or 8-bit moments, ZeRO-1/2/3 and FSDP with hybrid sharding groups, optionally
// offloaded to host memory), activations of the micro-batches in flight, the output-head buffer,
// gathered-parameter buffers, and the runtime's own overhead as an explicit term. Formulas and
// sources: docs/model/training.md.
#pragma once

namespace gpuplan {

// Bytes per parameter (Rajbhandari et al. 2020, ZeRO, sec. 3.1: mixed-precision Adam keeps
// 2 + 2 + 12 = 16 bytes per parameter before activations).
struct StateBytes {
  double weight = 2;     // 16-bit working weights
  double grad = 2;       // 16-bit gradients
  double optimizer = 12; // fp32 master weights, Adam m and v
};

// Adam's two moments m and v, bytes per parameter, at `bits` (32, 16 or 8):
//  * 32: fp32, 4 + 4 (the 12 above less the 4-byte master weight);
//  * 16: bf16, 2 + 2 (Megatron-LM --use-precision-aware-optimizer --exp-avg-dtype bf16
//    --exp-avg-sq-dtype bf16, megatron/training/arguments.py; torchao's bf16 AdamW);
//  * 8: 1 + 1 plus one fp32 absmax per block of kAdam8BitBlock elements of each moment
//    (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", arXiv:2110.02861,
//    sec. 2: blocks of 2,048). Current bitsandbytes uses blocks of 256: +0.03 B per parameter.
// Other `bits` are a programmer error (the plan's check rejects them first).
inline constexpr double kAdam8BitBlock = 2048;
inline constexpr double kAdam8BitScaleBytes = 4;  // one fp32 absmax per block
double adam_moment_bytes(int bits);
// `base` with its moments at `bits`; the fp32 master weights stay. 32 returns `base` itself.
StateBytes with_optimizer_state_bits(const StateBytes& base, int bits);

struct MemoryInputs {
  double dense_params = 0;   // non-expert parameters this GPU holds (after TP and PP)
  double expert_params = 0;  // routed-expert parameters this GPU holds (after EP and PP)
  int zero_stage = 0;        // 0 none, 1 optimizer, 2 + gradients, 3 + weights (FSDP)
  double dense_shard = 1;    // GPUs the dense states are sharded over (DP, or the HSDP group)
  double expert_shard = 1;   // GPUs the expert states are sharded over (expert data parallel)
  StateBytes bytes;
  // Optimizer offload (ZeRO-Offload): the optimizer states live in host memory, beside a host
  // copy of the gradients the CPU step reads (`host_grad_bytes` per parameter); neither counts
  // on the GPU. Both are sharded like the optimizer states.
  bool optimizer_on_host = false;
  double host_grad_bytes = 0;
  double extra_weight_bytes = 0;    // fp8 weight copies and similar, per GPU
  // fp8 primary weights (Plan::fp8_params): of dense_params and expert_params, those whose only
  // working copy is the quantised one in extra_weight_bytes (no `bytes.weight` per parameter;
  // their gradients and optimizer states are unchanged).
  double quantised_only_dense_params = 0;
  double quantised_only_expert_params = 0;
  double gathered_weight_bytes = 0; // ZeRO-3: unsharded layers held while in use (prefetch)

  double stored_activation_bytes = 0;  // all micro-batches in flight, all layers of the stage
  double working_activation_bytes = 0; // one layer's full set during its backward
  double head_buffer_bytes = 0;        // logits and loss buffers (last stage)
  double runtime_bytes = 0;            // CUDA context, NCCL buffers
  double fragmentation_fraction = 0;   // allocator slack, a fraction of the tensors

  // How the framework holds the step (catalog/framework.h FrameworkMemory), already in bytes:
  double weight_copy_bytes = 0;        // autocast's low-precision copies of the matmul weights
  double eager_saved_bytes = 0;        // tensors eager element-wise chains make autograd keep
  double optimizer_temp_bytes = 0;     // full-size temporaries of the optimizer step
  // No gradient exists at the start of the backward (zero_grad(set_to_none=True), one process):
  // the peak is then the larger of the backward's start (everything but the gradients) and the
  // optimizer step (states + gradients + temporaries; the activations are gone).
  bool grads_freed_between_steps = false;
};

// When in the step the peak falls.
enum class MemoryPeak { backward_start, optimizer_step };
const char* memory_peak_name(MemoryPeak p);

// Whether a term of the breakdown is alive at its peak (and so in total_bytes).
struct MemoryTermsAtPeak {
  bool gradients = true;
  bool activations = true;  // and the loss buffers, eager temporaries and autocast's copies
  bool optimizer_temp = false;
};

struct MemoryBreakdown {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;  // stored + working
  double head_buffers_bytes = 0;      // the loss: logits in the framework's precision + gradient
  double gathered_weights_bytes = 0;
  double weight_copies_bytes = 0;     // autocast's cached bf16 copies of fp32 weights
  double eager_temporaries_bytes = 0; // saved by op-by-op element-wise chains
  double optimizer_temp_bytes = 0;    // the optimizer step's temporaries
  double runtime_bytes = 0;           // CUDA context and kernels, NCCL buffers
  double fragmentation_bytes = 0;     // the caching allocator's reserve: cached, unused blocks
  double total_bytes = 0;  // on the GPU, at the peak
  double host_bytes = 0;   // in host memory (optimizer offload); not in total_bytes
  // The tensors alive at each phase's peak (before the allocator's reserve and the runtime),
  // and which one is the peak; terms not alive at the peak are listed but not in total_bytes.
  double backward_start_bytes = 0;
  double optimizer_step_bytes = 0;
  MemoryPeak peak = MemoryPeak::backward_start;
  bool grads_freed_between_steps = false;  // the inputs'
  // The terms alive at the peak (memory_terms_at_peak), carried so a report formats the answer
  // and computes nothing.
  MemoryTermsAtPeak terms_at_peak;
};

MemoryTermsAtPeak memory_terms_at_peak(const MemoryBreakdown& m);

MemoryBreakdown memory_per_gpu(const MemoryInputs& in);

}  // namespace gpuplan
