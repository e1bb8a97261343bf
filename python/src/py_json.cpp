// JSON ↔ Python values. The JSON is report/'s (the one writer per answer type); this file only
// changes its representation, never its content.
#include <cmath>

#include "common.h"
#include "core/error.h"
#include "kwargs.h"

namespace gpuplan::py {

pyb::object json_to_py(const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::null:
      return pyb::none();
    case nlohmann::ordered_json::value_t::boolean:
      return pyb::bool_(value.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return pyb::int_(value.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return pyb::int_(value.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_float:
      return pyb::float_(value.get<double>());
    case nlohmann::ordered_json::value_t::string:
      return pyb::str(value.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      pyb::list out;
      for (const auto& item : value) out.append(json_to_py(item));
      return out;
    }
    case nlohmann::ordered_json::value_t::object: {
      pyb::dict out;
      for (const auto& [key, item] : value.items()) out[pyb::str(key)] = json_to_py(item);
      return out;
    }
    default:
      return pyb::none();  // binary and discarded values: report/ never writes them
  }
}

nlohmann::json py_to_json(const pyb::handle& value, const std::string& where) {
  if (value.is_none()) return nullptr;
  if (pyb::isinstance<pyb::bool_>(value)) return value.cast<bool>();
  if (pyb::isinstance<pyb::int_>(value)) {
    try {
      return value.cast<std::int64_t>();
    } catch (const pyb::cast_error&) {
      throw Error(where + ": the integer " + pyb::repr(value).cast<std::string>() + " does not fit in 64 bits");
    }
  }
  if (pyb::isinstance<pyb::float_>(value)) {
    const double x = value.cast<double>();
    if (!std::isfinite(x)) throw Error(where + ": " + pyb::repr(value).cast<std::string>() + " is not a finite number");
    return x;
  }
  if (pyb::isinstance<pyb::str>(value)) return value.cast<std::string>();
  if (pyb::isinstance<pyb::dict>(value)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto item : value.cast<pyb::dict>()) {
      if (!pyb::isinstance<pyb::str>(item.first))
        throw Error(where + ": key " + pyb::repr(item.first).cast<std::string>() + " is not a string");
      const std::string key = item.first.cast<std::string>();
      out[key] = py_to_json(item.second, where + "." + key);
    }
    return out;
  }
  if (pyb::isinstance<pyb::list>(value) || pyb::isinstance<pyb::tuple>(value)) {
    nlohmann::json out = nlohmann::json::array();
    std::size_t i = 0;
    for (pyb::handle item : value) out.push_back(py_to_json(item, where + "[" + std::to_string(i++) + "]"));
    return out;
  }
  throw Error(where + ": " + pyb::repr(value).cast<std::string>() + " is not a JSON value (dict, list, str, number, bool, None)");
}

pyb::object table(const nlohmann::ordered_json& rows) {
  pyb::object rows_py = json_to_py(rows.is_null() ? nlohmann::ordered_json::array() : rows);
  return pyb::module_::import("gpuplan._tables").attr("table")(rows_py);
}

}  // namespace gpuplan::py
