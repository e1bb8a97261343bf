#include "serve/api.h"

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "workload/hf_config.h"

namespace gpuplan {

namespace {

struct EndpointRow {
  const char* path;
  const char* command;
  bool report_data;
  bool takes_body;
};

constexpr std::array<EndpointRow, 12> kEndpoints{{
    {"/api/train", "train", false, true},
    {"/api/memory", "memory", false, true},
    {"/api/search", "search", false, true},
    {"/api/recommend", "recommend", false, true},
    {"/api/infer", "infer", false, true},
    {"/api/infer-search", "infer-search", false, true},
    {"/api/collective", "collective", false, true},
    {"/api/report/train", "train", true, true},
    {"/api/report/search", "search", true, true},
    {"/api/report/recommend", "recommend", true, true},
    {"/api/gpus", "gpus", false, false},
    {"/api/models", "models", false, false},
}};

// Flags a request may not set: they read files (--calibration, --catalog), write them (--html),
// or choose the output form, which the endpoint fixes.
bool forbidden_key(std::string_view key) {
  for (std::string_view bad : {"calibration", "catalog", "no_builtin", "html", "report_data", "json", "help",
                               "version", "serve", "threads"}) {
    if (key == bad) return true;
  }
  return false;
}

bool plain_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string flag_of(std::string_view key) {
  std::string flag = "--";
  for (char c : key) flag += c == '_' ? '-' : c;
  return flag;
}

// A number as the CLI would read it back exactly: integers without a decimal point.
std::string number_text(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.dump();
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Error("a number in the request is not finite");
  if (x == std::floor(x) && std::fabs(x) < 1e15) return fmt::format("{}", static_cast<long long>(x));
  return fmt::format("{}", x);
}

}  // namespace

ApiEndpoint api_endpoint(std::string_view path) {
  for (const EndpointRow& row : kEndpoints) {
    if (path == row.path) return {row.command, row.report_data, row.takes_body};
  }
  return {};
}

const std::vector<std::string>& api_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> p;
    for (const EndpointRow& row : kEndpoints) p.emplace_back(row.path);
    return p;
  }();
  return paths;
}

std::string api_error_body(const std::string& message, int exit_code) {
  nlohmann::ordered_json j;
  j["error"] = {{"message", message}, {"exit_code", exit_code}};
  return j.dump(2) + "\n";
}

ApiCall api_call_from_json(const Catalog& catalog, const ApiEndpoint& endpoint, std::string_view body) {
  ApiCall call;
  call.command = endpoint.command;
  if (!endpoint.takes_body) return call;
  // The CLI's strict JSON reader: a syntax error or a key given twice is an error, never the
  // last value silently kept.
  const nlohmann::json j = parse_json_strict(body.empty() ? std::string_view("{}") : body, "request body");
  if (!j.is_object()) throw Error("request body: expected one JSON object whose keys are the command's flags");
  if (j.contains("model") && j.contains("model_config")) {
    throw Error("request body: give either \"model\" (a zoo id) or \"model_config\" (a config.json object), not both");
  }
  for (const auto& [key, value] : j.items()) {
    if (!plain_key(key)) {
      throw Error(fmt::format("request body: key '{}': keys are flag names in lower case with _ for - "
                              "(seq_len for --seq-len)",
                              key.substr(0, 64)));
    }
    if (forbidden_key(key)) {
      throw Error(fmt::format("request body: '{}' cannot be set through the API (it reads or writes files, "
                              "or fixes the output form)",
                              key));
    }
    if (key == "model_config") {
      if (!value.is_object()) throw Error("request body: model_config: expected a Hugging Face config.json object");
      auto model = std::make_shared<ModelSpec>(model_from_hf_config(value, "config.json"));
      model->id = kUploadedModelId;
      if (model->name.empty()) model->name = "uploaded config.json";
      call.uploaded_model = std::move(model);
      call.args.push_back(fmt::format("--model={}", kUploadedModelId));
      continue;
    }
    if (key == "model") {
      // Only zoo ids: the CLI would read a path as a config.json from disk.
      if (!value.is_string() || catalog.find_model(value.get<std::string>()) == nullptr) {
        const std::string name = value.is_string() ? value.get<std::string>() : value.dump();
        std::vector<std::string> ids;
        for (const ModelSpec& m : catalog.models) ids.push_back(m.id);
        const std::vector<std::string> near = close_names(name, ids);
        throw Error(fmt::format("model '{}': not a model of the zoo{}; upload a config.json as \"model_config\" "
                                "for any other model",
                                name.substr(0, 200), near.empty() ? "" : fmt::format(" (did you mean {}?)", join(near, ", "))));
      }
    }
    const std::string flag = flag_of(key);
    if (value.is_boolean()) {
      if (value.get<bool>()) call.args.push_back(flag);
    } else if (value.is_number()) {
      call.args.push_back(fmt::format("{}={}", flag, number_text(value)));
    } else if (value.is_string()) {
      call.args.push_back(fmt::format("{}={}", flag, value.get<std::string>()));
    } else {
      throw Error(fmt::format("request body: '{}': expected a string, a number or true/false", key));
    }
  }
  return call;
}

}  // namespace gpuplan
