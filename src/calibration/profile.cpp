#include "calibration/profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_fields.h"

namespace gpuplan {
namespace {

// Reads one JSON object strictly, tracking which keys were read so finish() can reject the rest.
class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string file, std::string path)
      : object_(object), file_(std::move(file)), path_(std::move(path)) {
    if (!object_.is_object()) fail("", "must be a JSON object");
  }

  std::string text(const char* key) {
    const auto& v = get(key);
    if (!v.is_string() || v.get<std::string>().empty()) fail(key, "must be a non-empty string");
    return v.get<std::string>();
  }
  double positive(const char* key) {
    const auto& v = get(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
      fail(key, fmt::format("must be a positive number, not {}", v.dump()));
    }
    return v.get<double>();
  }
  int count(const char* key) {
    const auto& v = get(key);
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1'000'000) {
      fail(key, fmt::format("must be a whole number of at least 1, not {}", v.dump()));
    }
    return static_cast<int>(v.get<long long>());
  }
  std::string one_of(const char* key, std::initializer_list<const char*> allowed) {
    std::string value = text(key);
    for (const char* a : allowed) {
      if (value == a) return value;
    }
    std::vector<std::string> names(allowed.begin(), allowed.end());
    fail(key, fmt::format("'{}' is not one of {}", value, fmt::join(names, ", ")));
  }
  JsonFields sub(const char* key) { return JsonFields(get(key), file_, join(key)); }
  // An optional array of objects; `each` gets one JsonFields per element.
  template <typename Each>
  void array(const char* key, Each each) {
    if (!object_.contains(key)) return;
    const auto& v = get(key);
    if (!v.is_array()) fail(key, "must be an array");
    for (std::size_t idx = 0; idx < v.size(); ++idx) {
      JsonFields element(v[idx], file_, fmt::format("{}[{}]", join(key), idx));
      each(element);
      element.finish();
    }
  }
  void finish() const {
    for (const auto& [key, value] : object_.items()) {
      if (!read_.count(key)) {
        fail(key, fmt::format("unknown key (known here: {}); calibration files are written by gpuplan-bench",
                              fmt::join(read_, ", ")));
      }
    }
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw Error(fmt::format("{}: {}: {}", file_, key.empty() ? (path_.empty() ? "top level" : path_) : join(key),
                            message));
  }

 private:
  const nlohmann::json& get(const char* key) {
    read_.insert(key);
    if (!object_.contains(key)) fail(key, "missing");
    return object_.at(key);
  }
  std::string join(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const nlohmann::json& object_;
  std::string file_;
  std::string path_;
  std::set<std::string> read_;
};

void check_consistent(JsonFields& f, const char* key, double stated, double derived) {
  // The derived figure must agree with the time it came from (to 1%), so a hand edit of one
  // without the other is caught.
  if (std::abs(stated - derived) > 0.01 * derived) {
    f.fail(key, fmt::format("{} does not match the time it was measured in ({})", stated, derived));
  }
}

// A "precision" key: a name parse_precision knows.
Precision read_precision(JsonFields& f) {
  const std::string name = f.text("precision");
  const auto parsed = parse_precision(name);
  if (!parsed) f.fail("precision", fmt::format("unknown precision '{}'", name));
  return *parsed;
}

}  // namespace

double bandwidth_bytes_moved(const std::string& op, double bytes) { return op == "copy" ? 2 * bytes : bytes; }

std::optional<CollectiveOp> profile_collective_op(const std::string& name) {
  if (name == "all_reduce") return CollectiveOp::all_reduce;
  if (name == "all_gather") return CollectiveOp::all_gather;
  if (name == "reduce_scatter") return CollectiveOp::reduce_scatter;
  if (name == "all_to_all") return CollectiveOp::all_to_all;
  return std::nullopt;
}

std::string profile_collective_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    default: return "";
  }
}

// nccl-tests' bus-bandwidth factors, as the cost model uses them.
double collective_bus_factor(const std::string& op, int gpus) {
  GP_ASSERT(gpus >= 1, "a collective over no GPUs");
  const std::optional<CollectiveOp> o = profile_collective_op(op);
  GP_ASSERT(o.has_value(), "unknown collective");
  return busbw_factor(*o, gpus);
}

std::optional<double> CalibrationProfile::peak_flops_per_s(Precision p) const {
  std::optional<double> best;
  for (const GemmPoint& g : gemm) {
    if (g.precision == p) best = std::max(best.value_or(0.0), g.flops_per_s);
  }
  return best;
}

