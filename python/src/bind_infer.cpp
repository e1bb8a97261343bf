// infer and infer_search: keywords → InferRequest / InferSearchRequest → answer_infer* →
// typed results (report/infer_report.h writes their text and JSON).
#include <pybind11/stl.h>

#include "common.h"
#include "core/error.h"
#include "emit/launch_config.h"
#include "infer/infer_request.h"
#include "fields.h"
#include "infer/infer_fields.h"
#include "kwargs.h"
#include "report/infer_report.h"

namespace gpuplan::py {
namespace {

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
      [](pyb::kwargs kwargs) { return ask_by_table("infer", kwargs, infer_fields(), &answer_infer); },
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
        InferSearchRequest r;
        r.weights_given = kwargs.contains("weights") && !kwargs["weights"].is_none();
        return ask_by_table("infer_search", kwargs, infer_search_fields(), &answer_infer_search, std::move(r));
      },
      "infer_search(*, model, gpu, input_len=1024, output_len=256, gpus_max=8, ttft_ms=None, tpot_ms=None,\n"
      "rate=0, objective='throughput', ...): the best serving plan, as `gpuplan infer-search`.");
}

}  // namespace gpuplan::py
