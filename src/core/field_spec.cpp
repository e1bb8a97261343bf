#include "core/field_spec.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace gpuplan {

std::string field_value_text(const std::string& v) { return v; }
std::string field_value_text(int v) { return fmt::format("{}", v); }
std::string field_value_text(std::int64_t v) { return fmt::format("{}", v); }
std::string field_value_text(double v) { return fmt::format("{}", v); }
std::string field_value_text(bool v) { return v ? "true" : "false"; }
std::string field_value_text(const std::optional<int>& v) { return v ? field_value_text(*v) : ""; }
std::string field_value_text(const std::optional<double>& v) { return v ? field_value_text(*v) : ""; }
std::string field_value_text(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ",")); }
std::string field_value_text(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ",")); }

namespace {
// "a number of GiB" / "a number".
std::string field_unit_words(std::string_view unit) {
  if (unit.empty()) return "a number";
  return fmt::format("a number of {}", unit == "s" ? std::string_view("seconds") : unit);
}
}  // namespace

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, double value) {
  if (rule == FieldNumberRule::kFiniteNumbers) {
    if (!std::isfinite(value)) {
      throw Error(fmt::format("{} {}: not a finite number; give {}, or leave {} out for its default", flag, value,
                              field_unit_words(unit), flag));
    }
    // No quantity of any question comes near 1e12 (GiB, ms, tokens, requests/s): a larger value
    // is a typo, and would overflow to inf once scaled (1e308 GiB in bytes).
    if (std::fabs(value) > kMaxFieldNumber) {
      throw Error(fmt::format("{} {:g}: too large (at most {:g}); give {}, or leave {} out for its default", flag,
                              value, kMaxFieldNumber, field_unit_words(unit), flag));
    }
  } else if (value < 0) {
    throw Error(fmt::format("{} {:g}: negative; give {}, 0 or more, or leave {} out for its default", flag, value,
                            field_unit_words(unit), flag));
  }
}

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, int value) {
  check_field_number(rule, flag, unit, static_cast<double>(value));
}

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit, std::int64_t value) {
  check_field_number(rule, flag, unit, static_cast<double>(value));
}

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::optional<int>& value) {
  if (value) check_field_number(rule, flag, unit, *value);
}

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::optional<double>& value) {
  if (value) check_field_number(rule, flag, unit, *value);
}

void check_field_number(FieldNumberRule rule, std::string_view flag, std::string_view unit,
                        const std::vector<int>& values) {
  for (int v : values) check_field_number(rule, flag, unit, v);
}

}  // namespace gpuplan
