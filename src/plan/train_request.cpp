#include "plan/train_request.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibration/calibration_scale.h"
#include "calibration/collective_fit.h"
#include "calibration/nccl_tests_log.h"
#include "calibration/training_calibration_file.h"
#include "catalog/resolve_model.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/field_error.h"
#include "core/units.h"
#include "plan/plan_rules.h"
#include "plan/pp_layout.h"
#include "plan/train_fields.h"

namespace gpuplan {
namespace {

// A comma-separated list of names → the OR of their bits ("" = 0); a bad name exits 2 naming it.
std::uint8_t parse_name_list(std::string_view flag, const std::string& names,
                             std::optional<std::uint8_t> (*parse)(std::string_view), std::string_view allowed) {
  std::uint8_t bits = 0;
  std::size_t start = 0;
  while (!names.empty() && start <= names.size()) {
    const std::size_t end = std::min(names.find(',', start), names.size());
    const std::string_view name = std::string_view(names).substr(start, end - start);
    const auto bit = parse(name);
    if (!bit) throw Error(fmt::format("{} '{}': '{}' is not one; use {}, comma-separated", flag, names, name, allowed));
    bits |= *bit;
    start = end + 1;
  }
  return bits;
}

// The micro-batch sizes nearest `micro_batch` (one below, one above) that divide the
// sequences each replica runs per step; empty when dp does not divide the global batch.
std::string nearest_micro_batches(int global_batch, int dp, int micro_batch) {
  if (global_batch % dp != 0) return "";
  const int per_replica = global_batch / dp;
  int below = 0;
  int above = 0;
  for (int mb = micro_batch - 1; mb >= 1 && below == 0; --mb) {
    if (per_replica % mb == 0) below = mb;
  }
  for (int mb = micro_batch + 1; mb <= per_replica && above == 0; ++mb) {
    if (per_replica % mb == 0) above = mb;
  }
  if (below > 0 && above > 0) return fmt::format("--micro-batch {} or {}", below, above);
  return fmt::format("--micro-batch {}", below > 0 ? below : above);
}

// Bad input, not an infeasible plan: the global batch must split into whole micro-batches
// on every data-parallel replica (global = dp × micro-batch × micro-batches per step).
void check_batch(const Plan& p) {
  if (p.global_batch < 0) {
    throw Error(fmt::format("--global-batch {}: must be at least 1; omit it for dp × micro-batch", p.global_batch));
  }
  if (p.global_batch == 0) return;
  const int step = p.dp * p.micro_batch;
  if (p.global_batch % step == 0) return;
  const int lower = p.global_batch / step * step;
  const std::string batches = lower > 0 ? fmt::format("--global-batch {} or {}", lower, lower + step)
                                        : fmt::format("--global-batch {}", step);
  const std::string micro = nearest_micro_batches(p.global_batch, p.dp, p.micro_batch);
  throw Error(fmt::format("--global-batch {}: not a multiple of dp {} × --micro-batch {} = {}; use {}{}",
                          p.global_batch, p.dp, p.micro_batch, step, micro.empty() ? "" : micro + ", or ",
                          batches));
}

}  // namespace

void require_at_least(const char* flag, long long value, long long minimum, const std::string& fix) {
  if (value >= minimum) return;
  // The field's name: the flag without "--", '_' for '-' (every caller passes a field's flag).
  std::string field = std::string(flag).substr(2);
  std::replace(field.begin(), field.end(), '-', '_');
  throw FieldError(field, fmt::format("{} {}: must be at least {}{}", flag, value, minimum, fix.empty() ? "" : "; " + fix));
}

DefaultSeqLen default_train_seq_len(const ModelSpec& model) {
  if (model.pretrain_seq_len > 0 && (model.max_seq_len < 1 || model.pretrain_seq_len <= model.max_seq_len)) {
    return {static_cast<int>(model.pretrain_seq_len),
            fmt::format("{}'s pretraining length (its config's original_max_position_embeddings, before RoPE "
                        "scaling to {})",
                        model.id, model.max_seq_len)};
  }
  if (model.max_seq_len < 1) {
    throw Error(fmt::format("model {} has no context length (max_seq_len): pass --seq-len", model.id));
  }
  if (model.max_seq_len <= kDefaultTrainSeqLenCap) {
    return {static_cast<int>(model.max_seq_len), fmt::format("{}'s context length", model.id)};
  }
  return {kDefaultTrainSeqLenCap, fmt::format("{} tokens, the cap on the default below {}'s {}-token context",
                                              kDefaultTrainSeqLenCap, model.id, model.max_seq_len)};
}

int resolve_seq_len(const ModelSpec& model, std::optional<int> seq_len, bool allow_longer_context) {
  if (!seq_len) return default_train_seq_len(model).tokens;
  require_at_least("--seq-len", *seq_len, 1, "omit --seq-len for the model's pretraining length");
  if (model.max_seq_len > 0 && *seq_len > model.max_seq_len && !allow_longer_context) {
    throw Error(fmt::format("--seq-len {}: longer than {}'s context length {}; use --seq-len {} or less, or pass "
                            "--allow-longer-context to plan past it",
                            *seq_len, model.id, model.max_seq_len, model.max_seq_len));
  }
  return *seq_len;
}

double parse_memory_headroom(double gib) {
  if (!std::isfinite(gib) || gib < 0) {
    throw Error(fmt::format("--memory-headroom-gib {}: must be a number of GiB, 0 or more (0 = no headroom)", gib));
  }
  return gib * kGiB;
}

Precision parse_train_precision(const std::string& text) {
  const auto precision = parse_precision(text);
  if (!precision || (*precision != Precision::bf16 && *precision != Precision::fp16 && *precision != Precision::fp8 &&
                     *precision != Precision::fp4 && *precision != Precision::fp32 && *precision != Precision::tf32)) {
    throw Error(fmt::format("--precision '{}': use bf16, fp16, fp8, fp4 (NVFP4), tf32 or fp32", text));
  }
  return *precision;
}

ScalingRecipe parse_train_scaling(const std::string& text, Precision precision) {
  if (text.empty()) return default_scaling_recipe(precision);
  const auto recipe = parse_scaling_recipe(text);
  if (!recipe || *recipe == ScalingRecipe::nvfp4) {
    throw Error(fmt::format("--fp8-recipe '{}': use delayed (per-tensor, amax history; the default), tensorwise "
                            "(per-tensor, current amax), blockwise (1x128 / 128x128 fp32 scales, DeepSeek-V3) or "
                            "mxfp8 (32-element E8M0 scales)",
                            text));
  }
  if (precision != Precision::fp8) {
    throw Error(fmt::format("--fp8-recipe {} with --precision {}: the recipe scales fp8 linear layers; use "
                            "--precision fp8, or drop --fp8-recipe{}",
                            text, precision_name(precision),
                            precision == Precision::fp4 ? " (fp4 always runs NVFP4's recipe)" : ""));
  }
  return *recipe;
}

void check_scaling_hardware(const Gpu& gpu, const Plan& p) {
  const bool block_scaled = has_block_scaled_mma(gpu);
  if (p.precision == Precision::fp4 && !block_scaled) {
    throw Error(fmt::format("--precision fp4: {} has no fp4 tensor cores (NVFP4 training needs Blackwell-class "
                            "block-scaled MMA); use --precision fp8 or a GPU with fp4 (gpuplan gpus)",
                            gpu.id));
  }
  if (needs_block_scaled_mma(p.scaling) && p.precision == Precision::fp8 && !block_scaled) {
    throw Error(fmt::format("--fp8-recipe {}: {}'s tensor cores read no block scales (MXFP8 needs Blackwell-class "
                            "block-scaled MMA); use --fp8-recipe blockwise (block scales applied in software, as "
                            "DeepSeek-V3 on H800) or tensorwise",
                            scaling_recipe_name(p.scaling), gpu.id));
  }
}

MoeOverlap parse_train_moe_overlap(const std::string& text) {
  const auto overlap = parse_moe_overlap(text);
  if (!overlap) {
    throw Error(fmt::format("--moe-overlap '{}': use none (AllToAll exposed), 1f1b (Megatron-Core's EP overlap in the "
                            "1F1B steady state) or dualpipe (DeepSeek's bidirectional pipeline)",
                            text));
  }
  return *overlap;
}

MoeDispatcher parse_train_moe_dispatcher(const std::string& text) {
  const auto dispatcher = parse_moe_dispatcher(text);
  if (!dispatcher) {
    throw Error(fmt::format("--moe-dispatcher '{}': use alltoall (one copy per chosen expert, Megatron-Core's AllToAll "
                            "dispatcher) or flex (one copy per destination rank, DeepEP/HybridEP)",
                            text));
  }
  return *dispatcher;
}

double check_moe_imbalance(double imbalance) {
  if (!(imbalance >= 1) || !std::isfinite(imbalance)) {
    throw Error(fmt::format("--moe-imbalance {}: the most loaded expert-parallel rank's tokens over the mean, at "
                            "least 1; use 1 for balanced routing",
                            imbalance));
  }
  return imbalance;
}

int check_optimizer_state_bits(int bits) {
  if (bits == 32 || bits == 16 || bits == 8) return bits;
  throw Error(
      fmt::format("--optimizer-state-bits {}: use 32 (fp32 Adam moments, the default), 16 (bf16 moments) or 8 "
                  "(block-wise 8-bit moments, Dettmers et al. 2022)",
                  bits));
}

bool parse_train_elementwise(const std::string& name) {
  const auto eager = parse_elementwise(name);
  if (!eager) {
    throw Error(fmt::format("--elementwise '{}': use fused (Transformer Engine, torch.compile, fused kernels) or eager "
                            "(PyTorch op by op: RMSNorm, RoPE and SwiGLU as chains of kernels)",
                            name));
  }
  return *eager;
}

void check_offload_optimizer(const Catalog& catalog, const TrainContext& ctx) {
  if (ctx.host_memory_bw_bytes_per_s > 0 && ctx.host_link_bw_bytes_per_s > 0) return;
  if (ctx.host_link_bw_bytes_per_s <= 0) {
    throw Error(
        fmt::format("--offload-optimizer: {} has no PCIe generation in the catalog (pcie_gen in its file), "
                    "so its link to host memory is unknown; add it with --catalog, or drop --offload-optimizer",
                    ctx.gpu->id));
  }
  std::string with_host;
  for (const System& s : catalog.systems) {
    if (s.host_memory_bw_bytes_per_s > 0) with_host += (with_host.empty() ? "" : ", ") + s.id;
  }
  throw Error(
      fmt::format("--offload-optimizer: system {} has no host memory bandwidth in the catalog ([host] "
                  "memory_bw_gb_per_s in its file), so the CPU's optimizer step cannot be costed; use a "
                  "system that has one{}, add a [host] table with --catalog, or drop --offload-optimizer",
                  ctx.system ? ctx.system->id : "(none)", with_host.empty() ? "" : " (" + with_host + ")"));
}

TrainSetup make_train_setup(const Catalog& catalog, const TrainRequest& r) {
  TrainSetup s;
  // The numbers first: they need no catalog, and a bad one is the likelier typo. NaN, inf and
  // negative values of any field first of all (core/field_spec.h).
  check_field_numbers(r, train_fields(), FieldNumberRule::kFiniteNumbers);
  if (r.gpus) require_at_least("--gpus", *r.gpus, 1, "omit --gpus to use tp × pp × cp × dp");
  require_at_least("--tp", r.tp, 1, "1 = no tensor parallelism");
  require_at_least("--pp", r.pp, 1, "1 = no pipeline");
  require_at_least("--vp", r.vp, 1, "1 = no interleaving");
  if (r.dp) require_at_least("--dp", *r.dp, 1, "omit --dp to use gpus / (tp × pp × cp)");
  require_at_least("--cp", r.cp, 1, "1 = no context parallelism");
  require_at_least("--ep", r.ep, 1, "1 = no expert parallelism");
  require_at_least("--micro-batch", r.micro_batch, 1);
  if (r.dp_shard) require_at_least("--dp-shard", *r.dp_shard, 1, "omit --dp-shard to shard over all of dp");
  if (r.zero < 0 || r.zero > 3) {
    throw Error(fmt::format("--zero {}: use 0 (DDP), 1 (distributed optimizer), 2 or 3 (FSDP)", r.zero));
  }

  Plan p;
  p.tp = r.tp;
  p.pp = r.pp;
  p.vp = r.vp;
  p.cp = r.cp;
  p.ep = r.ep;
  p.sp = r.sp;
  p.zero = r.zero;
  p.dp_shard = r.dp_shard.value_or(0);
  p.micro_batch = r.micro_batch;
  p.global_batch = r.global_batch;
  p.tp_comm_overlap = r.tp_overlap;
  p.pp_embedding_head_slots = r.pp_embedding_head_slots;
  if (p.pp_embedding_head_slots && p.pp < 2) {
    throw Error(fmt::format("--pp-embedding-head-slots with --pp {}: it splits layers over pipeline stages; use "
                            "--pp 2 or more, or drop the flag",
                            p.pp));
  }
  const double headroom_bytes = parse_memory_headroom(r.memory_headroom_gib);
  p.moe_overlap = parse_train_moe_overlap(r.moe_overlap);
  p.moe_dispatcher = parse_train_moe_dispatcher(r.moe_dispatcher);
  p.moe_imbalance = check_moe_imbalance(r.moe_imbalance);
  const auto recompute = parse_recompute(r.recompute);
  if (!recompute) throw Error(fmt::format("--recompute '{}': use none, selective or full", r.recompute));
  p.recompute = *recompute;
  p.recompute_modules = parse_name_list("--recompute-modules", r.recompute_modules, parse_recompute_module,
                                        "layernorm, moe_act, moe, core_attn, mla_up_proj or mlp");
  p.cuda_graph_scope = parse_name_list("--cuda-graphs", r.cuda_graphs, parse_cuda_graph_scope,
                                       "attn, mlp, moe_router, moe_preprocess, mamba or full_iteration");
  p.precision = parse_train_precision(r.precision);
  p.scaling = parse_train_scaling(r.fp8_recipe, p.precision);
  if (r.fp8_activation_cache && p.precision != Precision::fp8 && p.precision != Precision::fp4) {
    throw Error(fmt::format("--fp8-activation-cache with --precision {}: it keeps activations in the fp8 GEMM "
                            "format; use --precision fp8, or drop the flag",
                            r.precision));
  }
  p.low_precision_act_cache = r.fp8_activation_cache;
  if (r.fp8_params && p.precision != Precision::fp8) {
    throw Error(fmt::format("--fp8-params with --precision {}: it keeps the fp8 GEMMs' weights in fp8 only; use "
                            "--precision fp8, or drop the flag",
                            r.precision));
  }
  p.fp8_params = r.fp8_params;
  if (!r.nvfp4_rht && p.precision != Precision::fp4) {
    throw Error(fmt::format("--no-nvfp4-rht with --precision {}: the Hadamard transforms are NVFP4's; use "
                            "--precision fp4, or drop the flag",
                            r.precision));
  }
  p.nvfp4_rht = r.nvfp4_rht;
  p.optimizer_state_bits = check_optimizer_state_bits(r.optimizer_state_bits);
  p.offload_optimizer = r.offload_optimizer;
  p.offload_activation_layers = r.offload_activation_layers;
  p.eager_elementwise = parse_train_elementwise(r.elementwise);

  const int model_parallel = p.tp * p.pp * p.cp;
  if (r.dp) {
    p.dp = *r.dp;
    if (r.gpus && *r.gpus != p.dp * model_parallel) {
      throw Error(fmt::format("--gpus {} does not equal tp {} × pp {} × cp {} × dp {} = {}", *r.gpus, p.tp, p.pp,
                              p.cp, p.dp, p.dp * model_parallel));
    }
  } else if (r.gpus) {
    if (*r.gpus % model_parallel != 0) {
      throw Error(fmt::format("--gpus {} is not a multiple of tp {} × pp {} × cp {} = {}", *r.gpus, p.tp, p.pp,
                              p.cp, model_parallel));
    }
    p.dp = *r.gpus / model_parallel;
  }
  check_batch(p);

  const ModelSpec& model = resolve_model(catalog, r.model, s.owned_model);
  const int seq_len = resolve_seq_len(model, r.seq_len, r.allow_longer_context);
  p.seq_len = seq_len;  // always a number: the emitted launch configs and the plan's JSON carry it
  if (!r.seq_len) {
    s.assumptions.push_back(fmt::format("seq_len {}: {}; --seq-len sets another", seq_len,
                                        default_train_seq_len(model).why));
  }
  apply_mtp_and_layout(model, r.mtp_layers, r.pp_layout, p);
  check_train_plan_rules(model, p, seq_len);

  ClusterQuery query;
  query.gpu = r.gpu;
  query.system = r.system;
  query.fabric = r.fabric;
  query.needs_system = p.gpus() > 1;
  ClusterChoice cluster = choose_cluster(catalog, query);
  // Offload needs the host the GPUs sit in: the system's, even for one GPU.
  if (p.offload_optimizer && !cluster.system) {
    cluster.system = default_system_for(catalog, *cluster.gpu);
    if (!cluster.system) {
      throw Error(
          fmt::format("--offload-optimizer: no system in the catalog is built from {}, so the host it sits in "
                      "is unknown; name one with --system, or drop --offload-optimizer",
                      cluster.gpu->id));
    }
    cluster.system_defaulted = true;
  }
  TrainOptions options;
  options.framework = &resolve_framework(catalog, r.framework);
  if (r.overhead_gib) options.runtime_overhead_bytes = *r.overhead_gib * kGiB;
  options.memory_headroom_bytes = headroom_bytes;
  // A training calibration replaces the GPU family's and the framework's fitted constants.
  const std::optional<TrainingCalibration> training =
      r.calibration.empty() ? std::nullopt : read_training_calibration(r.calibration);
  if (training) {
    if (const Efficiency* base = efficiency_for(catalog.efficiencies, *cluster.gpu)) {
      s.calibrated_efficiency = std::make_shared<const Efficiency>(calibrated_efficiency(*base, *training, s.calibration_notes));
      options.efficiency = s.calibrated_efficiency.get();
    }
    s.calibrated_framework = std::make_shared<const Framework>(calibrated_framework(*options.framework, *training, s.calibration_notes));
    options.framework = s.calibrated_framework.get();
    if (s.calibration_notes.empty()) {
      s.calibration_notes.push_back(fmt::format("{} has no constants for {} under {} (it was fitted on runs of {}): "
                                                "nothing changed",
                                                r.calibration, cluster.gpu->id, options.framework->id,
                                                training->gpus.empty() ? std::string("no named GPU")
                                                                       : fmt::format("{}", fmt::join(training->gpus, ", "))));
    }
  }
  s.ctx = make_train_context(catalog, model, *cluster.gpu, cluster.system, cluster.fabric, options);
  check_scaling_hardware(*cluster.gpu, p);
  if (p.offload_optimizer) check_offload_optimizer(catalog, s.ctx);
  if (!r.calibration.empty() && !training) {
    // A gpuplan-bench profile (GEMMs, HBM, collectives) or an nccl-tests log (collectives only).
    const CalibrationProfile profile = load_collective_calibration(r.calibration);
    if (!profile_is_collectives_only(profile)) {
      const CalibrationScale scale = calibration_scale(*cluster.gpu, profile);
      apply_calibration_scale(s.ctx.device, scale);
      s.calibration_notes = calibration_notes(scale);
    }
    for (std::string& note : calibrate_collective_topology(profile, s.ctx.topology)) {
      s.calibration_notes.push_back(std::move(note));
    }
  }
  // The net under the fields no range check above covers (--overhead-gib -5).
  check_field_numbers(r, train_fields(), FieldNumberRule::kNoNegativeNumbers);
  s.calibration_profile = r.calibration;
  s.system_defaulted = cluster.system_defaulted;
  if (!r.gpus && !r.dp) {
    s.assumptions.push_back(fmt::format("gpus {}: tp × pp × cp with dp 1; --gpus sets another", p.gpus()));
  }
  if (r.global_batch == 0) {
    s.assumptions.push_back(fmt::format("global_batch {}: dp × micro-batch, one micro-batch per step; --global-batch "
                                        "sets another",
                                        p.dp * p.micro_batch));
  }
  if (cluster.system_defaulted && s.ctx.system) {
    s.assumptions.push_back(fmt::format("system {}: the catalog's default for {}; --system sets another",
                                        s.ctx.system->id, cluster.gpu->id));
  }
  if (r.framework.empty()) {
    s.assumptions.push_back(fmt::format("framework {}: the default; --framework sets another", options.framework->id));
  }
  if (!r.overhead_gib) {
    s.assumptions.push_back("runtime overhead: the GPU family's figure; --overhead-gib sets another");
  }
  s.plan = p;
  return s;
}

TrainAnswer answer_train(const Catalog& catalog, const TrainRequest& request) {
  TrainAnswer a;
  a.setup = make_train_setup(catalog, request);
  a.estimate = evaluate(a.setup.ctx, a.setup.plan);
  if (!a.estimate.feasible()) a.nearest = nearest_feasible_plans(a.setup.ctx, a.setup.plan);
  const TrainContext& ctx = a.setup.ctx;
  a.placement = placed_groups(a.setup.plan, ctx.domain_gpus, ctx.topology);
  a.state = with_optimizer_state_bits(ctx.options.state, a.setup.plan.optimizer_state_bits);
  a.roofline = op_roofline(ctx, a.setup.plan);
  return a;
}

MemoryAnswer answer_memory(const Catalog& catalog, const TrainRequest& request) {
  return MemoryAnswer{answer_train(catalog, request)};
}

RuleOfThumbAnswer answer_rule_of_thumb(const Catalog& catalog, const std::string& gpu) {
  struct SeedRow {
    const char* size;
    double params;
    const char* weights;
    const char* training;
    const char* gpus;
  };
  // Source: shared/seeds/000_1cdbbc23618e7cc1.txt, "GPU Requirements by Model Size" (line 961):
  // "Training memory = parameters x 4 (FP16 params, gradients, Adam 2 moments) + activations".
  constexpr std::array<SeedRow, 5> kSeedRows{{{"7B", 7e9, "14 GB", "~56 GB", "1× H100 (80GB)"},
                                              {"13B", 13e9, "26 GB", "~104 GB", "2× H100"},
                                              {"70B", 70e9, "140 GB", "~560 GB", "8× H100"},
                                              {"405B", 405e9, "810 GB", "~3.2 TB", "40+ H100"},
                                              {"1T", 1e12, "2 TB", "~8 TB", "100+ H100"}}};
  RuleOfThumbAnswer a;
  a.gpu = &catalog.gpu(gpu.empty() ? "h100-sxm" : gpu);
  a.bytes_per_param = a.state.weight + a.state.grad + a.state.optimizer;
  for (const SeedRow& r : kSeedRows) {
    const double states = r.params * a.bytes_per_param;
    a.rows.push_back({r.size, r.params, r.weights, r.training, r.gpus, r.params * a.state.weight, r.params * 8, states,
                      std::ceil(states / a.gpu->usable_memory_bytes)});
  }
  return a;
}

}  // namespace gpuplan
