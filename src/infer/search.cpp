#include "infer/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "infer/search_sim.h"
#include "infer/tp_collective_memo.h"

namespace gpuplan {

std::vector<Precision> default_search_weights(const Gpu& gpu) {
  std::vector<Precision> w{Precision::bf16};
  if (gpu.dense(Precision::fp8) > 0) w.push_back(Precision::fp8);
  w.push_back(Precision::int4);  // weight-only (W4A16) kernels run on any tensor-core GPU
  return w;
}

double infer_score(const InferContext& ctx, const InferEstimate& e, InferObjective objective) {
  if (!e.feasible) return 0;
  if (objective == InferObjective::throughput) return e.output_tokens_per_s_per_gpu;
  return ctx.price_usd_per_gpu_hour > 0 ? e.output_tokens_per_s_per_gpu / ctx.price_usd_per_gpu_hour : 0;
}

bool meets_targets(const InferSearchSpec& spec, const InferEstimate& e) {
  if (!e.feasible) return false;
  if (spec.ttft_s > 0 && e.point.ttft_s > spec.ttft_s) return false;
  if (spec.tpot_s > 0 && e.point.tpot_s > spec.tpot_s) return false;
  return true;
}

std::vector<InferPlan> infer_search_space(const InferContext& ctx, const InferSearchSpec& spec) {
  const ModelSpec& m = *ctx.model;
  const std::vector<Precision> weights = spec.weights.empty() ? default_search_weights(*ctx.gpu) : spec.weights;
  const std::vector<Precision> kvs = spec.kvs.empty() ? std::vector<Precision>{Precision::bf16, Precision::fp8}
                                                      : spec.kvs;
  std::vector<InferPlan> out;
  for (int tp = 1; tp <= spec.gpus_max; ++tp) {
    for (int pp = 1; tp * pp <= spec.gpus_max; ++pp) {
      for (int ep = 1; ep <= tp; ++ep) {
        if (tp % ep != 0 || (ep > 1 && !m.is_moe())) continue;
        // Attention DP (MoE models): every divisor of tp, tp itself being TensorRT-LLM's
        // enable_attention_dp. Dense models gain nothing over replicas from it, so not tried.
        for (int adp = 1; adp <= (m.is_moe() ? tp : 1); ++adp) {
          if (tp % adp != 0) continue;
          InferPlan base;
          base.tp = tp;
          base.pp = pp;
          base.ep = ep;
          base.attention_dp = adp;
          base.input_len = spec.input_len;
          base.output_len = spec.output_len;
          base.mode = InferMode::concurrency;
          if (!check_infer_plan(m, base).empty()) continue;
          for (Precision w : weights) {
            for (Precision kv : kvs) {
              base.weights = w;
              base.kv = kv;
              const InferMemory mem = infer_memory(ctx, base);
              if (!mem.fits) {
                out.push_back(base);  // evaluated once, reported as not fitting
                continue;
              }
              // Concurrency per replica: powers of two up to what memory and the scheduler run at
              // once, and that limit itself (more in flight only queues).
              const double limit = std::floor(std::min(mem.max_seqs, replica_max_num_seqs(*ctx.engine, base)));
              for (double c = 1; c <= limit; c *= 2) {
                base.load = c;
                out.push_back(base);
              }
              if (limit >= 1 && std::exp2(std::floor(std::log2(limit))) != limit) {
                base.load = limit;
                out.push_back(base);
              }
            }
          }
        }
      }
    }
  }
  return out;
}

void add_to_front(std::vector<InferFrontPoint>& front, const InferFrontPoint& p) {
  const auto dominates = [](const InferFrontPoint& a, const InferFrontPoint& b) {
    const bool no_worse = a.output_tokens_per_s_per_gpu >= b.output_tokens_per_s_per_gpu && a.tpot_s <= b.tpot_s;
    const bool better = a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu || a.tpot_s < b.tpot_s;
    return no_worse && better;
  };
  for (const InferFrontPoint& q : front) {
    if (dominates(q, p) || (q.output_tokens_per_s_per_gpu == p.output_tokens_per_s_per_gpu && q.tpot_s == p.tpot_s)) return;
  }
  std::erase_if(front, [&](const InferFrontPoint& q) { return dominates(p, q); });
  const auto at = std::lower_bound(front.begin(), front.end(), p,
                                   [](const InferFrontPoint& a, const InferFrontPoint& b) { return a.tpot_s < b.tpot_s; });
  front.insert(at, p);
}

namespace {

// A plan that meets the targets in closed form (replicas set for the rate), with its score.
struct SearchCandidate {
  InferPlan plan;
  InferEstimate estimate;
  double score;
  long long gpus;
};

// The targets at spec.slo_percentile of the simulation: the candidates, best first by the
// closed-form ranking (fewest GPUs for a rate, then the objective), are simulated until one
// meets them; with a rate, its replicas are then sized by the simulated throughput, and the
// later candidates are simulated while they could still need fewer GPUs. Leaves r.found false,
// with the reason, when none meets them.
void choose_by_simulation(const InferContext& ctx, const InferSearchSpec& spec, std::vector<SearchCandidate>& cands,
                          InferSearchResult& r) {
  const bool by_rate = spec.rate_rps > 0;
  std::stable_sort(cands.begin(), cands.end(), [&](const SearchCandidate& a, const SearchCandidate& b) {
    if (by_rate && a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.score > b.score;
  });
  double best_ttft = std::numeric_limits<double>::infinity();
  double best_tpot = std::numeric_limits<double>::infinity();
  double best_bound = std::numeric_limits<double>::infinity();  // of the candidates ruled out unsimulated
  long long best_gpus = std::numeric_limits<long long>::max();
  // One step memo per layout (all but the load), each with its own copy of the plan it costs.
  struct LayoutMemo {
    InferPlan plan;
    std::unique_ptr<SimStepMemo> memo;
  };
  std::vector<std::unique_ptr<LayoutMemo>> memos;
  const auto memo_of = [&](const InferPlan& p) {
    for (const auto& m : memos) {
      const InferPlan& q = m->plan;
      if (q.tp == p.tp && q.pp == p.pp && q.ep == p.ep && q.attention_dp == p.attention_dp && q.weights == p.weights &&
          q.kv == p.kv) {
        return m->memo.get();
      }
    }
    auto m = std::make_unique<LayoutMemo>();
    m->plan = p;
    m->plan.replicas = 1;
    m->memo = std::make_unique<SimStepMemo>(ctx, m->plan);
    memos.push_back(std::move(m));
    return memos.back()->memo.get();
  };
  for (const SearchCandidate& c : cands) {
    if (r.found && (!by_rate || c.gpus > best_gpus)) break;
    SimStepMemo* memo = memo_of(c.plan);
    if (spec.ttft_s > 0) {
      // Skipped unsimulated when even the first wave's queue puts the percentile past the target.
      InferPlan one = c.plan;
      one.replicas = 1;
      const double bound = search_ttft_lower_bound_s(sim_scheduler_of(ctx, one, c.estimate.memory), *memo,
                                                     search_sim_workload(one), spec.slo_percentile);
      if (bound > spec.ttft_s) {
        ++r.bounded;
        best_bound = std::min(best_bound, bound);
        continue;
      }
    }
    SimAnswer sim = simulate_search_candidate(ctx, c.plan, c.estimate, spec.slo_percentile, memo);
    ++r.simulated;
    best_ttft = std::min(best_ttft, sim.result.ttft_at_percentile_s);
    best_tpot = std::min(best_tpot, sim.result.tpot_at_percentile_s);
    if (!sim_meets_targets(sim.result, spec.ttft_s, spec.tpot_s)) continue;
    InferPlan plan = c.plan;
    InferEstimate e = c.estimate;
    double score = c.score;
    long long gpus = c.gpus;
    if (by_rate) {
      // The replicas the simulated closed loop needs to carry the rate.
      if (!(sim.result.requests_per_s > 0)) continue;
      plan.replicas = std::max(1, static_cast<int>(std::ceil(spec.rate_rps / sim.result.requests_per_s - 1e-9)));
      gpus = plan.gpus();
      if (plan.replicas != c.plan.replicas) {
        e = evaluate_inference(ctx, plan);
        score = infer_score(ctx, e, spec.objective);
      }
      if (r.found && (gpus > best_gpus || (gpus == best_gpus && !(score > r.score * (1 + 1e-12))))) continue;
    }
    r.found = true;
    r.plan = plan;
    r.estimate = e;
    r.score = score;
    r.simulation = std::move(sim);
    best_gpus = gpus;
  }
  if (r.found) return;
  std::string what;
  if (spec.ttft_s > 0 && best_ttft > spec.ttft_s) {
    what += std::isfinite(best_ttft)
                ? fmt::format("--ttft-ms {:.0f} (the lowest simulated p{:g} is {:.1f} ms)", spec.ttft_s * 1e3,
                              spec.slo_percentile, best_ttft * 1e3)
                : fmt::format("--ttft-ms {:.0f} (the first wave's queue alone puts every candidate's p{:g} at {:.1f} "
                              "ms or more)",
                              spec.ttft_s * 1e3, spec.slo_percentile, best_bound * 1e3);
  }
  if (spec.tpot_s > 0 && best_tpot > spec.tpot_s) {
    if (!what.empty()) what += " and ";
    what += fmt::format("--tpot-ms {:.0f} (the lowest simulated p{:g} is {:.2f} ms)", spec.tpot_s * 1e3,
                        spec.slo_percentile, best_tpot * 1e3);
  }
  if (what.empty()) what = "--ttft-ms or --tpot-ms (each is met alone, not together)";
  r.reason = fmt::format("no plan on up to {} {} GPUs meets the targets at the simulated p{:g} (of the {} plans "
                         "meeting them in closed form, {} simulated, {} ruled out by the first wave's queue); relax {}, "
                         "lower --slo-percentile, or raise --gpus-max",
                         spec.gpus_max, ctx.gpu->id, spec.slo_percentile, cands.size(), r.simulated, r.bounded, what);
}

}  // namespace

InferSearchResult infer_search(const InferContext& shared_ctx, const InferSearchSpec& spec) {
  // A copy of the context with this search's own collective memo (infer/tp_collective_memo.h):
  // the plans repeat the same TP collectives, and the memo is this thread's alone.
  InferContext ctx = shared_ctx;
  TpCollectiveMemo memo(&ctx);
  ctx.collective_memo = &memo;
  InferSearchResult r;
  if (spec.objective == InferObjective::cost && ctx.price_usd_per_gpu_hour <= 0) {
    r.reason = fmt::format("no current on-demand price for {} in the catalog; use --objective throughput or add "
                           "an offer with --catalog", ctx.gpu->id);
    return r;
  }
  double best_ttft = std::numeric_limits<double>::infinity();
  double best_tpot = std::numeric_limits<double>::infinity();
  long long best_gpus = std::numeric_limits<long long>::max();
  // slo_percentile > 0: the plans meeting the targets in closed form, to be simulated after the pass.
  std::vector<SearchCandidate> candidates;
  const std::vector<InferPlan> space = infer_search_space(ctx, spec);
  ProgressCounter progress(spec.progress, static_cast<std::int64_t>(space.size()));
  for (InferPlan plan : space) {
    progress.advance();
    ++r.evaluated;
    InferEstimate e = evaluate_inference(ctx, plan);
    if (!e.feasible) continue;
    ++r.feasible;
    add_to_front(r.front, {plan, e.output_tokens_per_s_per_gpu, e.point.tpot_s, e.point.ttft_s, meets_targets(spec, e)});
    best_ttft = std::min(best_ttft, e.point.ttft_s);
    best_tpot = std::min(best_tpot, e.point.tpot_s);
    if (!meets_targets(spec, e)) continue;
    ++r.meeting;
    long long gpus = plan.gpus_per_replica();
    if (spec.rate_rps > 0) {
      plan.replicas = static_cast<int>(std::ceil(spec.rate_rps / e.requests_per_s - 1e-9));
      plan.replicas = std::max(1, plan.replicas);
      gpus = plan.gpus();
      e = evaluate_inference(ctx, plan);
    }
    const double score = infer_score(ctx, e, spec.objective);
    if (spec.slo_percentile > 0) {
      candidates.push_back({plan, e, score, gpus});
      continue;
    }
    // With a rate: fewest GPUs first, then the objective. Without: the objective.
    const bool better = !r.found || (spec.rate_rps > 0 && gpus < best_gpus) ||
                        ((spec.rate_rps <= 0 || gpus == best_gpus) && score > r.score * (1 + 1e-12));
    if (better) {
      r.found = true;
      r.plan = plan;
      r.estimate = e;
      r.score = score;
      best_gpus = gpus;
    }
  }
  if (spec.slo_percentile > 0 && !candidates.empty()) {
    choose_by_simulation(ctx, spec, candidates, r);
    if (!r.found) return r;
  }
  if (r.found) return r;
  if (r.feasible == 0) {
    r.reason = fmt::format("{} does not fit on up to {} {} GPUs at any of the precisions tried (prompt {} + "
                           "output {} tokens); raise --gpus-max or use a GPU with more memory",
                           ctx.model->id, spec.gpus_max, ctx.gpu->id, spec.input_len, spec.output_len);
    return r;
  }
  std::string what;
  if (spec.ttft_s > 0 && best_ttft > spec.ttft_s) {
    what += fmt::format("--ttft-ms {:.0f} (the lowest reachable is {:.1f} ms)", spec.ttft_s * 1e3, best_ttft * 1e3);
  }
  if (spec.tpot_s > 0 && best_tpot > spec.tpot_s) {
    if (!what.empty()) what += " and ";
    what += fmt::format("--tpot-ms {:.0f} (the lowest reachable is {:.2f} ms)", spec.tpot_s * 1e3, best_tpot * 1e3);
  }
  if (what.empty()) what = "--ttft-ms or --tpot-ms (each is reachable alone, not together)";
  r.reason = fmt::format("no plan on up to {} {} GPUs meets the targets; relax {}, or raise --gpus-max",
                         spec.gpus_max, ctx.gpu->id, what);
  return r;
}

}  // namespace gpuplan
