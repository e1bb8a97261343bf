#include "report/validation_report.h"

#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"
#include "core/verdict.h"
#include "plan/plan_json.h"

namespace gpuplan {

std::string error_groups_text(const std::string& title, const ErrorGroups& groups) {
  using A = TextTable::Align;
  TextTable t({title, "rows", "median |err|", "mean |err|", "bias", "within ±10%", "within ±25%"},
              {A::left, A::right, A::right, A::right, A::right, A::right, A::right});
  for (const auto& [name, s] : groups.summaries()) {
    t.add_row({name, std::to_string(s.count), fmt::format("{:.1f}%", s.median_abs_pct),
               fmt::format("{:.1f}%", s.mean_abs_pct), fmt::format("{:+.1f}%", s.mean_signed_pct),
               fmt::format("{:.0f}%", s.within_10_share * 100), fmt::format("{:.0f}%", s.within_25_share * 100)});
  }
  return t.render();
}

nlohmann::ordered_json error_summary_json(const ErrorSummary& s) {
  nlohmann::ordered_json j;
  j["rows"] = s.count;
  j["median_abs_error_pct"] = s.median_abs_pct;
  j["mean_abs_error_pct"] = s.mean_abs_pct;
  j["mean_signed_error_pct"] = s.mean_signed_pct;
  j["within_10_pct_share"] = s.within_10_share;
  j["within_25_pct_share"] = s.within_25_share;
  return j;
}

nlohmann::ordered_json error_groups_json(const ErrorGroups& groups) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, s] : groups.summaries()) j[name] = error_summary_json(s);
  return j;
}


