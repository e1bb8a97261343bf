#include "plan/fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>

#include "plan/eval_memo.h"

namespace gpuplan {
namespace {

// Beyond a factor e^0.35 ≈ 1.42 off, a run counts as "not explained" whatever the error.
constexpr double kLossCap = 0.35;

struct Range {
  double lo;
  double hi;
};

// Silicon figures per GPU family. Physically plausible bounds: what large cuBLAS GEMMs, fused
// attention kernels and element-wise kernels reach on NVIDIA parts of the last three
// generations.
constexpr int kFamilyParams = 6;
constexpr std::array<Range, kFamilyParams> kFamilyRanges{{{0.55, 0.90},     // GEMM fraction, 16-bit
                                                          {0.40, 0.85},     // GEMM fraction, fp8
                                                          // attention forward fraction: fused
                                                          // kernels (FlashAttention-2 on A100 ~0.5-0.7,
                                                          // FA2/FA3/cuDNN on H100 ~0.45-0.75; Dao 2023,
                                                          // Shah et al. 2024); materialised attention
                                                          // is a framework factor, not a family figure
                                                          {0.45, 0.85},
                                                          {0.60, 0.92},     // memory bandwidth fraction
                                                          {0.00, 1.00},     // TP overlap fraction
                                                          {0.40, 0.85}}};   // GEMM fraction, fp4 (as fp8's)

// Software figures per framework family: host time per kernel (CUDA launch alone is ~3-5 µs;
// eager PyTorch dispatch adds tens of µs), the attention kernels relative to Transformer
// Engine's cuDNN kernels (FlashAttention-2 on Hopper ~0.45 of FA3, materialised attention
// lower), and fusion of the memory-bound ops.
constexpr int kFrameworkParams = 3;
constexpr std::array<Range, kFrameworkParams> kFrameworkRanges{{{2e-6, 60e-6},   // host time per kernel, s
                                                                {0.30, 1.20},    // attention kernel factor
                                                                {0.50, 1.20}}};  // fusion factor

using Params = std::vector<double>;

// A framework whose attention runs as separate kernels (Framework::attention_materialized) runs
// it at the GEMM and HBM rates: the fused-kernel factor does not apply and is not fitted.
std::array<Range, kFrameworkParams> framework_ranges(const Framework& f) {
  std::array<Range, kFrameworkParams> r = kFrameworkRanges;
  if (f.attention_materialized) r[1] = {f.attention_scale, f.attention_scale};
  return r;
}

// The family's search ranges; a figure measured on the GPU (the attention fractions with
// `measured = true`) is pinned to its value: measurements are not refit on published rows.
std::array<Range, kFamilyParams> family_ranges(const Efficiency& e) {
  std::array<Range, kFamilyParams> r = kFamilyRanges;
  if (e.attention_measured) r[2] = {e.attention_fwd_fraction, e.attention_fwd_fraction};
  return r;
}

Params family_params(const Efficiency& e) {
  return {e.gemm_peak_fraction[index_of(Precision::bf16)], e.gemm_fraction(Precision::fp8), e.attention_fwd_fraction,
          e.memory_bw_fraction, e.tp_comm_overlap_fraction, e.gemm_fraction(Precision::fp4)};
}

Efficiency with_family_params(const Efficiency& base, const Params& p) {
  Efficiency e = base;
  for (Precision q : {Precision::bf16, Precision::fp16}) e.gemm_peak_fraction[index_of(q)] = p[0];
  e.gemm_peak_fraction[index_of(Precision::fp8)] = p[1];
  const double bwd_over_fwd = base.attention_fwd_fraction > 0 ? base.attention_bwd_fraction / base.attention_fwd_fraction : 1;
  e.attention_fwd_fraction = p[2];
  e.attention_bwd_fraction = std::min(1.0, p[2] * bwd_over_fwd);
  e.memory_bw_fraction = p[3];
  e.tp_comm_overlap_fraction = p[4];
  // fp4 (NVFP4 / MXFP4 GEMMs, Blackwell): a figure of its own only where the family states one;
  // elsewhere no fp4 row exists to fit it on.
  if (base.gemm_peak_fraction[index_of(Precision::fp4)] > 0) e.gemm_peak_fraction[index_of(Precision::fp4)] = p[5];
  return e;
}

Params framework_params(const Framework& f) { return {f.kernel_launch_s, f.attention_scale, f.memory_scale}; }

Framework with_framework_params(const Framework& base, const Params& p) {
  Framework f = base;
  f.kernel_launch_s = p[0];
  f.attention_scale = p[1];
  f.memory_scale = p[2];
  return f;
}

// Coordinate descent: a grid over each free figure's plausible range (the loss is capped, so
// not unimodal), then a finer grid around the best point; four sweeps.
Params descend(Params p, const Range* ranges, std::size_t free_params, const std::function<double(const Params&)>& loss) {
  // Start inside the plausible ranges: a figure outside them is never kept, however it scores.
  for (std::size_t i = 0; i < free_params; ++i) p[i] = std::clamp(p[i], ranges[i].lo, ranges[i].hi);
  double best = loss(p);
  constexpr int kGrid = 32;
  for (int sweep = 0; sweep < 4; ++sweep) {
    for (std::size_t i = 0; i < free_params; ++i) {
      if (ranges[i].lo == ranges[i].hi) continue;  // pinned (measured)
      double lo = ranges[i].lo;
      double hi = ranges[i].hi;
      for (int refine = 0; refine < 2; ++refine) {
        const double step = (hi - lo) / kGrid;
        for (int g = 0; g <= kGrid; ++g) {
          Params q = p;
          q[i] = lo + step * g;
          const double f = loss(q);
          if (f < best - 1e-12) {
            best = f;
            p = q;
          }
        }
        lo = std::max(ranges[i].lo, p[i] - 2 * step);
        hi = std::min(ranges[i].hi, p[i] + 2 * step);
      }
    }
  }
  return p;
}

// A figure a row's prediction moves by less than this share of its step time across the whole
// range is not seen by that row: published step times carry three or four significant digits.
constexpr double kSeenShare = 1e-3;

// Whether any of `rows` moves by more than kSeenShare as figure `param` of `base` goes from one
// end of `range` to the other, each prediction by `predict_at(sample, params)`. Every figure is
// monotone in the step time (a fraction of peak, a host time per kernel against issue_bound_s,
// an overlap share), so the two ends decide.
template <typename Rows, typename PredictAt>
bool seen_by(const Rows& rows, const Params& base, std::size_t param, const Range& range, PredictAt predict_at) {
  for (const auto& r : rows) {
    double ends[2] = {0, 0};
    for (int end = 0; end < 2; ++end) {
      Params p = base;
      p[param] = end == 0 ? range.lo : range.hi;
      ends[end] = predict_at(r, p);
    }
    if (std::fabs(ends[1] - ends[0]) > kSeenShare * std::max(std::fabs(ends[0]), std::fabs(ends[1]))) return true;
  }
  return false;
}

// `ranges` with every free figure no row sees pinned at its current value: it is not fitted
// (the rows carry no information on it) and keeps the committed value, instead of wandering to
// wherever the search's grid ends (constants_not_identified reports it).
template <typename Rows, typename PredictAt, std::size_t N>
std::array<Range, N> pin_unseen(std::array<Range, N> ranges, const Params& base, std::size_t free_params,
                                const Rows& rows, PredictAt predict_at) {
  for (std::size_t i = 0; i < free_params; ++i) {
    if (ranges[i].lo == ranges[i].hi) continue;
    if (!seen_by(rows, base, i, ranges[i], predict_at)) ranges[i] = {base[i], base[i]};
  }
  return ranges;
}

template <typename T>
const T* by_id(const std::vector<T>& entries, const std::string& id) {
  for (const T& e : entries) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

double predict(FitSample& s, const Efficiency& e, const Framework* f, TrainEvalMemo* memo = nullptr) {
  retarget(s.ctx, e, f);
  const Estimate est = evaluate(s.ctx, s.plan, memo);
  return est.valid() ? est.step_time_s : 0;
}

// A sample the fit uses, with the memo of its collectives: a fit evaluates each row's one plan
// thousands of times under other efficiency and framework figures, which change neither the
// plan's collectives nor the topology they run on (plan/eval_memo.h, keep_layer_costs). The
// collective estimates were a fifth of the fit's time (perf, docs/performance.md).
struct FitRow {
  FitSample* sample;
  TrainEvalMemo* memo;
};

}  // namespace

double fit_loss(double predicted_s, double measured_s) {
  if (predicted_s <= 0 || measured_s <= 0) return kLossCap;
  return std::min(kLossCap, std::fabs(std::log(predicted_s / measured_s)));
}

void retarget(TrainContext& ctx, const Efficiency& efficiency, const Framework* framework) {
  ctx.efficiency = &efficiency;
  ctx.framework = framework;
  ctx.device = make_roofline_device(*ctx.gpu, efficiency, framework);
}

FitResult fit_efficiencies(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                           const std::vector<Framework>& frameworks, const std::string& exclude_source) {
  return fit_efficiencies_if(samples, entries, frameworks,
                             [&](const FitSample& s) { return s.source != exclude_source; });
}

FitResult fit_efficiencies_if(std::vector<FitSample>& samples, const std::vector<Efficiency>& entries,
                              const std::vector<Framework>& frameworks,
                              const std::function<bool(const FitSample&)>& use) {
  FitResult fit{entries, frameworks};
  std::vector<FitRow> used;
  std::vector<std::unique_ptr<TrainEvalMemo>> memos;  // one per used sample, for this fit only
  for (FitSample& s : samples) {
    if (!use(s)) continue;
    memos.push_back(std::make_unique<TrainEvalMemo>(s.ctx));
    memos.back()->keep_layer_costs = false;
    used.push_back({&s, memos.back().get()});
  }
  for (int round = 0; round < 2; ++round) {
    // GPU families, each framework at its current figures.
    for (std::size_t entry_idx = 0; entry_idx < fit.efficiencies.size(); ++entry_idx) {
      std::vector<FitRow> mine;
      for (const FitRow& r : used) {
        if (r.sample->efficiency_id == entries[entry_idx].id) mine.push_back(r);
      }
      if (mine.empty()) continue;
      const Efficiency base = fit.efficiencies[entry_idx];
      auto loss = [&](const Params& p) {
        const Efficiency e = with_family_params(base, p);
        double sum = 0;
        for (const FitRow& r : mine) {
          FitSample& s = *r.sample;
          sum += fit_loss(predict(s, e, by_id(fit.frameworks, s.framework_id), r.memo), s.measured_step_s);
        }
        return sum;
      };
      const auto ranges = pin_unseen(family_ranges(base), family_params(base), kFamilyParams, mine,
                                     [&](const FitRow& r, const Params& p) {
                                       FitSample& s = *r.sample;
                                       return predict(s, with_family_params(base, p),
                                                      by_id(fit.frameworks, s.framework_id), r.memo);
                                     });
      fit.efficiencies[entry_idx] =
          with_family_params(base, descend(family_params(base), ranges.data(), kFamilyParams, loss));
    }
    // Framework families, each GPU family at its current figures. The default framework is the
    // reference of the families' kernel fractions: only its host time is free.
    for (std::size_t fw_idx = 0; fw_idx < fit.frameworks.size(); ++fw_idx) {
      std::vector<FitRow> mine;
      for (const FitRow& r : used) {
        if (r.sample->framework_id == frameworks[fw_idx].id) mine.push_back(r);
      }
      if (mine.empty()) continue;
      const Framework base = fit.frameworks[fw_idx];
      auto loss = [&](const Params& p) {
        const Framework f = with_framework_params(base, p);
        double sum = 0;
        for (const FitRow& r : mine) {
          FitSample& s = *r.sample;
          const Efficiency* e = by_id(fit.efficiencies, s.efficiency_id);
          if (e) sum += fit_loss(predict(s, *e, &f, r.memo), s.measured_step_s);
        }
        return sum;
      };
      const std::size_t free_params = base.is_default ? 1 : kFrameworkParams;
      const auto ranges = pin_unseen(framework_ranges(base), framework_params(base), free_params, mine,
                                     [&](const FitRow& r, const Params& p) {
                                       FitSample& s = *r.sample;
                                       const Efficiency* e = by_id(fit.efficiencies, s.efficiency_id);
                                       const Framework f = with_framework_params(base, p);
                                       return e ? predict(s, *e, &f, r.memo) : 0.0;
                                     });
      fit.frameworks[fw_idx] =
          with_framework_params(base, descend(framework_params(base), ranges.data(), free_params, loss));
    }
  }
  // Leave every sample on the caller's entries (the search pointed them at temporaries).
  for (FitSample& s : samples) {
    if (const Efficiency* e = by_id(entries, s.efficiency_id)) retarget(s.ctx, *e, by_id(frameworks, s.framework_id));
  }
  return fit;
}

namespace {

// Whether moving free figure `param` of the entry `entry_id` (a family when `family`, else a
// framework) from one end of `range` to the other changes any fitted sample's predicted step
// time by more than kSeenShare (seen_by).
bool any_prediction_moves(const FitResult& fitted, const std::vector<FitSample>& samples, const std::string& entry_id,
                          bool family, std::size_t param, const Range& range) {
  std::vector<const FitSample*> rows;
  for (const FitSample& s : samples) {
    if ((family ? s.efficiency_id : s.framework_id) != entry_id) continue;
    if (by_id(fitted.efficiencies, s.efficiency_id) == nullptr) continue;
    if (!family && by_id(fitted.frameworks, s.framework_id) == nullptr) continue;
    rows.push_back(&s);
  }
  if (rows.empty()) return false;
  const FitSample& first = *rows.front();
  const Efficiency* e0 = by_id(fitted.efficiencies, first.efficiency_id);
  const Framework* f0 = by_id(fitted.frameworks, first.framework_id);
  const Params base = family ? family_params(*e0) : framework_params(*f0);
  return seen_by(rows, base, param, range, [&](const FitSample* original, const Params& p) {
    FitSample s = *original;  // predict() retargets its sample
    const Efficiency* e = by_id(fitted.efficiencies, s.efficiency_id);
    const Framework* f = by_id(fitted.frameworks, s.framework_id);
    if (family) return predict(s, with_family_params(*e, p), f);
    const Framework moved = with_framework_params(*f, p);
    return predict(s, *e, &moved);
  });
}

}  // namespace

namespace {

// Calls `fn(entry, family, name, param, value, range, rows)` for every free figure of the
// entries `samples` use: a family's five (the fp8 fraction only where fp8 rows are fitted on,
// the attention fraction unless measured), a framework's three (the default framework's host
// time only; a materialised attention's factor is not one).
template <typename Fn>
void for_each_free_figure(const FitResult& fitted, const std::vector<FitSample>& samples, Fn fn) {
  static constexpr std::array<const char*, kFamilyParams> kFamilyNames{"gemm_bf16", "gemm_fp8", "attention_fwd", "hbm",
                                                                       "tp_overlap", "gemm_fp4"};
  static constexpr std::array<const char*, kFrameworkParams> kFrameworkNames{"kernel_launch_s", "attention_scale",
                                                                             "fusion_scale"};
  for (const Efficiency& e : fitted.efficiencies) {
    const int rows = static_cast<int>(
        std::count_if(samples.begin(), samples.end(), [&](const FitSample& s) { return s.efficiency_id == e.id; }));
    if (rows == 0) continue;
    const Params p = family_params(e);
    const bool has_fp8 = std::any_of(samples.begin(), samples.end(), [&](const FitSample& s) {
      return s.efficiency_id == e.id && s.plan.precision == Precision::fp8;
    });
    // And the fp4 fraction only where fp4 rows are, on a family that states one.
    const bool has_fp4 = e.gemm_peak_fraction[index_of(Precision::fp4)] > 0 &&
                         std::any_of(samples.begin(), samples.end(), [&](const FitSample& s) {
                           return s.efficiency_id == e.id && s.plan.precision == Precision::fp4;
                         });
    for (std::size_t i = 0; i < kFamilyParams; ++i) {
      if (i == 1 && !has_fp8) continue;
      if (i == 5 && !has_fp4) continue;
      if (i == 2 && e.attention_measured) continue;  // measured, not fitted
      fn(e.id, true, kFamilyNames[i], i, p[i], kFamilyRanges[i], rows);
    }
  }
  for (const Framework& f : fitted.frameworks) {
    const int rows = static_cast<int>(
        std::count_if(samples.begin(), samples.end(), [&](const FitSample& s) { return s.framework_id == f.id; }));
    if (rows == 0) continue;
    const Params p = framework_params(f);
    const std::size_t free_params = f.is_default ? 1 : kFrameworkParams;
    for (std::size_t i = 0; i < free_params; ++i) {
      if (i == 1 && f.attention_materialized) continue;  // framework_ranges pins it
      fn(f.id, false, kFrameworkNames[i], i, p[i], kFrameworkRanges[i], rows);
    }
  }
}

}  // namespace

std::vector<ConstantAtBound> constants_at_bounds(const FitResult& fitted, const std::vector<FitSample>& samples) {
  std::vector<ConstantAtBound> out;
  for_each_free_figure(fitted, samples,
                       [&](const std::string& entry, bool family, const char* name, std::size_t param, double value,
                           const Range& r, int rows) {
                         // Within 1% of the bound (of the range's width when the bound is 0).
                         std::vector<ConstantAtBound> found;
                         for (const bool upper : {false, true}) {
                           const double bound = upper ? r.hi : r.lo;
                           const double tolerance = 0.01 * (bound != 0 ? std::fabs(bound) : r.hi - r.lo);
                           if (std::fabs(value - bound) <= tolerance) found.push_back({entry, name, value, bound, upper, rows});
                         }
                         // A figure no row sees was not fitted (pin_unseen): constants_not_identified.
                         if (found.empty() || !any_prediction_moves(fitted, samples, entry, family, param, r)) return;
                         out.insert(out.end(), found.begin(), found.end());
                       });
  return out;
}

std::vector<UnidentifiedConstant> constants_not_identified(const FitResult& fitted,
                                                           const std::vector<FitSample>& samples) {
  std::vector<UnidentifiedConstant> out;
  for_each_free_figure(fitted, samples,
                       [&](const std::string& entry, bool family, const char* name, std::size_t param, double value,
                           const Range& r, int rows) {
                         if (!any_prediction_moves(fitted, samples, entry, family, param, r))
                           out.push_back({entry, name, value, rows});
                       });
  return out;
}

double predict_with(FitSample& sample, const FitResult& fitted) {
  const Efficiency* e = by_id(fitted.efficiencies, sample.efficiency_id);
  return e ? predict(sample, *e, by_id(fitted.frameworks, sample.framework_id)) : 0;
}

}  // namespace gpuplan
