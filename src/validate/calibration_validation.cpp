#include <nlohmann/json.hpp>
#include "validate/calibration_validation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "calibration/bench_layer_cost.h"
#include "calibration/calibrate.h"
#include "core/error.h"
#include "core/units.h"
#include "calibration/calibration_scale.h"
#include "cost/collective.h"
#include "cost/gemm_shape_curve.h"
#include "plan/evaluate.h"
#include "catalog/system_choice.h"
#include "core/table.h"

namespace gpuplan {
namespace {

// Bytes of a GEMM's operands as the benchmark stores them: fp8 writes bf16, WMMA fp32.
double gemm_bytes(const std::string& kernel, Precision p, double m, double n, double k) {
  const double in = precision_bytes(p);
  const double out = kernel == "wmma" ? 4 : p == Precision::fp8 ? 2 : precision_bytes(p);
  return (m * k + k * n) * in + m * n * out;
}

double gemm_rate(const RooflineDevice& dev, const std::string& kernel, Precision p, double m, double n, double k) {
  return 2 * m * n * k / gemm_time_s(dev, p, m, n, k, 1, gemm_bytes(kernel, p, m, n, k));
}

// The kernel roofline before calibration: the catalog's reference ceilings of this GPU.
// Precisions without a reference keep the fitted fraction of the datasheet; the notes name the
// measured ones among them.
RooflineDevice reference_device(const Gpu& gpu, const Efficiency& eff, const CalibrationProfile& profile,
                                std::vector<std::string>& notes) {
  RooflineDevice dev = make_roofline_device(gpu, eff);
  dev.kernel_launch_s = 0;
  std::string fitted;
  for (Precision p : kAllPrecisions) {
    const double ref = gpu.achievable_flops_per_s[index_of(p)];
    if (ref > 0) {
      dev.gemm_flops_per_s[index_of(p)] = ref;
    } else if (profile.peak_flops_per_s(p)) {
      fitted += fmt::format(" {}", precision_name(p));
    }
  }
  notes.push_back(fmt::format("before: GEMM ceilings from [achievable_tflops] of {}{}", gpu.id,
                              fitted.empty() ? "" : "; fitted fractions of the datasheet (no reference) for" + fitted));
  if (gpu.achievable_memory_bw_bytes_per_s > 0) {
    dev.memory_bw_bytes_per_s = gpu.achievable_memory_bw_bytes_per_s;
    notes.push_back(fmt::format("before: HBM ceiling {:.0f} GB/s from [achievable_memory_bw] ({})",
                                dev.memory_bw_bytes_per_s / 1e9, gpu.achievable_memory_bw_op));
  } else {
    dev.memory_bw_bytes_per_s = gpu.memory_bw_bytes_per_s;
    notes.push_back(fmt::format("before: HBM ceiling {:.0f} GB/s, the datasheet's ({} has no [achievable_memory_bw])",
                                dev.memory_bw_bytes_per_s / 1e9, gpu.id));
  }
  return dev;
}

std::vector<GemmShapeSample> samples_of(const CalibrationProfile& profile, Precision p, std::size_t skip) {
  std::vector<GemmShapeSample> out;
  for (std::size_t i = 0; i < profile.gemm.size(); ++i) {
    const GemmPoint& g = profile.gemm[i];
    if (i != skip && g.kernel == "cublaslt" && g.precision == p) out.push_back({g.m, g.n, g.k, g.flops_per_s});
  }
  return out;
}

double best_rate(const std::vector<GemmShapeSample>& samples) {
  double best = 0;
  for (const GemmShapeSample& s : samples) best = std::max(best, s.flops_per_s);
  return best;
}

// The kernel roofline after calibration: measured ceilings and the measured shape curves.
RooflineDevice measured_device(const RooflineDevice& before, const CalibrationProfile& profile, double hbm_min_bytes) {
  RooflineDevice dev = before;
  auto curves = std::make_shared<GemmShapeCurves>();
  for (Precision p : kAllPrecisions) {
    const auto samples = samples_of(profile, p, profile.gemm.size());
    if (samples.empty()) continue;
    dev.gemm_flops_per_s[index_of(p)] = best_rate(samples);
    if (samples.size() >= 2) curves->by_precision[index_of(p)] = make_gemm_shape_curve(dev, samples);
  }
  dev.shape_curves = curves;
  if (const auto bw = profile.hbm_bw_bytes_per_s(hbm_min_bytes)) dev.memory_bw_bytes_per_s = *bw;
  return dev;
}

// Point i predicted from the others of its precision: their best rate as the ceiling, their
// curve as the shape correction. 0 when no other point was measured.
double leave_one_out_rate(const RooflineDevice& before, const CalibrationProfile& profile, std::size_t i,
                          double hbm_min_bytes) {
  const GemmPoint& g = profile.gemm[i];
  const auto others = samples_of(profile, g.precision, i);
  if (others.empty()) return 0;
  RooflineDevice dev = before;
  dev.gemm_flops_per_s[index_of(g.precision)] = best_rate(others);
  if (others.size() >= 2) {
    auto curves = std::make_shared<GemmShapeCurves>();
    curves->by_precision[index_of(g.precision)] = make_gemm_shape_curve(dev, others);
    dev.shape_curves = curves;
  }
  if (const auto bw = profile.hbm_bw_bytes_per_s(hbm_min_bytes)) dev.memory_bw_bytes_per_s = *bw;
  return gemm_rate(dev, g.kernel, g.precision, g.m, g.n, g.k);
}

// Both models for one measured layer or step: the kernel roofline on the reference and on the
// measured ceilings, and what `gpuplan train` says for one micro-batch of the shape on one GPU
// without and with the profile's scale (a layer: forward + backward; a step: the whole step,
// optimizer included). Train times are 0 when the evaluator finds the plan invalid.
struct Predictions {
  double kernel_before_s = 0, kernel_after_s = 0, kernel_gemm_share = 0;
  double train_before_s = 0, train_after_s = 0;
};

Predictions predict_both(const RooflineDevice& before, const RooflineDevice& after,
                         const std::vector<BenchKernel>& kernels, const Catalog& catalog, const ModelSpec& model,
                         const Gpu& gpu, const CalibrationScale& scale, const LayerShape& tokens, bool whole_step) {
  Predictions p;
  const BenchPrediction kb = predict_bench_kernels(before, kernels);
  const BenchPrediction ka = predict_bench_kernels(after, kernels);
  p.kernel_before_s = kb.fwd_s + kb.bwd_s;
  p.kernel_after_s = ka.fwd_s + ka.bwd_s;
  p.kernel_gemm_share = ka.gemm_s / p.kernel_after_s;
  TrainContext ctx = make_train_context(catalog, model, gpu, nullptr, nullptr);
  Plan plan;
  plan.micro_batch = tokens.batch;
  plan.seq_len = tokens.seq;
  const auto train_s = [&] {
    const Estimate e = evaluate(ctx, plan);
    if (!e.valid()) return 0.0;
    return whole_step ? e.step_time_s : e.breakdown.forward_s + e.breakdown.backward_s;
  };
  p.train_before_s = train_s();
  apply_calibration_scale(ctx.device, scale);
  p.train_after_s = train_s();
  return p;
}

// The rows' errors into the layer-and-step groups; `what` is "layers" or "steps".
void add_errors(CalibrationValidation& v, const std::string& what, const Predictions& p, double measured_s) {
  const std::string kernel =
      fmt::format("kernel roofline, {} {}", p.kernel_gemm_share >= kGemmHeavyShare ? "GEMM-heavy" : "other", what);
  v.model_before.add(kernel, relative_error(p.kernel_before_s, measured_s));
  v.model_after.add(kernel, relative_error(p.kernel_after_s, measured_s));
  if (p.train_before_s > 0) v.model_before.add("gpuplan train, " + what, relative_error(p.train_before_s, measured_s));
  if (p.train_after_s > 0) v.model_after.add("gpuplan train, " + what, relative_error(p.train_after_s, measured_s));
}

CollectiveOp collective_op(const std::string& name) {
  const auto op = profile_collective_op(name);
  GP_ASSERT(op.has_value(), "the profile parser admits only the four measured ops");
  return *op;
}

}  // namespace

CalibrationValidation validate_calibration(const CalibrationProfile& profile, const Catalog& catalog,
                                           const std::string& system_id) {
  CalibrationValidation v;
  v.profile_file = profile.file;
  const Gpu& gpu = catalog.gpu(profile.gpu_id);
  v.gpu_id = gpu.id;
  const System* named_system = system_id.empty() ? nullptr : &catalog.system(system_id);  // checked even when unused
  const Efficiency* eff = efficiency_for(catalog.efficiencies, gpu);
  if (!eff) throw Error(fmt::format("GPU '{}' has no efficiency entry (data/fitted/efficiency/)", gpu.id));
  const RooflineDevice before = reference_device(gpu, *eff, profile, v.notes);
  // Buffers that fit in L2 measure the L2, never the HBM ceiling (calibrate.h).
  const double hbm_min_bytes = hbm_min_buffer_bytes(gpu);
  const RooflineDevice after = measured_device(before, profile, hbm_min_bytes);
  v.notes.push_back(
      "after: GEMM ceilings and shape curves, and the HBM ceiling, as measured; GEMM rows leave "
      "themselves out");

  for (std::size_t i = 0; i < profile.gemm.size(); ++i) {
    const GemmPoint& g = profile.gemm[i];
    if (g.kernel != "cublaslt") continue;  // the WMMA kernel checks correctness; cuBLAS is what runs
    GemmCheck c;
    c.kernel = g.kernel;
    c.precision = g.precision;
    c.m = g.m;
    c.n = g.n;
    c.k = g.k;
    c.measured_flops_per_s = g.flops_per_s;
    c.before_flops_per_s = gemm_rate(before, g.kernel, g.precision, g.m, g.n, g.k);
    c.after_flops_per_s = leave_one_out_rate(before, profile, i, hbm_min_bytes);
    v.gemm_before.add(std::string(precision_name(g.precision)), relative_error(c.before_flops_per_s, g.flops_per_s));
    if (c.after_flops_per_s > 0)
      v.gemm_after.add(std::string(precision_name(g.precision)), relative_error(c.after_flops_per_s, g.flops_per_s));
    v.gemms.push_back(c);
  }

  for (const BandwidthPoint& b : profile.memory_bandwidth) {
    if (b.op != "read" && b.op != "write" && b.op != "copy") continue;
    v.bandwidth.push_back({b.op, b.bytes, b.bw_bytes_per_s, before.memory_bw_bytes_per_s, b.bytes < hbm_min_bytes});
  }

  const CalibrationScale scale = calibration_scale(gpu, profile);
  const auto predict = [&](const std::vector<BenchKernel>& kernels, const ModelSpec& model, const LayerShape& tokens,
                           bool whole_step) {
    return predict_both(before, after, kernels, catalog, model, gpu, scale, tokens, whole_step);
  };
  for (const LayerPoint& l : profile.layers) {
    LayerCheck c;
    c.shape = l.shape;
    c.measured_fwd_s = l.fwd_time_s;
    c.measured_bwd_s = l.bwd_time_s;
    const Predictions p = predict(bench_layer_kernels(l.shape), layer_model(l.shape), l.shape, false);
    c.kernel_before_s = p.kernel_before_s;
    c.kernel_after_s = p.kernel_after_s;
    c.kernel_gemm_share = p.kernel_gemm_share;
    c.train_before_s = p.train_before_s;
    c.train_after_s = p.train_after_s;
    add_errors(v, "layers", p, c.measured_s());
    v.layers.push_back(c);
  }
  for (const StepPoint& st : profile.steps) {
    StepCheck c;
    c.shape = st.shape;
    c.measured_fwd_s = st.fwd_time_s;
    c.measured_step_s = st.step_time_s;
    const Predictions p = predict(bench_step_kernels(st.shape), step_model(st.shape), st.shape.layer, true);
    c.kernel_before_s = p.kernel_before_s;
    c.kernel_after_s = p.kernel_after_s;
    c.kernel_gemm_share = p.kernel_gemm_share;
    c.train_before_s = p.train_before_s;
    c.train_after_s = p.train_after_s;
    add_errors(v, "steps", p, c.measured_step_s);
    v.steps.push_back(c);
  }

  if (!profile.collectives.empty()) {
    const System* system = named_system ? named_system : default_system_for(catalog, gpu);
    if (!system) {
      v.notes.push_back(fmt::format("collectives: no catalog system is built from {}; name one with --system", gpu.id));
    } else {
      v.system_id = system->id;
      const CollectiveTopology topology =
          make_collective_topology(catalog, *system, nullptr, default_collective_params(catalog));
      for (const CollectivePoint& p : profile.collectives) {
        CollectiveCheck c{p.op, p.gpus, p.bytes, p.time_s, 0};
        if (p.gpus <= system->gpus) {
          CollectiveRequest r;
          r.op = collective_op(p.op);
          r.bytes = p.bytes;
          r.gpus_per_domain = p.gpus;
          const CollectiveEstimate e = estimate_collective(r, topology);
          if (e.feasible) c.model_s = e.time_s;
        }
        if (c.model_s > 0)
          v.collective_model.add(fmt::format("{} x{}", p.op, p.gpus), relative_error(c.model_s, c.measured_s));
        v.collectives.push_back(c);
      }
      const auto unplaced = std::count_if(v.collectives.begin(), v.collectives.end(),
                                          [](const CollectiveCheck& c) { return c.model_s <= 0; });
      if (unplaced > 0) {
        v.notes.push_back(
            fmt::format("collectives: {} points span more GPUs than one {} holds (a multi-node "
                        "mpirun profile); compare them with `gpuplan collective --nodes`",
                        unplaced, system->id));
      }
    }
  }
  return v;
}

}  // namespace gpuplan
