#include "plan/fit.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpuplan {
namespace {

// Beyond a factor e^0.35 ≈ 1.42 off, a run counts as "not explained" whatever the error.
constexpr double kLossCap = 0.35;
constexpr int kParams = 6;

struct Range {
  double lo;
  double hi;
};
// Physically plausible bounds: what large cuBLAS GEMMs, fused attention kernels and
// element-wise kernels reach on NVIDIA parts of the last three generations.
constexpr std::array<Range, kParams> kRanges{{{0.55, 0.90},     // GEMM fraction, 16-bit
                                              {0.40, 0.85},     // GEMM fraction, fp8
                                              {0.25, 0.80},     // attention forward fraction
                                              {0.60, 0.92},     // memory bandwidth fraction
                                              {0.00, 1.00},     // TP overlap fraction
                                              {0.0, 40e-6}}};   // host time per kernel, s

std::array<double, kParams> params_of(const Efficiency& e) {
  return {e.gemm_peak_fraction[index_of(Precision::bf16)], e.gemm_fraction(Precision::fp8), e.attention_fwd_fraction,
          e.memory_bw_fraction, e.tp_comm_overlap_fraction, e.kernel_launch_s};
}

Efficiency with_params(const Efficiency& base, const std::array<double, kParams>& p) {
  Efficiency e = base;
  for (Precision q : {Precision::bf16, Precision::fp16}) e.gemm_peak_fraction[index_of(q)] = p[0];
  e.gemm_peak_fraction[index_of(Precision::fp8)] = p[1];
  const double bwd_over_fwd = base.attention_fwd_fraction > 0 ? base.attention_bwd_fraction / base.attention_fwd_fraction : 1;
  e.attention_fwd_fraction = p[2];
  e.attention_bwd_fraction = std::min(1.0, p[2] * bwd_over_fwd);
  e.memory_bw_fraction = p[3];
  e.tp_comm_overlap_fraction = p[4];
  e.kernel_launch_s = p[5];
  return e;
}

double predict(FitSample& s, const Efficiency& e) {
  retarget_efficiency(s.ctx, e);
  const Estimate est = evaluate(s.ctx, s.plan);
  return est.valid() ? est.step_time_s : 0;
}

}  // namespace

double fit_loss(double predicted_s, double measured_s) {
  if (predicted_s <= 0 || measured_s <= 0) return kLossCap;
  return std::min(kLossCap, std::fabs(std::log(predicted_s / measured_s)));
}

void retarget_efficiency(TrainContext& ctx, const Efficiency& efficiency) {
  ctx.efficiency = &efficiency;
  ctx.device = make_roofline_device(*ctx.gpu, efficiency);
}

std::vector<Efficiency> fit_efficiencies(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                                         const std::string& exclude_source) {
  std::vector<Efficiency> fitted = entries;
  for (std::size_t entry_idx = 0; entry_idx < entries.size(); ++entry_idx) {
    std::vector<FitSample*> mine;
    for (FitSample& s : samples) {
      if (s.efficiency_id == entries[entry_idx].id && s.source != exclude_source) {
        mine.push_back(&s);
      }
    }
    if (mine.empty()) continue;
    auto loss = [&](const std::array<double, kParams>& p) {
      const Efficiency e = with_params(entries[entry_idx], p);
      double sum = 0;
      for (FitSample* s : mine) sum += fit_loss(predict(*s, e), s->measured_step_s);
      return sum;
    };
    std::array<double, kParams> p = params_of(entries[entry_idx]);
    double best = loss(p);
    // Coordinate descent: a grid over each figure's plausible range (the loss is capped, so
    // not unimodal), then a finer grid around the best point; four sweeps.
    constexpr int kGrid = 32;
    for (int sweep = 0; sweep < 4; ++sweep) {
      for (std::size_t i = 0; i < kParams; ++i) {
        double lo = kRanges[i].lo;
        double hi = kRanges[i].hi;
        for (int refine = 0; refine < 2; ++refine) {
          const double step = (hi - lo) / kGrid;
          for (int g = 0; g <= kGrid; ++g) {
            std::array<double, kParams> q = p;
            q[i] = lo + step * g;
            const double f = loss(q);
            if (f < best - 1e-12) {
              best = f;
              p = q;
            }
          }
          lo = std::max(kRanges[i].lo, p[i] - 2 * step);
          hi = std::min(kRanges[i].hi, p[i] + 2 * step);
        }
      }
    }
    fitted[entry_idx] = with_params(entries[entry_idx], p);
  }
  // Leave every sample on the caller's entries (the search pointed them at temporaries).
  for (FitSample& s : samples) {
    for (const Efficiency& e : entries) {
      if (s.efficiency_id == e.id) retarget_efficiency(s.ctx, e);
    }
  }
  return fitted;
}

double predict_with(FitSample& sample, const std::vector<Efficiency>& entries) {
  for (const Efficiency& e : entries) {
    if (sample.efficiency_id == e.id) return predict(sample, e);
  }
  return 0;
}

}  // namespace gpuplan