std::string to_text(const CollectiveValidation& v) {
  using A = TextTable::Align;
  TextTable t(
      {"line", "gpu", "op", "gpus", "size", "measured us", "predicted us", "error", "meas. busbw", "pred. busbw",
       "algorithm"},
      {A::right, A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  for (const auto& r : v.rows) {
    t.add_row({std::to_string(r.line), r.gpu, std::string(op_name(r.request.op)), std::to_string(r.gpus),
               format_bytes(r.request.bytes, true), fmt::format("{:.1f}", r.measured_time_s * 1e6),
               fmt::format("{:.1f}", r.predicted.time_s * 1e6), fmt::format("{:+.1f}%", r.error * 100),
               fmt::format("{:.1f}", r.measured_busbw_bytes_per_s / kGiga),
               fmt::format("{:.1f}", r.predicted.busbw_bytes_per_s / kGiga),
               fmt::format("{}/{}", algorithm_name(r.predicted.algorithm), protocol_name(r.predicted.protocol))});
  }
  std::string out = fmt::format("{}: {} rows, collective parameters '{}'; error = predicted / measured time - 1\n\n",
                                v.file, v.rows.size(), v.params_id);
  out += t.render();
  for (const auto& [title, groups] : {std::pair<const char*, const ErrorGroups*>{"all rows", &v.overall},
                                      {"message size", &v.by_band},
                                      {"scale", &v.by_scale},
                                      {"size band", &v.by_size},
                                      {"fabric family", &v.by_family},
                                      {"gpu", &v.by_gpu},
                                      {"operation", &v.by_op},
                                      {"gpu and operation", &v.by_gpu_op}}) {
    out += fmt::format("\n{}", error_groups_text(title, *groups));
  }
  // One fit: each constant's value, "(prior: why)" where the rows could not see it.
  const auto fit_text = [](const CollectiveConstantsFit& f, const std::string& indent) {
    std::string refit;
    std::string prior;
    for (const auto& c : f.constants) {
      const std::string value = fmt::format("{} {:.4g}{}", c.name, c.value, c.unit.empty() ? "" : " " + c.unit);
      if (c.refitted) {
        refit += fmt::format("{}{} ({} rows)", refit.empty() ? "" : ", ", value, c.visible_rows);
      } else {
        prior += fmt::format("{}{} ({})", prior.empty() ? "" : ", ", value, c.why_prior);
      }
    }
    return fmt::format("{}{} training rows, mean |log error| {:.4f}, {} sweeps\n{}  refitted: {}\n{}  prior:    {}\n",
                       indent, f.rows, f.loss, f.sweeps, indent, refit.empty() ? "none" : refit, indent,
                       prior.empty() ? "none" : prior);
  };
  // One held-out scheme (sources or GPU types): each fold's constants, then its error tables.
  const auto held_out_text = [&fit_text](const char* intro, const char* tag,
                                         const std::vector<CollectiveConstantsFit>& folds, const ErrorGroups& overall,
                                         const ErrorGroups& by_scale, const ErrorGroups& by_size,
                                         const char* group_name, const ErrorGroups& by_group) {
    std::string s = fmt::format("\n{}\n", intro);
    for (const auto& f : folds) s += fmt::format("  without {}:\n{}", f.held_out, fit_text(f, "    "));
    s += fmt::format("\n{}", error_groups_text(fmt::format("{} all rows", tag), overall));
    s += fmt::format("\n{}", error_groups_text(fmt::format("{} scale", tag), by_scale));
    s += fmt::format("\n{}", error_groups_text(fmt::format("{} size band", tag), by_size));
    s += fmt::format("\n{}", error_groups_text(fmt::format("{} {}", tag, group_name), by_group));
    return s;
  };
  if (v.fit) {
    TextTable ft({"constant", "fitted on every row", "shipped", "prior", "rows that see it"},
                {A::left, A::right, A::right, A::right, A::right});
    for (const auto& c : v.fit->constants) {
      const std::string unit = c.unit.empty() ? "" : " " + c.unit;
      ft.add_row({c.name, c.refitted ? fmt::format("{:.4g}{}", c.value, unit) : "(prior)",
                 fmt::format("{:.4g}{}", c.shipped, unit), fmt::format("{:.4g}{}", c.prior, unit),
                 std::to_string(c.visible_rows)});
    }
    out += fmt::format("\n--fit: every fitted constant refitted on all {} rows (mean |log error| {:.4f}, {} sweeps)\n{}",
                       v.fit->rows, v.fit->loss, v.fit->sweeps, ft.render());
    out += fmt::format("\n{}", error_groups_text("with the constants fitted on every row", v.fitted_overall));
    out += fmt::format("\n{}", error_groups_text("fitted, by scale", v.fitted_by_scale));
  }
  if (v.loso) {
    out += held_out_text("leave-one-source-out: each source predicted with every fitted constant refitted on the others",
                         "LOSO", v.folds, v.loso_overall, v.loso_by_scale, v.loso_by_size, "source", v.loso_by_source);
    out += fmt::format("\n{}", error_groups_text("LOSO fabric family", v.loso_by_family));
  }
  if (v.logo) {
    out += held_out_text(
        "leave-one-gpu-out: each GPU type's rows predicted with every fitted constant refitted on the others", "LOGO",
        v.gpu_folds, v.logo_overall, v.logo_by_scale, v.logo_by_size, "gpu", v.logo_by_gpu);
  }
  return out;
}

nlohmann::ordered_json to_json(const CollectiveValidation& v) {
  nlohmann::ordered_json j;
  j["file"] = v.file;
  j["collective_params"] = v.params_id;
  j["error_definition"] = "(predicted_time - measured_time) / measured_time";
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : v.rows) {
    nlohmann::ordered_json row;
    row["line"] = r.line;
    row["id"] = r.id;
    row["gpu"] = r.gpu;
    row["system"] = r.system;
    row["op"] = op_name(r.request.op);
    row["gpus"] = r.gpus;
    row["nodes"] = r.nodes;
    row["bytes"] = r.request.bytes;
    row["measured_time_s"] = r.measured_time_s;
    row["predicted_time_s"] = r.predicted.time_s;
    row["error"] = r.error;
    row["measured_busbw_bytes_per_s"] = r.measured_busbw_bytes_per_s;
    row["predicted_busbw_bytes_per_s"] = r.predicted.busbw_bytes_per_s;
    row["algorithm"] = algorithm_name(r.predicted.algorithm);
    row["protocol"] = protocol_name(r.predicted.protocol);
    row["bottleneck"] = r.predicted.bottleneck_level;
    row["scale_band"] = r.scale_band;
    row["size_band"] = r.size_band;
    row["fabric_family"] = r.fabric_family;
    if (r.loso_error) row["loso_error"] = *r.loso_error;
    if (r.logo_error) row["logo_error"] = *r.logo_error;
    j["rows"].push_back(row);
  }
  nlohmann::ordered_json summary;
  summary["all"] = error_groups_json(v.overall)["all"];
  summary["by_size"] = error_groups_json(v.by_band);
  summary["by_scale"] = error_groups_json(v.by_scale);
  summary["by_size_band"] = error_groups_json(v.by_size);
  summary["by_fabric_family"] = error_groups_json(v.by_family);
  summary["by_gpu"] = error_groups_json(v.by_gpu);
  summary["by_op"] = error_groups_json(v.by_op);
  summary["by_gpu_op"] = error_groups_json(v.by_gpu_op);
  j["summary"] = summary;
  const auto fit_json = [](const CollectiveConstantsFit& f) {
    nlohmann::ordered_json o;
    if (!f.held_out.empty()) o["held_out"] = f.held_out;
    o["rows"] = f.rows;
    o["mean_abs_log_error"] = f.loss;
    o["sweeps"] = f.sweeps;
    nlohmann::ordered_json cs = nlohmann::ordered_json::array();
    for (const auto& c : f.constants) {
      nlohmann::ordered_json x;
      x["name"] = c.name;
      x["unit"] = c.unit;
      x["value"] = c.value;
      x["refitted"] = c.refitted;
      x["prior"] = c.prior;
      x["shipped"] = c.shipped;
      x["visible_rows"] = c.visible_rows;
      if (!c.refitted) x["why_prior"] = c.why_prior;
      cs.push_back(x);
    }
    o["constants"] = cs;
    return o;
  };
  const auto held_out_json = [&fit_json](const std::vector<CollectiveConstantsFit>& folds, const ErrorGroups& overall,
                                         const ErrorGroups& by_scale, const ErrorGroups& by_size,
                                         const char* group_key, const ErrorGroups& by_group) {
    nlohmann::ordered_json lo;
    lo["folds"] = nlohmann::ordered_json::array();
    for (const auto& f : folds) lo["folds"].push_back(fit_json(f));
    lo["all"] = error_groups_json(overall)["all"];
    lo["by_scale"] = error_groups_json(by_scale);
    lo["by_size_band"] = error_groups_json(by_size);
    lo[group_key] = error_groups_json(by_group);
    return lo;
  };
  if (v.fit) {
    j["fit"] = fit_json(*v.fit);
    j["fit"]["all"] = error_groups_json(v.fitted_overall)["all"];
    j["fit"]["by_scale"] = error_groups_json(v.fitted_by_scale);
  }
  if (v.loso) {
    j["leave_one_source_out"] =
        held_out_json(v.folds, v.loso_overall, v.loso_by_scale, v.loso_by_size, "by_source", v.loso_by_source);
    j["leave_one_source_out"]["by_fabric_family"] = error_groups_json(v.loso_by_family);
  }
  if (v.logo) {
    j["leave_one_gpu_out"] =
        held_out_json(v.gpu_folds, v.logo_overall, v.logo_by_scale, v.logo_by_size, "by_gpu", v.logo_by_gpu);
  }
  return j;
}


namespace {

// "tensorrt-llm-1.0: step overhead 0.900 ms (12 rows), request overhead 40 ms (12 rows)".
std::string fitted_text(const InferFittedEngine& f) {
  const auto part = [](const char* what, double s, int rows) {
    return rows > 0 ? fmt::format("{} {:.3f} ms ({} rows)", what, s * 1e3, rows)
                    : fmt::format("{} {:.3f} ms (catalog; no rows show it)", what, s * 1e3);
  };
  return fmt::format("{}: {}, {}", f.engine, part("step overhead", f.step_overhead_s, f.step_rows),
                     part("request overhead", f.request_overhead_s, f.request_rows));
}

// "blackwell fp4: GEMM x0.62 (14 rows), weight streaming x0.45 (8 rows)".
std::string scale_text(const InferFittedScale& f) {
  const auto part = [](const char* what, double x, int rows) {
    return rows > 0 ? fmt::format("{} x{:.2f} ({} rows)", what, x, rows) : fmt::format("{} x1 (no rows show it)", what);
  };
  return fmt::format("{} {}: {}, {}", f.family, precision_name(f.precision), part("GEMM", f.gemm_scale, f.gemm_rows),
                     part("weight streaming", f.bw_scale, f.bw_rows));
}

std::string fit_text(const InferFit& fit, const std::string& indent) {
  std::string s;
  for (const auto& e : fit.engines) s += indent + fitted_text(e) + "\n";
  for (const auto& f : fit.scales) s += indent + scale_text(f) + "\n";
  return s;
}

nlohmann::ordered_json fitted_json(const InferFit& fit) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& f : fit.engines) {
    nlohmann::ordered_json x;
    x["engine"] = f.engine;
    x["step_overhead_us"] = f.step_overhead_s * 1e6;
    x["step_overhead_rows"] = f.step_rows;
    x["request_overhead_us"] = f.request_overhead_s * 1e6;
    x["request_overhead_rows"] = f.request_rows;
    a.push_back(x);
  }
  j["engines"] = a;
  nlohmann::ordered_json b = nlohmann::ordered_json::array();
  for (const auto& f : fit.scales) {
    nlohmann::ordered_json x;
    x["family"] = f.family;
    x["precision"] = precision_name(f.precision);
    x["gemm_scale"] = f.gemm_scale;
    x["gemm_rows"] = f.gemm_rows;
    x["bw_scale"] = f.bw_scale;
    x["bw_rows"] = f.bw_rows;
    b.push_back(x);
  }
  j["serving_scales"] = b;
  return j;
}

}  // namespace

