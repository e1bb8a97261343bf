// gpuplan search --model M --gpu G --gpus N --global-batch B --seq-len S [--objective ...]:
// flags → SearchRequest → answer_search (search/search_request.h) → report/search_report.h.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "cli/train_flags.h"
#include "report/search_report.h"

namespace gpuplan {

void setup_search(CliCommand& cmd, CliContext& ctx) {
  struct Flags {
    SearchRequest request;
    OutputFlags output;
  };
  auto f = std::make_shared<Flags>();
  SearchRequest& r = f->request;
  cmd.add_option("--model", r.model, "Model id or alias, or a Hugging Face config.json")->required();
  cmd.add_option("--gpu", r.gpu, "GPU id or alias (default: the system's GPU)");
  cmd.add_option("--gpus", r.gpus, "Total GPUs")->required();
  cmd.add_option("--global-batch", r.global_batch, "Sequences per step")->required();
  cmd.add_option("--seq-len", r.seq_len, "Tokens per sequence (default: the model's context length)");
  cmd.add_flag("--allow-longer-context", r.allow_longer_context,
               "Allow --seq-len past the model's context length (max_seq_len)");
  cmd.add_option("--system", r.system, "Node or rack (default: the catalog's system for the GPU)");
  cmd.add_option("--fabric", r.fabric, "Scale-out fabric above the systems");
  cmd.add_option("--precision", r.precision, "Precision of the linear layers: bf16, fp16, fp8, fp4 (NVFP4), tf32, fp32")
      ->capture_default_str();
  cmd.add_option("--framework", r.framework,
                 "Training framework, which sets the host time per kernel and the attention and fusion kernels: "
                 "megatron-core (default; also nemo, megatron-bridge), megatron-lm (2021-22), pytorch-fsdp (also "
                 "torchtitan, llm-foundry), pytorch (plain PyTorch / DDP with transformers: fp32 weights under autocast, "
                 "fused AdamW; also ddp, transformers), deepspeed (also megatron-deepspeed); an unknown name lists every "
                 "valid one");
  cmd.add_option("--top", r.top, "How many plans to show")->capture_default_str();
  cmd.add_option("--objective", r.objective, "Rank by: time (step time), cost ($ per step), mfu")
      ->capture_default_str();
  cmd.add_option("--threads", r.threads, "Worker threads (default: every core)");
  cmd.add_option("--usd-per-gpu-hour", r.usd_per_gpu_hour,
                 "Price for --objective cost (default: the catalog's cheapest current on-demand offer)");
  cmd.add_option("--time-limit", r.time_limit_s, "Stop after this many seconds (default: exhaustive)");
  cmd.add_flag("--no-prune", r.no_prune, "Evaluate every plan (brute force; same answer, slower)");
  cmd.add_option("--calibration", r.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference; or "
                 "nccl-tests output (all_reduce_perf, ...): its rows calibrate the collective model (docs/calibration.md)");
  cmd.add_option("--memory-headroom-gib", r.memory_headroom_gib,
                 "GiB kept free on every GPU: plans whose memory + this exceeds the usable memory are dropped")
      ->capture_default_str();
  cmd.add_option("--optimizer-state-bits", r.optimizer_state_bits,
                 "Adam moments at 32, 16 or 8 bits, fixed for every plan searched (not searched: it changes the "
                 "numerics)")
      ->capture_default_str();
  cmd.add_flag("--offload-optimizer", r.offload_optimizer,
               "Every plan offloads its optimizer to host memory (ZeRO-Offload); fixed, not searched");
  add_fp8_recipe_flags(cmd, r.fp8_recipe, r.fp8_activation_cache);
  cmd.add_option("--elementwise", r.elementwise,
                 "Element-wise kernels of every plan searched: fused (Transformer Engine, torch.compile) or eager "
                 "(PyTorch op by op)")
      ->capture_default_str();
  cmd.add_flag("--json", f->output.json, "Print one JSON object");
  add_output_flags(cmd, f->output);
  cmd.callback([f, &ctx] {
    const SearchAnswer a = answer_search(ctx.catalog(), f->request);
    present(ctx, a, f->output);
  });
}

}  // namespace gpuplan
