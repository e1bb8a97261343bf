// infer and infer_search: keywords → InferRequest / InferSearchRequest → answer_infer* →
// typed results (report/infer_report.h writes their text and JSON).
#include <pybind11/stl.h>

#include "common.h"
#include "core/error.h"
#include "emit/launch_config.h"
#include "infer/infer_request.h"
#include "kwargs.h"
#include "report/infer_report.h"

namespace gpuplan::py {
namespace {

void read_common(Kwargs& k, InferCommon& r) {
  k.get("model", r.model);
  k.get("gpu", r.gpu);
  k.get("engine", r.engine);
  k.get("system", r.system);
  k.get("weights", r.weights);
  k.get("kv", r.kv);
  k.get("input_len", r.input_len);
  k.get("output_len", r.output_len);
  k.get("calibration", r.calibration);
  k.get("allow_longer_context", r.allow_longer_context);
}

void require_model_gpu(const InferCommon& r) {
  if (r.model.empty()) throw Error("--model is required: a model id or alias, or a config.json path");
  if (r.gpu.empty()) throw Error("--gpu is required: a GPU id (see gpuplan.gpus())");
}

CatalogPtr split_catalog(pyb::dict& kwargs) {
  if (!kwargs.contains("catalog")) return builtin_catalog();
  pyb::object value = kwargs["catalog"];
  PyDict_DelItemString(kwargs.ptr(), "catalog");
  return catalog_from(value);
}

using InferResult = Result<InferAnswer>;
using InferSearchResultPy = Result<InferSearchAnswer>;

// The estimate's headline figures, shared by both result classes.
template <class Cls, class Get>
void estimate_properties(Cls& cls, Get estimate) {
  using R = typename Cls::type;
  cls.def_property_readonly("feasible", [estimate](const R& r) { return estimate(r).feasible; });
  cls.def_property_readonly("reason", [estimate](const R& r) { return estimate(r).reason; });
  cls.def_property_readonly("ttft_s", [estimate](const R& r) { return estimate(r).point.ttft_s; });
  cls.def_property_readonly("tpot_s", [estimate](const R& r) { return estimate(r).point.tpot_s; });
  cls.def_property_readonly("output_tokens_per_s", [estimate](const R& r) { return estimate(r).output_tokens_per_s; });
  cls.def_property_readonly("output_tokens_per_s_per_gpu",
                            [estimate](const R& r) { return estimate(r).output_tokens_per_s_per_gpu; });
  cls.def_property_readonly("requests_per_s", [estimate](const R& r) { return estimate(r).requests_per_s; });
  cls.def_property_readonly("running_batch", [estimate](const R& r) { return estimate(r).point.running; });
}

}  // namespace

void bind_infer(pyb::module_& m) {
  auto infer_cls = result_class<InferAnswer>(m, "InferResult", "One serving plan's estimate (gpuplan infer).");
  estimate_properties(infer_cls, [](const InferResult& r) -> const InferEstimate& { return r.get().estimate; });
  infer_cls.def("emit", [](const InferResult& r, const std::string& framework) {
    return make_result(r.catalog, emit_infer(r.get(), framework));
  }, pyb::arg("framework"), "The server launch config of this plan for vllm, sglang or trtllm (`gpuplan infer --emit`).");
  m.def(
      "infer",
      [](pyb::kwargs kwargs) {
        CatalogPtr catalog = split_catalog(kwargs);
        InferRequest r;
        Kwargs k("infer", kwargs);
        read_common(k, r);
        k.get("gpus", r.gpus);
        k.get("tp", r.tp);
        k.get("pp", r.pp);
        k.get("ep", r.ep);
        k.get("attention_dp", r.attention_dp);
        k.get("batch", r.batch);
        k.get("concurrency", r.concurrency);
        k.get("max_throughput", r.max_throughput);
        // Serving features (infer/infer_features.h), one field at a time.
        k.get("spec_draft_tokens", r.features.spec_draft_tokens);
        k.get("spec_acceptance", r.features.spec_acceptance);
        k.get("spec_draft", r.features.spec_draft);
        k.get("prefix_hit_rate", r.features.prefix_hit_rate);
        k.get("shared_prefix_tokens", r.features.shared_prefix_tokens);
        k.get("disagg", r.features.disagg);
        k.get("disagg_prefill_tp", r.features.disagg_prefill_tp);
        k.get("disagg_decode_tp", r.features.disagg_decode_tp);
        k.get("slo_ttft_ms", r.features.slo_ttft_ms);
        k.get("slo_tpot_ms", r.features.slo_tpot_ms);
        k.get("request_rate", r.features.request_rate);
        k.finish();
        require_model_gpu(r);
        const int loads = (r.batch ? 1 : 0) + (r.concurrency ? 1 : 0) + (r.max_throughput ? 1 : 0);
        if (loads > 1) throw Error("--batch, --concurrency and --max-throughput exclude each other: give one");
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_infer(*catalog, r));
      },
      "infer(*, model, gpu, engine='vllm', weights='bf16', kv=None, input_len=1024, output_len=256,\n"
      "gpus=None, tp=None, pp=1, ep=1, attention_dp=1, batch=None | concurrency=None | max_throughput=False,\n"
      "spec_draft_tokens=0, spec_acceptance=None, spec_draft='mtp', prefix_hit_rate=None, shared_prefix_tokens=None,\n"
      "disagg='', disagg_prefill_tp=None, disagg_decode_tp=None, slo_ttft_ms=None, slo_tpot_ms=None, request_rate=None, ...)\n"
      "One serving plan's estimate, as `gpuplan infer`.");

  auto search_cls = result_class<InferSearchAnswer>(m, "InferSearchResult", "The best serving plan (gpuplan infer-search).");
  search_cls.def_property_readonly("found", [](const InferSearchResultPy& r) { return r.get().result.found; });
  estimate_properties(search_cls,
                      [](const InferSearchResultPy& r) -> const InferEstimate& { return r.get().result.estimate; });
  m.def(
      "infer_search",
      [](pyb::kwargs kwargs) {
        CatalogPtr catalog = split_catalog(kwargs);
        InferSearchRequest r;
        r.weights_given = kwargs.contains("weights") && !kwargs["weights"].is_none();
        Kwargs k("infer_search", kwargs);
        read_common(k, r);
        k.get("gpus_max", r.gpus_max);
        k.get("ttft_ms", r.ttft_ms);
        k.get("tpot_ms", r.tpot_ms);
        k.get("rate", r.rate);
        k.get("objective", r.objective);
        k.finish();
        require_model_gpu(r);
        pyb::gil_scoped_release release;
        return make_result(catalog, answer_infer_search(*catalog, r));
      },
      "infer_search(*, model, gpu, input_len=1024, output_len=256, gpus_max=8, ttft_ms=0, tpot_ms=None,\n"
      "rate=0, objective='throughput', ...): the best serving plan, as `gpuplan infer-search`.");
}

}  // namespace gpuplan::py
