#include "validate/calibration_validation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

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

double rel(double predicted, double measured) { return (predicted - measured) / measured; }

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
  v.model_before.add(kernel, rel(p.kernel_before_s, measured_s));
  v.model_after.add(kernel, rel(p.kernel_after_s, measured_s));
  if (p.train_before_s > 0) v.model_before.add("gpuplan train, " + what, rel(p.train_before_s, measured_s));
  if (p.train_after_s > 0) v.model_after.add("gpuplan train, " + what, rel(p.train_after_s, measured_s));
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
    v.gemm_before.add(std::string(precision_name(g.precision)), rel(c.before_flops_per_s, g.flops_per_s));
    if (c.after_flops_per_s > 0)
      v.gemm_after.add(std::string(precision_name(g.precision)), rel(c.after_flops_per_s, g.flops_per_s));
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
        if (c.model_s > 0) v.collective_model.add(fmt::format("{} x{}", p.op, p.gpus), rel(c.model_s, c.measured_s));
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

namespace {

std::string pct(double predicted, double measured) {
  return predicted > 0 ? fmt::format("{:+.1f}%", 100 * rel(predicted, measured)) : "-";
}

// "PASS", "MISS" or "-" for a group's median |error| against a target.
std::string verdict(const ErrorGroups& groups, const std::string& name, double target) {
  for (const auto& [group, s] : groups.summaries()) {
    if (group == name) return s.median_abs_pct <= 100 * target ? "meets" : "misses";
  }
  return "";
}

// The targets on the GEMM-heavy rows of the kernel roofline, layers and steps apart.
std::string targets_text(const CalibrationValidation& v) {
  std::string out;
  for (const char* what : {"layers", "steps"}) {
    const std::string heavy = fmt::format("kernel roofline, GEMM-heavy {}", what);
    const std::string b = verdict(v.model_before, heavy, kTargetBefore),
                      a = verdict(v.model_after, heavy, kTargetAfter);
    if (b.empty()) continue;
    out += fmt::format(
        "Targets on GEMM-heavy {} (GEMMs >= {:.0f}% of the time): before {} the {:.0f}% target, after {} "
        "the {:.0f}% target\n",
        what, 100 * kGemmHeavyShare, b, 100 * kTargetBefore, a, 100 * kTargetAfter);
  }
  if (out.empty()) {
    out = fmt::format("Targets: no layer or step is GEMM-heavy (GEMMs >= {:.0f}% of the kernel time)\n",
                      100 * kGemmHeavyShare);
  }
  return out;
}

}  // namespace

