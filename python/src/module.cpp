// The compiled part of `import gpuplan` (docs/python.md): the exception type, the catalog
// handle and each question's binding. gpuplan/__init__.py re-exports these names.
#include <pybind11/stl.h>

#include "common.h"
#include "core/error.h"
#include "core/field_error.h"

namespace gpuplan::py {
namespace {

void bind_catalog(pyb::module_& m) {
  pyb::class_<CatalogHandle>(m, "Catalog",
                             "A hardware catalog and model zoo: the built-in data, with user TOML files or folders\n"
                             "added or overriding entries (as `gpuplan --catalog PATH`). Pass it as `catalog=` to\n"
                             "any question.")
      .def(pyb::init([](const std::vector<std::string>& paths, bool embedded) {
             CatalogOptions options;
             options.embedded = embedded;
             options.user_paths = paths;
             pyb::gil_scoped_release release;
             return CatalogHandle{std::make_shared<const Catalog>(load_catalog(options)), paths, embedded};
           }),
           pyb::arg("paths") = std::vector<std::string>{}, pyb::arg("embedded") = true,
           "Loads the built-in data (unless embedded=False) and then each path, in order.")
      .def_readonly("paths", &CatalogHandle::paths)
      .def_readonly("embedded", &CatalogHandle::embedded)
      .def("__repr__", [](const CatalogHandle& c) {
        return "<gpuplan.Catalog embedded=" + std::string(c.embedded ? "True" : "False") + " paths=" +
               pyb::repr(pyb::cast(c.paths)).cast<std::string>() + ">";
      });
  m.def("builtin_catalog", [] { return CatalogHandle{builtin_catalog(), {}, true}; },
        "The built-in catalog (loaded once, shared).");
}

}  // namespace
}  // namespace gpuplan::py

PYBIND11_MODULE(_gpuplan, m) {
  namespace py = gpuplan::py;
  m.doc() = "gpuplan's library, compiled: every question is one call (docs/python.md).";
  // gpuplan.Error: bad input; the message names the keyword, the value and the fix, and
  // .field is the keyword it is about (None when it is about no one field). A ValueError, so
  // callers that catch ValueError keep working.
  static pybind11::exception<gpuplan::Error> error(m, "Error", PyExc_ValueError);
  error.attr("__doc__") =
      "Bad input: the message names the keyword, the value and the fix; .field is that keyword (or None).";
  error.attr("field") = pybind11::none();
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gpuplan::Error& e) {
      pybind11::object instance = pybind11::handle(error.ptr())(e.what());  // an instance, to set .field
      const std::string field = gpuplan::error_field(e);
      if (!field.empty()) instance.attr("field") = field;
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });
  py::bind_catalog(m);
  py::bind_train(m);
  py::bind_infer(m);
  py::bind_econ(m);
  py::bind_lookup(m);
  py::bind_topology(m);
  py::bind_hardware(m);
  py::bind_calibrate(m);
  py::bind_sweep_monitor(m);
}
