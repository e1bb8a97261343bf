#include "catalog/toml_fields.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {

Fields::Fields(const toml::table& table, std::string file, std::string section)
    : table_(&table), file_(std::move(file)), section_(std::move(section)) {}

std::string Fields::where(std::string_view key) const {
  const toml::node* node = table_->get(key);
  const auto& region = node ? node->source() : table_->source();
  if (region.begin.line == 0) return file_;
  return fmt::format("{}:{}", file_, region.begin.line);
}

void Fields::fail(std::string_view key, std::string_view message) const {
  const std::string label = section_.empty() ? std::string(key) : section_ + "." + std::string(key);
  throw Error(fmt::format("{}: key '{}': {}", where(key), label, message));
}

void Fields::missing(std::string_view key, std::string_view what) const {
  std::string hint;
  for (const auto& [present, node] : *table_) {
    const std::string name(present.str());
    const bool asked = std::find(asked_.begin(), asked_.end(), name) != asked_.end();
    if (!asked && edit_distance(name, key) <= 2) {
      hint = fmt::format("; found '{}' at {}: misspelled?", name, where(name));
      break;
    }
  }
  fail(key, fmt::format("missing ({}){}", what, hint));
}

bool Fields::has(std::string_view key) const { return table_->contains(key); }

const toml::node* Fields::get(std::string_view key) {
  asked_.emplace_back(key);
  const toml::node* node = table_->get(key);
  if (node) used_.push_back(node);
  return node;
}

std::optional<double> Fields::number(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  double value = 0;
  if (const auto* i = node->as_integer()) {
    value = static_cast<double>(i->get());
  } else if (const auto* f = node->as_floating_point()) {
    value = f->get();
  } else {
    fail(key, "expected a number");
  }
  if (!std::isfinite(value)) fail(key, "must be a finite number");
  return value;
}

std::string Fields::str(std::string_view key) {
  auto value = opt_str(key);
  if (!value) missing(key, "required string");
  return *value;
}

std::optional<std::string> Fields::opt_str(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* s = node->as_string();
  if (!s) fail(key, "expected a string (in double quotes)");
  return s->get();
}

double Fields::num(std::string_view key) {
  auto value = number(key);
  if (!value) missing(key, "required number");
  return *value;
}

std::optional<double> Fields::opt_num(std::string_view key) { return number(key); }

double Fields::pos(std::string_view key) {
  auto value = opt_pos(key);
  if (!value) missing(key, "required positive number");
  return *value;
}

std::optional<double> Fields::opt_pos(std::string_view key) {
  auto value = number(key);
  if (value && *value <= 0) fail(key, fmt::format("must be positive, got {}", *value));
  return value;
}

std::optional<double> Fields::opt_nonneg(std::string_view key) {
  auto value = number(key);
  if (value && *value < 0) fail(key, fmt::format("must not be negative, got {}", *value));
  return value;
}

std::int64_t Fields::integer(std::string_view key) {
  auto value = opt_integer(key);
  if (!value) missing(key, "required integer");
  return *value;
}

std::optional<std::int64_t> Fields::opt_integer(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* i = node->as_integer();
  if (!i) fail(key, "expected an integer");
  if (i->get() < 0) fail(key, "must not be negative");
  return i->get();
}

bool Fields::boolean(std::string_view key) {
  auto value = opt_boolean(key);
  if (!value) missing(key, "required true/false");
  return *value;
}

std::optional<bool> Fields::opt_boolean(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* b = node->as_boolean();
  if (!b) fail(key, "expected true or false");
  return b->get();
}

std::vector<std::string> Fields::str_list(std::string_view key) {
  std::vector<std::string> out;
  const toml::node* node = get(key);
  if (!node) return out;
  const auto* arr = node->as_array();
  if (!arr) fail(key, "expected an array of strings");
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (!s) fail(key, "expected an array of strings");
    out.push_back(s->get());
  }
  return out;
}

std::vector<double> Fields::num_list(std::string_view key) {
  std::vector<double> out;
  const toml::node* node = get(key);
  if (!node) return out;
  const auto* arr = node->as_array();
  if (!arr) fail(key, "expected an array of numbers");
  for (const auto& item : *arr) {
    double v = 0;
    if (const auto* i = item.as_integer()) v = static_cast<double>(i->get());
    else if (const auto* f = item.as_floating_point()) v = f->get();
    else fail(key, "expected an array of numbers");
    if (!std::isfinite(v)) fail(key, "numbers must be finite");
    out.push_back(v);
  }
  return out;
}

Fields Fields::sub(std::string_view key) {
  auto value = opt_sub(key);
  if (!value) missing(key, "required table");
  return std::move(*value);
}

std::optional<Fields> Fields::opt_sub(std::string_view key) {
  const toml::node* node = get(key);
  if (!node) return std::nullopt;
  const auto* t = node->as_table();
  if (!t) fail(key, "expected a table");
  return Fields(*t, file_, section_.empty() ? std::string(key) : section_ + "." + std::string(key));
}

std::vector<Fields> Fields::table_array(std::string_view key) {
  std::vector<Fields> out;
  const toml::node* node = get(key);
  if (!node) return out;
  const auto* arr = node->as_array();
  if (!arr) fail(key, "expected an array of tables ([[" + std::string(key) + "]])");
  std::size_t idx = 0;
  for (const auto& item : *arr) {
    const auto* t = item.as_table();
    if (!t) fail(key, "expected an array of tables ([[" + std::string(key) + "]])");
    const std::string name = section_.empty() ? std::string(key) : section_ + "." + std::string(key);
    out.emplace_back(*t, file_, fmt::format("{}[{}]", name, idx++));
  }
  return out;
}

double Fields::fraction(std::string_view key) {
  const double v = pos(key);
  if (v > 1.0) fail(key, fmt::format("a fraction must be in (0, 1], got {}", v));
  return v;
}

Provenance Fields::file_provenance() {
  Provenance p;
  p.file = file_;
  p.source = str("source");
  p.retrieved = str("retrieved");
  return p;
}

Provenance Fields::provenance(const Provenance& parent) {
  Provenance p = parent;
  if (auto s = opt_str("source")) p.source = *s;
  if (auto r = opt_str("retrieved")) p.retrieved = *r;
  if (p.file.empty()) p.file = file_;
  return p;
}

std::vector<std::string> Fields::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, node] : *table_) out.emplace_back(key.str());
  return out;
}

void Fields::finish() const {
  std::vector<std::string> unknown;
  for (const auto& [key, node] : *table_) {
    if (std::find(used_.begin(), used_.end(), &node) == used_.end()) unknown.emplace_back(key.str());
  }
  if (unknown.empty()) return;
  std::vector<std::string> known(asked_.begin(), asked_.end());  // sorted, each once (as a set was)
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  std::string hint;
  const auto near = nearest_names(unknown.front(), known, 1);
  if (!near.empty() && edit_distance(unknown.front(), near.front()) <= 3) {
    hint = fmt::format(" (did you mean '{}'?)", near.front());
  }
  fail(unknown.front(), "unknown key" + hint + "; remove it or fix its spelling");
}

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& err) {
    const auto& where = err.source().begin;
    throw Error(fmt::format("{}:{}:{}: {}", file, where.line, where.column, err.description()));
  }
}

}  // namespace gpuplan
