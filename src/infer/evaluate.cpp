#include "infer/evaluate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan {

namespace {

// Whether some layer has a dense MLP (not every MoE model has one: Mixtral's and Qwen3-MoE's
// intermediate_size then sizes nothing).
bool has_dense_ffn_layer(const ModelSpec& m) {
  for (std::int64_t layer_idx = 0; layer_idx < m.layers; ++layer_idx) {
    if (m.has_ffn(layer_idx) && !m.is_moe_layer(layer_idx)) return true;
  }
  return false;
}

}  // namespace

std::string check_infer_plan(const ModelSpec& m, const InferPlan& plan) {
  if (plan.tp < 1 || plan.pp < 1 || plan.ep < 1 || plan.replicas < 1 || plan.attention_dp < 1) {
    return "TP, PP, EP, attention DP and replicas must be >= 1";
  }
  if (plan.tp % plan.attention_dp != 0) {
    return fmt::format("attention DP {} does not divide TP {}; use a divisor of {} ({} = attention replicated on "
                       "every GPU)", plan.attention_dp, plan.tp, plan.tp, plan.tp);
  }
  // Attention heads are split over the attention TP group (all tp GPUs without attention DP).
  const int atp = plan.attention_tp();
  if (m.heads % atp != 0) {
    return fmt::format("TP {} does not divide the {} attention heads of {}; use a TP that divides {}", atp,
                       m.heads, m.id, m.heads);
  }
  if (!m.mla && m.kv_heads % atp != 0 && atp % m.kv_heads != 0) {
    return fmt::format("TP {} neither divides nor is a multiple of the {} KV heads of {}", atp, m.kv_heads, m.id);
  }
  if (plan.pp > m.layers) return fmt::format("PP {} exceeds the {} layers of {}", plan.pp, m.layers, m.id);
  if (plan.ep > 1) {
    if (!m.is_moe()) return fmt::format("EP {} needs a mixture-of-experts model; {} is dense (use --ep 1)", plan.ep, m.id);
    if (plan.tp % plan.ep != 0) return fmt::format("EP {} must divide TP {} (experts are split inside the TP group)", plan.ep, plan.tp);
    if (m.moe.experts % plan.ep != 0) {
      return fmt::format("EP {} does not divide the {} experts of {}", plan.ep, m.moe.experts, m.id);
    }
  }
  // The MLP weights are column-split too (Megatron's ColumnParallelLinear: the engines' loaders
  // divide the intermediate size by the split and refuse a remainder): the dense layers'
  // intermediate over the attention TP group, each routed expert's over tp / ep GPUs (EP puts
  // whole experts on ep groups of tp / ep GPUs; vLLM and SGLang's fused-MoE loaders shard each
  // expert's moe_intermediate_size that way).
  if (m.ffn_hidden > 0 && has_dense_ffn_layer(m) && m.ffn_hidden % atp != 0) {
    return fmt::format("TP {} does not divide the {} MLP columns (intermediate_size) of {}; use a TP that divides {}",
                       atp, m.ffn_hidden, m.id, m.ffn_hidden);
  }
  if (m.is_moe() && m.moe.expert_ffn_hidden > 0 && m.moe.expert_ffn_hidden % (plan.tp / plan.ep) != 0) {
    return fmt::format("TP {} / EP {} splits each expert of {} {} ways, which does not divide its {} columns "
                       "(moe_intermediate_size); use a TP / EP that divides {}, or raise EP",
                       plan.tp, plan.ep, m.id, plan.tp / plan.ep, m.moe.expert_ffn_hidden, m.moe.expert_ffn_hidden);
  }
  if (plan.input_len < 1 || plan.output_len < 1) return "input and output lengths must be >= 1";
  return {};
}

namespace {

// The largest exposed term of the step, each term on its own: the linear layers (bound by their
// weight reads or their FLOPs, whichever the roofline says), the KV reads, the attention time
// beyond them (FLOPs), communication, engine overhead, elementwise passes. Summing the linear
// and attention FLOP terms named "compute" a decode step whose KV reads exceed the linear time.
Bottleneck bottleneck_of(const StepCost& c) {
  const bool linear_compute = c.linear_compute_s > c.linear_mem_s;
  const double parts[] = {c.linear_s, c.kv_mem_s, c.attention_s - c.kv_mem_s, c.comm_s, c.overhead_s, c.elementwise_s};
  const Bottleneck kinds[] = {linear_compute ? Bottleneck::compute : Bottleneck::weights_bandwidth,
                              Bottleneck::kv_bandwidth,
                              Bottleneck::compute,
                              Bottleneck::communication,
                              Bottleneck::engine_overhead,
                              Bottleneck::activation_bandwidth};
  const auto* top = std::max_element(std::begin(parts), std::end(parts));
  return kinds[top - std::begin(parts)];
}

}  // namespace

