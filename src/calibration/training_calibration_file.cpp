// Training calibration files: write, read, and apply to catalog entries.
#include "calibration/training_calibration_file.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_fields.h"
#include "core/precision.h"

namespace gpuplan {
namespace {

// The names are the data files' keys (data/fitted/efficiency/*.toml, data/fitted/frameworks/*.toml).
constexpr const char* kGemm16 = "gemm.peak_fraction.bf16";
constexpr const char* kGemmFp8 = "gemm.peak_fraction.fp8";
constexpr const char* kAttention = "attention.fwd_peak_fraction";
constexpr const char* kMemoryBw = "memory.bw_fraction";
constexpr const char* kTpOverlap = "overlap.tp_comm_fraction";
constexpr const char* kFragmentation = "runtime_memory.fragmentation_fraction";
constexpr const char* kLaunch = "kernel.launch_us";
constexpr const char* kAttentionScale = "attention.kernel_scale";
constexpr const char* kFusion = "memory.fusion_scale";
constexpr const char* kMemoryError = "memory_terms.memory_error_fraction";

nlohmann::ordered_json constants_json(const std::vector<CalibratedConstant>& cs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const CalibratedConstant& c : cs) out[c.name] = {{"catalog", c.catalog}, {"fitted", c.fitted}};
  return out;
}

std::vector<CalibratedConstant> parse_constants(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected an object of constants", where));
  std::vector<CalibratedConstant> out;
  for (const auto& [name, v] : j.items()) {
    if (!v.is_object() || !v.contains("fitted") || !v["fitted"].is_number()) {
      throw Error(fmt::format("{}.{}: expected {{\"catalog\": number, \"fitted\": number}}", where, name));
    }
    CalibratedConstant c;
    c.name = name;
    c.fitted = v["fitted"].get<double>();
    c.catalog = v.value("catalog", c.fitted);
    if (!(c.fitted >= 0)) throw Error(fmt::format("{}.{}.fitted: {} must be 0 or more", where, name, c.fitted));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<CalibratedConstant> efficiency_constants(const Efficiency& e) {
  return {{kGemm16, e.gemm_peak_fraction[index_of(Precision::bf16)], e.gemm_peak_fraction[index_of(Precision::bf16)]},
          {kGemmFp8, e.gemm_fraction(Precision::fp8), e.gemm_fraction(Precision::fp8)},
          {kAttention, e.attention_fwd_fraction, e.attention_fwd_fraction},
          {kMemoryBw, e.memory_bw_fraction, e.memory_bw_fraction},
          {kTpOverlap, e.tp_comm_overlap_fraction, e.tp_comm_overlap_fraction},
          {kFragmentation, e.fragmentation_fraction, e.fragmentation_fraction}};
}

std::vector<CalibratedConstant> framework_constants(const Framework& f) {
  return {{kLaunch, f.kernel_launch_s * 1e6, f.kernel_launch_s * 1e6},
          {kAttentionScale, f.attention_scale, f.attention_scale},
          {kFusion, f.memory_scale, f.memory_scale},
          {kMemoryError, f.memory.memory_error_fraction, f.memory.memory_error_fraction}};
}

void set_efficiency_constant(Efficiency& e, const std::string& name, double value) {
  if (name == kGemm16) {
    e.gemm_peak_fraction[index_of(Precision::bf16)] = value;
    e.gemm_peak_fraction[index_of(Precision::fp16)] = value;
  } else if (name == kGemmFp8) {
    e.gemm_peak_fraction[index_of(Precision::fp8)] = value;
  } else if (name == kAttention) {
    // The backward keeps its ratio to the forward (validate training --fit does the same).
    const double ratio = e.attention_fwd_fraction > 0 ? e.attention_bwd_fraction / e.attention_fwd_fraction : 1;
    e.attention_fwd_fraction = value;
    e.attention_bwd_fraction = std::min(1.0, value * ratio);
  } else if (name == kMemoryBw) {
    e.memory_bw_fraction = value;
  } else if (name == kTpOverlap) {
    e.tp_comm_overlap_fraction = value;
  } else if (name == kFragmentation) {
    e.fragmentation_fraction = value;
  } else {
    throw Error(fmt::format("training calibration: unknown GPU-family constant '{}'", name));
  }
}

void set_framework_constant(Framework& f, const std::string& name, double value) {
  if (name == kLaunch) {
    f.kernel_launch_s = value * 1e-6;
  } else if (name == kAttentionScale) {
    f.attention_scale = value;
  } else if (name == kFusion) {
    f.memory_scale = value;
  } else if (name == kMemoryError) {
    f.memory.memory_error_fraction = value;
  } else {
    throw Error(fmt::format("training calibration: unknown framework constant '{}'", name));
  }
}

nlohmann::ordered_json training_calibration_json(const TrainingCalibration& c) {
  nlohmann::ordered_json j;
  j["schema"] = kTrainingCalibrationSchema;
  j["runs"] = c.runs;
  j["rows"] = c.rows;
  j["memory_rows"] = c.memory_rows;
  j["gpus"] = c.gpus;
  nlohmann::ordered_json eff = nlohmann::ordered_json::array();
  for (const CalibratedEfficiency& e : c.efficiencies) eff.push_back({{"id", e.id}, {"constants", constants_json(e.constants)}});
  j["efficiency"] = eff;
  nlohmann::ordered_json fw = nlohmann::ordered_json::array();
  for (const CalibratedFramework& f : c.frameworks) fw.push_back({{"id", f.id}, {"constants", constants_json(f.constants)}});
  j["frameworks"] = fw;
  j["refused"] = c.refused;
  return j;
}

TrainingCalibration parse_training_calibration(const nlohmann::json& doc, const std::string& file) {
  if (!doc.is_object() || doc.value("schema", std::string()) != kTrainingCalibrationSchema) {
    throw Error(fmt::format("{}: not a training calibration (schema must be \"{}\")", file, kTrainingCalibrationSchema));
  }
  TrainingCalibration c;
  c.file = file;
  c.runs = doc.value("runs", std::string());
  c.rows = doc.value("rows", 0);
  c.memory_rows = doc.value("memory_rows", 0);
  if (doc.contains("gpus")) c.gpus = doc["gpus"].get<std::vector<std::string>>();
  if (doc.contains("refused")) c.refused = doc["refused"].get<std::vector<std::string>>();
  auto entries = [&](const char* key, auto& out) {
    if (!doc.contains(key)) return;
    if (!doc[key].is_array()) throw Error(fmt::format("{}: '{}' must be an array", file, key));
    std::size_t i = 0;
    for (const auto& e : doc[key]) {
      const std::string where = fmt::format("{}: {}[{}]", file, key, i++);
      if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) throw Error(where + ".id: expected a string");
      out.push_back({e["id"].get<std::string>(), parse_constants(e.value("constants", nlohmann::json::object()), where + ".constants")});
    }
  };
  entries("efficiency", c.efficiencies);
  entries("frameworks", c.frameworks);
  // Every name must be one this version knows, so a typo is an error, not an ignored figure.
  Efficiency e;
  for (const CalibratedEfficiency& ce : c.efficiencies) {
    for (const CalibratedConstant& k : ce.constants) set_efficiency_constant(e, k.name, k.fitted);
  }
  Framework f;
  for (const CalibratedFramework& cf : c.frameworks) {
    for (const CalibratedConstant& k : cf.constants) set_framework_constant(f, k.name, k.fitted);
  }
  return c;
}

std::optional<TrainingCalibration> read_training_calibration(const std::string& path) {
  const std::string text = read_input_file(path, "--calibration");
  check_json_depth(text, path);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  if (doc.value("schema", std::string()) != kTrainingCalibrationSchema) return std::nullopt;
  return parse_training_calibration(doc, path);
}

Efficiency calibrated_efficiency(const Efficiency& base, const TrainingCalibration& c, std::vector<std::string>& notes) {
  Efficiency e = base;
  for (const CalibratedEfficiency& ce : c.efficiencies) {
    if (ce.id != base.id) continue;
    for (const CalibratedConstant& k : ce.constants) {
      set_efficiency_constant(e, k.name, k.fitted);
      notes.push_back(fmt::format("{} {}: {:.4g} (catalog {:.4g}), fitted on {} runs of {}", base.id, k.name, k.fitted,
                                  k.catalog, c.rows, c.runs));
    }
  }
  return e;
}

Framework calibrated_framework(const Framework& base, const TrainingCalibration& c, std::vector<std::string>& notes) {
  Framework f = base;
  for (const CalibratedFramework& cf : c.frameworks) {
    if (cf.id != base.id) continue;
    for (const CalibratedConstant& k : cf.constants) {
      set_framework_constant(f, k.name, k.fitted);
      notes.push_back(fmt::format("{} {}: {:.4g} (catalog {:.4g}), fitted on {} runs of {}", base.id, k.name, k.fitted,
                                  k.catalog, c.rows, c.runs));
    }
  }
  return f;
}

}  // namespace gpuplan
