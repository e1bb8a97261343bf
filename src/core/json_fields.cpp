#include "core/json_fields.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace gpuplan {

void check_json_depth(std::string_view text, const std::string& file, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw Error(fmt::format("{}: arrays and objects nest deeper than {} (at byte offset {}); no gpuplan input "
                                "nests that deep",
                                file, max_depth, i));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

nlohmann::json parse_json_strict(std::string_view text, const std::string& file) {
  check_json_depth(text, file);
  // One frame per open object: the keys seen so far and the key path leading to it. The
  // parser reports an object's keys in order, between its object_start and object_end.
  struct Frame {
    std::set<std::string> keys;
    std::string path;
    std::string last_key;
  };
  std::vector<Frame> frames;
  const auto callback = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      std::string path;
      if (!frames.empty()) {
        const Frame& parent = frames.back();
        path = parent.path.empty() ? parent.last_key : parent.path + "." + parent.last_key;
      }
      frames.push_back(Frame{{}, std::move(path), {}});
    } else if (event == Event::object_end) {
      if (!frames.empty()) frames.pop_back();
    } else if (event == Event::key && !frames.empty()) {
      Frame& f = frames.back();
      std::string key = parsed.get<std::string>();
      if (!f.keys.insert(key).second) {
        throw Error(fmt::format("{}: duplicate key '{}'", file, f.path.empty() ? key : f.path + "." + key));
      }
      f.last_key = std::move(key);
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw Error(fmt::format("{}: not valid JSON: {}", file, e.what()));
  }
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string file, std::string path,
                                   std::initializer_list<const char*> known)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) fail("", fmt::format("must be a JSON object, not {}", object_.dump()));
  const std::vector<std::string> names(known.begin(), known.end());
  for (const auto& [key, value] : object_.items()) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      fail(key, fmt::format("unknown key; the keys {} are: {}",
                            path_.empty() ? "at the top level" : "in '" + path_ + "'", fmt::join(names, ", ")));
    }
  }
}

bool JsonObjectReader::has(const char* key) const { return object_.contains(key); }

const nlohmann::json& JsonObjectReader::at(const char* key) const {
  if (!object_.contains(key)) fail(key, "missing (required)");
  return object_.at(key);
}

std::string JsonObjectReader::text(const char* key) const {
  const auto& v = at(key);
  if (!v.is_string() || v.get<std::string>().empty())
    fail(key, fmt::format("must be a non-empty string, not {}", v.dump()));
  return v.get<std::string>();
}

namespace {
bool is_positive_int(const nlohmann::json& v) {
  return v.is_number_integer() && v.get<long long>() >= 1 && v.get<long long>() <= INT_MAX;
}
}  // namespace

int JsonObjectReader::positive_int(const char* key) const {
  const auto& v = at(key);
  if (!is_positive_int(v)) fail(key, fmt::format("must be a whole number of at least 1, not {}", v.dump()));
  return static_cast<int>(v.get<long long>());
}

double JsonObjectReader::non_negative(const char* key) const {
  const auto& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    fail(key, fmt::format("must be a number of at least 0, not {}", v.dump()));
  }
  return v.get<double>();
}

bool JsonObjectReader::boolean(const char* key) const {
  const auto& v = at(key);
  if (!v.is_boolean()) fail(key, fmt::format("must be true or false, not {}", v.dump()));
  return v.get<bool>();
}

std::vector<std::string> JsonObjectReader::text_list(const char* key) const {
  const auto& v = at(key);
  if (!v.is_array() || v.empty()) fail(key, fmt::format("must be a non-empty array of strings, not {}", v.dump()));
  std::vector<std::string> out;
  for (std::size_t idx = 0; idx < v.size(); ++idx) {
    if (!v[idx].is_string() || v[idx].get<std::string>().empty()) {
      fail(fmt::format("{}[{}]", key, idx), fmt::format("must be a non-empty string, not {}", v[idx].dump()));
    }
    out.push_back(v[idx].get<std::string>());
  }
  return out;
}

std::vector<int> JsonObjectReader::positive_int_list(const char* key) const {
  const auto& v = at(key);
  if (!v.is_array() || v.empty())
    fail(key, fmt::format("must be a non-empty array of whole numbers, not {}", v.dump()));
  std::vector<int> out;
  for (std::size_t idx = 0; idx < v.size(); ++idx) {
    if (!is_positive_int(v[idx])) {
      fail(fmt::format("{}[{}]", key, idx), fmt::format("must be a whole number of at least 1, not {}", v[idx].dump()));
    }
    out.push_back(static_cast<int>(v[idx].get<long long>()));
  }
  return out;
}

JsonObjectReader JsonObjectReader::object(const char* key, std::initializer_list<const char*> known) const {
  return JsonObjectReader(at(key), file_, key_path(key), known);
}

std::string JsonObjectReader::key_path(std::string_view key) const {
  if (key.empty()) return path_;
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void JsonObjectReader::fail(std::string_view key, std::string_view message) const {
  const std::string where = key_path(key);
  throw Error(fmt::format("{}: {}{}", file_, where.empty() ? "" : "'" + where + "': ", message));
}

}  // namespace gpuplan
