// The arithmetic of one selective state-space (Mamba) mixer: its parameters, the widths of its
// projections, the FLOPs and HBM bytes of its scan per token, and the fixed-size recurrent
// state a sequence keeps while it is served (in place of a KV cache that grows with context).
// Mamba-1: Gu & Dao 2023, "Mamba: Linear-Time Sequence Modeling with Selective State Spaces"
// (arXiv:2312.00752), as Jamba uses it (transformers' JambaMambaMixer). Mamba-2: Dao & Gu 2024,
// "Transformers are SSMs" (arXiv:2405.21060), as Nemotron-H uses it (NemotronHMamba2Mixer).
#pragma once

#include "workload/model.h"

namespace gpuplan {

struct MambaParams {
  double matmul = 0;  // in_proj, (Mamba-1) x_proj and dt_proj, out_proj: the weights a token multiplies
  double other = 0;   // conv1d weights and bias, A, D, the Δ bias, norms, projection biases
  double total() const { return matmul + other; }
};

MambaParams mamba_params(const ModelSpec& model);

// Output width of in_proj: Mamba-1 x and z (2·d_inner); Mamba-2 z, x, B, C and Δ
// (2·d_inner + 2·groups·N + heads).
double mamba_in_proj_width(const MambaShape& s);
// Channels of the causal conv1d: Mamba-1 d_inner; Mamba-2 x, B and C (d_inner + 2·groups·N).
double mamba_conv_channels(const MambaShape& s);
// Mamba-1 x_proj output: Δ (dt_rank), B and C (N each).
double mamba_x_proj_width(const MambaShape& s);

// The scan's FLOPs per token (forward). Mamba-1: 9·d_inner·N, the count mamba_ssm's
// selective_scan_flop_jit uses (discretise exp(ΔA) and ΔBx, the recurrence h = Āh + B̄x, the
// readout Ch). Mamba-2 (SSD, chunk length Q): per group CBᵀ within the chunk (2·Q·N per token),
// per head the masked (CBᵀ)X (2·Q·P), the chunk states BᵀX and the state readout C·h (2·N·P
// each): groups·2QN + heads·(2QP + 4NP) (Dao & Gu 2024 §6, the block decomposition).
double mamba_scan_flops_per_token(const MambaShape& s);
// HBM bytes of the fused scan per token at `act_bytes` per element (a memory-bound kernel: the
// states live in SRAM and are recomputed in the backward pass, Gu & Dao 2023 §3.3.2-3.3.3).
// Mamba-1 reads x, Δ, z, B, C and writes y: (4·d_inner + 2N); Mamba-2 reads x, z, B, C, Δ and
// writes y: (3·d_inner + 2·groups·N + heads).
double mamba_scan_bytes_per_token(const MambaShape& s, double act_bytes);

// HBM bytes per token of Mamba-2's chunked scan (SSD, chunk Q) as training runs it: mamba_ssm's
// Triton kernels (mamba_ssm/ops/triton/ssd_combined.py, _mamba_chunk_scan_combined_fwd / _bwd,
// which Megatron-Core's MambaMixer reaches through mamba_split_conv1d_scan_combined). Unlike the
// fused Mamba-1 scan, its states leave SRAM: the forward is five kernels (chunk cumsum, chunk
// states BᵀX written in fp32, state passing, CBᵀ written in fp32, chunk scan), each reading
// its inputs from HBM; the backward recomputes the first four and runs about eight more (dstates,
// state passing, dB, dx, dC, dCB, the two Δ-gradient kernels), re-reading x and dy several times.
// Counted once per tensor a kernel reads or writes (a group's B, C and CBᵀ are shared by its
// heads in L2), with P·heads = d_inner, N the state size, G the groups, a = `act_bytes` and
// fp32 = 4 (d = d_inner, s = d·N/Q the chunk states per token, H the heads):
//   forward  3a·d + (2·4 + 2a)·s + 4a·G·N + 2·4·G·Q + (a + 6·4)·H
//   backward a·d + 3·4·s + 3a·G·N + 4·G·Q + (a + 4·4)·H        (the recomputed forward)
//            + 10a·d + (4·4 + 6a)·s + 5·4·G·Q + 12a·G·N + 10·4·H (the gradient kernels)
// and, as Megatron-Core calls it (megatron/core/ssm/mamba_mixer.py _ssm_training at core_v0.16.0:
// no rmsnorm_weight, so mamba_split_conv1d_scan_combined gates by silu(z) inside the scan), the
// gate: forward + 2a·d (z read, the gated and ungated outputs written), backward + 6a·d
// (_chunk_scan_bwd_dz: x, z, the ungated output and dy read, dz and the gated dy written).
struct ScanBytes {
  double fwd = 0;
  double bwd = 0;
};
ScanBytes mamba2_ssd_training_bytes_per_token(const MambaShape& s, double act_bytes);

// Recurrent state one sequence keeps per Mamba layer, in elements: the SSM state (Mamba-1
// d_inner·N; Mamba-2 heads·P·N) and the last d_conv − 1 conv inputs of every conv channel.
double mamba_state_elems_per_layer(const MambaShape& s);
// Bytes per element of that state: the model's 16-bit dtype (vLLM's mamba_ssm_cache_dtype
// "auto"), whatever the KV-cache precision.
inline constexpr double kMambaStateBytes = 2;

}  // namespace gpuplan