std::string to_text(const InferValidation& v) {
  TextTable t({"id", "metric", "measured", "predicted", "error"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const auto& r : v.rows) {
    t.add_row({r.id, r.metric, fmt_number(r.measured, 1), r.predicted > 0 ? fmt_number(r.predicted, 1) : "-",
               r.predicted > 0 ? fmt::format("{:+.1f}%", 100 * r.error()) : r.note});
  }
  std::string s = fmt::format("Scored {}: {}\n\n", holdout_name(v.holdout),
                              v.holdout == InferHoldout::none
                                  ? "the catalog's constants, fitted on this file (see --leave-one-gpu-out)"
                                  : "each fold's rows predicted with the constants refit without them");
  if (v.simulate) s += "Closed-loop TTFT and TPOT from the scheduler simulation (--simulate)\n\n";
  s += t.render() + "\n";
  // Offline rows scored as their benchmark's finite run (num_requests): how much it moved them.
  int finite_rows = 0;
  double finite_lo = 1, finite_hi = 1;
  for (const auto& r : v.rows) {
    if (r.num_requests <= 0 || r.predicted <= 0) continue;
    finite_lo = finite_rows == 0 ? r.finite_run_factor : std::min(finite_lo, r.finite_run_factor);
    finite_hi = finite_rows == 0 ? r.finite_run_factor : std::max(finite_hi, r.finite_run_factor);
    ++finite_rows;
  }
  if (finite_rows > 0) {
    s += fmt::format("{} offline rows scored as their benchmark's finite run of num_requests requests (ramp-up and "
                     "drain): steady-state tokens/s x {:.3f} to {:.3f}\n\n",
                     finite_rows, finite_lo, finite_hi);
  }
  s += error_groups_text("By metric", v.by_metric) + "\n";
  s += error_groups_text("By engine", v.by_engine) + "\n";
  s += error_groups_text("By GPU", v.by_gpu) + "\n";
  s += error_groups_text("By model", v.by_model) + "\n";
  s += error_groups_text("engine | GPU | precision | band | metric", v.by_group);
  if (!v.folds.empty()) {
    s += "\nConstants refit per fold (held out: fitted on the rest)\n";
    for (const auto& f : v.folds) {
      s += fmt::format("  without {} ({} rows scored)\n", f.held_out, f.rows);
      s += fit_text(f.fitted, "    ");
    }
  }
  if (v.has_fit) s += "\nConstants fitted on every row (--fit)\n" + fit_text(v.fitted_all, "  ");
  if (v.skipped > 0) s += fmt::format("\n{} rows without a prediction (infeasible; see the table)\n", v.skipped);
  return s;
}

nlohmann::ordered_json to_json(const InferValidation& v) {
  nlohmann::ordered_json j;
  j["holdout"] = std::string(holdout_name(v.holdout));
  if (v.simulate) j["simulate"] = true;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& r : v.rows) {
    nlohmann::ordered_json x;
    x["id"] = r.id;
    x["model"] = r.model;
    x["gpu"] = r.gpu;
    x["engine"] = r.engine;
    x["mode"] = r.mode;
    x["precision"] = r.precision;
    x["band"] = r.band;
    x["metric"] = r.metric;
    x["measured"] = r.measured;
    x["predicted"] = r.predicted > 0 ? nlohmann::ordered_json(r.predicted) : nullptr;
    x["error"] = r.predicted > 0 ? nlohmann::ordered_json(r.error()) : nullptr;
    if (!r.note.empty()) x["note"] = r.note;
    if (r.num_requests > 0) {
      // The benchmark's finite run (infer/finite_run.h): its request count and the factor applied.
      x["num_requests"] = r.num_requests;
      x["finite_run_factor"] = r.finite_run_factor;
    }
    rows.push_back(x);
  }
  j["rows"] = rows;
  j["by_metric"] = error_groups_json(v.by_metric);
  j["by_engine"] = error_groups_json(v.by_engine);
  j["by_gpu"] = error_groups_json(v.by_gpu);
  j["by_model"] = error_groups_json(v.by_model);
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const auto& [name, sum] : v.by_group.summaries()) {
    // The key is "engine | gpu | precision | band | metric"; split it back into fields.
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t bar = name.find(" | "); bar != std::string::npos; bar = name.find(" | ", start)) {
      parts.push_back(name.substr(start, bar - start));
      start = bar + 3;
    }
    parts.push_back(name.substr(start));
    nlohmann::ordered_json g;
    g["engine"] = parts.size() > 0 ? parts[0] : "";
    g["gpu"] = parts.size() > 1 ? parts[1] : "";
    g["precision"] = parts.size() > 2 ? parts[2] : "";
    g["band"] = parts.size() > 3 ? parts[3] : "";
    g["metric"] = parts.size() > 4 ? parts[4] : "";
    g.update(error_summary_json(sum));
    groups.push_back(g);
  }
  j["by_group"] = groups;
  if (!v.folds.empty()) {
    nlohmann::ordered_json folds = nlohmann::ordered_json::array();
    for (const auto& f : v.folds) {
      nlohmann::ordered_json x;
      x["held_out"] = f.held_out;
      x["rows"] = f.rows;
      x["fitted"] = fitted_json(f.fitted);
      folds.push_back(x);
    }
    j["folds"] = folds;
  }
  if (v.has_fit) j["fitted"] = fitted_json(v.fitted_all);
  j["skipped"] = v.skipped;
  return j;
}