std::optional<double> CalibrationProfile::hbm_bw_bytes_per_s(double min_buffer_bytes) const {
  std::optional<double> best;
  for (const BandwidthPoint& b : memory_bandwidth) {
    if ((b.op == "read" || b.op == "copy") && b.bytes >= min_buffer_bytes) {
      best = std::max(best.value_or(0.0), b.bw_bytes_per_s);
    }
  }
  return best;
}

CalibrationProfile parse_calibration(const nlohmann::json& doc, const std::string& file) {
  CalibrationProfile p;
  p.file = file;
  JsonFields top(doc, file, "");
  const std::string schema = top.text("schema");
  if (schema != kCalibrationSchema && schema != kCalibrationSchemaV2 && schema != kCalibrationSchemaV1) {
    top.fail("schema", fmt::format("'{}' is not '{}', '{}' or '{}' (written by a different gpuplan-bench?)", schema,
                                   kCalibrationSchema, kCalibrationSchemaV2, kCalibrationSchemaV1));
  }
  const bool v1 = schema == kCalibrationSchemaV1;
  const bool v3 = schema == kCalibrationSchema;
  {
    JsonFields gpu = top.sub("gpu");
    p.gpu_id = gpu.text("id");
    p.gpu_name = gpu.text("name");
    p.sm_count = gpu.count("sm_count");
    p.driver = gpu.text("driver");
    p.cuda = gpu.text("cuda");
    gpu.finish();
  }
  {
    JsonFields measured = top.sub("measured");
    p.tool = measured.text("tool");
    p.command = measured.text("command");
    p.date = measured.text("date");
    p.host = measured.text("host");
    measured.finish();
  }
  top.array("gemm", [&](JsonFields& f) {
    GemmPoint g;
    g.kernel = f.one_of("kernel", {"cublaslt", "wmma"});
    g.precision = read_precision(f);
    g.m = f.positive("m");
    g.n = f.positive("n");
    g.k = f.positive("k");
    g.time_s = f.positive("time_s");
    g.flops_per_s = f.positive("flops_per_s");
    check_consistent(f, "flops_per_s", g.flops_per_s, 2 * g.m * g.n * g.k / g.time_s);
    p.gemm.push_back(g);
  });
  top.array("memory_bandwidth", [&](JsonFields& f) {
    BandwidthPoint b;
    b.op = v1 ? f.one_of("op", {"read", "write", "copy"})
              : f.one_of("op", {"read", "write", "copy", "l2_read", "h2d_pinned", "d2h_pinned", "h2d_pageable",
                                "d2h_pageable"});
    b.bytes = f.positive("bytes");
    b.time_s = f.positive("time_s");
    b.bw_bytes_per_s = f.positive("bw_bytes_per_s");
    check_consistent(f, "bw_bytes_per_s", b.bw_bytes_per_s, bandwidth_bytes_moved(b.op, b.bytes) / b.time_s);
    p.memory_bandwidth.push_back(b);
  });
  top.array("collectives", [&](JsonFields& f) {
    CollectivePoint c;
    c.op = f.one_of("op", {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"});
    c.gpus = f.count("gpus");
    if (c.gpus < 2) f.fail("gpus", "a collective needs at least 2 GPUs (gpuplan-bench skips it on one)");
    c.bytes = f.positive("bytes");
    c.time_s = f.positive("time_s");
    c.algbw_bytes_per_s = f.positive("algbw_bytes_per_s");
    c.busbw_bytes_per_s = f.positive("busbw_bytes_per_s");
    check_consistent(f, "algbw_bytes_per_s", c.algbw_bytes_per_s, c.bytes / c.time_s);
    check_consistent(f, "busbw_bytes_per_s", c.busbw_bytes_per_s,
                     c.algbw_bytes_per_s * collective_bus_factor(c.op, c.gpus));
    p.collectives.push_back(c);
  });
  if (!v1) {
    top.array("layers", [&](JsonFields& f) {
      LayerPoint l;
      l.shape.name = f.text("name");
      l.shape.hidden = f.count("hidden");
      l.shape.heads = f.count("heads");
      l.shape.kv_heads = f.count("kv_heads");
      l.shape.ffn = f.count("ffn");
      l.shape.seq = f.count("seq");
      l.shape.batch = f.count("batch");
      l.precision = read_precision(f);
      l.fwd_time_s = f.positive("fwd_time_s");
      l.bwd_time_s = f.positive("bwd_time_s");
      l.flops = f.positive("flops");
      l.flops_per_s = f.positive("flops_per_s");
      check_consistent(f, "flops_per_s", l.flops_per_s, l.flops / (l.fwd_time_s + l.bwd_time_s));
      p.layers.push_back(l);
    });
  }
  if (v3) {
    top.array("steps", [&](JsonFields& f) {
      StepPoint st;
      st.shape.layer.name = f.text("name");
      st.shape.layers = f.count("layers");
      st.shape.layer.hidden = f.count("hidden");
      st.shape.layer.heads = f.count("heads");
      st.shape.layer.kv_heads = f.count("kv_heads");
      st.shape.layer.ffn = f.count("ffn");
      st.shape.vocab = f.count("vocab");
      st.shape.layer.seq = f.count("seq");
      st.shape.layer.batch = f.count("batch");
      st.precision = read_precision(f);
      st.fwd_time_s = f.positive("fwd_time_s");
      st.step_time_s = f.positive("step_time_s");
      st.flops = f.positive("flops");
      st.flops_per_s = f.positive("flops_per_s");
      check_consistent(f, "flops_per_s", st.flops_per_s, st.flops / st.step_time_s);
      p.steps.push_back(st);
    });
  }
  top.finish();
  return p;
}

CalibrationProfile load_calibration(const std::string& path) {
  // Strict: a key repeated in one object is an error (nlohmann alone would keep the last).
  return parse_calibration(parse_json_strict(read_input_file(path, "calibration file"), path), path);
}

nlohmann::ordered_json calibration_json(const CalibrationProfile& p) {
  nlohmann::ordered_json j;
  j["schema"] = kCalibrationSchema;
  j["gpu"] = {{"id", p.gpu_id}, {"name", p.gpu_name}, {"sm_count", p.sm_count}, {"driver", p.driver},
              {"cuda", p.cuda}};
  j["measured"] = {{"tool", p.tool}, {"command", p.command}, {"date", p.date}, {"host", p.host}};
  j["gemm"] = nlohmann::ordered_json::array();
  for (const GemmPoint& g : p.gemm) {
    j["gemm"].push_back({{"kernel", g.kernel}, {"precision", precision_name(g.precision)}, {"m", g.m}, {"n", g.n},
                         {"k", g.k}, {"time_s", g.time_s}, {"flops_per_s", g.flops_per_s}});
  }
  j["memory_bandwidth"] = nlohmann::ordered_json::array();
  for (const BandwidthPoint& b : p.memory_bandwidth) {
    j["memory_bandwidth"].push_back(
        {{"op", b.op}, {"bytes", b.bytes}, {"time_s", b.time_s}, {"bw_bytes_per_s", b.bw_bytes_per_s}});
  }
  j["collectives"] = nlohmann::ordered_json::array();
  for (const CollectivePoint& c : p.collectives) {
    j["collectives"].push_back({{"op", c.op}, {"gpus", c.gpus}, {"bytes", c.bytes}, {"time_s", c.time_s},
                                {"algbw_bytes_per_s", c.algbw_bytes_per_s},
                                {"busbw_bytes_per_s", c.busbw_bytes_per_s}});
  }
  j["layers"] = nlohmann::ordered_json::array();
  for (const LayerPoint& l : p.layers) {
    j["layers"].push_back({{"name", l.shape.name}, {"hidden", l.shape.hidden}, {"heads", l.shape.heads},
                           {"kv_heads", l.shape.kv_heads}, {"ffn", l.shape.ffn}, {"seq", l.shape.seq},
                           {"batch", l.shape.batch}, {"precision", precision_name(l.precision)},
                           {"fwd_time_s", l.fwd_time_s}, {"bwd_time_s", l.bwd_time_s}, {"flops", l.flops},
                           {"flops_per_s", l.flops_per_s}});
  }
  j["steps"] = nlohmann::ordered_json::array();
  for (const StepPoint& st : p.steps) {
    const LayerShape& l = st.shape.layer;
    j["steps"].push_back({{"name", l.name}, {"layers", st.shape.layers}, {"hidden", l.hidden}, {"heads", l.heads},
                          {"kv_heads", l.kv_heads}, {"ffn", l.ffn}, {"vocab", st.shape.vocab}, {"seq", l.seq},
                          {"batch", l.batch}, {"precision", precision_name(st.precision)},
                          {"fwd_time_s", st.fwd_time_s}, {"step_time_s", st.step_time_s}, {"flops", st.flops},
                          {"flops_per_s", st.flops_per_s}});
  }
  return j;
}

}  // namespace gpuplan
