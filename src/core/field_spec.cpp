#include "core/field_spec.h"

#include <fmt/format.h>

namespace gpuplan {

std::string field_value_text(const std::string& v) { return v; }
std::string field_value_text(int v) { return fmt::format("{}", v); }
std::string field_value_text(std::int64_t v) { return fmt::format("{}", v); }
std::string field_value_text(double v) { return fmt::format("{}", v); }
std::string field_value_text(bool v) { return v ? "true" : "false"; }
std::string field_value_text(const std::optional<int>& v) { return v ? field_value_text(*v) : ""; }
std::string field_value_text(const std::optional<double>& v) { return v ? field_value_text(*v) : ""; }

}  // namespace gpuplan
