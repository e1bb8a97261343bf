#include "search/compare_training.h"

#include "core/field_error.h"

namespace gpuplan {

// In the order `gpuplan compare --help` lists them (after the positional GPUs).
const std::vector<FieldSpec<CompareTrainingRequest>>& compare_fields() {
  using R = CompareTrainingRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"names", GP_FIELD(R, names), "", "", "The GPUs as one comma-separated list (instead of the positionals)"},
      {"model", GP_FIELD(R, search.model), "", "",
       "Compare training this model (zoo id or config.json): each GPU's fastest plan, step time and cost per "
       "million tokens",
       kModelId},
      {"gpus", GP_FIELD(R, search.gpus), "GPUs", "", "GPUs of the training question (with --model)"},
      {"global_batch", GP_FIELD(R, search.global_batch), "sequences", "", "Sequences per step (with --model)"},
      {"seq_len", GP_FIELD(R, search.seq_len), "tokens", "",
       "Sequence length (with --model; default: the model's context)"},
      {"precision", GP_FIELD(R, search.precision), "", "bf16, fp8", "bf16 or fp8 (with --model)"},
  };
  return fields;
}

CompareTrainingAnswer answer_compare_training(const Catalog& catalog, const CompareTrainingRequest& request) {
  CompareTrainingAnswer a;
  a.training = !request.search.model.empty();
  if (!a.training) {
    for (const FieldSpec<CompareTrainingRequest>& f : compare_fields()) {
      if ((f.name == "gpus" || f.name == "global_batch" || f.name == "seq_len") && !field_is_default(f, request)) {
        throw FieldError(std::string(f.name),
                         "compare: --gpus, --global-batch and --seq-len ask a training question; add --model M");
      }
    }
  }
  a.datasheets = answer_compare(catalog, {request.names});
  a.question = request.search;
  if (!a.training) return a;
  for (const Gpu* gpu : a.datasheets.gpus) {
    SearchRequest s = request.search;
    s.gpu = gpu->id;
    s.top = 1;
    auto search = std::make_shared<SearchAnswer>(answer_search(catalog, s));
    CompareTrainingSide side;
    side.usd_per_gpu_hour = search->options.usd_per_gpu_hour;
    if (!search->result.top.empty()) {
      const Candidate& best = search->result.top.front();
      side.found = true;
      side.step_time_s = best.estimate.step_time_s;
      side.tokens_per_s = best.estimate.tokens_per_s;
      if (side.usd_per_gpu_hour > 0 && best.estimate.tokens_per_s > 0) {
        // GPU-hours per token × the price: the cost of a token on the GPUs the plan rents.
        side.usd_per_million_tokens =
            side.usd_per_gpu_hour * best.plan.gpus() / (best.estimate.tokens_per_s * 3600) * 1e6;
      }
    }
    side.search = std::move(search);
    a.sides.push_back(std::move(side));
  }
  const CompareTrainingSide& first = a.sides.front();
  for (CompareTrainingSide& side : a.sides) {
    if (first.found && side.found) side.speed_vs_first = first.step_time_s / side.step_time_s;
    if (first.usd_per_million_tokens > 0 && side.usd_per_million_tokens > 0) {
      side.cost_vs_first = side.usd_per_million_tokens / first.usd_per_million_tokens;
    }
  }
  return a;
}

}  // namespace gpuplan
