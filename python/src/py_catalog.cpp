// The catalog a call runs on: the built-in one (loaded once), or one with user TOML files or
// folders added, exactly as `gpuplan --catalog PATH` loads them.
#include <mutex>

#include "common.h"
#include "core/error.h"
#include "kwargs.h"

namespace gpuplan::py {

CatalogPtr builtin_catalog() {
  static CatalogPtr catalog;
  static std::once_flag once;
  std::call_once(once, [] { catalog = std::make_shared<const Catalog>(load_catalog(CatalogOptions{})); });
  return catalog;
}

CatalogPtr catalog_from(const pyb::handle& value) {
  if (!value || value.is_none()) return builtin_catalog();
  if (pyb::isinstance<CatalogHandle>(value)) return value.cast<const CatalogHandle&>().catalog;
  CatalogOptions options;
  if (auto one = as_text(value)) {
    options.user_paths.push_back(*one);
  } else if (pyb::isinstance<pyb::sequence>(value)) {
    for (pyb::handle item : value) {
      auto path = as_text(item);
      if (!path) throw Error("catalog=" + pyb::repr(value).cast<std::string>() + ": expected a Catalog, a path or a list of paths");
      options.user_paths.push_back(*path);
    }
  } else {
    throw Error("catalog=" + pyb::repr(value).cast<std::string>() + ": expected a Catalog, a path or a list of paths");
  }
  return std::make_shared<const Catalog>(load_catalog(options));
}

CatalogPtr take_catalog(pyb::dict& kwargs) {
  if (!kwargs.contains("catalog")) return builtin_catalog();
  pyb::object value = kwargs["catalog"];
  PyDict_DelItemString(kwargs.ptr(), "catalog");
  return catalog_from(value);
}

}  // namespace gpuplan::py