InferEstimate evaluate_inference(const InferContext& ctx, const InferPlan& plan) {
  InferEstimate est;
  if (const std::string why = check_infer_plan(*ctx.model, plan); !why.empty()) {
    est.infeasibility = Infeasibility::Kind::invalid_plan;
    est.reason = why;
    return est;
  }
  est.memory = infer_memory(ctx, plan);
  if (!est.memory.fits) {
    est.infeasibility = Infeasibility::Kind::out_of_memory;
    est.reason = est.memory.reason;
    est.bottleneck = Bottleneck::capacity;
    return est;
  }
  const Engine& e = *ctx.engine;
  const double max_running = std::min(est.memory.max_seqs, replica_max_num_seqs(e, plan));
  const auto limit_name = [&](double running) {
    if (running < max_running) return std::string("requested");
    return std::string(est.memory.max_seqs <= replica_max_num_seqs(e, plan) ? "KV capacity" : "scheduler max_num_seqs");
  };
  switch (plan.mode) {
    case InferMode::batch:
      if (plan.load > max_running) {
        est.infeasibility = Infeasibility::Kind::out_of_memory;
        est.reason = fmt::format(
            "batch {} does not fit: the KV budget of {:.1f} GiB per GPU holds {} sequences of {} + {} tokens ({} "
            "allows {}); use a smaller --batch, --kv fp8, or more GPUs",
            plan.load, est.memory.kv_budget / (1024.0 * 1024 * 1024), est.memory.max_seqs, plan.input_len, plan.output_len, e.name,
            replica_max_num_seqs(e, plan));
        est.bottleneck = Bottleneck::capacity;
        return est;
      }
      est.point = static_batch(ctx, plan, plan.load);
      est.batch_limit = "requested";
      break;
    case InferMode::concurrency:
      est.point = closed_loop(ctx, plan, plan.load, max_running);
      est.batch_limit = plan.load > max_running ? limit_name(max_running) : "requested";
      break;
    case InferMode::max_throughput:
      est.point = max_throughput(ctx, plan, max_running);
      est.batch_limit = limit_name(est.point.running);
      break;
  }
  est.feasible = true;
  est.output_tokens_per_s = est.point.output_tokens_per_s * plan.replicas;
  est.output_tokens_per_s_per_gpu = est.output_tokens_per_s / plan.gpus();
  est.requests_per_s = est.point.requests_per_s * plan.replicas;
  const Precision gp = gemm_precision(*ctx.gpu, plan.weights);
  // The same rates the step costs use, --calibration factors included (step.cpp).
  est.ridge_batch = ctx.gpu->dense(gp) * ctx.gemm_fraction * ctx.calibration_gemm_scale[index_of(gp)] *
                    ctx.serving_gemm_scale[index_of(gp)] * quantised_weight_bytes(plan.weights) /
                    (2 * ctx.gpu->memory_bw_bytes_per_s * e.bw_fraction * ctx.calibration_bw_scale *
                     ctx.serving_bw_scale[index_of(plan.weights)]);
  if (ctx.price_usd_per_gpu_hour > 0 && est.output_tokens_per_s > 0) {
    est.usd_per_million_output_tokens =
        ctx.price_usd_per_gpu_hour * plan.gpus() / 3600.0 / est.output_tokens_per_s * 1e6;
  }
  est.bottleneck = bottleneck_of(est.point.step);
  // At the memory limit and still streaming-bound: more KV room (memory) would raise throughput.
  if (est.batch_limit == "KV capacity" &&
      (est.bottleneck == Bottleneck::weights_bandwidth || est.bottleneck == Bottleneck::engine_overhead)) {
    est.bottleneck = Bottleneck::capacity;
  }
  return est;
}

}  // namespace gpuplan
