// Everything the inference evaluator needs about one (model, GPU, engine, system), computed
// once so evaluating a plan allocates nothing and looks nothing up by name (infer-search
// evaluates thousands of plans).
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "cost/collective.h"
#include "cost/roofline.h"
#include "workload/kv_cache.h"
#include "workload/params.h"

namespace gpuplan {

class TpCollectiveMemo;

// The model's weights by how serving stores and reads them.
struct InferWeights {
  double layer_matmul = 0;    // non-expert linear weights of all layers (quantised with --weights)
  double routed_experts = 0;  // every routed expert of every MoE layer (quantised)
  double layer_other = 0;     // norms, biases (kept 16-bit)
  double input_embedding = 0; // vocab × hidden, 16-bit (a lookup; engines do not quantise it)
  double output_head = 0;     // vocab × hidden (the input table again when tied), 16-bit
  bool tied_head = false;     // the head is the input table (stored once)
  std::int64_t moe_layers = 0;
  // TP reductions per forward pass over all decoder layers (workload/tp_reductions.h): with the
  // experts sharded over TP (EP 1), and with the MoE FFN combined by the expert AllToAll instead.
  double tp_reductions_all_experts = 0;
  double tp_reductions_without_moe_ffn = 0;
  double experts = 0;         // routed experts per MoE layer
  double top_k = 0;
};

// Router imbalance with expert parallelism: the busiest EP rank's routed tokens over the mean
// (docs/model/moe-serving.md). Default 1, balanced, chosen on published figures: the two
// TensorRT-LLM DeepSeek-R1 DEP8 max-throughput runs with stated lengths (B200 FP4, H200 FP8;
// "Best perf practice on DeepSeek-R1 in TensorRT-LLM") are predicted within 1% at 1 and 8% low
// at 1.2. Large EP with real traffic is less balanced: SGLang's DeepSeek-V3 prefill at EP32 ran
// 1.18x slower with the dataset's expert distribution than with simulated perfect balance
// (LMSYS, 2025-05-05), so --router-imbalance 1.2 there.
inline constexpr double kDefaultRouterImbalance = 1.0;

struct InferContext {
  const ModelSpec* model = nullptr;
  const Gpu* gpu = nullptr;
  const Engine* engine = nullptr;
  const System* system = nullptr;  // scale-up domain for TP/EP collectives; null = PCIe fallback
  ParamCounts params;
  InferWeights weights;
  KvShape kv;
  double attention_flops_per_key_layer = 0;  // QK^T + PV per key per layer (4·heads·head_dim)
  // A decode token's QK^T + PV per key per layer: MLA decodes in the absorbed form, multi-query
  // attention over the latent (infer/mla_decode.h); the prompts' figure above otherwise.
  double decode_attention_flops_per_key_layer = 0;
  double activation_bytes_per_token = 0;     // activation workspace per batched token (16-bit, before TP)
  double logits_bytes_per_seq = 0;           // fp32 logits of one sequence (before TP)
  double gemm_fraction = 0;                  // achieved / dense peak for GEMMs and attention
  double router_imbalance = kDefaultRouterImbalance;  // busiest EP rank / mean routed tokens (ep > 1)
  // --calibration: this unit's measured / reference GEMM rate per precision (1 = as fitted),
  // and the factor for the attention kernels (cost/calibration_scale.h).
  PerPrecision calibration_gemm_scale = [] { PerPrecision s{}; s.fill(1); return s; }();
  double calibration_attention_scale = 1;
  // The architecture × precision serving factors of the GPU's efficiency entry (catalog/
  // efficiency.h; 1 = as the Hopper rows the engine fractions were set on): GEMMs at the
  // GEMM precision, weight streaming at the weight precision.
  PerPrecision serving_gemm_scale = [] { PerPrecision s{}; s.fill(1); return s; }();
  PerPrecision serving_bw_scale = [] { PerPrecision s{}; s.fill(1); return s; }();
  double calibration_bw_scale = 1;
  // The GPU's fitted GEMM shape model (tiles, SMs, k_half), for the grouped expert GEMMs of MoE
  // layers whose per-expert token count is small; absent = no efficiency entry (no shape loss).
  std::optional<RooflineDevice> roofline;
  std::optional<CollectiveTopology> topology;
  // Fallback TP link when no system is known: a ring through the host (data/fitted/collectives).
  double pcie_bw_bytes_per_s = 0;
  double pcie_hop_s = 0;
  double price_usd_per_gpu_hour = 0;         // cheapest current on-demand offer; 0 = none
  std::string price_source;                  // "provider instance on-demand, date" (catalog/cloud_price.h)
  // A search's memo of TP/EP/PP collective times (infer/tp_collective_memo.h), used only when it
  // was made for this very context (not a copy); null = cost every collective.
  TpCollectiveMemo* collective_memo = nullptr;
};

// Bytes per quantised weight as serving engines store it. FP4 is NVFP4 (TensorRT-LLM's and
// vLLM's FP4 on Blackwell): 4-bit E2M1 values plus one FP8 E4M3 scale per 16 values,
// 0.5 + 1/16 = 0.5625 B (the per-tensor FP32 scale is negligible). MXFP4 (OCP microscaling,
// gpt-oss checkpoints) carries one E8M0 scale per 32 values: 0.5 + 1/32 = 0.53125 B.
// Other precisions: their element size.
inline constexpr double kNvfp4BytesPerWeight = 0.5 + 1.0 / 16;
inline constexpr double kMxfp4BytesPerWeight = 0.5 + 1.0 / 32;
inline double quantised_weight_bytes(Precision p) {
  return p == Precision::fp4 ? kNvfp4BytesPerWeight : precision_bytes(p);
}

// Builds the context; `system` may be null (the GPU's default system in the catalog is used
// when one exists). Throws Error when the GPU has no efficiency entry or no bandwidth figure,
// or the catalog has no collective parameters.
InferContext make_infer_context(const Catalog& catalog, const ModelSpec& model, const Gpu& gpu,
                                const Engine& engine, const System* system = nullptr);

}  // namespace gpuplan
