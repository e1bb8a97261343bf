#include "cli/train_flags.h"

namespace gpuplan {

void add_fp8_recipe_flags(CliCommand& cmd, std::string& recipe, bool& activation_cache) {
  cmd.add_option("--fp8-recipe", recipe,
                 "Scaling of fp8 linear layers: delayed (per-tensor, amax history; default), tensorwise (per-tensor, "
                 "current amax: one more read per cast), blockwise (1x128 / 128x128 fp32 scales, DeepSeek-V3), mxfp8 "
                 "(32-element E8M0 scales; Blackwell-class GPUs). --precision fp4 is always NVFP4");
  cmd.add_flag("--fp8-activation-cache", activation_cache,
               "DeepSeek-V3's low-precision activation cache: experts' SwiGLU inputs kept in fp8 (output recomputed), "
               "attention output in 12 bits");
}

void add_train_flags(CliCommand& cmd, TrainFlags& f) {
  TrainRequest& r = f.request;
  cmd.add_option("--model", r.model, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  cmd.add_option("--gpu", r.gpu, "GPU id or alias (default: the system's GPU)");
  cmd.add_option("--gpus", r.gpus, "Total GPUs (default: tp × pp × cp × dp)");
  cmd.add_option("--system", r.system, "Node or rack the GPUs sit in (default: the catalog's system for the GPU)");
  cmd.add_option("--fabric", r.fabric, "Scale-out fabric above the systems (default: none, NICs only)");
  cmd.add_option("--tp", r.tp, "Tensor-parallel degree")->capture_default_str();
  cmd.add_option("--pp", r.pp, "Pipeline stages")->capture_default_str();
  cmd.add_option("--vp", r.vp, "Virtual pipeline stages per rank (interleaved 1F1B when > 1)")->capture_default_str();
  cmd.add_option("--dp", r.dp, "Data-parallel degree (default: gpus / (tp × pp × cp))");
  cmd.add_option("--cp", r.cp, "Context-parallel degree (ring attention)")->capture_default_str();
  cmd.add_option("--ep", r.ep, "Expert-parallel degree (MoE), within tp × cp × dp")->capture_default_str();
  cmd.add_flag("--sp", r.sp, "Sequence parallelism with TP");
  cmd.add_option("--zero", r.zero, "ZeRO stage: 0, 1 (distributed optimizer), 2, 3 (FSDP)")->capture_default_str();
  cmd.add_option("--dp-shard", r.dp_shard, "ZeRO/FSDP sharding group size (hybrid sharding); default all of dp");
  cmd.add_option("--micro-batch", r.micro_batch, "Sequences per micro-batch")->capture_default_str();
  cmd.add_option("--global-batch", r.global_batch, "Sequences per step (default: dp × micro-batch)");
  cmd.add_option("--seq-len", r.seq_len, "Tokens per sequence (default: the model's context length)");
  cmd.add_flag("--allow-longer-context", r.allow_longer_context,
               "Allow --seq-len past the model's context length (max_seq_len)");
  cmd.add_option("--recompute", r.recompute, "Activation recomputation: none, selective, full")->capture_default_str();
  cmd.add_option("--precision", r.precision, "Precision of the linear layers: bf16, fp16, fp8, fp4 (NVFP4), tf32, fp32")
      ->capture_default_str();
  cmd.add_option("--framework", r.framework,
                 "Training framework, which sets the host time per kernel and the attention and fusion kernels: "
                 "megatron-core (default; also nemo, megatron-bridge), megatron-lm (2021-22), pytorch-fsdp (also "
                 "torchtitan, llm-foundry), pytorch (plain PyTorch / DDP with transformers: fp32 weights under autocast, "
                 "fused AdamW; also ddp, transformers), deepspeed (also megatron-deepspeed); an unknown name lists every "
                 "valid one");
  cmd.add_flag("!--no-tp-overlap", r.tp_overlap,
               "TP communication fully exposed (default: overlapped as far as the GPU family's software does)");
  cmd.add_option("--moe-overlap", r.moe_overlap,
                 "MoE AllToAll overlap: none (exposed), 1f1b (Megatron-Core EP overlap), dualpipe (DeepSeek)")
      ->capture_default_str();
  cmd.add_option("--moe-imbalance", r.moe_imbalance,
                 "Router load imbalance: max / mean tokens per expert-parallel rank (1 = balanced)")
      ->capture_default_str();
  cmd.add_option("--overhead-gib", r.overhead_gib, "Runtime memory besides tensors, GiB (default: the GPU family's)");
  cmd.add_option("--memory-headroom-gib", r.memory_headroom_gib,
                 "GiB kept free on every GPU: a plan fits when its memory + this is at most the usable memory")
      ->capture_default_str();
  cmd.add_flag("--pp-embedding-head-slots", r.pp_embedding_head_slots,
               "Count the embedding and the output head as one layer each when splitting layers over pipeline "
               "stages (Megatron-Core --account-for-embedding/loss-in-pipeline-split; Llama 3 405B)");
  cmd.add_option("--optimizer-state-bits", r.optimizer_state_bits,
                 "Adam moments m, v at 32 (fp32), 16 (bf16) or 8 bits (block-wise 8-bit Adam); fp32 master weights "
                 "either way")
      ->capture_default_str();
  add_fp8_recipe_flags(cmd, r.fp8_recipe, r.fp8_activation_cache);
  cmd.add_flag("--offload-optimizer", r.offload_optimizer,
               "fp32 master weights and Adam states in host memory, the update on the CPU, gradients and weights over "
               "PCIe each step (ZeRO-Offload; Megatron-Core --optimizer-cpu-offload)");
  cmd.add_option("--elementwise", r.elementwise,
                 "Element-wise kernels: fused (Transformer Engine, torch.compile) or eager (PyTorch op by op: "
                 "RMSNorm, RoPE and SwiGLU each a chain of kernels through HBM)")
      ->capture_default_str();
  cmd.add_option("--calibration", r.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference; or nccl-tests output (all_reduce_perf, ...): its rows calibrate the collective model's "
                 "bandwidth and latency (docs/calibration.md)");
  cmd.add_flag("--json", f.json, "Print one JSON object");
}

}  // namespace gpuplan
