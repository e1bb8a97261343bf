#include "serve/api.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <cmath>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration/collective_fields.h"
#include "core/error.h"
#include "core/field_words.h"
#include "core/input_file.h"
#include "core/json_fields.h"
#include "core/strings.h"
#include "econ/econ_fields.h"
#include "econ/recommend_question.h"
#include "infer/infer_fields.h"
#include "plan/train_fields.h"
#include "search/compare_training.h"
#include "search/search_fields.h"
#include "workload/hf_config.h"

namespace gpuplan {

namespace {

struct EndpointRow {
  const char* path;
  const char* command;
  bool report_data;
  bool takes_body;
};

constexpr std::array<EndpointRow, 19> kEndpoints{{
    {"/api/train", "train", false, true},
    {"/api/memory", "memory", false, true},
    {"/api/search", "search", false, true},
    {"/api/recommend", "recommend", false, true},
    {"/api/infer", "infer", false, true},
    {"/api/infer-search", "infer-search", false, true},
    {"/api/collective", "collective", false, true},
    {"/api/cost", "cost", false, true},
    {"/api/compare", "compare", false, true},
    {"/api/report/train", "train", true, true},
    {"/api/report/search", "search", true, true},
    {"/api/report/recommend", "recommend", true, true},
    {"/api/report/infer", "infer", true, true},
    {"/api/report/infer-search", "infer-search", true, true},
    {"/api/report/cost", "cost", true, true},
    {"/api/report/collective", "collective", true, true},
    {"/api/report/compare", "compare", true, true},
    {"/api/gpus", "gpus", false, false},
    {"/api/models", "models", false, false},
}};

// The keys a request body may set, per command: an allowlist built from the request's field
// table (core/field_spec.h), so a field is settable here when its table entry says so and a
// flag added to the CLI by hand is refused. No key that names a file on the server is listed
// (--calibration, --catalog, --from, --html): those are kPathKeys, refused with their fix. A
// model is a key here but only as a zoo id (checked below); "model_config" uploads one.
struct CommandKeys {
  const char* command;
  std::vector<std::string> keys;
};

// The HTTP keys of a field table: every field but those that take a path or use the machine's
// resources (core/field_spec.h: field_over_http), plus the interface's own `extra` keys.
template <class R>
std::vector<std::string> table_keys(const std::vector<FieldSpec<R>>& fields, std::initializer_list<const char*> extra) {
  std::vector<std::string> keys;
  for (const FieldSpec<R>& f : fields) {
    if (!field_over_http(f)) continue;
    keys.push_back(field_http_key(f));
    if (!f.alias.empty()) keys.push_back(field_http_alias(f));
  }
  keys.insert(keys.end(), extra.begin(), extra.end());
  return keys;
}

// Every command's keys come from its field table, with the interface's own `extra` keys.
const std::vector<CommandKeys>& command_keys() {
  static const std::vector<CommandKeys> table{
      {"train", table_keys(train_fields(), {"emit"})},
      {"memory", table_keys(train_fields(), {"rule_of_thumb"})},
      {"search", table_keys(search_fields(), {})},
      {"recommend", table_keys(recommend_fields(), {})},
      {"infer", table_keys(infer_fields(), {"emit"})},
      {"infer-search", table_keys(infer_search_fields(), {})},
      {"cost", table_keys(cost_fields(), {})},
      {"compare", table_keys(compare_fields(), {})},
      {"collective", table_keys(collective_fields(), {})},
  };
  return table;
}

// The switches among a table's fields (bool members): over HTTP they take true or false only,
// never a string the CLI would read as one ("yes", "on").
template <class R>
void add_switch_keys(const std::vector<FieldSpec<R>>& fields, std::vector<std::string>& keys) {
  for (const FieldSpec<R>& f : fields) {
    const bool is_switch = std::visit(
        [](auto get) { return std::is_same_v<std::decay_t<decltype(get(std::declval<R&>()))>, bool>; }, f.ref);
    if (is_switch && field_over_http(f)) keys.push_back(field_http_key(f));
  }
}

bool switch_key(std::string_view key) {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"rule_of_thumb"};  // memory's switch beside the train table
    add_switch_keys(train_fields(), k);
    add_switch_keys(search_fields(), k);
    add_switch_keys(recommend_fields(), k);
    add_switch_keys(collective_fields(), k);
    add_switch_keys(cost_fields(), k);
    add_switch_keys(infer_fields(), k);
    add_switch_keys(infer_search_fields(), k);
    return k;
  }();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

const std::vector<std::string>* keys_of(std::string_view command) {
  for (const CommandKeys& row : command_keys()) {
    if (command == row.command) return &row.keys;
  }
  return nullptr;
}

// Keys that name a file on the server, with the fix. The message never contains the value, so
// the answer is the same whether the path exists or not.
struct PathKey {
  std::string_view key;
  std::string_view fix;
};
constexpr std::array<PathKey, 5> kPathKeys{{
    {"calibration", "calibrate with the CLI (gpuplan COMMAND --calibration FILE)"},
    {"catalog", "the server's catalog is fixed when it starts (gpuplan --catalog DIR serve)"},
    {"no_builtin", "the server's catalog is fixed when it starts (gpuplan --no-builtin --catalog DIR serve)"},
    {"from", "give the plan's fields as keys of the body instead"},
    {"html", "POST to /api/report/COMMAND for the report's data"},
}};

// Model fields (kModelId in the tables): a zoo id only (the CLI would read a path as a config.json from disk), or one
// of the field's own words ("mtp" for spec_draft).
bool zoo_model_key(std::string_view key) { return key == "model" || key == "spec_draft"; }

void check_zoo_model(const Catalog& catalog, std::string_view key, const nlohmann::json& value) {
  if (value.is_string() && catalog.find_model(value.get<std::string>()) != nullptr) return;
  if (key == "spec_draft" && value == "mtp") return;
  const std::string name = value.is_string() ? value.get<std::string>() : value.dump();
  std::vector<std::string> ids;
  for (const ModelSpec& m : catalog.models) ids.push_back(m.id);
  const std::vector<std::string> near = close_names(name, ids);
  throw Error(fmt::format("{} '{}': not a model of the zoo{}; {}", key == "model" ? "model" : "request body: spec_draft",
                          name.substr(0, 200), near.empty() ? "" : fmt::format(" (did you mean {}?)", join(near, ", ")),
                          key == "model" ? "upload a config.json as \"model_config\" for any other model"
                                         : "the API reads no file: name a zoo model or mtp"));
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

std::vector<std::string> api_keys(std::string_view command) {
  const std::vector<std::string>* keys = keys_of(command);
  return keys == nullptr ? std::vector<std::string>{} : *keys;
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
  // replace: a message may quote a piece of a body that is not UTF-8.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

ApiCall api_call_from_json(const Catalog& catalog, const ApiEndpoint& endpoint, std::string_view body) {
  ApiCall call;
  call.command = endpoint.command;
  if (!endpoint.takes_body) return call;
  // The CLI's strict JSON reader: a syntax error or a key given twice is an error, never the
  // last value silently kept.
  require_utf8(body, "request body");
  const nlohmann::json j = parse_json_strict(body.empty() ? std::string_view("{}") : body, "request body");
  if (!j.is_object()) throw Error("request body: expected one JSON object whose keys are the command's flags");
  const std::vector<std::string>* keys = keys_of(endpoint.command);
  GP_ASSERT(keys != nullptr, "an endpoint that takes a body has its command's keys in command_keys()");
  if (j.contains("model") && j.contains("model_config")) {
    throw Error("request body: give either \"model\" (a zoo id) or \"model_config\" (a config.json object), not both");
  }
  for (const auto& [key, value] : j.items()) {
    if (!plain_key(key)) {
      throw Error(fmt::format("request body: key '{}': keys are flag names in lower case with _ for - "
                              "(seq_len for --seq-len)",
                              key.substr(0, 64)));
    }
    for (const PathKey& path_key : kPathKeys) {
      if (key == path_key.key) {
        throw Error(fmt::format("request body: '{}' names a file on the server, which the API never reads; {}", key,
                                path_key.fix));
      }
    }
    if (key == "model_config" && std::find(keys->begin(), keys->end(), "model") != keys->end()) {
      if (!value.is_object()) throw Error("request body: model_config: expected a Hugging Face config.json object");
      auto model = std::make_shared<ModelSpec>(model_from_hf_config(value, "config.json"));
      model->id = kUploadedModelId;
      if (model->name.empty()) model->name = "uploaded config.json";
      call.uploaded_model = std::move(model);
      call.args.push_back(fmt::format("--model={}", kUploadedModelId));
      continue;
    }
    if (std::find(keys->begin(), keys->end(), key) == keys->end()) {
      const std::vector<std::string>& names = *keys;
      const std::vector<std::string> near = close_names(key, names);
      throw Error(fmt::format("request body: '{}' is not a field of {}{}; the fields are {}", key, endpoint.command,
                              near.empty() ? "" : fmt::format(" (did you mean {}?)", join(near, ", ")),
                              join(names, ", ")));
    }
    if (zoo_model_key(key)) check_zoo_model(catalog, key, value);
    const std::string flag = flag_of(key);
    if (switch_key(key) != value.is_boolean()) {
      const std::string shown = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 100);
      throw Error(switch_key(key)
                      ? fmt::format("request body: '{}': {} is not a switch value; give true or false", key, shown)
                      : fmt::format("request body: '{}': {} is not a value of this field; give a number or a string",
                                    key, shown));
    }
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

std::string api_error_in_keys(std::string_view command, const std::string& body) {
  const std::vector<std::string>* keys = keys_of(command);
  if (keys == nullptr) return body;
  // The API runs `gpuplan COMMAND --FLAG` for each key (the flag is the key with '-' for '_'),
  // so each flag of an allowed key is said back as the key; any other flag stays as it is.
  std::vector<FlagWord> words;
  for (const std::string& key : *keys) {
    std::string flag = key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    words.push_back({flag, key});
  }
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.contains("error") || !j["error"].contains("message") ||
      !j["error"]["message"].is_string()) {
    return body;
  }
  return api_error_body(word_flags(j["error"]["message"].get<std::string>(), words),
                        j["error"].value("exit_code", 2));
}

ApiReply api_answer(const Catalog& catalog, const ApiEndpoint& endpoint, std::string_view body,
                    const ApiRunner& runner) {
  try {
    ApiCall call = api_call_from_json(catalog, endpoint, body);
    if (endpoint.report_data) call.args.emplace_back("--report-data");
    ApiReply reply = runner(call);
    if (reply.status == 400) reply.body = api_error_in_keys(endpoint.command, reply.body);
    return reply;
  } catch (const Error& e) {
    return {400, api_error_body(e.what(), 2)};
  } catch (const std::exception& e) {
    return {500, api_error_body(fmt::format("internal error: {}", e.what()), 1)};
  }
}

}  // namespace gpuplan
