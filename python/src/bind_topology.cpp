// import_topology: `gpuplan import-topology FILE` from Python. The same library call
// (catalog/topology_import.h) and the same writer (report/topology_import_report.h): the result
// is the dict `--json` prints, the catalog TOML under "toml" and the derived fields beside it.
#include <pybind11/stl.h>

#include "catalog/topology_import.h"
#include "common.h"
#include "core/utc_date.h"
#include "kwargs.h"
#include "report/topology_import_report.h"

namespace gpuplan::py {

void bind_topology(pyb::module_& m) {
  m.def(
      "import_topology",
      [](const pyb::object& file_arg, const std::string& gpu, const std::string& format, const std::string& id,
         const std::string& nic, double nic_gbit, const pyb::object& catalog_arg) {
        CatalogPtr catalog = catalog_from(catalog_arg);
        TopologyImportRequest request;
        request.file = path_arg(file_arg, "import_topology");
        request.gpu = gpu;
        request.format = format;
        request.id = id;
        request.nic = nic;
        request.nic_gbit = nic_gbit;
        ImportedTopology imported;
        {
          pyb::gil_scoped_release release;
          imported = import_topology(*catalog, request);
        }
        return json_to_py(imported_system_json(imported, utc_date_today()));
      },
      pyb::arg("file"), pyb::kw_only(), pyb::arg("gpu") = "", pyb::arg("format") = "", pyb::arg("id") = "",
      pyb::arg("nic") = "", pyb::arg("nic_gbit") = 0.0, pyb::arg("catalog") = pyb::none(),
      "`gpuplan import-topology FILE --json`: a catalog system from `nvidia-smi topo -m` output or NCCL's\n"
      "topology dump (NCCL_TOPO_DUMP_FILE). Returns a dict: 'toml' (the file to keep and pass back as\n"
      "catalog=), the derived fields ('format', 'scaleup_topology', 'nics', 'rails', 'derived', and for\n"
      "a dump 'sm' and 'gpu_candidates').");
}

}  // namespace gpuplan::py
