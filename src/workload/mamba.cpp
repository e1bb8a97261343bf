#include "workload/mamba.h"

#include "workload/size_math.h"

namespace gpuplan {

using size_math::d;

double mamba_in_proj_width(const MambaShape& s) {
  if (s.version == 2) return 2 * d(s.d_inner) + 2 * d(s.groups * s.d_state) + d(s.heads);
  return 2 * d(s.d_inner);
}

double mamba_conv_channels(const MambaShape& s) {
  return s.version == 2 ? d(s.d_inner) + 2 * d(s.groups * s.d_state) : d(s.d_inner);
}

double mamba_x_proj_width(const MambaShape& s) { return s.version == 2 ? 0 : d(s.dt_rank) + 2 * d(s.d_state); }

// Mamba-1 (JambaMambaMixer): in_proj h×2di, conv1d di×d_conv (+di bias), x_proj di×(r+2N),
// dt_proj r×di + di bias, A_log di×N, D di, out_proj di×h; Jamba's dt/B/C RMSNorms r + 2N.
// Mamba-2 (NemotronHMamba2Mixer): in_proj h×(2di+2GN+H), conv1d (di+2GN)×d_conv (+bias),
// dt_bias, A_log and D (H each), the gated RMSNorm over di, out_proj di×h.
MambaParams mamba_params(const ModelSpec& m) {
  const MambaShape& s = m.mamba;
  const double h = d(m.hidden);
  const double di = d(s.d_inner);
  const double conv = mamba_conv_channels(s);
  const double in_width = mamba_in_proj_width(s);
  MambaParams p;
  p.other = conv * d(s.d_conv) + (s.conv_bias ? conv : 0);
  if (s.proj_bias) p.other += in_width + h;
  if (s.version == 2) {
    p.matmul = h * in_width + di * h;
    p.other += 3 * d(s.heads) + di;
  } else {
    const double r = d(s.dt_rank);
    p.matmul = h * in_width + di * mamba_x_proj_width(s) + r * di + di * h;
    p.other += di + di * d(s.d_state) + di;  // dt_proj bias, A_log, D
    if (s.inner_norms) p.other += r + 2 * d(s.d_state);
  }
  return p;
}

double mamba_scan_flops_per_token(const MambaShape& s) {
  const double n = d(s.d_state);
  if (s.version == 2) {
    const double q = d(s.chunk > 0 ? s.chunk : 256);
    const double p = d(s.head_dim);
    return d(s.groups) * 2 * q * n + d(s.heads) * (2 * q * p + 4 * n * p);
  }
  return 9 * d(s.d_inner) * n;
}

double mamba_scan_bytes_per_token(const MambaShape& s, double act_bytes) {
  const double di = d(s.d_inner);
  if (s.version == 2) return (3 * di + 2 * d(s.groups * s.d_state) + d(s.heads)) * act_bytes;
  return (4 * di + 2 * d(s.d_state)) * act_bytes;
}

ScanBytes mamba2_ssd_training_bytes_per_token(const MambaShape& s, double act_bytes) {
  constexpr double f = 4;  // fp32 chunk states, CBᵀ, cumulative Δ·A
  const double a = act_bytes;
  const double di = d(s.d_inner);
  const double q = d(s.chunk > 0 ? s.chunk : 256);
  const double gn = d(s.groups) * d(s.d_state);
  const double gq = d(s.groups) * q;
  const double h = d(s.heads);
  const double states = di * d(s.d_state) / q;  // one P×N state per head and chunk
  ScanBytes b;
  b.fwd = 3 * a * di + (2 * f + 2 * a) * states + 4 * a * gn + 2 * f * gq + (a + 6 * f) * h;
  const double recompute = a * di + 3 * f * states + 3 * a * gn + f * gq + (a + 4 * f) * h;
  // Per kernel of _mamba_chunk_scan_combined_bwd: dstates (C, dy → fp32 dstates), state passing
  // (states, dstates → both in the activation dtype), states.to(x.dtype) for dC, dx (x, CBᵀ, dy,
  // B, dstates → dx), dB (x, dstates, B), dC (the states, dy, C), dCBᵀ (x, dy → fp32), the two
  // CBᵀ-gradient GEMMs (C or B, dCBᵀ, a residual), the Δ·A gradient (x, dy, CBᵀ).
  const double gradients = 10 * a * di + (4 * f + 6 * a) * states + 5 * f * gq + 12 * a * gn + 10 * f * h;
  b.bwd = recompute + gradients;
  // The gate inside the scan: the chunk scan reads z and writes the gated and the ungated output;
  // the backward's dz kernel reads x, z, the ungated output and dy and writes dz and the gated dy.
  b.fwd += 2 * a * di;
  b.bwd += 6 * a * di;
  return b;
}

double mamba_state_elems_per_layer(const MambaShape& s) {
  const double ssm = s.version == 2 ? d(s.heads) * d(s.head_dim) * d(s.d_state) : d(s.d_inner) * d(s.d_state);
  return ssm + mamba_conv_channels(s) * d(s.d_conv > 0 ? s.d_conv - 1 : 0);
}

}  // namespace gpuplan
