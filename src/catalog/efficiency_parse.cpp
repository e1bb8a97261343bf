// Parser for `kind = "efficiency"` files (data/fitted/efficiency/). Schema: docs/data-format.md.
#include <algorithm>

#include "catalog/efficiency.h"
#include "catalog/gpu.h"
#include "catalog/parsers.h"
#include "core/strings.h"
#include "core/units.h"

namespace gpuplan {
Efficiency parse_efficiency(Fields& top) {
  Efficiency e;
  e.id = top.str("id");
  e.aliases = top.str_list("aliases");
  e.name = top.str("name");
  e.architectures = top.str_list("architectures");
  e.fallback = top.opt_boolean("fallback").value_or(false);
  if (e.architectures.empty() && !e.fallback) {
    top.fail("architectures", "name the GPU architectures this entry serves (e.g. [\"Hopper\"]), or set "
                              "fallback = true");
  }
  e.notes = top.opt_str("notes").value_or("");
  e.provenance = top.file_provenance();

  Fields gemm = top.sub("gemm");
  Fields peak = gemm.sub("peak_fraction");
  for (Precision p : kAllPrecisions) {
    if (peak.has(precision_name(p))) e.gemm_peak_fraction[index_of(p)] = peak.fraction(precision_name(p));
  }
  if (e.gemm_peak_fraction[index_of(Precision::bf16)] <= 0) peak.missing("bf16", "the BF16 GEMM peak fraction");
  peak.finish();
  e.tile_m = gemm.pos("tile_m");
  e.tile_n = gemm.pos("tile_n");
  e.k_half = gemm.opt_nonneg("k_half").value_or(0);
  e.achievable_gemm_share = gemm.opt_nonneg("achievable_share").value_or(0);
  if (e.achievable_gemm_share > 1) gemm.fail("achievable_share", "a share of the measured rate, in [0, 1]");
  if (auto grouped = gemm.opt_sub("grouped")) {
    e.grouped_tile_overhead_s = grouped->pos("tile_overhead_us") * 1e-6;
    e.grouped_stream_bytes_per_s_per_sm = grouped->pos("stream_gb_per_s_per_sm") * 1e9;
    grouped->finish();
  }
  if (auto upcast = gemm.opt_sub("weight_upcast")) {
    e.fp4_upcast_rate_fraction = upcast->fraction("fp4_rate_fraction");
    upcast->finish();
  }
  if (auto block = gemm.opt_sub("block_scale")) {
    e.fp8_block_scale_rate_fraction = block->fraction("fp8_rate_fraction");
    block->finish();
  }
  gemm.finish();

  Fields attn = top.sub("attention");
  e.attention_fwd_fraction = attn.fraction("fwd_peak_fraction");
  e.attention_bwd_fraction = attn.fraction("bwd_peak_fraction");
  e.attention_kv_half = attn.opt_nonneg("kv_half").value_or(0);
  e.attention_measured = attn.opt_boolean("measured").value_or(false);
  e.attention_exp_per_clk_per_sm = attn.opt_nonneg("exp_per_clk_per_sm").value_or(0);
  e.attention_tensor_flops_per_clk_per_sm = attn.opt_nonneg("tensor_flops_per_clk_per_sm").value_or(0);
  if ((e.attention_exp_per_clk_per_sm > 0) != (e.attention_tensor_flops_per_clk_per_sm > 0)) {
    attn.fail("exp_per_clk_per_sm", "give both exp_per_clk_per_sm and tensor_flops_per_clk_per_sm, or neither");
  }
  attn.finish();

  Fields mem = top.sub("memory");
  e.memory_bw_fraction = mem.fraction("bw_fraction");
  e.optimizer_bw_fraction = mem.opt_nonneg("optimizer_bw_fraction").value_or(0);
  if (e.optimizer_bw_fraction > 1) mem.fail("optimizer_bw_fraction", "a fraction in (0, 1]");
  mem.finish();

  if (auto pw = top.opt_sub("power")) {
    e.power_reference_tdp_w = pw->pos("reference_tdp_w");
    e.power_reference_sm_count = pw->pos("reference_sm_count");
    e.power_reference_bf16_flops_per_s = pw->pos("reference_bf16_tflops") * 1e12;
    e.power_reference_clock_fraction = pw->fraction("reference_clock_fraction");
    e.power_clock_exponent = pw->pos("clock_power_exponent");
    e.power_precision_exponent = pw->opt_nonneg("precision_power_exponent").value_or(0);
    e.power_reference_flops_per_s[index_of(Precision::bf16)] = e.power_reference_bf16_flops_per_s;
    e.power_reference_flops_per_s[index_of(Precision::fp8)] = pw->opt_pos("reference_fp8_tflops").value_or(0) * 1e12;
    e.power_reference_flops_per_s[index_of(Precision::fp4)] = pw->opt_pos("reference_fp4_tflops").value_or(0) * 1e12;
    pw->finish();
  }
  if (auto k = top.opt_sub("kernel")) {
    k->finish();
  }
  if (auto o = top.opt_sub("overlap")) {
    e.tp_comm_overlap_fraction = o->opt_nonneg("tp_comm_fraction").value_or(0);
    if (e.tp_comm_overlap_fraction > 1) o->fail("tp_comm_fraction", "a fraction in [0, 1]");
    e.moe_comm_sms = o->opt_nonneg("moe_comm_sms").value_or(0);
    e.dp_comm_sms = o->opt_nonneg("dp_comm_sms").value_or(0);
    e.p2p_channel_bw_bytes_per_s = o->opt_nonneg("p2p_channel_gb_per_s").value_or(0) * 1e9;
    o->finish();
  }
  if (auto r = top.opt_sub("runtime_memory")) {
    e.cuda_context_bytes = r->opt_nonneg("cuda_context_gib").value_or(0) * kGiB;
    e.nccl_buffer_bytes = r->opt_nonneg("nccl_buffers_gib").value_or(0) * kGiB;
    e.driver_reserved_bytes = r->opt_nonneg("driver_reserved_gib").value_or(0) * kGiB;
    e.fragmentation_fraction = r->opt_nonneg("fragmentation_fraction").value_or(0);
    if (e.fragmentation_fraction >= 1) r->fail("fragmentation_fraction", "must be below 1");
    r->finish();
  }
  if (auto sv = top.opt_sub("serving")) {
    // [serving.gemm_scale] / [serving.bw_scale]: one positive factor per precision name.
    // `other`: the factor of every precision not listed (for gemm_scale, the family's factor
    // pooled over the precisions that have rows: validate/infer_fit.h pooled_gemm_scale).
    const auto read_scales = [](Fields& t, PerPrecision& out) {
      if (t.has("other")) out.fill(t.pos("other"));
      for (Precision p : kAllPrecisions) {
        if (t.has(precision_name(p))) out[index_of(p)] = t.pos(precision_name(p));
      }
      t.finish();
    };
    if (auto g = sv->opt_sub("gemm_scale")) read_scales(*g, e.serving_gemm_scale);
    if (auto b = sv->opt_sub("bw_scale")) read_scales(*b, e.serving_bw_scale);
    sv->finish();
  }
  return e;
}

const Efficiency* efficiency_for(const std::vector<Efficiency>& entries, const Gpu& gpu) {
  const std::string arch = to_lower(gpu.architecture);
  const Efficiency* fallback = nullptr;
  for (const auto& e : entries) {
    for (const auto& a : e.architectures) {
      const std::string word = to_lower(a);
      if (arch.rfind(word, 0) == 0) return &e;
    }
    if (e.fallback && !fallback) fallback = &e;
  }
  return fallback;
}

}  // namespace gpuplan
