// The training framework a plan runs under (Megatron-Core, Megatron-LM 2021, eager PyTorch
// FSDP, DeepSpeed): the software-dependent figures of the step, kept apart from the silicon
// ones of catalog/efficiency.h. Loaded from data/fitted/frameworks/*.toml by framework_parse.cpp;
// folded into the roofline device by cost/roofline.h. Fitted per framework family, never per run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

struct Catalog;

// How the framework holds a training step in memory, beyond the planner's tensor count
// (docs/model/training.md, "Memory as the allocator sees it"). All zero/false = the reference
// behaviour (Megatron-Core: bf16 weights and gradients in persistent buffers, fp32 master weights
// in the optimizer, the loss over vocabulary-parallel logits in fp32, fused element-wise kernels).
struct FrameworkMemory {
  // The model itself is kept in fp32 and run under torch.autocast (plain PyTorch, DDP): weights
  // and their .grad are 4 bytes each and the optimizer has no separate master copy.
  bool fp32_model = false;
  // autocast's cached low-precision copy of every matmul weight, bytes per matmul parameter:
  // made at the weight's first use in the forward, saved by autograd for the backward.
  double autocast_copy_bytes = 0;
  // optimizer.zero_grad(set_to_none=True) in one process: no gradient exists when the backward
  // starts, so the peak is the larger of the backward's start and the optimizer step (DDP's
  // gradient buckets and Megatron's grad buffers persist: false, or more than one GPU).
  bool grads_freed_between_steps = false;
  // Bytes per logit (token × vocabulary / TP) alive at the loss's peak, for element-wise chains
  // run eagerly (op by op) and fused (torch.compile, Transformer Engine); 0 = the reference
  // (the activation size + an fp32 copy).
  double loss_bytes_per_logit_eager = 0;
  double loss_bytes_per_logit_fused = 0;
  // Tensors autograd saves when the element-wise chains run op by op, beyond the fused count
  // (workload/activations.h), per token and layer: bytes per residual-stream element per norm,
  // and extra copies of q/k (RoPE), of the attention output, and of the FFN-wide SwiGLU output.
  double eager_norm_bytes = 0;
  double eager_rope_copies = 0;
  double eager_attention_output_copies = 0;
  double eager_swiglu_copies = 0;
  // Full-size temporaries of the optimizer step, bytes per parameter (fused AdamW: 0; foreach
  // AdamW: one fp32 tensor the size of the parameters).
  double optimizer_temp_bytes = 0;
  // The model's own median error on peak memory, a fraction: a plan whose peak is within it
  // of the limit is "tight", not "fits".
  double memory_error_fraction = 0;
};

// Kernels one op of a layer launches, forward and backward.
struct KernelCount {
  double fwd = 0;
  double bwd = 0;
};

// How the host issues a layer whose element-wise chains and autocast casts run op by op
// (eager PyTorch over a Hugging Face transformers model; data/fitted/frameworks/pytorch.toml
// [eager_kernels], counted from the model's source and autograd's derivative formulas):
// the kernels each op of workload/ops.h launches, and the host time to issue one of them.
// host_s_per_kernel 0 = off: the framework's one host issue per op (kernel_launch_s) stands.
struct EagerKernels {
  double host_s_per_kernel = 0;
  KernelCount rmsnorm;    // attn_norm, mlp_norm (an RMSNorm chain)
  KernelCount qkv_proj;   // the q, k and v projections
  KernelCount rope;       // rotary embedding of q and k
  KernelCount attention;  // the SDPA call and its output's layout copy
  KernelCount out_proj;
  KernelCount residual;  // attn_residual, mlp_residual
  KernelCount mlp_up;    // gate and up projections
  KernelCount mlp_act;   // SiLU and the gating product
  KernelCount mlp_down;
};