std::string calibration_validation_text(const CalibrationValidation& v) {
  std::string out = fmt::format("Calibration profile {} ({}): measured vs predicted\n", v.profile_file, v.gpu_id);
  for (const std::string& n : v.notes) out += "  " + n + "\n";
  if (!v.gemms.empty()) {
    TextTable t({"precision", "M", "N", "K", "measured TFLOP/s", "before", "err", "after (LOO)", "err"},
                {TextTable::Align::left});
    for (const GemmCheck& g : v.gemms) {
      t.add_row({std::string(precision_name(g.precision)), fmt_number(g.m), fmt_number(g.n), fmt_number(g.k),
                 fmt_number(g.measured_flops_per_s / 1e12, 1), fmt_number(g.before_flops_per_s / 1e12, 1),
                 pct(g.before_flops_per_s, g.measured_flops_per_s),
                 g.after_flops_per_s > 0 ? fmt_number(g.after_flops_per_s / 1e12, 1) : "-",
                 pct(g.after_flops_per_s, g.measured_flops_per_s)});
    }
    out += "\nGEMMs (cuBLASLt)\n" + t.render();
    out += error_groups_text("GEMM rate error before calibration", v.gemm_before);
    out += error_groups_text("GEMM rate error after calibration (leave one out)", v.gemm_after);
  }
  if (!v.bandwidth.empty()) {
    TextTable t({"op", "bytes", "measured GB/s", "of the 'before' ceiling", ""}, {TextTable::Align::left});
    for (const BandwidthCheck& b : v.bandwidth) {
      t.add_row({b.op, format_bytes(b.bytes, true), fmt_number(b.measured_bytes_per_s / 1e9),
                 fmt::format("{:.0f}%", 100 * b.measured_bytes_per_s / b.before_bytes_per_s),
                 b.fits_l2 ? "fits in L2: not an HBM figure" : ""});
    }
    out += "\nHBM bandwidth\n" + t.render();
  }
  if (!v.layers.empty()) {
    TextTable t({"layer", "seq x batch", "measured ms", "kernel before", "err", "kernel after", "err", "GEMM share",
                 "gpuplan train", "err", "train --calibration", "err"},
                {TextTable::Align::left, TextTable::Align::left});
    for (const LayerCheck& l : v.layers) {
      const double m = l.measured_s();
      t.add_row({l.shape.name, fmt::format("{} x {}", l.shape.seq, l.shape.batch), fmt_number(m * 1e3, 3),
                 fmt_number(l.kernel_before_s * 1e3, 3), pct(l.kernel_before_s, m),
                 fmt_number(l.kernel_after_s * 1e3, 3), pct(l.kernel_after_s, m),
                 fmt::format("{:.0f}%", 100 * l.kernel_gemm_share), fmt_number(l.train_before_s * 1e3, 3),
                 pct(l.train_before_s, m), fmt_number(l.train_after_s * 1e3, 3), pct(l.train_after_s, m)});
    }
    out += "\nTransformer layers, forward + backward\n" + t.render();
  }
  if (!v.steps.empty()) {
    TextTable t({"step", "layers", "seq x batch", "measured ms", "kernel before", "err", "kernel after", "err",
                 "GEMM share", "gpuplan train", "err", "train --calibration", "err"},
                {TextTable::Align::left, TextTable::Align::right, TextTable::Align::left});
    for (const StepCheck& st : v.steps) {
      const double m = st.measured_step_s;
      t.add_row({st.shape.name(), std::to_string(st.shape.layers),
                 fmt::format("{} x {}", st.shape.layer.seq, st.shape.layer.batch), fmt_number(m * 1e3, 2),
                 fmt_number(st.kernel_before_s * 1e3, 2), pct(st.kernel_before_s, m),
                 fmt_number(st.kernel_after_s * 1e3, 2), pct(st.kernel_after_s, m),
                 fmt::format("{:.0f}%", 100 * st.kernel_gemm_share), fmt_number(st.train_before_s * 1e3, 2),
                 pct(st.train_before_s, m), fmt_number(st.train_after_s * 1e3, 2), pct(st.train_after_s, m)});
    }
    out += "\nTraining steps (forward, backward, AdamW)\n" + t.render();
  }
  if (!v.layers.empty() || !v.steps.empty()) {
    out += error_groups_text("Layer and step error before calibration", v.model_before);
    out += error_groups_text("Layer and step error after calibration", v.model_after);
    out += targets_text(v);
  }
  if (!v.collectives.empty()) {
    TextTable t({"op", "GPUs", "bytes", "measured us", "model us", "err"}, {TextTable::Align::left});
    for (const CollectiveCheck& c : v.collectives) {
      t.add_row({c.op, std::to_string(c.gpus), format_bytes(c.bytes, true), fmt_number(c.measured_s * 1e6, 1),
                 c.model_s > 0 ? fmt_number(c.model_s * 1e6, 1) : "-", pct(c.model_s, c.measured_s)});
    }
    out += fmt::format("\nCollectives (model on {})\n", v.system_id) + t.render();
    out += error_groups_text("Collective model error", v.collective_model);
  }
  if (v.gemms.empty() && v.layers.empty() && v.steps.empty() && v.collectives.empty() && v.bandwidth.empty()) {
    out += "the profile has no GEMM, HBM, layer or collective measurements to compare\n";
  }
  return out;
}

