#include "infer/infer_context.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "catalog/system_choice.h"
#include "catalog/cloud_price.h"

namespace gpuplan {
namespace {

InferWeights split_weights(const ParamCounts& p, const ModelSpec& m) {
  InferWeights w;
  const auto add_layers = [&](const LayerParams& lp, std::int64_t count) {
    const double n = static_cast<double>(count);
    w.layer_matmul += n * (lp.attention + lp.mlp + lp.shared_experts + lp.router);
    w.routed_experts += n * lp.experts;
    w.layer_other += n * (lp.norms + lp.biases);
  };
  add_layers(p.dense_layer, p.dense_layers);
  add_layers(p.moe_layer, p.moe_layers);
  w.layer_other += p.final_norm + p.position_embedding;
  w.input_embedding = p.input_embedding;
  w.output_head = p.output_head > 0 ? p.output_head : p.input_embedding;
  w.tied_head = p.output_head <= 0;
  w.moe_layers = p.moe_layers;
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

// PCIe x16 one-direction rate by generation (PCI-SIG: 16 GT/s gen4 ≈ 32 GB/s raw, ~25 GB/s
// delivered by NCCL over a host bridge; doubling per generation).
double pcie_bw(int gen) {
  if (gen >= 6) return 100e9;
  if (gen == 5) return 50e9;
  if (gen == 4) return 25e9;
  return 12e9;
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
  ctx.attention_flops_per_key_layer =
      (decode_flops_per_token(model, 1) - 2 * ctx.params.matmul_active) / static_cast<double>(model.layers);
  if (gpu.memory_bw_bytes_per_s <= 0 || gpu.dense(Precision::bf16) + gpu.dense(Precision::fp16) <= 0) {
    throw Error(fmt::format("GPU '{}' has no memory bandwidth or 16-bit tensor peak in the catalog; the inference "
                            "model needs both (add them in a --catalog file)", gpu.id));
  }
  const Efficiency* eff = efficiency_for(catalog.efficiencies, gpu);
  ctx.gemm_fraction = engine.gemm_fraction > 0 ? engine.gemm_fraction
                      : eff                    ? eff->gemm_fraction(Precision::bf16)
                                               : 0.6;
  if (eff) ctx.roofline = make_roofline_device(gpu, *eff);
  ctx.system = system ? system : default_system_for(catalog, gpu);
  if (ctx.system && !catalog.collective_params.empty()) {
    ctx.topology = make_collective_topology(catalog, *ctx.system, nullptr, default_collective_params(catalog));
  }
  ctx.pcie_bw_bytes_per_s = pcie_bw(gpu.pcie_gen);
  find_price(catalog, gpu, ctx);
  return ctx;
}

}  // namespace gpuplan
