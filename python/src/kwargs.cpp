#include "kwargs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"

namespace gpuplan::py {

namespace pyb = pybind11;

std::optional<std::string> as_text(const pyb::handle& value) {
  if (pyb::isinstance<pyb::str>(value)) return value.cast<std::string>();
  if (pyb::hasattr(value, "__fspath__")) {
    pyb::object path = value.attr("__fspath__")();
    if (pyb::isinstance<pyb::str>(path)) return path.cast<std::string>();
  }
  return std::nullopt;
}

std::string path_arg(const pyb::handle& value, const char* function) {
  if (auto text = as_text(value)) return *text;
  throw Error(std::string(function) + "(" + pyb::repr(value).cast<std::string>() + "): expected a path (str or os.PathLike)");
}

void number_as_text(pyb::dict& kwargs, const char* function, const char* name, bool whole) {
  if (!kwargs.contains(name)) return;
  pyb::handle v = kwargs[pyb::str(name)];
  if (pyb::isinstance<pyb::bool_>(v) || !(pyb::isinstance<pyb::int_>(v) || pyb::isinstance<pyb::float_>(v))) return;
  const double x = v.cast<double>();
  const std::string shown = pyb::repr(v).cast<std::string>();
  if (!std::isfinite(x)) throw Error(std::string(function) + "(" + name + "=" + shown + "): expected a finite number");
  if (whole && x != std::floor(x)) {
    throw Error(std::string(function) + "(" + name + "=" + shown + "): expected a whole number");
  }
  // %.17g reads back as the same double; a whole number below 2^63 is written as an integer.
  char text[64];
  if (x == std::floor(x) && std::fabs(x) < 9.2e18) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(x));
  } else {
    std::snprintf(text, sizeof text, "%.17g", x);
  }
  kwargs[pyb::str(name)] = pyb::str(text);
}

Kwargs::Kwargs(std::string function, const pyb::dict& kwargs) : function_(std::move(function)), kwargs_(kwargs) {}

bool Kwargs::has(const char* name) const {
  return kwargs_.contains(name) && !kwargs_[pyb::str(name)].is_none();
}

pyb::handle Kwargs::take(const char* name) {
  known_.emplace_back(name);
  if (!kwargs_.contains(name)) return pyb::handle();
  pyb::handle value = kwargs_[pyb::str(name)];
  return value.is_none() ? pyb::handle() : value;
}

void Kwargs::type_error(const char* name, const pyb::handle& value, const char* expected) const {
  throw Error(function_ + "(" + name + "=" + pyb::repr(value).cast<std::string>() + "): expected " + expected);
}

void Kwargs::get(const char* name, std::string& out) {
  pyb::handle v = take(name);
  if (!v) return;
  std::optional<std::string> text = as_text(v);
  if (!text) type_error(name, v, "a string");
  out = *text;
}

void Kwargs::get(const char* name, std::int64_t& out) {
  pyb::handle v = take(name);
  if (!v) return;
  // bool is a subclass of int in Python; tp=True is a mistake, not 1.
  if (!pyb::isinstance<pyb::int_>(v) || pyb::isinstance<pyb::bool_>(v)) type_error(name, v, "an integer");
  try {
    out = v.cast<std::int64_t>();
  } catch (const pyb::cast_error&) {
    type_error(name, v, "an integer that fits in 64 bits");
  }
}

void Kwargs::get(const char* name, int& out) {
  pyb::handle v = take(name);
  if (!v) return;
  known_.pop_back();  // re-read through the 64-bit path below
  std::int64_t wide = 0;
  get(name, wide);
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    type_error(name, v, "an integer that fits in 32 bits");
  out = static_cast<int>(wide);
}

void Kwargs::get(const char* name, double& out) {
  pyb::handle v = take(name);
  if (!v) return;
  if (pyb::isinstance<pyb::bool_>(v) || !(pyb::isinstance<pyb::int_>(v) || pyb::isinstance<pyb::float_>(v)))
    type_error(name, v, "a number");
  out = v.cast<double>();
  if (!std::isfinite(out)) type_error(name, v, "a finite number");
}

void Kwargs::get(const char* name, bool& out) {
  pyb::handle v = take(name);
  if (!v) return;
  if (!pyb::isinstance<pyb::bool_>(v)) type_error(name, v, "True or False");
  out = v.cast<bool>();
}

void Kwargs::get(const char* name, std::optional<int>& out) {
  if (!has(name)) {
    known_.emplace_back(name);
    return;
  }
  int value = 0;
  get(name, value);
  out = value;
}

void Kwargs::get(const char* name, std::optional<double>& out) {
  if (!has(name)) {
    known_.emplace_back(name);
    return;
  }
  double value = 0;
  get(name, value);
  out = value;
}

void Kwargs::get(const char* name, std::vector<int>& out) {
  pyb::handle v = take(name);
  if (!v) return;
  if (pyb::isinstance<pyb::str>(v) || !pyb::isinstance<pyb::sequence>(v)) type_error(name, v, "a list of integers");
  out.clear();
  for (pyb::handle item : v) {
    if (!pyb::isinstance<pyb::int_>(item) || pyb::isinstance<pyb::bool_>(item)) type_error(name, v, "a list of integers");
    out.push_back(item.cast<int>());
  }
}

void Kwargs::get(const char* name, std::vector<std::string>& out) {
  pyb::handle v = take(name);
  if (!v) return;
  if (auto one = as_text(v)) {  // one name alone is a list of one
    out = {*one};
    return;
  }
  if (!pyb::isinstance<pyb::sequence>(v)) type_error(name, v, "a string or a list of strings");
  out.clear();
  for (pyb::handle item : v) {
    auto text = as_text(item);
    if (!text) type_error(name, v, "a list of strings");
    out.push_back(*text);
  }
}

void Kwargs::get_count(const char* name, double& out) {
  pyb::handle v = take(name);
  if (!v) return;
  if (auto text = as_text(v)) {
    out = parse_count(*text, std::string("--") + name);
    return;
  }
  known_.pop_back();
  get(name, out);
}

std::vector<FlagWord> Kwargs::flag_words() const {
  std::vector<FlagWord> words;
  for (const std::string& name : known_) {
    std::string flag = name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    words.push_back({flag, name});
  }
  return words;
}

void Kwargs::finish() {
  for (auto item : kwargs_) {
    const std::string key = item.first.cast<std::string>();
    bool found = false;
    for (const auto& k : known_) found = found || k == key;
    if (found) continue;
    std::string message = function_ + "(): unknown keyword '" + key + "'";
    const auto near = close_names(key, known_);
    if (!near.empty()) message += "; did you mean '" + near.front() + "'?";
    message += " (keywords: " + join(known_, ", ") + ")";
    throw Error(message);
  }
}

}  // namespace gpuplan::py
