// The hardware questions: gpu (one accelerator, datasheet against a gpuplan-bench profile),
// compare, systems, system, clouds and rooflines — the library calls of `gpuplan gpu`,
// `compare`, `systems`, `system`, `clouds` and `rooflines` (catalog/lookup_request.h,
// calibration/gpu_request.h, search/compare_training.h, cost/rooflines_request.h), written by
// report/'s one writer each; every function's keywords are its field table's (catalog/lookup_fields.h,
// calibration/gpu_fields.h, cost/rooflines_fields.h, search/compare_training.h).
#include <pybind11/stl.h>

#include "calibration/gpu_fields.h"
#include "catalog/lookup_fields.h"
#include "common.h"
#include "core/error.h"
#include "cost/rooflines_fields.h"
#include "fields.h"
#include "kwargs.h"
#include "report/compare_report.h"
#include "report/gpu_report.h"
#include "report/rooflines_report.h"
#include "report/system_report.h"
#include "search/compare_training.h"

namespace gpuplan::py {
namespace {

using GpuResult = Result<GpuAnswer>;
using CompareResult = Result<CompareTrainingAnswer>;
using SystemResult = Result<SystemAnswer>;
using CloudsResult = Result<CloudsAnswer>;
using RooflinesResult = Result<RooflinesAnswer>;

}  // namespace

void bind_hardware(pyb::module_& m) {
  result_class<GpuAnswer>(m, "GpuResult", "One accelerator's datasheet, and what a profile measured (gpuplan gpu).")
      .def_property_readonly("id", [](const GpuResult& r) { return r.get().gpu->id; })
      .def_property_readonly("calibrated", [](const GpuResult& r) { return r.get().calibrated.has_value(); },
                             "Whether a gpuplan-bench profile was applied (calibration=).");
  m.def(
      "gpu",
      [](pyb::kwargs kwargs) { return ask_by_table("gpu", kwargs, gpu_fields(), &answer_gpu); },
      "gpu(*, name, calibration=None, catalog=None): one GPU's datasheet (`gpuplan gpu NAME`); with\n"
      "calibration= a gpuplan-bench profile, the measured figures beside it.");

  result_class<CompareTrainingAnswer>(m, "CompareResult", "GPUs side by side, ratios to the first (gpuplan compare).")
      .def_property_readonly("ids", [](const CompareResult& r) {
        std::vector<std::string> ids;
        for (const Gpu* g : r.get().datasheets.gpus) ids.push_back(g->id);
        return ids;
      });
  m.def(
      "compare",
      [](pyb::kwargs kwargs) {
        if (!kwargs.contains("names")) {
          throw FieldError("names", "compare(): names is required: two or more GPU ids (see gpuplan.gpus())");
        }
        return ask_by_table("compare", kwargs, compare_fields(), &answer_compare_training);
      },
      "compare(*, names, model=None, gpus=0, global_batch=0, seq_len=None, precision='bf16', catalog=None):\n"
      "two or more GPUs side by side (`gpuplan compare A B ...`); with model=, gpus= and global_batch=, each\n"
      "GPU's fastest plan for that training run, its step time and cost per million tokens.");

  m.def(
      "systems",
      [](const pyb::object& catalog_arg) {
        CatalogPtr catalog = catalog_from(catalog_arg);
        return json_to_py(to_json(answer_systems(*catalog)));
      },
      pyb::kw_only(), pyb::arg("catalog") = pyb::none(),
      "Every system and fabric in the catalog (`gpuplan systems --json`): a dict with 'systems' and 'fabrics'.");

  result_class<SystemAnswer>(m, "SystemResult", "A node, rack or fabric (gpuplan system).")
      .def_property_readonly("id", [](const SystemResult& r) {
        const SystemAnswer& a = r.get();
        return a.system ? a.system->id : a.fabric->id;
      })
      .def_property_readonly("kind", [](const SystemResult& r) {
        return std::string(r.get().system ? "system" : "fabric");
      });
  m.def(
      "system",
      [](pyb::kwargs kwargs) { return ask_by_table("system", kwargs, system_fields(), &answer_system); },
      "system(*, name, catalog=None): a system (node, rack) or a fabric by id or alias (`gpuplan system NAME`).");

  result_class<CloudsAnswer>(m, "CloudsResult", "Cloud offers and their prices (gpuplan clouds).")
      .def_property_readonly("rows", [](const CloudsResult& r) { return table(to_json(r.get())["offers"]); },
                             "One row per offer: a DataFrame where pandas is installed.");
  m.def(
      "clouds",
      [](pyb::kwargs kwargs) { return ask_by_table("clouds", kwargs, clouds_fields(), &answer_clouds); },
      "clouds(*, gpu='', provider='', all=False, catalog=None): cloud offers (`gpuplan clouds`).");

  result_class<RooflinesAnswer>(m, "RooflinesResult",
                                "The parallelism rooflines of a GPU on a system (gpuplan rooflines).");
  m.def(
      "rooflines",
      [](pyb::kwargs kwargs) { return ask_by_table("rooflines", kwargs, rooflines_fields(), &answer_rooflines); },
      "rooflines(*, gpu='', system='', fabric='', precision='bf16', ffn=..., experts=..., topk=..., ep=...,\n"
      "catalog=None): the arithmetic intensity each parallelism needs against what the GPU and links\n"
      "give (`gpuplan rooflines`).");
}

}  // namespace gpuplan::py
