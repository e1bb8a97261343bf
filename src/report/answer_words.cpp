#include "report/answer_words.h"

#include <fmt/format.h>

#include "core/precision.h"
#include "core/verdict.h"
#include "report/human_units.h"

namespace gpuplan {

std::string short_gpu_name(const Gpu& gpu) {
  std::string name = gpu.name.empty() ? gpu.id : gpu.name;
  for (const char* vendor : {"NVIDIA ", "AMD ", "Intel "}) {
    if (name.rfind(vendor, 0) == 0) name = name.substr(std::string(vendor).size());
  }
  const std::size_t paren = name.find(" (");
  if (paren != std::string::npos) name = name.substr(0, paren);
  return name;
}

namespace {

// "TP 8 × PP 2 × DP 4" from the degrees above 1; `alone` where all are 1.
std::string plan_degrees_words(std::initializer_list<std::pair<const char*, int>> degrees, const char* alone) {
  std::string out;
  for (const auto& [name, degree] : degrees) {
    if (degree <= 1) continue;
    if (!out.empty()) out += " × ";
    out += fmt::format("{} {}", name, degree);
  }
  return out.empty() ? alone : out;
}

// " as TP 2 × PP 3 with ..." after "on 8 H100"; " with ..." where the plan is one GPU's.
std::string plan_as_words(const std::string& plan_words) {
  constexpr std::string_view kAlone = "one GPU";
  if (plan_words.rfind(kAlone, 0) == 0) return plan_words.substr(kAlone.size());
  return " as " + plan_words;
}

std::string gpu_count_words(long long gpus, const Gpu& gpu) { return fmt::format("{} {}", human_count(gpus), short_gpu_name(gpu)); }

std::string serving_precisions_words(Precision weights, Precision kv) {
  if (weights == kv) return fmt::format("{} weights and KV", precision_name(weights));
  return fmt::format("{} weights and {} KV", precision_name(weights), precision_name(kv));
}

std::string serving_load_words(const InferPlan& plan, double running) {
  switch (plan.mode) {
    case InferMode::batch:
      return plan.load == 1 ? "one request at a time" : fmt::format("a batch of {}", human_count(plan.load));
    case InferMode::concurrency:
      return fmt::format("{} request{} in flight", human_count(plan.load), plan.load == 1 ? "" : "s");
    case InferMode::max_throughput:
      break;
  }
  return fmt::format("at full load ({} running)", human_count(running));
}

// "1,220 output tokens/s per GPU at 105 ms per token, first token in 1.11 s; bound by compute"
std::string serving_result_words(const InferEstimate& e) {
  std::string out = fmt::format("{} output tokens/s per GPU at {} per token, first token in {}",
                                human_number(e.output_tokens_per_s_per_gpu), human_seconds(e.point.tpot_s),
                                human_seconds(e.point.ttft_s));
  if (e.usd_per_million_output_tokens > 0) {
    out += fmt::format(", {} per million output tokens", human_usd(e.usd_per_million_output_tokens));
  }
  if (e.bottleneck) out += fmt::format("; bound by {}", bottleneck_name(*e.bottleneck));
  return out;
}

std::string serving_sentence(const InferContext& ctx, const InferPlan& plan, const InferEstimate& e) {
  const std::string head = fmt::format("{} on {}{}", ctx.model->name, gpu_count_words(plan.gpus(), *ctx.gpu),
                                       plan_as_words(serving_plan_words(plan)));
  if (!e.feasible) return fmt::format("Serving {} does not run: {}", head, e.reason);
  return fmt::format("Serve {}: {}.", head, serving_result_words(e));
}

}  // namespace

std::string training_plan_words(const Plan& plan) {
  std::string out = plan_degrees_words({{"TP", plan.tp}, {"PP", plan.pp}, {"DP", plan.dp}, {"CP", plan.cp}, {"EP", plan.ep}},
                                  "one GPU");
  std::vector<std::string> traits;
  if (plan.vp > 1) traits.push_back(fmt::format("{} virtual stages", plan.vp));
  if (plan.sp) traits.push_back("sequence parallel");
  if (plan.zero > 0) traits.push_back(fmt::format("ZeRO-{}", plan.zero));
  traits.push_back(plan.recompute == Recompute::none ? "no recompute"
                                                     : fmt::format("{} recompute", recompute_name(plan.recompute)));
  traits.emplace_back(precision_name(plan.precision));
  traits.push_back(fmt::format("micro-batch {}", plan.micro_batch));
  std::string joined;
  for (const std::string& t : traits) joined += (joined.empty() ? "" : ", ") + t;
  return out + " (" + joined + ")";
}

std::string serving_plan_words(const InferPlan& plan) {
  std::string out = plan_degrees_words({{"TP", plan.tp}, {"PP", plan.pp}, {"EP", plan.ep}, {"attention DP", plan.attention_dp}},
                                  "one GPU");
  if (plan.replicas > 1) out += fmt::format(", {} replicas", plan.replicas);
  return fmt::format("{} with {}, {}", out, serving_precisions_words(plan.weights, plan.kv), serving_load_words(plan, plan.load));
}

std::string answer_words(const TrainAnswer& a) {
  const Estimate& e = a.estimate;
  const TrainContext& ctx = a.ctx();
  const std::string head = fmt::format("{} on {}{}", ctx.model->name, gpu_count_words(e.gpus, *ctx.gpu),
                                       plan_as_words(training_plan_words(a.plan())));
  if (!e.feasible()) return fmt::format("Training {} does not run: {}.", head, e.reason_text());
  return fmt::format("Train {}: {} per step of {} tokens, {} tokens/s ({} MFU), {} of {} per GPU; bound by {}.", head,
                     human_seconds(e.step_time_s), human_count(e.tokens_per_step), human_number(e.tokens_per_s),
                     human_percent(e.mfu), human_bytes(e.memory.total_bytes), human_bytes(e.memory_capacity_bytes),
                     bottleneck_name(e.bottleneck));
}

std::string answer_words(const SearchAnswer& a) {
  const TrainContext& ctx = a.setup.ctx;
  const SearchResult& r = a.result;
  const std::string where = fmt::format("{} on {}", ctx.model->name, gpu_count_words(a.setup.plan.gpus(), *ctx.gpu));
  if (r.top.empty()) {
    std::string out = fmt::format("No plan of the {} searched trains {}", human_count(r.space), where);
    if (!a.empty_space.empty()) return out + ": " + a.empty_space;
    if (a.min_gpus_that_fit > 0) return out + fmt::format("; the fewest GPUs that fit are {}.", a.min_gpus_that_fit);
    return out + ": none fits in memory.";
  }
  const Candidate& best = r.top.front();
  const Estimate& e = best.estimate;
  const char* rank = a.ranker.objective == Objective::cost  ? "cheapest"
                     : a.ranker.objective == Objective::mfu ? "highest-MFU"
                                                            : "fastest";
  // The space's size, not the count that fit: with pruning, how many fit among those evaluated
  // depends on the order the threads met them.
  return fmt::format("The {} plan to train {} is {}: {} per step, {} tokens/s ({} MFU), {} per GPU; the best of {} plans{}.",
                     rank, where, training_plan_words(best.plan), human_seconds(e.step_time_s),
                     human_number(e.tokens_per_s), human_percent(e.mfu), human_bytes(e.memory.total_bytes),
                     human_count(r.space), r.complete ? "" : " (the time limit stopped the search)");
}

std::string answer_words(const RecommendAnswer& a) {
  const std::string model = a.model ? a.model->name : a.request.model;
  if (!a.have_pick) {
    return fmt::format("No GPU and count trains {} on {} tokens within the limits asked.", model, human_number(a.request.tokens));
  }
  const RecommendPoint& p = a.pick;
  return fmt::format("Train {} on {} tokens with {}{} at {} ({} per GPU-hour): {} and {}, {}; {} plans on the front of "
                     "{} priced.",
                     model, human_number(a.request.tokens), gpu_count_words(p.gpus, *p.gpu), plan_as_words(training_plan_words(p.plan)),
                     p.offer ? p.offer->provider : "no offer", human_usd(p.offer ? p.offer->usd_per_gpu_hour : 0),
                     human_seconds(p.time_s), human_usd(p.cost_usd), a.pick_rule, a.front.size(), human_count(a.points));
}

std::string answer_words(const InferAnswer& a) { return serving_sentence(a.setup.ctx, a.plan, a.estimate); }

std::string answer_words(const InferSearchAnswer& a) {
  const InferContext& ctx = a.setup.ctx;
  const InferSearchSpec& spec = a.spec;
  const InferSearchResult& r = a.result;
  if (!r.found) {
    return fmt::format("No plan serves {} on up to {}: {}.", ctx.model->name, gpu_count_words(spec.gpus_max, *ctx.gpu), r.reason);
  }
  std::string targets;
  if (spec.ttft_s > 0) targets += fmt::format("first token within {}", human_seconds(spec.ttft_s));
  if (spec.tpot_s > 0) targets += fmt::format("{}{} per token at most", targets.empty() ? "" : " and ", human_seconds(spec.tpot_s));
  std::string out = serving_sentence(ctx, r.plan, r.estimate);
  out.pop_back();  // the full stop
  if (r.simulation && !targets.empty()) {
    targets += fmt::format(" at the simulated p{:g}: {} to the first token, {} per token",
                           spec.slo_percentile, human_seconds(r.simulation->result.ttft_at_percentile_s),
                           human_seconds(r.simulation->result.tpot_at_percentile_s));
  }
  out += targets.empty() ? "; no latency target" : fmt::format("; meets the targets ({})", targets);
  if (spec.rate_rps > 0) out += fmt::format("; {} requests/s need {} replicas", human_number(spec.rate_rps), r.plan.replicas);
  return out + fmt::format(". Best of {} plans that fit ({} evaluated).", human_count(r.feasible), human_count(r.evaluated));
}

}  // namespace gpuplan