nlohmann::ordered_json calibration_validation_json(const CalibrationValidation& v) {
  nlohmann::ordered_json j;
  j["profile"] = v.profile_file;
  j["gpu"] = v.gpu_id;
  j["notes"] = v.notes;
  j["gemm"] = nlohmann::ordered_json::array();
  for (const GemmCheck& g : v.gemms) {
    nlohmann::ordered_json r = {{"precision", precision_name(g.precision)},
                                {"m", g.m},
                                {"n", g.n},
                                {"k", g.k},
                                {"measured_flops_per_s", g.measured_flops_per_s},
                                {"before_flops_per_s", g.before_flops_per_s}};
    r["after_flops_per_s"] = g.after_flops_per_s > 0 ? nlohmann::ordered_json(g.after_flops_per_s) : nullptr;
    j["gemm"].push_back(r);
  }
  j["hbm"] = nlohmann::ordered_json::array();
  for (const BandwidthCheck& b : v.bandwidth) {
    j["hbm"].push_back({{"op", b.op},
                        {"bytes", b.bytes},
                        {"measured_bytes_per_s", b.measured_bytes_per_s},
                        {"before_bytes_per_s", b.before_bytes_per_s},
                        {"fits_l2", b.fits_l2}});
  }
  j["layers"] = nlohmann::ordered_json::array();
  for (const LayerCheck& l : v.layers) {
    j["layers"].push_back({{"name", l.shape.name},
                           {"seq", l.shape.seq},
                           {"batch", l.shape.batch},
                           {"measured_fwd_s", l.measured_fwd_s},
                           {"measured_bwd_s", l.measured_bwd_s},
                           {"kernel_before_s", l.kernel_before_s},
                           {"kernel_after_s", l.kernel_after_s},
                           {"kernel_gemm_share", l.kernel_gemm_share},
                           {"train_before_s", l.train_before_s},
                           {"train_after_s", l.train_after_s}});
  }
  j["steps"] = nlohmann::ordered_json::array();
  for (const StepCheck& st : v.steps) {
    j["steps"].push_back({{"name", st.shape.name()},
                          {"layers", st.shape.layers},
                          {"vocab", st.shape.vocab},
                          {"seq", st.shape.layer.seq},
                          {"batch", st.shape.layer.batch},
                          {"measured_fwd_s", st.measured_fwd_s},
                          {"measured_step_s", st.measured_step_s},
                          {"kernel_before_s", st.kernel_before_s},
                          {"kernel_after_s", st.kernel_after_s},
                          {"kernel_gemm_share", st.kernel_gemm_share},
                          {"train_before_s", st.train_before_s},
                          {"train_after_s", st.train_after_s}});
  }
  j["collectives"] = nlohmann::ordered_json::array();
  for (const CollectiveCheck& c : v.collectives) {
    nlohmann::ordered_json r = {{"op", c.op}, {"gpus", c.gpus}, {"bytes", c.bytes}, {"measured_s", c.measured_s}};
    r["model_s"] = c.model_s > 0 ? nlohmann::ordered_json(c.model_s) : nullptr;
    j["collectives"].push_back(r);
  }
  j["summary"] = {
      {"gemm_before", error_groups_json(v.gemm_before)},
      {"gemm_after", error_groups_json(v.gemm_after)},
      {"layers_and_steps_before", error_groups_json(v.model_before)},
      {"layers_and_steps_after", error_groups_json(v.model_after)},
      {"collectives", error_groups_json(v.collective_model)},
      {"targets", {{"gemm_heavy_share", kGemmHeavyShare}, {"before", kTargetBefore}, {"after", kTargetAfter}}}};
  if (!v.system_id.empty()) j["system"] = v.system_id;
  return j;
}

}  // namespace gpuplan
