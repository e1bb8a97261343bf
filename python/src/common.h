// What the binding files share: the catalog handle every result keeps alive, the one
// Result<Answer> wrapper (to_dict / to_json / str through report/'s single writer of that
// answer), and the helpers that turn report JSON into Python values and tables.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "catalog/catalog.h"

namespace gpuplan::py {

namespace pyb = pybind11;

// A loaded catalog, shared by every result computed from it (answers point into it).
using CatalogPtr = std::shared_ptr<const Catalog>;
// gpuplan.Catalog: what Python holds.
struct CatalogHandle {
  CatalogPtr catalog;
  std::vector<std::string> paths;
  bool embedded = true;
};

// The built-in catalog, loaded once.
CatalogPtr builtin_catalog();
// The `catalog=` keyword: None = the built-in one, a Catalog object, a path or a list of paths
// (added to the built-in data, like `gpuplan --catalog`).
CatalogPtr catalog_from(const pyb::handle& value);
// Splits catalog= from a question's keywords (removing it from `kwargs`): the built-in catalog
// when absent.
CatalogPtr take_catalog(pyb::dict& kwargs);

// Report JSON → Python (dict, list, str, int, float, bool, None), keys in the writer's order.
pyb::object json_to_py(const nlohmann::ordered_json& value);
// Python → JSON (for config dicts handed to the library's readers); throws Error on a value
// JSON cannot hold.
nlohmann::json py_to_json(const pyb::handle& value, const std::string& where);
// A list of row dicts as a pandas DataFrame where pandas imports, else the list itself
// (gpuplan/_tables.py).
pyb::object table(const nlohmann::ordered_json& rows);

// One answer and the catalog it points into. to_dict/to_json/__str__ call report/'s to_json
// and to_text for the answer type: the Python module never writes a second serializer.
template <class Answer>
struct Result {
  CatalogPtr catalog;
  std::shared_ptr<const Answer> answer;
  std::shared_ptr<const void> keep;  // what else the answer points into (a model read from a file)
  const Answer& get() const { return *answer; }
};

template <class Answer>
Result<Answer> make_result(CatalogPtr catalog, Answer&& answer) {
  return Result<Answer>{std::move(catalog), std::make_shared<const Answer>(std::move(answer)), nullptr};
}

// Registers class `name` for Result<Answer> with to_dict(), to_json(indent), __str__ (the CLI's
// text) and __repr__; the caller adds the typed properties.
template <class Answer>
pyb::class_<Result<Answer>> result_class(pyb::module_& m, const char* name, const char* doc) {
  using R = Result<Answer>;
  pyb::class_<R> cls(m, name, doc);
  cls.def("to_dict", [](const R& r) { return json_to_py(to_json(r.get())); },
          "The answer as a dict: exactly the JSON `gpuplan ... --json` prints.");
  cls.def("to_json", [](const R& r, int indent) { return to_json(r.get()).dump(indent); },
          pyb::arg("indent") = 2, "The answer as the JSON text `gpuplan ... --json` prints.");
  cls.def("__str__", [](const R& r) { return to_text(r.get()); }, "The CLI's text report.");
  cls.def("__repr__", [name](const R& r) {
    std::string text = to_text(r.get());
    const auto eol = text.find('\n');
    return std::string("<gpuplan.") + name + ": " + text.substr(0, eol) + ">";
  });
  return cls;
}

void bind_train(pyb::module_& m);
void bind_infer(pyb::module_& m);
void bind_econ(pyb::module_& m);
void bind_lookup(pyb::module_& m);
void bind_topology(pyb::module_& m);
void bind_hardware(pyb::module_& m);
void bind_calibrate(pyb::module_& m);
void bind_sweep_monitor(pyb::module_& m);

}  // namespace gpuplan::py
