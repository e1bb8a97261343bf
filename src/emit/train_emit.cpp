// Training launch configurations: Megatron-LM (pretrain_gpt.py flags), torchtitan (a job TOML)
// and NeMo (Hydra overrides of megatron_gpt_pretraining.py), each with a Slurm sbatch script.
// Every flag name was checked against the framework's own flag list (flag_source below).
#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/strings.h"
#include "emit/emit_common.h"
#include "emit/launch_config.h"
#include "plan/pp_layout.h"

namespace gpuplan {
namespace {

// GPUs per host for torchrun/srun: the system's host (DGX: 8; NVL72 tray: 4), else all.
int emit_gpus_per_host(const TrainContext& ctx, int gpus) {
  if (ctx.system && ctx.system->gpus_per_host > 0) return std::min(gpus, ctx.system->gpus_per_host);
  if (ctx.system && ctx.system->gpus > 0) return std::min(gpus, ctx.system->gpus);
  return gpus;
}

std::string emit_precision_note(const Plan& p) {
  if (p.precision == Precision::bf16 || p.precision == Precision::fp16 || p.precision == Precision::fp8) return "";
  return fmt::format("precision {} has no launch flag here; the script trains in bf16", precision_name(p.precision));
}

// Slurm: one task per node, torchrun starting `per_node` processes (the pattern of
// Megatron-LM's examples and torchtitan's multinode_trainer.slurm).
std::string emit_sbatch(const std::string& job, int nodes, int per_node, const std::string& command) {
  return fmt::format(
      "#!/bin/bash\n"
      "#SBATCH --job-name={0}\n"
      "#SBATCH --nodes={1}\n"
      "#SBATCH --ntasks-per-node=1\n"
      "#SBATCH --gpus-per-node={2}\n"
      "#SBATCH --exclusive\n"
      "# Written by gpuplan --emit: one torchrun per node, {2} processes each.\n"
      "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
      "export MASTER_PORT=29500\n"
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
      "srun torchrun --nnodes={1} --nproc-per-node={2} --rdzv-backend=c10d \\\n"
      "    --rdzv-endpoint=$MASTER_ADDR:$MASTER_PORT \\\n"
      "    {3}",
      job, nodes, per_node, command);
}

// Megatron-LM, core_r0.13.0: megatron/training/arguments.py.
LaunchConfig emit_megatron(const TrainAnswer& a) {
  const Plan& p = a.plan();
  const ModelSpec& m = *a.ctx().model;
  LaunchConfig c;
  c.framework = "megatron";
  c.version = "Megatron-LM core_r0.13.0";
  c.flag_source = "megatron/training/arguments.py (NVIDIA/Megatron-LM)";
  auto flag = [&](const std::string& f, auto v) { c.flags.emplace_back(f, fmt::format("{}", v)); };
  auto on = [&](const std::string& f) { c.flags.emplace_back(f, ""); };
  flag("--num-layers", m.layers);
  flag("--hidden-size", m.hidden);
  flag("--ffn-hidden-size", m.ffn_hidden);
  flag("--num-attention-heads", m.heads);
  if (m.kv_heads > 0 && m.kv_heads != m.heads) {
    on("--group-query-attention");
    flag("--num-query-groups", m.kv_heads);
  }
  flag("--seq-length", p.seq_len);
  flag("--max-position-embeddings", std::max<std::int64_t>(m.max_seq_len, p.seq_len));
  flag("--tensor-model-parallel-size", p.tp);
  flag("--pipeline-model-parallel-size", p.pp);
  if (p.vp > 1 && p.pp_layout_layers.empty()) {
    flag("--num-layers-per-virtual-pipeline-stage", m.layers / (p.pp * p.vp));
  }
  if (p.cp > 1) flag("--context-parallel-size", p.cp);
  if (p.ep > 1) flag("--expert-model-parallel-size", p.ep);
  if (p.sp) on("--sequence-parallel");
  flag("--micro-batch-size", p.micro_batch);
  flag("--global-batch-size", p.global_batch_seqs());
  if (p.zero == 1 || p.zero == 2) {
    on("--use-distributed-optimizer");
    if (p.shard_group() < p.dp) flag("--num-distributed-optimizer-instances", p.dp / p.shard_group());
    on("--overlap-grad-reduce");
    on("--overlap-param-gather");
  } else if (p.zero == 3) {
    on("--use-torch-fsdp2");
  } else {
    on("--overlap-grad-reduce");
  }
  if (p.zero == 2)
    c.notes.push_back(
        "ZeRO-2: Megatron's distributed optimizer reduce-scatters gradients and shards the optimizer "
        "(ZeRO-1 flag, ZeRO-2 traffic)");
  if (p.zero == 3 && p.pp > 1)
    c.notes.push_back("--use-torch-fsdp2 is not supported with pipeline parallelism in Megatron-LM");
  if (p.recompute == Recompute::selective) {
    flag("--recompute-granularity", "selective");
  } else if (p.recompute == Recompute::full) {
    flag("--recompute-granularity", "full");
    flag("--recompute-method", "uniform");
    flag("--recompute-num-layers", 1);
  }
  if (p.precision == Precision::fp16) {
    on("--fp16");
  } else {
    on("--bf16");
  }
  if (p.precision == Precision::fp8) flag("--fp8-format", "hybrid");
  // Megatron-LM's --fp8-recipe takes the same names (delayed is its default).
  if (p.precision == Precision::fp8 && p.scaling != ScalingRecipe::delayed) {
    flag("--fp8-recipe", std::string(scaling_recipe_name(p.scaling)));
  }
  if (p.tp > 1 && p.sp && p.tp_comm_overlap) on("--tp-comm-overlap");
  if (p.offload_optimizer) on("--optimizer-cpu-offload");
  if (p.precision == Precision::fp4) {
    flag("--fp4-format", "e2m1");
    flag("--fp4-recipe", "nvfp4");
    // Megatron keeps --num-layers-at-start-in-bf16 (default 1) / -at-end layers in bf16 under
    // --first-last-layers-bf16; the estimate ran every decoder layer in fp4.
    c.notes.push_back("fp4: the estimate runs every decoder layer in NVFP4; NVIDIA's recipe keeps some in bf16 "
                      "(--first-last-layers-bf16 --num-layers-at-end-in-bf16 N), which is slower");
    // Transformer Engine reads the switch from the environment (NVFP4BlockScaling.disable_rht).
    if (!p.nvfp4_rht) c.notes.push_back("fp4 without Hadamard transforms: export NVTE_NVFP4_DISABLE_RHT=1");
  } else if (const std::string n = emit_precision_note(p); !n.empty()) {
    c.notes.push_back(n);
  }
  if (m.moe.experts > 0)
    c.notes.push_back(
        "MoE architecture flags (--num-experts, --moe-router-topk, ...) are not written: add the model's");
  // The plan's explicit layout and MTP depths (Megatron-Core --pipeline-model-parallel-layout,
  // --mtp-num-layers): a note, not a flag, as the layout's '|' and '(' need the shell's quotes.
  if (!p.pp_layout_layers.empty()) {
    c.notes.push_back(fmt::format("pipeline layout: the estimate places the layers as --pipeline-model-parallel-layout "
                                  "'{}' (instead of --num-layers-per-virtual-pipeline-stage): add it, quoted",
                                  pp_layout_text(p)));
  }
  if (p.mtp_layers > 0) {
    c.notes.push_back(
        fmt::format("multi-token prediction: the estimate trains it; add --mtp-num-layers {}", p.mtp_layers));
  }
  const std::string cmd = command_line("pretrain_gpt.py", c);
  const int gpus = p.gpus();
  const int per_node = emit_gpus_per_host(a.ctx(), gpus);
  c.files.push_back({"pretrain_args.txt", [&] {
                       std::string out;
                       for (const auto& [f, v] : c.flags) out += v.empty() ? f + "\n" : f + " " + v + "\n";
                       return out;
                     }()});
  c.files.push_back({"job.sbatch", emit_sbatch("gpuplan-megatron", (gpus + per_node - 1) / per_node, per_node, cmd)});
  return c;
}

// torchtitan v0.1.0: torchtitan/config/job_config.py ([parallelism], [training],
// [activation_checkpoint], [float8] sections of the job TOML).
LaunchConfig emit_torchtitan(const TrainAnswer& a) {
  const Plan& p = a.plan();
  LaunchConfig c;
  c.framework = "torchtitan";
  c.version = "torchtitan v0.1.0";
  c.flag_source = "torchtitan/config/job_config.py (pytorch/torchtitan)";
  // FSDP2 shards over dp_shard, replicates over the rest (HSDP); ZeRO-1/2 have no torchtitan
  // spelling: FSDP2 shards parameters too (ZeRO-3).
  const int shard = p.zero >= 1 ? p.shard_group() : 1;
  const int replicate = p.dp / shard;
  auto set = [&](const std::string& key, const std::string& value) { c.flags.emplace_back(key, value); };
  set("parallelism.data_parallel_replicate_degree", std::to_string(replicate));
  set("parallelism.data_parallel_shard_degree", std::to_string(shard));
  set("parallelism.tensor_parallel_degree", std::to_string(p.tp));
  set("parallelism.pipeline_parallel_degree", std::to_string(p.pp));
  set("parallelism.context_parallel_degree", std::to_string(p.cp));
  if (p.ep > 1) set("parallelism.expert_parallel_degree", std::to_string(p.ep));
  if (p.pp > 1) {
    set("parallelism.pipeline_parallel_microbatch_size", std::to_string(p.micro_batch));
    set("parallelism.pipeline_parallel_schedule", p.vp > 1 ? "\"Interleaved1F1B\"" : "\"1F1B\"");
    if (p.vp > 1) {
      set("parallelism.pipeline_parallel_layers_per_stage", std::to_string(a.ctx().model->layers / (p.pp * p.vp)));
    }
  }
  // With a pipeline torchtitan splits the local batch into micro-batches; without one the local
  // batch is the micro-batch and global_batch_size sets the gradient accumulation.
  set("training.local_batch_size", std::to_string(p.pp > 1 ? p.micro_batch * p.micro_batches() : p.micro_batch));
  set("training.global_batch_size", std::to_string(p.global_batch_seqs()));
  set("training.seq_len", std::to_string(p.seq_len));
  set("training.mixed_precision_param", p.precision == Precision::fp16 ? "\"float16\"" : "\"bfloat16\"");
  set("activation_checkpoint.mode", p.recompute == Recompute::none   ? "\"none\""
                                    : p.recompute == Recompute::full ? "\"full\""
                                                                     : "\"selective\"");
  if (p.precision == Precision::fp8) set("float8.enable_fsdp_float8_all_gather", "true");
  // torch.compile fuses the element-wise chains the fused plan was costed with; an eager plan
  // was costed without it (Plan::eager_elementwise).
  set("compile.enable", p.eager_elementwise ? "false" : "true");
  if (p.zero == 1 || p.zero == 2)
    c.notes.push_back(
        fmt::format("ZeRO-{}: torchtitan shards with FSDP2, which also shards the parameters (ZeRO-3 memory, "
                    "more all-gather traffic than the plan evaluated)",
                    p.zero));
  if (p.zero == 0 && p.dp > 1) c.notes.push_back("ZeRO-0: plain replication (data_parallel_replicate_degree)");
  if (p.sp)
    c.notes.push_back("sequence parallelism is on with tensor_parallel_degree > 1 in torchtitan (no separate switch)");
  if (p.precision == Precision::fp8) c.notes.push_back("fp8: add \"float8\" to model.converters");
  if (const std::string n = emit_precision_note(p); !n.empty()) c.notes.push_back(n);
  // The TOML, one section per prefix, in the order above.
  std::string toml = "# torchtitan job config written by gpuplan --emit torchtitan\n";
  std::string section;
  for (const auto& [key, value] : c.flags) {
    const auto dot = key.find('.');
    const std::string s = key.substr(0, dot);
    if (s != section) {
      toml += "\n[" + s + "]\n";
      section = s;
    }
    toml += key.substr(dot + 1) + " = " + value + "\n";
  }
  c.files.push_back({"torchtitan.toml", toml});
  const int gpus = p.gpus();
  const int per_node = emit_gpus_per_host(a.ctx(), gpus);
  c.files.push_back({"job.sbatch", emit_sbatch("gpuplan-torchtitan", (gpus + per_node - 1) / per_node, per_node,
                                               "-m torchtitan.train --job.config_file torchtitan.toml\n")});
  return c;
}

// NeMo 1.x / NeMo-Framework megatron_gpt_pretraining.py: Hydra overrides of
// examples/nlp/language_modeling/conf/megatron_gpt_config.yaml.
LaunchConfig emit_nemo(const TrainAnswer& a) {
  const Plan& p = a.plan();
  LaunchConfig c;
  c.framework = "nemo";
  c.version = "NeMo 1.23 (megatron_gpt_pretraining.py)";
  c.flag_source = "examples/nlp/language_modeling/conf/megatron_gpt_config.yaml (NVIDIA/NeMo)";
  const int gpus = p.gpus();
  const int per_node = emit_gpus_per_host(a.ctx(), gpus);
  auto set = [&](const std::string& key, auto value) { c.flags.emplace_back(key, fmt::format("{}", value)); };
  set("trainer.num_nodes", (gpus + per_node - 1) / per_node);
  set("trainer.devices", per_node);
  set("trainer.precision", p.precision == Precision::fp16 ? "16-mixed" : "bf16-mixed");
  set("model.tensor_model_parallel_size", p.tp);
  set("model.pipeline_model_parallel_size", p.pp);
  if (p.vp > 1) set("model.virtual_pipeline_model_parallel_size", p.vp);
  if (p.cp > 1) set("model.context_parallel_size", p.cp);
  if (p.ep > 1) set("model.expert_model_parallel_size", p.ep);
  set("model.sequence_parallel", p.sp ? "true" : "false");
  set("model.micro_batch_size", p.micro_batch);
  set("model.global_batch_size", p.global_batch_seqs());
  set("model.encoder_seq_length", p.seq_len);
  if (p.recompute != Recompute::none) set("model.activations_checkpoint_granularity", recompute_name(p.recompute));
  if (p.recompute == Recompute::full) {
    set("model.activations_checkpoint_method", "uniform");
    set("model.activations_checkpoint_num_layers", 1);
  }
  if (p.zero >= 1) set("model.optim.name", "distributed_fused_adam");
  if (p.precision == Precision::fp8) {
    set("model.transformer_engine", "true");
    set("model.fp8", "true");
    set("model.fp8_hybrid", "true");
  }
  if (p.zero == 3)
    c.notes.push_back("ZeRO-3: NeMo's distributed_fused_adam shards optimizer state and gradients, not parameters");
  if (const std::string n = emit_precision_note(p); !n.empty()) c.notes.push_back(n);
  std::string cmd = "examples/nlp/language_modeling/megatron_gpt_pretraining.py";
  for (const auto& [k, v] : c.flags) cmd += " \\\n    " + k + "=" + v;
  cmd += "\n";
  c.files.push_back({"job.sbatch", emit_sbatch("gpuplan-nemo", (gpus + per_node - 1) / per_node, per_node, cmd)});
  return c;
}

}  // namespace

const std::vector<std::string>& train_emit_frameworks() {
  static const std::vector<std::string> names = {"megatron", "torchtitan", "nemo"};
  return names;
}

LaunchConfig emit_train(const TrainAnswer& answer, const std::string& framework) {
  const std::string f = to_lower(framework);
  LaunchConfig c;
  if (f == "megatron" || f == "megatron-lm") {
    c = emit_megatron(answer);
  } else if (f == "torchtitan") {
    c = emit_torchtitan(answer);
  } else if (f == "nemo") {
    c = emit_nemo(answer);
  } else {
    throw Error(fmt::format("--emit {}: not a training framework; choose one of {}", framework,
                            join(train_emit_frameworks(), ", ")));
  }
  c.notes.push_back(
      "data, tokenizer, learning-rate schedule and checkpoint settings are not part of the plan: add yours");
  return c;
}

}  // namespace gpuplan