namespace {

// The compared quantity in its unit, e.g. "1.42 s", "380 tok/s", "400 TFLOP/s", "41.0%".
std::string quantity_text(MeasuredQuantity q, double value) {
  switch (q) {
    case MeasuredQuantity::step_time: return format_seconds(value);
    case MeasuredQuantity::tokens_per_s_per_gpu: return fmt::format("{:.0f} tok/s", value);
    case MeasuredQuantity::tflops_per_gpu: return fmt::format("{:.0f} TFLOP/s", value);
    case MeasuredQuantity::mfu: return fmt::format("{:.1f}%", value);
    case MeasuredQuantity::gpu_hours: return fmt::format("{:.3g} GPU-h", value);
  }
  return "-";
}

// "TFLOP/s/GPU (hw, recompute)": the quantity, and for FLOP rates how the source counted.
std::string compared_on_text(const TrainValidationRow& r) {
  std::string out = measured_quantity_name(r.compared_on);
  switch (r.flops_counting) {
    case FlopsCounting::model_causal: return out + " (model, causal)";
    case FlopsCounting::model_full_attention: return out + " (model, full attn)";
    case FlopsCounting::hardware_full_recompute: return out + " (hw, recompute)";
    case FlopsCounting::unstated: return out + " (unstated: model, causal)";
    case FlopsCounting::not_applicable: return out;
  }
  return out;
}

// The source whose median |error| is largest ("" when there is none).
std::string worst_source_text(const ErrorGroups& groups) {
  std::string name;
  double worst = -1;
  for (const auto& [group, s] : groups.summaries()) {
    if (s.median_abs_pct > worst) {
      worst = s.median_abs_pct;
      name = group;
    }
  }
  return name.empty() ? "" : fmt::format("; largest source median {:.1f}% ({})", worst, name);
}

}  // namespace

