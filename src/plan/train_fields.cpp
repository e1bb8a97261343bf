#include "plan/train_fields.h"

namespace gpuplan {

// In the order `gpuplan train --help` lists them. The fp8 recipe help is shared with search
// (search/search_fields.cpp) through these two strings.
const std::vector<FieldSpec<TrainRequest>>& train_fields() {
  using R = TrainRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"model", GP_FIELD(R, model), "", "",
       "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json", kRequired | kModelId},
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id or alias (default: the system's GPU)"},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "Total GPUs (default: tp × pp × cp × dp)"},
      {"system", GP_FIELD(R, system), "", "",
       "Node or rack the GPUs sit in (default: the catalog's system for the GPU)"},
      {"fabric", GP_FIELD(R, fabric), "", "", "Scale-out fabric above the systems (default: none, NICs only)"},
      {"tp", GP_FIELD(R, tp), "GPUs", "", "Tensor-parallel degree", kSearchDimension | kShowDefault},
      {"pp", GP_FIELD(R, pp), "stages", "", "Pipeline stages", kSearchDimension | kShowDefault},
      {"vp", GP_FIELD(R, vp), "stages", "", "Virtual pipeline stages per rank (interleaved 1F1B when > 1)",
       kSearchDimension | kShowDefault},
      {"dp", GP_FIELD(R, dp), "GPUs", "", "Data-parallel degree (default: gpus / (tp × pp × cp))", kSearchDimension},
      {"cp", GP_FIELD(R, cp), "GPUs", "", "Context-parallel degree (ring attention)",
       kSearchDimension | kShowDefault},
      {"ep", GP_FIELD(R, ep), "GPUs", "", "Expert-parallel degree (MoE), within tp × cp × dp",
       kSearchDimension | kShowDefault},
      {"sp", GP_FIELD(R, sp), "", "", "Sequence parallelism with TP", kSearchDimension},
      {"zero", GP_FIELD(R, zero), "", "0, 1, 2, 3", "ZeRO stage: 0, 1 (distributed optimizer), 2, 3 (FSDP)",
       kSearchDimension | kShowDefault},
      {"dp_shard", GP_FIELD(R, dp_shard), "GPUs", "",
       "ZeRO/FSDP sharding group size (hybrid sharding); default all of dp", kSearchDimension},
      {"micro_batch", GP_FIELD(R, micro_batch), "sequences", "", "Sequences per micro-batch",
       kSearchDimension | kShowDefault},
      {"global_batch", GP_FIELD(R, global_batch), "sequences", "", "Sequences per step (default: dp × micro-batch)"},
      {"seq_len", GP_FIELD(R, seq_len), "tokens", "",
       "Tokens per sequence (default: the model's pretraining length, else its context up to 8192)"},
      {"allow_longer_context", GP_FIELD(R, allow_longer_context), "", "",
       "Allow --seq-len past the model's context length (max_seq_len)"},
      {"recompute", GP_FIELD(R, recompute), "", "none, selective, full",
       "Activation recomputation: none, selective, full", kSearchDimension | kShowDefault},
      {"recompute_modules", GP_FIELD(R, recompute_modules), "", "layernorm, moe_act, moe, core_attn, mla_up_proj, mlp",
       "Megatron-Core recompute modules, comma-separated: each layer's parts whose forward reruns in the backward "
       "(--recompute-modules; on top of --recompute)"},
      {"cuda_graphs", GP_FIELD(R, cuda_graphs), "", "attn, mlp, moe_router, moe_preprocess, mamba, full_iteration",
       "Megatron-Core CUDA-graph scopes, comma-separated (--cuda-graph-scope): the captured ops cost the host one "
       "graph launch per layer and pass instead of one launch per kernel (default: none, eager)"},
      {"precision", GP_FIELD(R, precision), "", "bf16, fp16, fp8, fp4, tf32, fp32",
       kPrecisionHelp, kShowDefault},
      {"framework", GP_FIELD(R, framework), "", "",
       kFrameworkHelp},
      {"tp_overlap", GP_FIELD(R, tp_overlap), "", "",
       "TP communication fully exposed (default: overlapped as far as the GPU family's software, or the framework's own TP overlap, does)", kNegated},
      {"moe_overlap", GP_FIELD(R, moe_overlap), "", "none, 1f1b, dualpipe",
       "MoE AllToAll overlap: none (exposed), 1f1b (Megatron-Core EP overlap), dualpipe (DeepSeek)", kShowDefault},
      {"moe_dispatcher", GP_FIELD(R, moe_dispatcher), "", "alltoall, flex",
       "MoE token dispatch: alltoall (one copy per chosen expert, Megatron-Core's AllToAll dispatcher) or flex "
       "(one copy per destination expert-parallel rank: DeepEP, HybridEP)",
       kShowDefault},
      {"moe_imbalance", GP_FIELD(R, moe_imbalance), "", "",
       "Router load imbalance: max / mean tokens per expert-parallel rank (1 = balanced)", kShowDefault},
      {"overhead_gib", GP_FIELD(R, overhead_gib), "GiB", "",
       "Runtime memory besides tensors, GiB (default: the GPU family's)"},
      {"memory_headroom_gib", GP_FIELD(R, memory_headroom_gib), "GiB", "",
       "GiB kept free on every GPU: a plan fits when its memory + this is at most the usable memory", kShowDefault},
      {"pp_embedding_head_slots", GP_FIELD(R, pp_embedding_head_slots), "", "",
       "Count the embedding and the output head as one layer each when splitting layers over pipeline "
       "stages (Megatron-Core --account-for-embedding/loss-in-pipeline-split; Llama 3 405B)"},
      {"pp_layout", GP_FIELD(R, pp_layout), "", "",
       "Explicit pipeline layout in Megatron-Core's grammar (--pipeline-model-parallel-layout): chunks split by "
       "'|', E embedding, t decoder layer, m MTP layer, L loss, x*N and (…)*N repeats; e.g. "
       "\"Et*4|(t*4|)*14tmL\" (DeepSeek-V3, pp 16). Default: an even split"},
      {"mtp_layers", GP_FIELD(R, mtp_layers), "layers", "",
       "Multi-token-prediction depths trained (Megatron-Core --mtp-num-layers; DeepSeek-V3 has 1), on the "
       "layout's m chunk or the last one",
       kShowDefault},
      {"optimizer_state_bits", GP_FIELD(R, optimizer_state_bits), "bits", "32, 16, 8",
       "Adam moments m, v at 32 (fp32), 16 (bf16) or 8 bits (block-wise 8-bit Adam); fp32 master weights "
       "either way",
       kShowDefault},
      {"fp8_recipe", GP_FIELD(R, fp8_recipe), "", "delayed, tensorwise, blockwise, mxfp8", kFp8RecipeHelp},
      {"fp8_activation_cache", GP_FIELD(R, fp8_activation_cache), "", "", kFp8ActivationCacheHelp},
      {"fp8_params", GP_FIELD(R, fp8_params), "", "", kFp8ParamsHelp},
      {"nvfp4_rht", GP_FIELD(R, nvfp4_rht), "", "",
       "NVFP4 without the random Hadamard transforms on the weight-gradient inputs (Transformer Engine "
       "NVTE_NVFP4_DISABLE_RHT=1, as NVIDIA's MLPerf v5.1 fp4 configs set it); default: applied, TE's NVFP4 "
       "recipe, each cast input read three times (--precision fp4 only)",
       kNegated},
      {"offload_optimizer", GP_FIELD(R, offload_optimizer), "", "",
       "fp32 master weights and Adam states in host memory, the update on the CPU, gradients and weights over "
       "PCIe each step (ZeRO-Offload; Megatron-Core --optimizer-cpu-offload)"},
      {"offload_activation_layers", GP_FIELD(R, offload_activation_layers), "layers", "",
       "Decoder layers per pipeline rank whose saved activations wait in host memory between forward and "
       "backward, copied beside the compute (Megatron-Core --cpu-offloading-num-layers; 0 = none)"},
      {"elementwise", GP_FIELD(R, elementwise), "", "fused, eager",
       "Element-wise kernels: fused (Transformer Engine, torch.compile) or eager (PyTorch op by op: "
       "RMSNorm, RoPE and SwiGLU each a chain of kernels through HBM)",
       kShowDefault},
      {"calibration", GP_FIELD(R, calibration), "", "",
       "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference; or "
       "nccl-tests output (all_reduce_perf, ...): its rows calibrate the collective model's bandwidth and "
       "latency (docs/calibration.md); or a training calibration file from `gpuplan calibrate training`",
       kTakesPath},
  };
  return fields;
}

}  // namespace gpuplan
