// A strict reader of one JSON object from a Hugging Face config.json: typed getters that name
// the field in every error, and a record of the keys asked for (the zoo's typo check). Only
// hf_config.cpp includes this header.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan::hf {

using json = nlohmann::json;

// Bounds that keep every count finite and every per-layer vector small; far above any real model.
inline constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;  // hidden, heads, vocab, experts, ...
inline constexpr std::int64_t kMaxLayers = 100000;

inline std::string short_dump(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Reads one JSON object, remembering which keys it looked for (for the strict typo check).
class HfReader {
 public:
  HfReader(const json& object, std::string where, std::string model_type)
      : object_(object), where_(std::move(where)), model_type_(std::move(model_type)) {}

  [[noreturn]] void fail(std::string_view key, std::string_view message) const {
    throw Error(fmt::format("{}: field '{}': {}", where_, key, message));
  }
  [[noreturn]] void missing(std::string_view key, std::string_view why = "") const {
    throw Error(fmt::format("{}: missing field '{}' ({})", where_, key,
                            why.empty() ? fmt::format("required for model_type {}", model_type_) : std::string(why)));
  }

  // The value of `key`, or nullptr when absent or JSON null (HF writes null for "unset").
  const json* get(std::string_view key) {
    asked_.emplace(key);
    const auto it = object_.find(std::string(key));
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  std::optional<std::int64_t> opt_int(std::string_view key, std::int64_t min, std::int64_t max) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    double value = 0;
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      value = u > static_cast<std::uint64_t>(max) ? static_cast<double>(max) + 1 : static_cast<double>(u);
    } else if (v->is_number_integer()) {
      value = static_cast<double>(v->get<std::int64_t>());
    } else if (v->is_number_float()) {
      value = v->get<double>();
      if (!std::isfinite(value) || value != std::floor(value)) {
        fail(key, fmt::format("expected an integer, got {}", short_dump(*v)));
      }
    } else {
      fail(key, fmt::format("expected an integer, got {}", short_dump(*v)));
    }
    if (value < static_cast<double>(min)) {
      fail(key, min > 0 ? fmt::format("must be a positive integer, got {}", short_dump(*v))
                        : fmt::format("must not be negative, got {}", short_dump(*v)));
    }
    if (value > static_cast<double>(max)) {
      fail(key, fmt::format("{} is implausibly large (limit {})", short_dump(*v), max));
    }
    return static_cast<std::int64_t>(value);
  }
  std::int64_t size(std::string_view key, std::int64_t max = kMaxDim) {
    auto v = opt_int(key, 1, max);
    if (!v) missing(key);
    return *v;
  }
  std::optional<std::int64_t> opt_size(std::string_view key, std::int64_t max = kMaxDim) {
    return opt_int(key, 1, max);
  }
  std::int64_t count_or(std::string_view key, std::int64_t fallback, std::int64_t max = kMaxDim) {
    return opt_int(key, 0, max).value_or(fallback);
  }

  std::optional<double> opt_real(std::string_view key) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(key, fmt::format("expected a number, got {}", short_dump(*v)));
    const double value = v->get<double>();
    if (!std::isfinite(value)) fail(key, "must be a finite number");
    return value;
  }

  bool flag(std::string_view key, bool fallback) {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, fmt::format("expected true or false, got {}", short_dump(*v)));
    return v->get<bool>();
  }

  std::optional<std::string> opt_str(std::string_view key) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(key, fmt::format("expected a string, got {}", short_dump(*v)));
    return v->get<std::string>();
  }

  std::vector<std::string> str_list(std::string_view key) {
    std::vector<std::string> out;
    const json* v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "expected an array of strings");
    for (const auto& item : *v) {
      if (!item.is_string()) fail(key, fmt::format("expected an array of strings, found {}", short_dump(item)));
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  std::vector<std::int64_t> int_list(std::string_view key, std::int64_t max) {
    std::vector<std::int64_t> out;
    const json* v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "expected an array of integers");
    for (const auto& item : *v) {
      if (!item.is_number_integer() || item.get<std::int64_t>() < 0 || item.get<std::int64_t>() >= max) {
        fail(key, fmt::format("expected integers in [0, {}), found {}", max, short_dump(item)));
      }
      out.push_back(item.get<std::int64_t>());
    }
    return out;
  }

  // A nested object (MPT's attn_config); absent = empty object.
  HfReader sub(std::string_view key) {
    const json* v = get(key);
    if (v && !v->is_object()) fail(key, "expected an object");
    return HfReader(v ? *v : empty_object(), fmt::format("{} {}", where_, key), model_type_);
  }

  // Zoo files only: a present key the reader never asked for, within two edits of a key it
  // asked for and did not find, is almost certainly a typo.
  void reject_typos() const {
    for (const auto& [key, value] : object_.items()) {
      if (asked_.contains(key)) continue;
      for (const auto& wanted : asked_) {
        if (object_.contains(wanted) || edit_distance(key, wanted) > 2) continue;
        throw Error(fmt::format("{}: field '{}' is not a key gpuplan reads for model_type {}; did you mean '{}'?",
                                where_, key, model_type_, wanted));
      }
    }
  }

  const std::string& where() const { return where_; }

 private:
  static const json& empty_object() {
    static const json empty = json::object();
    return empty;
  }

  const json& object_;
  std::string where_;
  std::string model_type_;
  std::set<std::string, std::less<>> asked_;
};

}  // namespace gpuplan::hf