std::string to_text(const TrainValidation& v) {
  using A = TextTable::Align;
  TextTable t({"id", "model", "GPUs", "plan", "framework", "chosen for unknowns", "compared on", "measured", "predicted",
               "error (time)", "unknowns' spread"},
              {A::left, A::left, A::left, A::left, A::left, A::left, A::left, A::right, A::right, A::right, A::right});
  std::string skipped;
  std::string unscored;
  for (const auto& r : v.rows) {
    if (!r.evaluated) {
      skipped += fmt::format("  {} (line {}): {}\n", r.id, r.line, r.skipped);
      continue;
    }
    if (!r.not_scored.empty()) unscored += fmt::format("  {} (line {}): {}\n", r.id, r.line, r.not_scored);
    std::string plan = fmt::format("tp{} pp{}", r.plan.tp, r.plan.pp);
    if (r.plan.vp > 1) plan += fmt::format(" vp{}", r.plan.vp);
    plan += fmt::format(" dp{}", r.plan.dp);
    if (r.plan.cp > 1) plan += fmt::format(" cp{}", r.plan.cp);
    if (r.plan.ep > 1) plan += fmt::format(" ep{}", r.plan.ep);
    plan += fmt::format(" mb{} {}", r.plan.micro_batch, precision_name(r.plan.precision));
    const bool scored = r.measured_step_s > 0;
    t.add_row({r.id, r.model, fmt::format("{}×{}", r.gpus, r.gpu), plan, r.framework, r.chosen,
               scored ? compared_on_text(r) : "-", scored ? quantity_text(r.compared_on, r.measured_value) : "-",
               scored ? quantity_text(r.compared_on, r.predicted_value) : format_seconds(r.predicted_step_s),
               scored ? fmt::format("{:+.1f}%", 100 * r.error) : "-",
               scored && r.slowest_step_s > 0
                   ? fmt::format("{:+.0f}%..{:+.0f}%", 100 * (r.fastest_step_s / r.measured_step_s - 1),
                                 100 * (r.slowest_step_s / r.measured_step_s - 1))
                   : ""});
  }
  std::string out = fmt::format("Training step time, predicted vs measured ({})\n", v.file);
  out += t.render();
  out += "error (time) = predicted / measured step time − 1; for a rate (tokens/s, TFLOP/s, MFU) that is measured / "
         "predicted rate − 1, the rate's step time being the step's work over it (positive: the model is slow). "
         "TFLOP/s and MFU are predicted in the source's FLOP counting (model or hardware FLOPs, causal or full "
         "attention); MFU against the dense peak of the row's precision. Unknown fields take the row framework's "
         "defaults (data/fitted/frameworks/ [defaults]; the fastest setting that fits where it has none); the "
         "spread is the error over every setting of them that fits.\n";
  if (!skipped.empty()) out += "not predicted:\n" + skipped;
  if (!unscored.empty()) out += "predicted, not scored:\n" + unscored;
  out += error_groups_text("by source", v.by_source);
  out += error_groups_text("by compared quantity", v.by_quantity);
  const ErrorSummary& s = v.overall;
  out += fmt::format(
      "all {} rows: median |error| {:.1f}%, mean |error| {:.1f}%, bias {:+.1f}%, within ±10% {:.0f}%, ±15% {:.0f}%, "
      "±20% {:.0f}%{}\n",
      s.count, s.median_abs_pct, s.mean_abs_pct, s.mean_signed_pct, 100 * s.within_10_share, 100 * v.within_15_share,
      100 * v.within_20_share, worst_source_text(v.by_source));
  if (v.fit) {
    TextTable f({"efficiency entry", "rows", "GEMM bf16/fp16", "GEMM fp8", "GEMM fp4", "attention fwd", "attention bwd",
                 "HBM", "TP overlap"});
    for (std::size_t i = 0; i < v.fitted.size(); ++i) {
      const Efficiency& e = v.fitted[i];
      f.add_row({e.id, std::to_string(v.fitted_rows[i]), fmt::format("{:.3f}", e.gemm_fraction(Precision::bf16)),
                 fmt::format("{:.3f}", e.gemm_fraction(Precision::fp8)),
                 // fp4: only a family that states a figure of its own (Blackwell) fits one
                 e.gemm_peak_fraction[index_of(Precision::fp4)] > 0 ? fmt::format("{:.3f}", e.gemm_fraction(Precision::fp4))
                                                                    : std::string("-"),
                 fmt::format("{:.3f}", e.attention_fwd_fraction),
                 fmt::format("{:.3f}", e.attention_bwd_fraction), fmt::format("{:.3f}", e.memory_bw_fraction),
                 fmt::format("{:.2f}", e.tp_comm_overlap_fraction)});
    }
    out += "fitted efficiency (coordinate descent on capped |log error|; data/fitted/efficiency/ holds the result):\n";
    out += f.render();
    TextTable fw({"framework", "rows", "kernel us", "attention kernel scale", "fusion scale"});
    for (std::size_t i = 0; i < v.fitted_frameworks.size(); ++i) {
      const Framework& e = v.fitted_frameworks[i];
      fw.add_row({e.id + (e.is_default ? " (reference)" : ""), std::to_string(v.fitted_framework_rows[i]),
                  fmt::format("{:.1f}", e.kernel_launch_s * 1e6),
                  e.attention_materialized ? std::string("materialized") : fmt::format("{:.3f}", e.attention_scale),
                  fmt::format("{:.3f}", e.memory_scale)});
    }
    out += "fitted framework figures (data/fitted/frameworks/ holds the result):\n";
    out += fw.render();
    out += fmt::format("with the fitted figures: median |error| {:.1f}%, within ±15% {:.0f}%\n",
                       v.fitted_overall.median_abs_pct, 100 * v.fitted_within_15_share);
    if (v.at_bounds.empty()) {
      out += "no fitted figure at a bound\n";
    } else {
      // A figure pinned at the end of its plausible range stands in for a missing mechanism
      // (docs/validation.md, "Constants at their bounds", gives each one's reason).
      out += fmt::format("{} fitted figures at or within 1% of a bound (a mechanism missing; docs/validation.md):\n",
                         v.at_bounds.size());
      for (const ConstantAtBound& b : v.at_bounds) {
        out += fmt::format("  {} {} = {:.4g} ({} bound {:.4g}; {} rows)\n", b.entry, b.constant, b.value,
                           b.upper ? "upper" : "lower", b.bound, b.rows);
      }
    }
    // A figure no row's prediction moves with is not fitted: the rows carry nothing on it.
    if (!v.not_identified.empty()) {
      out += fmt::format("{} free figures no row sees (not fitted, committed value kept):\n", v.not_identified.size());
      for (const UnidentifiedConstant& u : v.not_identified) {
        out += fmt::format("  {} {} = {:.4g} ({} rows)\n", u.entry, u.constant, u.value, u.rows);
      }
    }
  }
  if (v.loso) {
    out += error_groups_text("leave one source out (each source predicted with efficiency fitted on the others)",
                             v.loso_by_source);
    out += fmt::format("leave-one-source-out, all {} rows: median |error| {:.1f}%, within ±15% {:.0f}%{}\n",
                       v.loso_overall.count, v.loso_overall.median_abs_pct, 100 * v.loso_within_15_share,
                       worst_source_text(v.loso_by_source));
  }
  if (!v.time_split.empty()) {
    out += error_groups_text(fmt::format("time split (fit on the {} rows published before {}, predict the rest)",
                                         v.time_split_fit_rows, v.time_split),
                             v.time_split_by_source);
    out += fmt::format("time split, {} rows published on or after {}: median |error| {:.1f}%, within ±15% {:.0f}%\n",
                       v.time_split_overall.count, v.time_split, v.time_split_overall.median_abs_pct,
                       100 * v.time_split_within_15_share);
  }
  return out;
}

