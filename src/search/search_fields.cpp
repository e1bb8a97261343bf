#include "search/search_fields.h"

#include "plan/train_fields.h"

namespace gpuplan {

// In the order `gpuplan search --help` lists them.
const std::vector<FieldSpec<SearchRequest>>& search_fields() {
  using R = SearchRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"model", GP_FIELD(R, model), "", "", "Model id or alias, or a Hugging Face config.json", kRequired | kModelId},
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id or alias (default: the system's GPU)"},
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "Total GPUs", kRequired},
      {"global_batch", GP_FIELD(R, global_batch), "sequences", "", "Sequences per step", kRequired},
      {"seq_len", GP_FIELD(R, seq_len), "tokens", "",
       "Tokens per sequence (default: the model's pretraining length, else its context up to 8192)"},
      {"allow_longer_context", GP_FIELD(R, allow_longer_context), "", "",
       "Allow --seq-len past the model's context length (max_seq_len)"},
      {"system", GP_FIELD(R, system), "", "", "Node or rack (default: the catalog's system for the GPU)"},
      {"fabric", GP_FIELD(R, fabric), "", "", "Scale-out fabric above the systems"},
      {"precision", GP_FIELD(R, precision), "", "bf16, fp16, fp8, fp4, tf32, fp32",
       kPrecisionHelp, kShowDefault},
      {"framework", GP_FIELD(R, framework), "", "",
       kFrameworkHelp},
      {"top", GP_FIELD(R, top), "plans", "", "How many plans to show", kShowDefault},
      {"objective", GP_FIELD(R, objective), "", "time, cost, mfu", "Rank by: time (step time), cost ($ per step), mfu",
       kShowDefault},
      {"threads", GP_FIELD(R, threads), "threads", "", "Worker threads (default: every core)", kLocalOnly},
      {"usd_per_gpu_hour", GP_FIELD(R, usd_per_gpu_hour), "USD/GPU-hour", "",
       "Price for --objective cost (default: the catalog's cheapest current on-demand offer)"},
      {"time_limit_s", GP_FIELD(R, time_limit_s), "s", "", "Stop after this many seconds (default: exhaustive)", 0,
       "time-limit"},
      {"no_prune", GP_FIELD(R, no_prune), "", "", "Evaluate every plan (brute force; same answer, slower)"},
      {"calibration", GP_FIELD(R, calibration), "", "",
       "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference; or "
       "nccl-tests output (all_reduce_perf, ...): its rows calibrate the collective model (docs/calibration.md); or a training calibration file from `gpuplan calibrate training`",
       kTakesPath},
      {"memory_headroom_gib", GP_FIELD(R, memory_headroom_gib), "GiB", "",
       "GiB kept free on every GPU: plans whose memory + this exceeds the usable memory are dropped", kShowDefault},
      {"optimizer_state_bits", GP_FIELD(R, optimizer_state_bits), "bits", "32, 16, 8",
       "Adam moments at 32, 16 or 8 bits, fixed for every plan searched (not searched: it changes the "
       "numerics)",
       kShowDefault},
      {"offload_optimizer", GP_FIELD(R, offload_optimizer), "", "",
       "Every plan offloads its optimizer to host memory (ZeRO-Offload); fixed, not searched"},
      {"fp8_recipe", GP_FIELD(R, fp8_recipe), "", "delayed, tensorwise, blockwise, mxfp8", kFp8RecipeHelp},
      {"fp8_activation_cache", GP_FIELD(R, fp8_activation_cache), "", "", kFp8ActivationCacheHelp},
      {"fp8_params", GP_FIELD(R, fp8_params), "", "", kFp8ParamsHelp},
      {"elementwise", GP_FIELD(R, elementwise), "", "fused, eager",
       "Element-wise kernels of every plan searched: fused (Transformer Engine, torch.compile) or eager "
       "(PyTorch op by op)",
       kShowDefault},
  };
  return fields;
}

}  // namespace gpuplan
