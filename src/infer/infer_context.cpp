#include "infer/infer_context.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "catalog/system_choice.h"
#include "catalog/cloud_price.h"
#include "infer/mla_decode.h"
#include "workload/tp_reductions.h"

namespace gpuplan {
namespace {

InferWeights split_weights(const ParamCounts& p, const ModelSpec& m) {
  InferWeights w;
  const auto add_layers = [&](const LayerParams& lp, std::int64_t count) {
    const double n = static_cast<double>(count);
    w.layer_matmul += n * (lp.attention + lp.mamba + lp.mlp + lp.shared_experts + lp.router);
    w.routed_experts += n * lp.experts;
    w.layer_other += n * (lp.norms + lp.biases + lp.mamba_other);
  };
  if (m.is_hybrid()) {
    add_layers(p.layers, 1);  // Jamba, Nemotron-H: layers of several shapes, summed
  } else {
    add_layers(p.dense_layer, p.dense_layers);
    add_layers(p.moe_layer, p.moe_layers);
  }
  w.layer_other += p.final_norm + p.position_embedding;
  w.input_embedding = p.input_embedding;
  w.output_head = p.output_head > 0 ? p.output_head : p.input_embedding;
  w.tied_head = p.output_head <= 0;
  w.moe_layers = p.moe_layers;
  w.tp_reductions_all_experts = tp_reductions_all_layers(m, MoeFfnReduction::all_experts);
  w.tp_reductions_without_moe_ffn = tp_reductions_all_layers(m, MoeFfnReduction::none);
  w.experts = static_cast<double>(m.moe.experts);
  w.top_k = static_cast<double>(m.moe.top_k);
  return w;
}

// The price of one GPU-hour: the catalog's one rule (catalog/cloud_price.h), shared with the
// training search and the economics commands.
void find_price(const Catalog& catalog, const Gpu& gpu, InferContext& ctx) {
  if (const auto price = cheapest_on_demand(catalog, gpu)) {
    ctx.price_usd_per_gpu_hour = price->usd_per_gpu_hour;
    ctx.price_source = price->source;
  }
}

}  // namespace

InferContext make_infer_context(const Catalog& catalog, const ModelSpec& model, const Gpu& gpu, const Engine& engine,
                                const System* system) {
  InferContext ctx;
  ctx.model = &model;
  ctx.gpu = &gpu;
  ctx.engine = &engine;
  ctx.params = count_params(model);
  ctx.weights = split_weights(ctx.params, model);
  ctx.kv = make_kv_shape(model);
  // Per attention layer (hybrids: Mamba layers have no keys; their scans are taken out).
  const double attention_layers = static_cast<double>(std::max<std::int64_t>(1, ctx.kv.full_layers + ctx.kv.sliding_layers));
  ctx.attention_flops_per_key_layer =
      (decode_flops_per_token(model, 1) - 2 * ctx.params.matmul_active - mamba_scan_flops_per_token(model)) /
      (model.is_hybrid() ? attention_layers : static_cast<double>(model.layers));
  // MLA decodes as multi-query attention over its latent (the up-projections absorbed); its
  // prompts keep the multi-head form above (infer/mla_decode.h).
  ctx.decode_attention_flops_per_key_layer =
      model.mla ? mla_absorbed_decode_flops_per_key_layer(model) : ctx.attention_flops_per_key_layer;
  if (gpu.memory_bw_bytes_per_s <= 0 || gpu.dense(Precision::bf16) + gpu.dense(Precision::fp16) <= 0) {
    throw Error(fmt::format("GPU '{}' has no memory bandwidth or 16-bit tensor peak in the catalog; the inference "
                            "model needs both (add them in a --catalog file)", gpu.id));
  }
  // The GEMM fraction: the engine's fitted figure, else the GPU's efficiency entry (for a GPU
  // with no fitted entry, the generic fallback, data/fitted/efficiency/generic.toml: 0.6).
  const Efficiency* eff = efficiency_for(catalog.efficiencies, gpu);
  if (engine.gemm_fraction <= 0 && !eff) {
    throw Error(fmt::format("no efficiency entry matches GPU '{}' and engine '{}' has no gemm_fraction; add a "
                            "fallback efficiency file (data/fitted/efficiency/generic.toml) with --catalog",
                            gpu.id, engine.id));
  }
  ctx.gemm_fraction = engine.gemm_fraction > 0 ? engine.gemm_fraction : eff->gemm_fraction(Precision::bf16);
  if (eff) {
    ctx.roofline = make_roofline_device(gpu, *eff);
    ctx.serving_gemm_scale = eff->serving_gemm_scale;
    ctx.serving_bw_scale = eff->serving_bw_scale;
  }
  ctx.system = system ? system : default_system_for(catalog, gpu);
  if (catalog.collective_params.empty()) {
    throw Error("the catalog has no collective parameters (data/fitted/collectives/nccl.toml); the inference model "
                "needs them for TP traffic (add them with --catalog)");
  }
  const CollectiveParams& params = default_collective_params(catalog);
  if (ctx.system) ctx.topology = make_collective_topology(catalog, *ctx.system, nullptr, params);
  // No system: TP traffic rides PCIe through the host (step.cpp tp_collective_s).
  ctx.pcie_bw_bytes_per_s = params.host_pcie_bw(gpu.pcie_gen);
  ctx.pcie_hop_s = params.host_pcie_hop_latency_s;
  if (ctx.pcie_bw_bytes_per_s <= 0) {
    throw Error(fmt::format("collective parameters '{}' have no [host_pcie_ring] table; the inference model needs "
                            "it for TP over PCIe (see data/fitted/collectives/nccl.toml)",
                            params.id));
  }
  find_price(catalog, gpu, ctx);
  return ctx;
}

}  // namespace gpuplan