nlohmann::ordered_json to_json(const TrainValidation& v) {
  nlohmann::ordered_json j;
  j["file"] = v.file;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : v.rows) {
    nlohmann::ordered_json row;
    row["id"] = r.id;
    row["source"] = r.source;
    row["line"] = r.line;
    row["model"] = r.model;
    row["gpu"] = r.gpu;
    row["system"] = r.system;
    row["gpus"] = r.gpus;
    row["evaluated"] = r.evaluated;
    if (!r.evaluated) {
      row["skipped"] = r.skipped;
      j["rows"].push_back(row);
      continue;
    }
    row["plan"] = plan_json(r.plan, ModelSpec{}, r.framework);
    row["chosen"] = r.chosen;
    if (r.slowest_step_s > 0) {
      // The spread between the plausible settings of the fields the source does not state.
      nlohmann::ordered_json u;
      u["fastest_step_time_s"] = r.fastest_step_s;
      u["slowest_step_time_s"] = r.slowest_step_s;
      if (r.measured_step_s > 0) {
        u["error_low"] = r.fastest_step_s / r.measured_step_s - 1;
        u["error_high"] = r.slowest_step_s / r.measured_step_s - 1;
      }
      row["uncertainty"] = u;
    }
    row["assumptions"] = r.assumptions;
    const bool scored = r.measured_step_s > 0;
    row["compared_on"] = scored ? nlohmann::ordered_json(measured_quantity_name(r.compared_on)) : nullptr;
    if (r.flops_counting != FlopsCounting::not_applicable) row["flops_counting"] = flops_counting_name(r.flops_counting);
    row["measured_value"] = scored ? nlohmann::ordered_json(r.measured_value) : nullptr;
    row["predicted_value"] = scored ? nlohmann::ordered_json(r.predicted_value) : nullptr;
    if (!r.not_scored.empty()) row["not_scored"] = r.not_scored;
    row["measured_step_time_s"] = scored ? nlohmann::ordered_json(r.measured_step_s) : nullptr;
    row["measured_derived"] = r.measured_derived;
    row["predicted_step_time_s"] = r.predicted_step_s;
    row["error"] = scored ? nlohmann::ordered_json(r.error) : nullptr;
    if (r.loso_error) row["loso_error"] = *r.loso_error;
    if (!r.published.empty()) row["published"] = r.published;
    if (r.time_split_error) row["time_split_error"] = *r.time_split_error;
    row["fits"] = r.estimate.fits();
    row["mfu"] = r.estimate.mfu;
    row["memory_per_gpu_bytes"] = r.estimate.memory.total_bytes;
    row["bottleneck"] = bottleneck_name(r.estimate.bottleneck);
    j["rows"].push_back(row);
  }
  j["by_source"] = error_groups_json(v.by_source);
  j["by_compared_on"] = error_groups_json(v.by_quantity);
  nlohmann::ordered_json all = error_summary_json(v.overall);
  all["within_15_pct_share"] = v.within_15_share;
  all["within_20_pct_share"] = v.within_20_share;
  j["overall"] = all;
  if (v.loso) {
    j["leave_one_source_out"]["by_source"] = error_groups_json(v.loso_by_source);
    nlohmann::ordered_json lo = error_summary_json(v.loso_overall);
    lo["within_15_pct_share"] = v.loso_within_15_share;
    j["leave_one_source_out"]["overall"] = lo;
  }
  if (v.fit) {
    nlohmann::ordered_json fo = error_summary_json(v.fitted_overall);
    fo["within_15_pct_share"] = v.fitted_within_15_share;
    j["fit"]["overall"] = fo;
    j["fit"]["constants_at_bounds"] = nlohmann::ordered_json::array();
    for (const ConstantAtBound& b : v.at_bounds) {
      nlohmann::ordered_json c;
      c["entry"] = b.entry;
      c["constant"] = b.constant;
      c["value"] = b.value;
      c["bound"] = b.bound;
      c["side"] = b.upper ? "upper" : "lower";
      c["rows"] = b.rows;
      j["fit"]["constants_at_bounds"].push_back(c);
    }
    j["fit"]["constants_not_identified"] = nlohmann::ordered_json::array();
    for (const UnidentifiedConstant& u : v.not_identified) {
      j["fit"]["constants_not_identified"].push_back(
          {{"entry", u.entry}, {"constant", u.constant}, {"value", u.value}, {"rows", u.rows}});
    }
  }
  if (!v.time_split.empty()) {
    j["time_split"]["date"] = v.time_split;
    j["time_split"]["fit_rows"] = v.time_split_fit_rows;
    j["time_split"]["by_source"] = error_groups_json(v.time_split_by_source);
    nlohmann::ordered_json ts = error_summary_json(v.time_split_overall);
    ts["within_15_pct_share"] = v.time_split_within_15_share;
    j["time_split"]["overall"] = ts;
  }
  return j;
}


