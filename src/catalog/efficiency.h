// Achievable efficiency of one GPU family: what fraction of the datasheet peaks real kernels
// reach, as a function of GEMM shape. Fitted factors, kept apart from datasheet figures.
// Loaded from data/fitted/efficiency/*.toml by efficiency_parse.cpp; used by cost/roofline.h.
#pragma once

#include <string>
#include <vector>

#include "core/provenance.h"
#include "core/precision.h"

namespace gpuplan {

struct Gpu;

struct Efficiency {
  std::string id;  // "hopper"
  std::vector<std::string> aliases;
  std::string name;
  // Matches a GPU whose `architecture` starts with one of these words (case-insensitive),
  // e.g. "Hopper" matches "Hopper GH100". The entry with `fallback = true` serves the rest.
  std::vector<std::string> architectures;
  bool fallback = false;

  // Large, square GEMMs: achieved / dense peak, per precision (0 = no figure: use bf16's).
  PerPrecision gemm_peak_fraction{};
  // Shape: a GEMM is cut into output tiles of tile_m × tile_n run in waves over the SMs
  // (wave quantisation), and a short reduction dimension K pays a fixed prologue/epilogue:
  // efficiency × K / (K + k_half).
  // Fallback entries: a GPU with a measured maximum achievable matmul rate (Gpu::
  // achievable_flops_per_s, bf16 standing in for precisions not measured) gets
  // measured / peak × this share instead of gemm_peak_fraction. The share is what training
  // reaches of the measured rate on the fitted families (their fitted fraction / MAMF fraction).
  double achievable_gemm_share = 0;
  double tile_m = 128;
  double tile_n = 128;
  double k_half = 0;
  // Grouped GEMMs (the routed experts of a MoE layer, one kernel over every expert's problem):
  // measured on the GPUs, not fitted (data/calibration/moe/, docs/model/moe-serving.md). Each
  // wave of output tiles over the SMs pays a fixed cost the kernel does not hide (a new
  // expert's B operand starts each tile's pipeline), and the experts' weights stream at a rate
  // per SM that stays below HBM bandwidth on the larger-bandwidth parts. 0 = not measured:
  // no grouped term.
  double grouped_tile_overhead_s = 0;
  double grouped_stream_bytes_per_s_per_sm = 0;
  // GEMMs whose FP4 weights the kernel widens to 16 bits in registers before a 16-bit MMA (a GPU
  // without FP4 tensor cores running an FP4 checkpoint weight-only, W4A16): the kernel's rate on
  // full tiles as a fraction of the 16-bit GEMM rate, the unpacking and scaling of every weight
  // tile competing with the MMAs for the SM. Measured, not fitted (data/calibration/moe/
  // mxfp4-gemm-*.json; docs/model/moe-serving.md, "FP4 weights widened in the kernel").
  // 0 = not measured: no term.
  double fp4_upcast_rate_fraction = 0;
  // FP8 GEMMs with per-block scales (1 x 128 activations, 128 x 128 weights: DeepSeek-V3/R1's
  // checkpoints) on a GPU whose MMAs take no scales, each 128-deep partial sum promoted and
  // scaled on the CUDA cores: their full-tile rate as a fraction of per-tensor-scaled FP8 GEMMs'.
  // Measured, not fitted (data/calibration/moe/fp8-blockscale-gemm-*.json; docs/model/
  // inference.md §4, "FP8 block scales"). 0 = not measured, or the MMAs take the scales: no term.
  double fp8_block_scale_rate_fraction = 0;
  // FlashAttention-style fused attention, achieved / dense peak of the attention precision.
  // Short spans do not fill the tiles: efficiency × keys / (keys + kv_half).
  double attention_fwd_fraction = 0;
  double attention_bwd_fraction = 0;
  double attention_kv_half = 0;
  // The fractions were measured on the GPU (`[attention] measured = true`), not fitted: the
  // fitter keeps them (plan/fit.cpp), so the rows' other figures cannot trade against them.
  bool attention_measured = false;
  // The family's reference SM, for the softmax exponentials of fused attention, which run on
  // the special function units beside the tensor cores: exponentials and dense 16-bit tensor
  // FLOPs per clock per SM. exp rate = dense bf16 peak × exp / tensor (no clock needed); a GPU
  // whose SFUs differ says so (Gpu::sfu_exp_per_clk_per_sm). 0 = no softmax term.
  double attention_exp_per_clk_per_sm = 0;
  double attention_tensor_flops_per_clk_per_sm = 0;
  // Sustained tensor clock at the board's power limit (training only; docs/model/training.md
  // §2, "Tensor clock at the power limit"). Under long dense GEMMs the SMs would draw more than
  // the board's limit at the datasheet clock, so they run at the clock the limit allows, the
  // power of an SM going as clock^exponent: relative to the family's reference part (whose rows
  // the fractions above were fitted on), a GPU's sustained clock is (its watts per SM over the
  // reference's)^(1/exponent), taken over its datasheet clock (dense bf16 peak per SM) against
  // the reference's, and capped at its datasheet clock (1 / the reference's clock fraction).
  // The same for every precision and for the SFUs. 0 = not modelled (factor 1).
  double power_reference_tdp_w = 0;
  double power_reference_sm_count = 0;
  double power_reference_bf16_flops_per_s = 0;  // dense peak
  double power_reference_clock_fraction = 0;    // its sustained clock / datasheet clock
  double power_clock_exponent = 0;              // an SM's power ∝ clock^this
  // Precision's share of the power (power_clock_factor): at one clock an SM's power goes as
  // (its tensor FLOPs per clock)^this, so a precision that does more work per clock on a part
  // than on the reference part sustains a lower clock there. The reference's dense peaks per
  // precision say what it does per clock (bf16 = power_reference_bf16_flops_per_s; 0 = not
  // given: that precision keeps the bf16 clock). 0 = not modelled.
  double power_precision_exponent = 0;
  PerPrecision power_reference_flops_per_s{};
  // Memory-bound kernels (norms, element-wise): achieved / HBM bandwidth.
  double memory_bw_fraction = 0;
  // The optimizer step, one fused multi-tensor kernel streaming the weights, gradients and
  // moments (fused AdamW, Apex/TE FusedAdam): achieved / HBM bandwidth, measured where a source
  // timed the step alone. 0 = not measured for this family: memory_bw_fraction (with the
  // framework's memory_scale), as for any memory-bound kernel.
  double optimizer_bw_fraction = 0;
  // Share of tensor-parallel communication hidden behind GEMMs on this architecture
  // (Transformer Engine's userbuffers overlap on Hopper and later). The host time per kernel
  // is the framework's (catalog/framework.h), not the silicon's.
  double tp_comm_overlap_fraction = 0;
  // SMs the MoE dispatch/combine kernels occupy while they run beside compute (overlapped
  // expert parallelism): the compute under them runs on the other SMs. A property of the
  // dispatcher's kernels, sourced in the data file, not fitted.
  double moe_comm_sms = 0;
  // SMs NCCL's data-parallel collectives (gradient reduce-scatter / all-reduce, parameter
  // all-gather) occupy while they run beside compute: the compute they overlap runs on the
  // other SMs, so a share sm/SMs of the overlapped collective's time is lost to compute. 0 =
  // none charged. Sourced in the data file, not fitted.
  double dp_comm_sms = 0;
  // One NCCL channel's point-to-point rate over the scale-up link, bytes/s (NCCL's per-channel
  // ring LL128 ceiling for the GPU generation, perChMaxRingLL128Bws): what a send/receive capped
  // to a few channels (Plan::cp_comm_channels) moves at most. 0 = no such cap.
  double p2p_channel_bw_bytes_per_s = 0;
  // Memory the training runtime holds besides tensors: CUDA context and kernels, NCCL
  // buffers, and the allocator's fragmentation as a fraction of the tensors it holds.
  double cuda_context_bytes = 0;
  double nccl_buffer_bytes = 0;  // only a plan of more than one GPU has a communicator
  // Memory the driver keeps from the card before any process starts: the GPU file's usable
  // memory (nvidia-smi's total) less what cudaMemGetInfo reports as the total.
  double driver_reserved_bytes = 0;
  double fragmentation_fraction = 0;
  // Serving (`gpuplan infer`): this architecture's factor, per weight precision, on the serving
  // engines' GEMM and weight-streaming fractions (data/engines/), which were set on Hopper rows
  // (Hopper = 1). The engine is the modifier, the architecture × precision the table. Fitted by
  // `validate inference --fit` on the rows where each is visible; 1 where absent. Training
  // never reads these.
  PerPrecision serving_gemm_scale = [] { PerPrecision s{}; s.fill(1); return s; }();
  PerPrecision serving_bw_scale = [] { PerPrecision s{}; s.fill(1); return s; }();
  std::string notes;
  Provenance provenance;

  double gemm_fraction(Precision p) const {
    const double f = gemm_peak_fraction[index_of(p)];
    return f > 0 ? f : gemm_peak_fraction[index_of(Precision::bf16)];
  }
};

}  // namespace gpuplan

namespace gpuplan {

// The efficiency entry for `gpu`: the first whose architectures match, else the fallback
// entry, else nullptr.
const Efficiency* efficiency_for(const std::vector<Efficiency>& entries, const Gpu& gpu);

}  // namespace gpuplan
