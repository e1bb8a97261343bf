// Catalog and model access (gpus, models, model, model_from_config) and the validators
// (validate_training, validate_inference, validate_collectives): the same library calls as
// `gpuplan gpus`, `gpuplan model` and `gpuplan validate`.
#include <pybind11/stl.h>

#include "catalog/lookup_fields.h"
#include "catalog/resolve_model.h"
#include "common.h"
#include "core/error.h"
#include "fields.h"
#include "kwargs.h"
#include "report/gpu_report.h"
#include "report/model_report.h"
#include "report/validation_report.h"
#include "validate/validate_request.h"
#include "workload/hf_config.h"

namespace gpuplan::py {
namespace {

using ModelResult = Result<ModelAnswer>;

ModelResult model_result(CatalogPtr catalog, std::shared_ptr<ModelSpec> owned, const ModelSpec& model,
                         std::optional<std::int64_t> seq_len, const std::string& name) {
  ModelRequest request;
  request.name = name;
  request.seq_len = seq_len;
  ModelResult r = make_result(std::move(catalog), answer_model(model, request));
  r.keep = std::move(owned);
  return r;
}

template <class Answer>
void validation_class(pyb::module_& m, const char* name, const char* doc) {
  using R = Result<Answer>;
  result_class<Answer>(m, name, doc)
      .def_property_readonly("rows", [](const R& r) { return table(to_json(r.get())["rows"]); },
                             "Predicted vs measured, one row per run: a DataFrame where pandas is installed.");
}

}  // namespace

void bind_lookup(pyb::module_& m) {
  m.def(
      "gpus",
      [](pyb::kwargs kwargs) {
        CatalogPtr catalog = take_catalog(kwargs);
        GpusRequest request;
        Kwargs k("gpus", kwargs);
        read_fields(k, request, gpus_fields());
        k.finish();
        return table(to_json(answer_gpus(*catalog, request))["gpus"]);
      },
      "gpus(*, vendor='', gpus_only=False, catalog=None): "
      "The hardware catalog (`gpuplan gpus --json`), one row per accelerator: a DataFrame where pandas\n"
      "is installed, else a list of dicts.");
  m.def(
      "models",
      [](const pyb::object& catalog_arg) {
        CatalogPtr catalog = catalog_from(catalog_arg);
        return table(to_json(answer_models(*catalog))["models"]);
      },
      pyb::kw_only(), pyb::arg("catalog") = pyb::none(), "The model zoo (`gpuplan models --json`), one row per model.");

  result_class<ModelAnswer>(m, "Model", "A model's shape, parameters, FLOPs per token and bytes (gpuplan model).")
      .def_property_readonly("id", [](const ModelResult& r) { return r.get().model->id; })
      .def_property_readonly("name", [](const ModelResult& r) { return r.get().model->name; })
      .def_property_readonly("family", [](const ModelResult& r) { return r.get().model->family; })
      .def_property_readonly("layers", [](const ModelResult& r) { return r.get().model->layers; })
      .def_property_readonly("hidden", [](const ModelResult& r) { return r.get().model->hidden; })
      .def_property_readonly("heads", [](const ModelResult& r) { return r.get().model->heads; })
      .def_property_readonly("kv_heads", [](const ModelResult& r) { return r.get().model->kv_heads; })
      .def_property_readonly("vocab", [](const ModelResult& r) { return r.get().model->vocab; })
      .def_property_readonly("max_seq_len", [](const ModelResult& r) { return r.get().model->max_seq_len; })
      .def_property_readonly("seq_len", [](const ModelResult& r) { return r.get().seq_len; },
                             "The sequence length the per-sequence figures are quoted at.");
  m.def(
      "model",
      [](const pyb::object& name_arg, std::optional<std::int64_t> seq_len, const pyb::object& catalog_arg) {
        const std::string name = path_arg(name_arg, "model");
        CatalogPtr catalog = catalog_from(catalog_arg);
        std::shared_ptr<ModelSpec> owned;
        const ModelSpec& spec = resolve_model(*catalog, name, owned);
        return model_result(catalog, std::move(owned), spec, seq_len, name);
      },
      pyb::arg("name"), pyb::kw_only(), pyb::arg("seq_len") = pyb::none(), pyb::arg("catalog") = pyb::none(),
      "A zoo model by id or alias, or a Hugging Face config.json path (`gpuplan model NAME`).");
  m.def(
      "model_from_config",
      [](const pyb::object& config, std::optional<std::int64_t> seq_len) {
        std::shared_ptr<ModelSpec> owned;
        std::string name;
        if (auto path = as_text(config)) {
          owned = std::make_shared<ModelSpec>(load_hf_config_file(*path));
          name = *path;
        } else if (pyb::isinstance<pyb::dict>(config)) {
          owned = std::make_shared<ModelSpec>(model_from_hf_config(py_to_json(config, "config"), "config"));
          if (owned->id.empty()) owned->id = "config";
          if (owned->family.empty()) owned->family = owned->model_type;
          owned->provenance.source = "a dict passed to gpuplan.model_from_config";
          name = owned->id;
        } else {
          throw Error("model_from_config(" + pyb::repr(config).cast<std::string>() +
                      "): expected a config.json path or a dict of its keys");
        }
        const ModelSpec& spec = *owned;
        return model_result(builtin_catalog(), owned, spec, seq_len, name);
      },
      pyb::arg("config"), pyb::kw_only(), pyb::arg("seq_len") = pyb::none(),
      "A model read from a Hugging Face config.json: a path (file or folder) or the dict of its keys.");

  validation_class<ValidateTrainingAnswer>(m, "TrainValidation", "Predicted vs published training runs (gpuplan validate training).");
  validation_class<ValidateInferenceAnswer>(m, "InferValidation", "Predicted vs published serving runs (gpuplan validate inference).");
  validation_class<ValidateCollectivesAnswer>(m, "CollectiveValidation", "Predicted vs nccl-tests results (gpuplan validate collectives).");
  m.def(
      "validate_training",
      [](const pyb::object& file_arg, bool leave_one_source_out, bool fit, const pyb::object& catalog_arg) {
        const std::string file = path_arg(file_arg, "validate_training");
        CatalogPtr catalog = catalog_from(catalog_arg);
        ValidateTrainingRequest request{file, leave_one_source_out, fit};
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_validate_training(*catalog, request));
      },
      pyb::arg("file"), pyb::kw_only(), pyb::arg("leave_one_source_out") = false, pyb::arg("fit") = false,
      pyb::arg("catalog") = pyb::none(), "`gpuplan validate training FILE.csv`; .rows is a DataFrame.");
  m.def(
      "validate_inference",
      [](const pyb::object& file_arg, const pyb::object& catalog_arg) {
        const std::string file = path_arg(file_arg, "validate_inference");
        CatalogPtr catalog = catalog_from(catalog_arg);
        ValidateInferenceRequest request;
        request.file = file;
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_validate_inference(*catalog, request));
      },
      pyb::arg("file"), pyb::kw_only(), pyb::arg("catalog") = pyb::none(),
      "`gpuplan validate inference FILE.csv`; .rows is a DataFrame.");
  m.def(
      "validate_collectives",
      [](const pyb::object& file_arg, bool leave_one_source_out, bool leave_one_gpu_out, bool fit,
         const pyb::object& catalog_arg) {
        const std::string file = path_arg(file_arg, "validate_collectives");
        CatalogPtr catalog = catalog_from(catalog_arg);
        ValidateCollectivesRequest request;
        request.file = file;
        request.leave_one_source_out = leave_one_source_out;
        request.leave_one_gpu_out = leave_one_gpu_out;
        request.fit = fit;
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_validate_collectives(*catalog, request));
      },
      pyb::arg("file"), pyb::kw_only(), pyb::arg("leave_one_source_out") = false,
      pyb::arg("leave_one_gpu_out") = false, pyb::arg("fit") = false, pyb::arg("catalog") = pyb::none(),
      "`gpuplan validate collectives FILE.csv [--leave-one-source-out] [--leave-one-gpu-out] [--fit]`; "
      ".rows is a DataFrame.");
}

}  // namespace gpuplan::py