namespace {

std::string error_pct(double predicted, double measured) {
  return predicted > 0 ? fmt::format("{:+.1f}%", 100 * relative_error(predicted, measured)) : "-";
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

std::string to_text(const CalibrationValidation& v) {
  std::string out = fmt::format("Calibration profile {} ({}): measured vs predicted\n", v.profile_file, v.gpu_id);
  for (const std::string& n : v.notes) out += "  " + n + "\n";
  if (!v.gemms.empty()) {
    TextTable t({"precision", "M", "N", "K", "measured TFLOP/s", "before", "err", "after (LOO)", "err"},
                {TextTable::Align::left});
    for (const GemmCheck& g : v.gemms) {
      t.add_row({std::string(precision_name(g.precision)), fmt_number(g.m), fmt_number(g.n), fmt_number(g.k),
                 fmt_number(g.measured_flops_per_s / 1e12, 1), fmt_number(g.before_flops_per_s / 1e12, 1),
                 error_pct(g.before_flops_per_s, g.measured_flops_per_s),
                 g.after_flops_per_s > 0 ? fmt_number(g.after_flops_per_s / 1e12, 1) : "-",
                 error_pct(g.after_flops_per_s, g.measured_flops_per_s)});
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
                 fmt_number(l.kernel_before_s * 1e3, 3), error_pct(l.kernel_before_s, m),
                 fmt_number(l.kernel_after_s * 1e3, 3), error_pct(l.kernel_after_s, m),
                 fmt::format("{:.0f}%", 100 * l.kernel_gemm_share), fmt_number(l.train_before_s * 1e3, 3),
                 error_pct(l.train_before_s, m), fmt_number(l.train_after_s * 1e3, 3), error_pct(l.train_after_s, m)});
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
                 fmt_number(st.kernel_before_s * 1e3, 2), error_pct(st.kernel_before_s, m),
                 fmt_number(st.kernel_after_s * 1e3, 2), error_pct(st.kernel_after_s, m),
                 fmt::format("{:.0f}%", 100 * st.kernel_gemm_share), fmt_number(st.train_before_s * 1e3, 2),
                 error_pct(st.train_before_s, m), fmt_number(st.train_after_s * 1e3, 2),
                 error_pct(st.train_after_s, m)});
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
                 c.model_s > 0 ? fmt_number(c.model_s * 1e6, 1) : "-", error_pct(c.model_s, c.measured_s)});
    }
    out += fmt::format("\nCollectives (model on {})\n", v.system_id) + t.render();
    out += error_groups_text("Collective model error", v.collective_model);
  }
  if (v.gemms.empty() && v.layers.empty() && v.steps.empty() && v.collectives.empty() && v.bandwidth.empty()) {
    out += "the profile has no GEMM, HBM, layer or collective measurements to compare\n";
  }
  return out;
}

nlohmann::ordered_json to_json(const CalibrationValidation& v) {
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
