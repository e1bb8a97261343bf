// libFuzzer target for `gpuplan serve`'s request bodies: the first byte picks the endpoint,
// the second how the rest is used: as the body itself, or as the value of one key (picked by
// the third byte among the endpoint's fields, the path-taking keys and the model fields), so
// that path-like values ("/etc/hostname", "../x", "/dev/zero") and huge ones (long strings,
// 1e308, -1, 2^63) reach every field. Any input must become an ApiCall or raise
// gpuplan::Error; a call's words are always the command's allowlisted flags, never a
// path-taking one (checked here, not only by the unit tests). Nothing is run: this checks
// the translation, which reads no file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/error.h"
#include "serve/api.h"

namespace {

bool allowed_word(const std::string& word, const std::vector<std::string>& keys) {
  if (word.size() < 3 || !word.starts_with("--")) return false;
  const std::string flag = word.substr(2, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - 2);
  for (const std::string& key : keys) {
    std::string want;
    for (char c : key) want += c == '_' ? '-' : c;
    if (flag == want) return true;
  }
  return false;
}

// The body to try: the bytes as they are, or one key set to the bytes as a string or a number.
std::string body_of(const std::vector<std::string>& keys, std::uint8_t mode, std::uint8_t pick, std::string_view rest) {
  static const std::vector<std::string> extra{"from", "catalog", "calibration", "html", "no_builtin", "model",
                                              "spec_draft", "model_config"};
  if (mode % 3 == 0 || keys.empty()) return std::string(rest);
  const std::size_t n = keys.size() + extra.size();
  const std::string& key = pick % n < keys.size() ? keys[pick % n] : extra[pick % n - keys.size()];
  nlohmann::json body = nlohmann::json::object();
  const std::string value(rest);
  if (mode % 3 == 1) {
    body[key] = value;  // path-like or huge text; invalid UTF-8 makes dump() throw, below
  } else {
    try {
      body[key] = nlohmann::json::parse(value);  // 1e308, -1, 9223372036854775808, ...
    } catch (const nlohmann::json::exception&) {
      body[key] = value;
    }
  }
  try {
    return body.dump();
  } catch (const nlohmann::json::exception&) {
    return std::string(rest);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Catalog catalog = gpuplan::load_catalog(gpuplan::CatalogOptions{});
  if (size < 3) return 0;
  const auto& paths = gpuplan::api_paths();
  const gpuplan::ApiEndpoint endpoint = gpuplan::api_endpoint(paths[data[0] % paths.size()]);
  const std::vector<std::string> keys = gpuplan::api_keys(endpoint.command);
  const std::string body =
      body_of(keys, data[1], data[2], std::string_view(reinterpret_cast<const char*>(data) + 3, size - 3));
  try {
    const gpuplan::ApiCall call = gpuplan::api_call_from_json(catalog, endpoint, body);
    for (const std::string& word : call.args) {
      if (!allowed_word(word, keys)) std::abort();
      for (std::string_view flag : {"--calibration", "--catalog", "--html", "--from", "--no-builtin"}) {
        if (word == flag || (word.starts_with(flag) && word.size() > flag.size() && word[flag.size()] == '=')) std::abort();
      }
    }
  } catch (const gpuplan::Error&) {
  }
  return 0;
}
