#include "search/empty_space.h"
#include "search/search_request.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "search/coverage.h"
#include "search/search_fields.h"

namespace gpuplan {

int max_search_threads() { return 4 * std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

SearchAnswer answer_search(const Catalog& catalog, const SearchRequest& r) {
  check_field_numbers(r, search_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  require_at_least("--gpus", r.gpus, 1);
  require_at_least("--global-batch", r.global_batch, 1);
  require_at_least("--top", r.top, 1);
  if (r.threads) {
    require_at_least("--threads", *r.threads, 1, "omit --threads to use every core");
    if (*r.threads > max_search_threads()) {
      throw Error(fmt::format("--threads {}: more than {} (4 × the {} hardware threads); omit --threads to use every "
                              "core",
                              *r.threads, max_search_threads(), max_search_threads() / 4));
    }
  }
  if (r.time_limit_s < 0) {
    throw Error(fmt::format("--time-limit {}: must be positive; omit it for an exhaustive search", r.time_limit_s));
  }
  if (r.usd_per_gpu_hour < 0) {
    throw Error(fmt::format("--usd-per-gpu-hour {}: must be positive; omit it for the catalog's price",
                            r.usd_per_gpu_hour));
  }
  const auto objective = parse_objective(r.objective);
  if (!objective) throw Error(fmt::format("--objective '{}': use time, cost or mfu", r.objective));

  TrainRequest train;
  train.model = r.model;
  train.gpu = r.gpu;
  train.system = r.system;
  train.fabric = r.fabric;
  train.gpus = r.gpus;
  train.seq_len = r.seq_len;
  train.allow_longer_context = r.allow_longer_context;
  train.precision = r.precision;
  train.framework = r.framework;
  train.calibration = r.calibration;
  train.memory_headroom_gib = r.memory_headroom_gib;
  train.optimizer_state_bits = r.optimizer_state_bits;
  train.offload_optimizer = r.offload_optimizer;
  train.elementwise = r.elementwise;
  train.fp8_recipe = r.fp8_recipe;
  train.fp8_activation_cache = r.fp8_activation_cache;
  train.fp8_params = r.fp8_params;

  SearchAnswer a;
  a.setup = make_train_setup(catalog, train);
  check_field_numbers(r, search_fields(), FieldNumberRule::kNoNegativeNumbers);  // after the range checks
  const TrainContext& ctx = a.setup.ctx;
  a.space.gpus = r.gpus;
  a.space.global_batch = r.global_batch;
  a.space.seq_len = plan_seq_len(a.setup.plan, *ctx.model);
  a.space.precision = a.setup.plan.precision;
  a.space.optimizer_state_bits = a.setup.plan.optimizer_state_bits;
  a.space.offload_optimizer = a.setup.plan.offload_optimizer;
  a.space.eager_elementwise = a.setup.plan.eager_elementwise;
  a.space.scaling = a.setup.plan.scaling;
  a.space.low_precision_act_cache = a.setup.plan.low_precision_act_cache;
  a.space.fp8_params = a.setup.plan.fp8_params;

  a.options.top_k = r.top;
  a.options.threads = r.threads.value_or(0);
  a.options.prune = !r.no_prune;
  a.options.time_limit_s = r.time_limit_s;
  a.options.objective = *objective;
  if (r.usd_per_gpu_hour > 0) {
    a.options.usd_per_gpu_hour = r.usd_per_gpu_hour;
    a.price_source = "--usd-per-gpu-hour";
  } else if (const auto price = cheapest_on_demand(catalog, *ctx.gpu)) {
    a.options.usd_per_gpu_hour = price->usd_per_gpu_hour;
    a.price_source = price->source;
  } else if (a.options.objective == Objective::cost) {
    throw Error(fmt::format("--objective cost: no current on-demand offer for {} in the catalog; pass "
                            "--usd-per-gpu-hour",
                            ctx.gpu->id));
  }
  SearchOptions shown = a.options;  // the answer keeps no pointer to the caller's sink
  shown.progress = &r.progress;
  a.result = search_plans(ctx, a.space, shown);
  a.ranker = make_ranker(ctx, a.space, a.options);
  if (a.result.space == 0) {
    const EmptySpaceReason why = explain_empty_space(*ctx.model, a.space);
    a.empty_space = why.text;
    a.batch_below = why.batch_below;
    a.batch_above = why.batch_above;
  }
  if (a.result.top.empty() && a.result.space > 0) {
    // "Minimum GPUs that fit": the same job on 2x, 4x, ... 64x the GPUs, best plan only.
    SearchOptions grow = a.options;
    grow.top_k = 1;
    grow.closest = 0;
    grow.time_limit_s = 2;  // per count; a cut-short search that finds a fit still proves one
    for (long long n = 2LL * r.gpus; n <= 64LL * r.gpus && n <= 1'048'576; n *= 2) {
      SearchSpace bigger = a.space;
      bigger.gpus = static_cast<int>(n);
      a.min_gpus_tried = bigger.gpus;
      if (!search_plans(ctx, bigger, grow).top.empty()) {
        a.min_gpus_that_fit = bigger.gpus;
        break;
      }
    }
  }
  const double price = a.options.usd_per_gpu_hour;
  for (const Candidate& c : a.result.top) {
    a.top_usd_per_step.push_back(price > 0 ? step_cost_usd(c.estimate.step_time_s, a.ranker.gpus, price) : 0.0);
    a.top_placement.push_back(placed_groups(c.plan, ctx.domain_gpus, ctx.topology));
  }
  if (!a.result.top.empty()) a.roofline = op_roofline(ctx, a.result.top.front().plan);
  if (!a.result.top.empty()) {
    Plan best = a.result.top.front().plan;
    if (best.seq_len == 0) best.seq_len = a.space.seq_len;
    a.best_unvalidated = unvalidated_mechanisms(best, ctx.domain_gpus);
  }
  return a;
}

}  // namespace gpuplan
