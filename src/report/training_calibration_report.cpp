// `gpuplan calibrate training`: the runs, before and after, and the constants.
#include "report/training_calibration_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"

namespace gpuplan {
namespace {

std::string signed_pct(double predicted, double measured) {
  if (predicted <= 0 || measured <= 0) return "-";
  return fmt::format("{:+.1f}%", 100 * (predicted - measured) / measured);
}

std::string summary_line(const char* what, const ErrorSummary& before, const ErrorSummary& after) {
  if (before.count == 0) return fmt::format("{}: no run measured it\n", what);
  std::string s = fmt::format("{}: median |error| {:.1f}% with the catalog's constants", what, before.median_abs_pct);
  if (after.count > 0) {
    s += fmt::format(" -> {:.1f}% calibrated (each run predicted from the others: leave one row out; bias {:+.1f}%)",
                     after.median_abs_pct, after.mean_signed_pct);
  } else {
    s += " (one run: no leave-one-row-out error)";
  }
  return s + "\n";
}

nlohmann::ordered_json summary_json(const ErrorSummary& e) {
  return {{"rows", e.count}, {"median_abs_pct", e.median_abs_pct}, {"mean_signed_pct", e.mean_signed_pct}};
}

}  // namespace

std::string to_text(const CalibrateTrainingAnswer& a) {
  const TrainingCalibrationAnswer& f = a.fit;
  std::string out = fmt::format("calibration on {} runs of {} ({} with a measured peak memory)\n", f.calibration.rows,
                                f.calibration.runs, f.calibration.memory_rows);
  TextTable t({"run", "gpu", "framework", "measured s", "catalog", "calibrated (LORO)", "peak GiB", "catalog",
               "calibrated (LORO)"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::left, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const CalibrationRun& r : f.runs) {
    const double peak = r.measured_peak_bytes.value_or(0);
    t.add_row({r.id, r.gpu, r.framework, fmt::format("{:.4f}", r.measured_step_s), signed_pct(r.before_step_s, r.measured_step_s),
               signed_pct(r.loro_step_s, r.measured_step_s), peak > 0 ? fmt::format("{:.2f}", peak / kGiB) : "-",
               signed_pct(r.before_peak_bytes, peak), signed_pct(r.loro_peak_bytes, peak)});
  }
  out += t.render();
  out += summary_line("step time", f.step_before, f.step_loro);
  out += summary_line("peak memory reserved", f.memory_before, f.memory_loro);
  if (f.allocated.count > 0) {
    out += fmt::format("peak memory allocated (the tensor count alone, nothing fitted): median |error| {:.1f}%, bias "
                       "{:+.1f}%, {} runs\n",
                       f.allocated.median_abs_pct, f.allocated.mean_signed_pct, f.allocated.count);
  }
  if (f.skipped_oom > 0) out += fmt::format("{} runs ran out of memory (oom = 1): not fitted on\n", f.skipped_oom);
  out += "fitted:\n";
  for (const CalibratedEfficiency& e : f.calibration.efficiencies) {
    for (const CalibratedConstant& k : e.constants) out += fmt::format("  {} {} = {:.4g} (catalog {:.4g})\n", e.id, k.name, k.fitted, k.catalog);
  }
  for (const CalibratedFramework& e : f.calibration.frameworks) {
    for (const CalibratedConstant& k : e.constants) out += fmt::format("  {} {} = {:.4g} (catalog {:.4g})\n", e.id, k.name, k.fitted, k.catalog);
  }
  if (!f.calibration.refused.empty()) {
    out += "not fitted (the runs cannot see them; the catalog's values stay):\n";
    for (const std::string& r : f.calibration.refused) out += "  " + r + "\n";
  }
  if (!a.out.empty()) out += fmt::format("wrote {}: use it with `gpuplan train|search ... --calibration {}`\n", a.out, a.out);
  return out;
}

nlohmann::ordered_json to_json(const CalibrateTrainingAnswer& a) {
  const TrainingCalibrationAnswer& f = a.fit;
  nlohmann::ordered_json j;
  j["calibration"] = training_calibration_json(f.calibration);
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const CalibrationRun& r : f.runs) {
    nlohmann::ordered_json row;
    row["id"] = r.id;
    row["line"] = r.line;
    row["gpu"] = r.gpu;
    row["framework"] = r.framework;
    row["measured_step_s"] = r.measured_step_s;
    row["catalog_step_s"] = r.before_step_s;
    row["loro_step_s"] = r.loro_step_s;
    row["fitted_step_s"] = r.fitted_step_s;
    if (r.measured_peak_bytes) {
      row["measured_peak_bytes"] = *r.measured_peak_bytes;
      row["catalog_peak_bytes"] = r.before_peak_bytes;
      row["loro_peak_bytes"] = r.loro_peak_bytes;
      row["fitted_peak_bytes"] = r.fitted_peak_bytes;
    }
    runs.push_back(row);
  }
  j["runs"] = runs;
  j["step_error"] = {{"catalog", summary_json(f.step_before)}, {"leave_one_row_out", summary_json(f.step_loro)}};
  j["memory_error"] = {{"catalog", summary_json(f.memory_before)}, {"leave_one_row_out", summary_json(f.memory_loro)}};
  j["allocated_error"] = summary_json(f.allocated);
  j["skipped_oom"] = f.skipped_oom;
  j["out"] = a.out;
  return j;
}

}  // namespace gpuplan
