#include "econ/serve_recommend_request.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "core/error.h"
#include "core/units.h"
#include "catalog/system_choice.h"
#include "econ/figures.h"
#include "econ/offers.h"

namespace gpuplan {
namespace {

std::string why(const ServePoint& p, bool rate) {
  const InferEstimate& e = p.estimate;
  const InferPlan& pl = p.plan;
  const InferMemory& m = e.memory;
  const double used = m.weights + m.activations + m.runtime + e.point.running * m.kv_per_seq;
  std::string s = fmt::format("{} × {}: {} weights ({:.0f} GiB per GPU) and the KV cache fit in {:.0f} of {:.0f} GiB "
                              "with tp {} · pp {}",
                              p.gpus, p.gpu->id, precision_name(pl.weights), m.weights / kGiB, used / kGiB,
                              m.capacity / kGiB, pl.tp, pl.pp);
  if (pl.ep > 1) s += fmt::format(" · ep {}", pl.ep);
  if (pl.replicas > 1) s += fmt::format(" · {} replicas", pl.replicas);
  s += fmt::format(", {:.0f} sequences running; limited by {}", e.point.running, e.bottleneck_text());
  s += fmt::format("; TTFT {:.0f} ms, TPOT {:.1f} ms, {:.0f} output tokens/s per GPU", 1e3 * e.point.ttft_s,
                   1e3 * e.point.tpot_s, e.output_tokens_per_s_per_gpu);
  s += fmt::format("; ${:.2f}/GPU-hour ({} {}, {})", p.offer->usd_per_gpu_hour, p.offer->provider,
                   p.offer->instance, p.offer->price_date);
  s += rate ? fmt::format(" → ${:.2f}/hour", p.usd_per_hour)
            : fmt::format(" → ${:.3f} per million output tokens", p.usd_per_million_tokens);
  return s;
}

void check_request(const ServeRecommendRequest& o) {
  if (o.input_len < 1) throw Error(fmt::format("--input-len {}: must be at least 1 token", o.input_len));
  if (o.output_len < 1) throw Error(fmt::format("--output-len {}: must be at least 1 token", o.output_len));
  if (o.gpus_max < 1) throw Error(fmt::format("--gpus-max {}: must be at least 1", o.gpus_max));
  require_positive(o.rate_rps, "--rate");
  require_positive(o.ttft_ms, "--ttft-ms");
  require_positive(o.tpot_ms, "--tpot-ms");
}

}  // namespace

ServeRecommendAnswer answer_serve_recommend(const Catalog& cat, const ServeRecommendRequest& o) {
  return answer_serve_recommend(cat, cat.model(o.model), o);
}

ServeRecommendAnswer answer_serve_recommend(const Catalog& cat, const ModelSpec& model,
                                            const ServeRecommendRequest& o) {
  const auto start = std::chrono::steady_clock::now();
  check_request(o);
  const Engine& engine = cat.engine(o.engine);  // throws naming the known engines
  check_providers(cat, o.providers, "--providers");
  const bool rate = o.rate_rps.has_value();
  ServeRecommendAnswer r;
  r.model = &model;
  r.request = o;
  r.request.progress = nullptr;  // the answer keeps no pointer to the caller's sink
  // Progress in GPUs: every GPU with an offer to rent; one skipped with a note counts as done.
  std::int64_t rentable = 0;
  for (const Gpu& gpu : cat.gpus) {
    if (gpu.is_gpu() && !rentable_offers(cat, gpu, o.providers).empty()) ++rentable;
  }
  ProgressCounter progress(&o.progress, rentable);
  std::vector<ServePoint> points;
  for (const Gpu& gpu : cat.gpus) {
    if (!gpu.is_gpu()) continue;
    const std::vector<const CloudOffer*> offers = rentable_offers(cat, gpu, o.providers);
    if (offers.empty()) continue;  // nothing to rent
    InferContext ctx;
    try {
      ctx = make_infer_context(cat, model, gpu, engine, default_system_for(cat, gpu));
    } catch (const Error& e) {
      r.notes.push_back(fmt::format("{}: {}", gpu.id, e.what()));
      progress.advance();
      continue;
    }
    InferSearchSpec spec;
    spec.gpus_max = o.gpus_max;
    spec.input_len = o.input_len;
    spec.output_len = o.output_len;
    spec.ttft_s = o.ttft_ms.value_or(0) * 1e-3;
    spec.tpot_s = o.tpot_ms.value_or(0) * 1e-3;
    spec.rate_rps = o.rate_rps.value_or(0);
    spec.objective = InferObjective::throughput;  // per GPU: the same ranking as per dollar on one offer
    spec.weights = o.weights;
    const InferSearchResult sr = infer_search(ctx, spec);
    progress.advance();
    ++r.searched;
    r.evaluated += sr.evaluated;
    if (!sr.found) {
      r.notes.push_back(fmt::format("{}: {}", gpu.id, sr.reason));
      continue;
    }
    const int gpus = sr.plan.tp * sr.plan.pp * std::max(1, sr.plan.replicas);
    for (const CloudOffer* off : offers) {
      ServePoint p;
      p.gpu = &gpu;
      p.system = ctx.system;
      p.plan = sr.plan;
      p.estimate = sr.estimate;
      p.offer = off;
      p.gpus = gpus;
      p.usd_per_hour = gpus * off->usd_per_gpu_hour;
      p.usd_per_million_tokens = p.usd_per_hour / (sr.estimate.output_tokens_per_s * 3600) * 1e6;
      points.push_back(std::move(p));
    }
  }
  r.points = static_cast<int>(points.size());
  const auto cost = [rate](const ServePoint& p) { return rate ? p.usd_per_hour : p.usd_per_million_tokens; };
  // Pareto front of (cost, TPOT): sort by cost, keep each point faster than all cheaper ones.
  std::sort(points.begin(), points.end(), [&](const ServePoint& a, const ServePoint& b) {
    if (cost(a) != cost(b)) return cost(a) < cost(b);
    if (a.estimate.point.tpot_s != b.estimate.point.tpot_s) return a.estimate.point.tpot_s < b.estimate.point.tpot_s;
    return a.gpu->id + a.offer->provider + a.offer->instance < b.gpu->id + b.offer->provider + b.offer->instance;
  });
  double fastest = 1e300;
  for (ServePoint& p : points) {
    if (p.estimate.point.tpot_s < fastest * (1 - 1e-9)) {
      fastest = p.estimate.point.tpot_s;
      p.reason = why(p, rate);
      r.front.push_back(p);
    }
  }
  if (!r.front.empty()) {
    r.pick = r.front.front();  // every point already meets the targets: the cheapest
    r.have_pick = true;
  }
  r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace gpuplan
