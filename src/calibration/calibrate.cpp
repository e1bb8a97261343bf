#include "calibration/calibrate.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "core/table.h"

namespace gpuplan {
namespace {

std::string ratio_text(double measured, double datasheet) {
  return datasheet > 0 ? fmt::format("{:.1f}%", 100 * measured / datasheet) : "-";
}

}  // namespace

void check_profile_gpu(const Gpu& gpu, const CalibrationProfile& profile) {
  if (to_lower(profile.gpu_id) != to_lower(gpu.id)) {
    throw Error(fmt::format("{}: measured on '{}' ({}), not '{}'; measure this GPU with gpuplan-bench --gpu {}",
                            profile.file, profile.gpu_id, profile.gpu_name, gpu.id, gpu.id));
  }
}

double hbm_min_buffer_bytes(const Gpu& gpu) { return 4 * gpu.l2_bytes.value_or(0); }

Gpu apply_calibration(const Gpu& datasheet, const CalibrationProfile& profile) {
  check_profile_gpu(datasheet, profile);
  Gpu calibrated = datasheet;
  for (Precision p : kAllPrecisions) {
    if (const auto peak = profile.peak_flops_per_s(p)) calibrated.dense_flops_per_s[index_of(p)] = *peak;
  }
  if (const auto bw = profile.hbm_bw_bytes_per_s(hbm_min_buffer_bytes(datasheet))) {
    calibrated.memory_bw_bytes_per_s = *bw;
  }
  calibrated.notes = fmt::format("calibrated from {} ({}, {}, driver {})", profile.file, profile.date, profile.tool,
                                 profile.driver);
  return calibrated;
}

std::string calibration_compare_text(const Gpu& datasheet, const Gpu& calibrated, const CalibrationProfile& profile) {
  std::string out = fmt::format("{} — datasheet vs measured\n", datasheet.name);
  out += fmt::format("profile: {}\nmeasured {} on {} ({} SMs), driver {}, CUDA {}, with {}\ncommand: {}\n\n",
                     profile.file, profile.date, profile.gpu_name, profile.sm_count, profile.driver, profile.cuda,
                     profile.tool, profile.command);
  TextTable table({"figure", "datasheet", "measured", "measured / datasheet"},
                  {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
  for (Precision p : kAllPrecisions) {
    if (!profile.peak_flops_per_s(p)) continue;
    table.add_row({fmt::format("{} dense TFLOP/s", precision_name(p)), fmt_number(datasheet.dense(p) / kTera, 1),
                   fmt_number(calibrated.dense(p) / kTera, 1), ratio_text(calibrated.dense(p), datasheet.dense(p))});
  }
  if (profile.hbm_bw_bytes_per_s(hbm_min_buffer_bytes(datasheet))) {
    table.add_row({"HBM TB/s", fmt_number(datasheet.memory_bw_bytes_per_s / kTera, 2),
                   fmt_number(calibrated.memory_bw_bytes_per_s / kTera, 2),
                   ratio_text(calibrated.memory_bw_bytes_per_s, datasheet.memory_bw_bytes_per_s)});
  }
  if (table.rows() == 0) return out + "the profile holds no GEMM or bandwidth measurement; nothing overridden\n";
  return out + table.render();
}

nlohmann::ordered_json calibration_compare_json(const Gpu& datasheet, const Gpu& calibrated,
                                                const CalibrationProfile& profile) {
  nlohmann::ordered_json j;
  j["gpu"] = datasheet.id;
  j["profile"] = profile.file;
  j["measured"] = {{"date", profile.date}, {"tool", profile.tool}, {"driver", profile.driver},
                   {"cuda", profile.cuda}, {"gpu_name", profile.gpu_name}, {"command", profile.command}};
  j["overrides"] = nlohmann::ordered_json::array();
  for (Precision p : kAllPrecisions) {
    if (!profile.peak_flops_per_s(p)) continue;
    j["overrides"].push_back({{"figure", fmt::format("{}_dense_flops_per_s", precision_name(p))},
                              {"datasheet", datasheet.dense(p)},
                              {"measured", calibrated.dense(p)}});
  }
  if (profile.hbm_bw_bytes_per_s(hbm_min_buffer_bytes(datasheet))) {
    j["overrides"].push_back({{"figure", "hbm_bw_bytes_per_s"},
                              {"datasheet", datasheet.memory_bw_bytes_per_s},
                              {"measured", calibrated.memory_bw_bytes_per_s}});
  }
  return j;
}

}  // namespace gpuplan
