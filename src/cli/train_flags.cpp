#include "cli/args.h"
#include "cli/train_flags.h"

#include <fmt/format.h>

#include "cli/context.h"
#include "core/error.h"
#include "core/units.h"
#include "calibration/calibration_scale.h"
#include "catalog/system_choice.h"

namespace gpuplan {

void add_train_flags(CliCommand& cmd, TrainFlags& f) {
  cmd.add_option("--model", f.model, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  cmd.add_option("--gpu", f.gpu, "GPU id or alias (default: the system's GPU)");
  cmd.add_option("--gpus", f.gpus, "Total GPUs (default: tp × pp × cp × dp)");
  cmd.add_option("--system", f.system, "Node or rack the GPUs sit in (default: the catalog's system for the GPU)");
  cmd.add_option("--fabric", f.fabric, "Scale-out fabric above the systems (default: none, NICs only)");
  cmd.add_option("--tp", f.plan.tp, "Tensor-parallel degree")->capture_default_str();
  cmd.add_option("--pp", f.plan.pp, "Pipeline stages")->capture_default_str();
  cmd.add_option("--vp", f.plan.vp, "Virtual pipeline stages per rank (interleaved 1F1B when > 1)")->capture_default_str();
  cmd.add_option("--dp", f.dp, "Data-parallel degree (default: gpus / (tp × pp × cp))");
  cmd.add_option("--cp", f.plan.cp, "Context-parallel degree (ring attention)")->capture_default_str();
  cmd.add_option("--ep", f.plan.ep, "Expert-parallel degree (MoE), within tp × cp × dp")->capture_default_str();
  cmd.add_flag("--sp", f.plan.sp, "Sequence parallelism with TP");
  cmd.add_option("--zero", f.plan.zero, "ZeRO stage: 0, 1 (distributed optimizer), 2, 3 (FSDP)")->capture_default_str();
  cmd.add_option("--dp-shard", f.plan.dp_shard, "ZeRO/FSDP sharding group size (hybrid sharding); default all of dp");
  cmd.add_option("--micro-batch", f.plan.micro_batch, "Sequences per micro-batch")->capture_default_str();
  cmd.add_option("--global-batch", f.plan.global_batch, "Sequences per step (default: dp × micro-batch)");
  cmd.add_option("--seq-len", f.plan.seq_len, "Tokens per sequence (default: the model's context length)");
  cmd.add_option("--recompute", f.recompute, "Activation recomputation: none, selective, full")->capture_default_str();
  cmd.add_option("--precision", f.precision, "Precision of the linear layers: bf16, fp16, fp8, tf32, fp32")
      ->capture_default_str();
  cmd.add_flag("!--no-tp-overlap", f.plan.tp_comm_overlap,
               "TP communication fully exposed (default: overlapped as far as the GPU family's software does)");
  cmd.add_option("--overhead-gib", f.overhead_gib, "Runtime memory besides tensors, GiB (default: the GPU family's)");
  cmd.add_option("--calibration", f.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference");
  cmd.add_flag("--json", f.json, "Print one JSON object");
}

TrainSetup make_train_setup(CliContext& cli, const TrainFlags& f) {
  const Catalog& catalog = cli.catalog();
  TrainSetup s;
  const ModelSpec* model = &cli.resolve_model(f.model, s.model);

  const Fabric* fabric = f.fabric.empty() ? nullptr : &catalog.fabric(f.fabric);
  const System* system = !f.system.empty() ? &catalog.system(f.system)
                         : fabric          ? &catalog.system(fabric->system)
                                           : nullptr;
  if (fabric && catalog.find_system(fabric->system) != system) {
    throw Error(fmt::format("fabric '{}' is built from {}, not {}", fabric->id, fabric->system, system->id));
  }
  const Gpu* gpu = nullptr;
  if (!f.gpu.empty()) {
    gpu = &catalog.gpu(f.gpu);
    if (system && catalog.find_gpu(system->gpu) != gpu) {
      throw Error(fmt::format("system '{}' is built from {}, not {}; drop --gpu or pick a system with {}", system->id,
                              system->gpu, gpu->id, gpu->id));
    }
  } else if (system) {
    gpu = &catalog.gpu(system->gpu);
  } else {
    throw Error("name the GPU (--gpu h100-sxm), the system (--system dgx-h100) or the fabric");
  }

  Plan p = f.plan;
  const auto recompute = parse_recompute(f.recompute);
  if (!recompute) throw Error(fmt::format("--recompute '{}': use none, selective or full", f.recompute));
  p.recompute = *recompute;
  const auto precision = parse_precision(f.precision);
  if (!precision || (*precision != Precision::bf16 && *precision != Precision::fp16 && *precision != Precision::fp8 &&
                     *precision != Precision::fp32 && *precision != Precision::tf32)) {
    throw Error(fmt::format("--precision '{}': use bf16, fp16, fp8, tf32 or fp32", f.precision));
  }
  p.precision = *precision;
  const int model_parallel = p.tp * p.pp * p.cp;
  if (model_parallel < 1) throw Error("--tp, --pp and --cp must be at least 1");
  if (f.dp > 0) {
    p.dp = f.dp;
    if (f.gpus > 0 && f.gpus != p.dp * model_parallel) {
      throw Error(fmt::format("--gpus {} does not equal tp {} × pp {} × cp {} × dp {} = {}", f.gpus, p.tp, p.pp, p.cp,
                              p.dp, p.dp * model_parallel));
    }
  } else if (f.gpus > 0) {
    if (f.gpus % model_parallel != 0) {
      throw Error(fmt::format("--gpus {} is not a multiple of tp {} × pp {} × cp {} = {}", f.gpus, p.tp, p.pp, p.cp,
                              model_parallel));
    }
    p.dp = f.gpus / model_parallel;
  }
  if (!system && p.gpus() > 1) {
    system = default_system_for(catalog, *gpu);
    if (!system) {
      throw Error(fmt::format("no system in the catalog is built from {}; name one with --system", gpu->id));
    }
  }
  TrainOptions options;
  if (f.overhead_gib >= 0) options.runtime_overhead_bytes = f.overhead_gib * kGiB;
  s.ctx = make_train_context(catalog, *model, *gpu, system, fabric, options);
  if (!f.calibration.empty()) {
    const CalibrationScale scale = calibration_scale(*gpu, load_calibration(f.calibration));
    apply_calibration_scale(s.ctx.device, scale);
    s.calibration_notes = calibration_notes(scale);
  }
  s.plan = p;
  return s;
}

}  // namespace gpuplan