struct Framework {
  std::string id;                    // "megatron-core"
  std::vector<std::string> aliases;  // names users type for it: "nemo", "torchtitan", ...
  std::string name;
  bool is_default = false;  // the framework a plan runs under unless the user names one
  // Host time to issue one kernel: the framework's per-op dispatch (eager PyTorch runs Python
  // and the dispatcher per op; Megatron-Core with Transformer Engine fuses and graph-captures)
  // plus the driver launch. The CPU runs ahead of the GPU, so it binds only for small kernels.
  double kernel_launch_s = 0;
  // The attention kernel generation the framework ships, as a factor on the GPU family's
  // fused-attention fractions (which are those of Megatron-Core + Transformer Engine's cuDNN
  // kernels: 1.0). FlashAttention-2 through PyTorch SDPA on Hopper reaches ~0.35/0.75 of FA3.
  double attention_scale = 1;
  // The framework's fused-attention kernel measured on one GPU family ([attention.measured.<family>]):
  // used instead of the family's fitted fractions (and without attention_scale) on that family.
  struct MeasuredAttention {
    std::string family;       // efficiency id: "hopper", ...
    double fwd_fraction = 0;  // MMAs, achieved / dense peak at long key spans
    double bwd_fraction = 0;
    double kv_half = 0;               // keys per query at which the kernel runs at half that rate
    double masked_rate_fraction = 1;  // rate with a materialized mask / the causal kernel's
  };
  std::vector<MeasuredAttention> measured_attention;
  const MeasuredAttention* measured_attention_for(const std::string& family) const {
    for (const MeasuredAttention& m : measured_attention)
      if (m.family == family) return &m;
    return nullptr;
  }
  // Under the framework's fused (compiled) element-wise mode, the attention is given a
  // materialized causal mask instead of the kernel's causal flag (transformers under
  // torch.compile): every key is computed and masked, at the masked rate.
  bool compiled_mask_materialized = false;
  // [attention] kernel = "materialized": the framework runs attention as separate kernels
  // (batched GEMMs at the GEMM rate, the s×s scores and probabilities through HBM; OpShape::
  // attention_materialized), not a fused kernel, so attention_scale does not apply to it.
  // `probs_dropout`: dropout on the attention probabilities (Megatron-LM's --attention-dropout,
  // default 0.1), which adds a kernel, a mask and a stored copy of the s×s probabilities.
  bool attention_materialized = false;
  bool attention_probs_dropout = false;
  // The fused RoPE kernel the framework calls multiplies by cos and sin only: a model whose
  // RoPE carries a YaRN attention factor ≠ 1 (ModelSpec::rope_attention_factor) runs the
  // framework's unfused chain instead ([rope] scaled_unfused; Megatron-Core's
  // apply_rotary_pos_emb at core_v0.16.0).
  bool scaled_rope_unfused = false;
  // The framework clamps a clamped GLU's two halves eagerly (two clamps and a concatenation)
  // before its fused activation kernel ([activation] clamp_unfused; Megatron-Core's
  // weighted_bias_quick_geglu_impl, megatron/core/fusions/fused_bias_geglu.py at core_v0.16.0).
  bool glu_clamp_unfused = false;
  // Kernel fusion of the memory-bound ops (norms, RoPE, activations, casts), as a factor on
  // the family's achievable HBM fraction: unfused eager kernels move the same tensors more times.
  double memory_scale = 1;
  // Share of the TP collectives the framework's own TP overlap hides behind the GEMMs
  // ([overlap] tp_comm_fraction), in place of the GPU family's (Efficiency::
  // tp_comm_overlap_fraction, Transformer Engine's userbuffers); < 0 = the family's. torchtitan's
  // AsyncTP (inductor's micro-pipelined all-gather-matmul and matmul-reduce-scatter) hides less
  // than userbuffers: data/fitted/frameworks/pytorch-fsdp.toml.
  double tp_comm_overlap_fraction = -1;
  // Eager layers issue kernel by kernel (EagerKernels above; off unless the data sets it).
  EagerKernels eager_kernels;
  // Full activation checkpointing stops its recompute once the last tensor the backward needs
  // is rebuilt (torch.utils.checkpoint, use_reentrant=False, early stop on by default): the
  // layer's last GEMM and the residual add after it are not rerun (cost/checkpoint_recompute.h).
  // false: the whole layer forward is rerun (Megatron's and DeepSpeed's reentrant checkpoint).
  bool recompute_early_stop = false;
  // Data-parallel gradient buckets ([data_parallel] bucket_params): the parameters per bucket
  // the framework's overlapped gradient reduction and parameter gather are cut into. The bucket
  // holding the model's first parameters is reduced only after the last backward and gathered
  // before the first forward (docs/model/training.md §3, "Edge buckets"). 0 = not modelled: the
  // collectives are one block hidden behind the pass as far as it lasts.
  double dp_bucket_params = 0;
  // What the framework does with a setting a run's config leaves unset ([defaults]; "" = no
  // default: `validate training` then takes the fastest setting that fits). Kept as the data
  // files spell them (plan/resolve.h turns them into plan settings).
  std::string default_sequence_parallel;  // "with_tp" (on exactly when tp > 1) or "off"
  std::string default_recompute;          // "none", "selective" or "full": the lightest tried first
  std::string default_moe_overlap;        // "none" or "1f1b"
  FrameworkMemory memory;
  std::string notes;
  Provenance provenance;
};

// The framework `name` names (id or alias, case-insensitive); an empty name gives the default
// entry. Throws Error naming `flag`, the value and every valid name.
const Framework& resolve_framework(const Catalog& catalog, std::string_view name,
                                   std::string_view flag = "--framework");

// The entry marked default (else the first); nullptr when the catalog has none.
const Framework* default_framework(const Catalog& catalog);

// Every name `--framework` accepts, ids first then aliases, for messages and help text.
std::vector<std::string> framework_names(const Catalog& catalog);

// The entry `name` names (id or alias, case-insensitive); nullptr when none does (a published
// run's `framework` cell may name software the catalog has no figures for: meta-internal).
const Framework* find_framework(const Catalog& catalog, std::string_view name);

}  // namespace gpuplan
