#include "econ/recommend_request.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "catalog/system_choice.h"
#include "core/units.h"
#include "econ/figures.h"
#include "econ/offers.h"

namespace gpuplan {
namespace {

std::string why(const RecommendPoint& p, const ModelSpec& m) {
  const Estimate& e = p.estimate;
  std::string s = fmt::format("{} GPUs of {}: the training state fits at {:.0f} of {:.0f} GiB per GPU with tp {} · pp {} · dp {}{}",
                              p.gpus, p.gpu->id, e.memory.total_bytes / (1024.0 * 1024 * 1024),
                              e.memory_capacity_bytes / (1024.0 * 1024 * 1024), p.plan.tp, p.plan.pp, p.plan.dp,
                              p.plan.zero > 0 ? fmt::format(" · zero {}", p.plan.zero) : "");
  if (m.is_moe() && p.plan.ep > 1) s += fmt::format(" · ep {}", p.plan.ep);
  s += fmt::format("; {} at {:.0f}% MFU", e.bottleneck == Bottleneck::compute ? "compute-bound"
                                          : fmt::format("limited by {}", bottleneck_name(e.bottleneck)),
                   100 * e.mfu);
  s += fmt::format("; ${:.2f}/GPU-hour ({} {}, {})", p.offer->usd_per_gpu_hour, p.offer->provider,
                   p.offer->instance, p.offer->price_date);
  return s;
}

void check_request(const Catalog& cat, const RecommendRequest& o) {
  // The field's name, not a flag: the CLI and Python each say it their own way before this.
  if (o.tokens == 0) throw Error("tokens is required: the training tokens (e.g. 100B)");
  if (!(o.tokens > 0 && std::isfinite(o.tokens)))
    throw Error(fmt::format("--tokens {}: must be a positive token count (e.g. 100B)", o.tokens));
  require_positive(o.deadline_days, "--deadline");
  require_positive(o.budget_usd, "--budget");
  if (o.deadline_days && o.budget_usd) throw Error("give --deadline or --budget, not both");
  if (o.gpus_max < 1) throw Error(fmt::format("--gpus-max {}: must be at least 1", o.gpus_max));
  for (int n : o.gpus_list) {
    if (n < 1) throw Error(fmt::format("--gpus-list {}: each GPU count must be at least 1", n));
  }
  if (o.global_batch < 1) throw Error(fmt::format("--global-batch {}: must be at least 1", o.global_batch));
  if (o.seq_len < 0) throw Error(fmt::format("--seq-len {}: must be positive (0 = the model's context)", o.seq_len));
  if (!(o.time_limit_s > 0) || !std::isfinite(o.time_limit_s))
    throw Error(fmt::format("--time-limit {}: must be a positive number of seconds", o.time_limit_s));
  if (o.threads < 0) throw Error(fmt::format("--threads {}: must be zero (every core) or more", o.threads));
  if (!(o.cost_tolerance >= 0 && o.cost_tolerance < 10)) {
    throw Error(fmt::format("--cost-tolerance {}: must be a fraction >= 0 (0.05 = 5%)", o.cost_tolerance));
  }
  check_providers(cat, o.providers, "--providers");
}

// The knee of a front sorted fastest first (cost falling): in (log time, log cost) scaled so
// the fastest point is (0, 1) and the cheapest (1, 0), the point farthest below the chord
// x + y = 1 between them, where a little more time stops buying much saving.
int knee_of(const std::vector<RecommendPoint>& front) {
  if (front.size() < 3) return -1;
  const double t0 = std::log(front.front().time_s), t1 = std::log(front.back().time_s);
  const double c0 = std::log(front.front().cost_usd), c1 = std::log(front.back().cost_usd);
  if (!(t1 > t0) || !(c0 > c1)) return -1;
  int best = -1;
  double best_gap = 0;
  for (std::size_t i = 1; i + 1 < front.size(); ++i) {
    const double x = (std::log(front[i].time_s) - t0) / (t1 - t0);
    const double y = (std::log(front[i].cost_usd) - c1) / (c0 - c1);
    const double gap = 1 - x - y;
    if (gap > best_gap) {
      best_gap = gap;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace

RecommendAnswer answer_recommend(const Catalog& cat, const RecommendRequest& o) {
  return answer_recommend(cat, cat.model(o.model), o);
}

RecommendAnswer answer_recommend(const Catalog& cat, const ModelSpec& model, const RecommendRequest& o) {
  const auto start = std::chrono::steady_clock::now();
  check_request(cat, o);
  const auto precision = parse_precision(to_lower(o.precision));
  if (!precision) throw Error(fmt::format("--precision '{}': use bf16, fp16, fp8, tf32 or fp32", o.precision));
  std::vector<int> counts = o.gpus_list;
  if (counts.empty()) {
    for (int n = 1; n <= o.gpus_max; n *= 2) counts.push_back(n);
  }
  RecommendAnswer r;
  r.model = &model;
  r.request = o;
  r.request.progress = nullptr;  // the answer keeps no pointer to the caller's sink
  // Progress in (GPU, count) searches: every GPU with an offer to rent, times the counts; a GPU
  // skipped with a note counts as its searches done.
  std::int64_t searches = 0;
  for (const Gpu& gpu : cat.gpus) {
    if (gpu.is_gpu() && !rentable_offers(cat, gpu, o.providers).empty()) searches += std::ssize(counts);
  }
  ProgressCounter progress(&o.progress, searches);
  std::vector<RecommendPoint> points;
  for (const Gpu& gpu : cat.gpus) {
    if (!gpu.is_gpu()) continue;
    const std::vector<const CloudOffer*> offers = rentable_offers(cat, gpu, o.providers);
    if (offers.empty()) continue;  // nothing to rent
    const System* system = default_system_for(cat, gpu);
    if (!system) {
      r.notes.push_back(fmt::format("{}: no system in the catalog", gpu.id));
      progress.advance(std::ssize(counts));
      continue;
    }
    TrainContext ctx;
    try {
      ctx = make_train_context(cat, model, gpu, system, nullptr);
    } catch (const Error& e) {
      r.notes.push_back(fmt::format("{}: {}", gpu.id, e.what()));
      progress.advance(std::ssize(counts));
      continue;
    }
    for (int n : counts) {
      SearchSpace space;
      space.gpus = n;
      space.global_batch = o.global_batch;
      space.seq_len = o.seq_len > 0 ? o.seq_len : static_cast<int>(std::min<std::int64_t>(model.max_seq_len, 8192));
      space.precision = *precision;
      SearchOptions so;
      so.top_k = 1;
      so.closest = 0;
      so.threads = o.threads;
      so.time_limit_s = o.time_limit_s;
      const SearchResult sr = search_plans(ctx, space, so);
      progress.advance();
      ++r.searched;
      if (!sr.complete) ++r.cut_short;
      if (sr.top.empty()) continue;
      const Candidate& best = sr.top.front();
      for (const CloudOffer* off : offers) {
        if (off->max_gpus > 0 && n > off->max_gpus) {
          ++r.over_capacity;  // the offer cannot supply n GPUs at once
          continue;
        }
        RecommendPoint p;
        p.gpu = &gpu;
        p.system = system;
        p.gpus = n;
        p.plan = best.plan;
        p.estimate = best.estimate;
        p.offer = off;
        p.time_s = o.tokens / best.estimate.tokens_per_s;
        p.cost_usd = p.time_s / 3600 * n * off->usd_per_gpu_hour;
        p.energy_kwh = gpu.tdp_w > 0 ? n * gpu.tdp_w * p.time_s / 3.6e6 : 0;
        p.search_complete = sr.complete;
        points.push_back(std::move(p));
      }
    }
  }
  r.points = static_cast<int>(points.size());
  std::erase_if(points, [&](const RecommendPoint& p) {
    const bool out = (o.deadline_days && p.time_s > *o.deadline_days * 86400) ||
                     (o.budget_usd && p.cost_usd > *o.budget_usd);
    if (out) ++r.filtered_out;
    return out;
  });
  // Pareto front of (time, cost): sort by time, keep each point cheaper than all faster ones.
  std::sort(points.begin(), points.end(), [](const RecommendPoint& a, const RecommendPoint& b) {
    return a.time_s != b.time_s ? a.time_s < b.time_s : a.cost_usd < b.cost_usd;
  });
  double cheapest = 1e300;
  for (RecommendPoint& p : points) {
    if (p.cost_usd < cheapest * (1 - 1e-9)) {  // near-ties (perfect scaling) add nothing
      cheapest = p.cost_usd;
      p.reason = why(p, model);
      r.front.push_back(p);
    }
  }
  if (!r.front.empty()) {
    r.knee_index = knee_of(r.front);
    if (o.budget_usd) {
      r.pick = r.front.front();
      r.pick_rule = "the fastest run within the budget";
    } else {
      // Not the cheapest outright: the fastest point within the tolerance of it (the front is
      // fastest first), so 4x the time is never traded for a 0.003% saving.
      const double limit = r.front.back().cost_usd * (1 + o.cost_tolerance);
      r.pick = *std::find_if(r.front.begin(), r.front.end(),
                             [&](const RecommendPoint& p) { return p.cost_usd <= limit; });
      r.pick_rule = fmt::format(
          "the fastest run costing at most {:g}% more than the cheapest{} (--cost-tolerance {:g}): a slower run is "
          "picked only if it saves more than that",
          100 * o.cost_tolerance, o.deadline_days ? " within the deadline" : "", o.cost_tolerance);
    }
    r.have_pick = true;
  }
  if (r.over_capacity > 0) {
    r.notes.push_back(fmt::format("{} (offer, GPU count) points dropped: more GPUs than the offer can supply "
                                  "(each offer's largest cluster, in data/clouds/)",
                                  r.over_capacity));
  }
  r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace gpuplan
