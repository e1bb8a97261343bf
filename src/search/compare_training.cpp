#include "search/compare_training.h"

namespace gpuplan {

CompareTrainingAnswer answer_compare_training(const Catalog& catalog, const CompareTrainingRequest& request) {
  CompareTrainingAnswer a;
  a.datasheets = answer_compare(catalog, {request.names});
  a.training = request.training;
  a.question = request.search;
  if (!request.training) return a;
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
