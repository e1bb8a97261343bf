#include "validate/infer_fit.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "infer/evaluate.h"
#include "infer/finite_run.h"
#include "infer/infer_request.h"
#include "infer/sim_engine.h"
#include "infer/sim_slo.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

Precision case_precision(const std::string& text, const std::string& where) {
  const auto p = parse_precision(to_lower(text));
  if (!p) throw Error(fmt::format("{}: unknown precision '{}'; use bf16, fp16, fp8, int8, int4 or fp4", where, text));
  return *p;
}

// The median of |log(predicted / measured)| over `rows` with `o` (a row with no prediction
// counts as a miss by a factor e).
double median_log_error(const std::vector<const InferCase*>& rows, InferPredictor& predictor, const InferOverrides& o) {
  std::vector<double> errs;
  errs.reserve(rows.size());
  for (const InferCase* c : rows) {
    const double p = predictor.predict(*c, &o);
    errs.push_back(p > 0 ? std::fabs(std::log(p / c->measured)) : 1.0);
  }
  if (errs.empty()) return 0;
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  return n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
}

// The grid value of `*value` in [lo, hi] that minimises the median log error of `rows`; ties
// go to the smaller value (for the overheads: no more cost than the rows ask for). `*value`
// is left at the best.
void fit_one(const std::vector<const InferCase*>& rows, InferPredictor& predictor, InferOverrides& o, double* value,
             double lo, double hi, double step) {
  double best_v = *value;
  double best_err = median_log_error(rows, predictor, o);
  for (double v = lo; v <= hi + 1e-12; v += step) {
    *value = v;
    const double err = median_log_error(rows, predictor, o);
    if (err < best_err - 1e-12) {
      best_err = err;
      best_v = v;
    }
  }
  *value = best_v;
}

bool small_concurrency(const InferCase& c) { return c.concurrency > 0 && c.concurrency <= 8; }

}  // namespace

const Engine& resolve_row_engine(const Catalog& catalog, const std::string& text, const std::string& where) {
  if (const Engine* e = catalog.find_engine(text)) return *e;
  const auto space = text.find(' ');
  if (space != std::string::npos) {
    if (const Engine* e = catalog.find_engine(text.substr(0, space))) return *e;
  }
  throw Error(fmt::format("{}: unknown engine '{}'; use an engine id or alias of the catalog (gpuplan infer --help "
                          "lists them), optionally followed by a version",
                          where, text));
}

std::string concurrency_band(double concurrency) {
  if (concurrency < 0) return "slo";
  if (concurrency <= 0) return "offline";
  if (concurrency <= 8) return "c<=8";
  if (concurrency <= 32) return "c9-32";
  return "c>32";
}

std::vector<InferCase> read_inference_cases(const CsvTable& csv, const Catalog& catalog) {
  const auto col = [&](const char* name) { return csv.column(name); };
  const std::size_t c_model = col("model_ref"), c_gpu = col("gpu"), c_gpus = col("num_gpus"), c_tp = col("tp"),
                    c_pp = col("pp"), c_ep = col("ep"), c_w = col("weight_precision"), c_kv = col("kv_precision"),
                    c_in = col("input_len"), c_out = col("output_len"), c_mode = col("mode"),
                    c_conc = col("concurrency"), c_engine = col("engine"), c_metric = col("metric"),
                    c_value = col("value");
  const auto c_id = csv.find_column("id");
  const auto c_slo_ttft = csv.find_column("slo_ttft_ms");
  const auto c_slo_tpot = csv.find_column("slo_tpot_ms");
  const auto c_slo_pct = csv.find_column("slo_percentile");
  const auto c_source = csv.find_column("source");
  // Optional: attention data parallelism inside the TP group (docs/model/attention-dp.md); an
  // empty cell or no column = the source does not say, read as attention split over the TP
  // group (attention DP 1), the rule for every source of the shared file (docs/validation.md).
  const auto c_adp = csv.find_column("attention_dp");
  const auto c_requests = csv.find_column("num_requests");
  std::vector<InferCase> out;
  for (const auto& r : csv.rows()) {
    InferCase c;
    c.id = c_id ? std::string(csv.cell(r, *c_id)) : fmt::format("line {}", r.line);
    c.source = c_source ? std::string(csv.cell(r, *c_source)) : "";
    c.model_name = csv.text(r, c_model);
    c.gpu_name = csv.text(r, c_gpu);
    c.engine_name = csv.text(r, c_engine);
    c.mode = csv.text(r, c_mode);
    c.metric = csv.text(r, c_metric);
    c.precision = csv.text(r, c_w);
    c.model = &catalog.model(c.model_name);
    c.gpu = &catalog.gpu(c.gpu_name);
    c.engine = &resolve_row_engine(catalog, c.engine_name, csv.where(r, c_engine));
    // The fallback entry (GPUs of no fitted family: Ada, AMD, ...) gets no serving factor:
    // one fitted on the L40S alone would move every other unknown GPU.
    const Efficiency* eff = efficiency_for(catalog.efficiencies, *c.gpu);
    if (eff && !eff->fallback) c.family = eff->id;
    c.measured = csv.number(r, c_value);
    const int gpus = static_cast<int>(csv.integer(r, c_gpus));
    InferPlan& plan = c.plan;
    plan.tp = static_cast<int>(csv.integer(r, c_tp));
    plan.pp = static_cast<int>(csv.integer(r, c_pp));
    plan.ep = static_cast<int>(csv.integer(r, c_ep));
    if (c_adp && !csv.cell(r, *c_adp).empty()) {
      const long long adp = csv.integer(r, *c_adp);
      if (adp < 1 || plan.tp % adp != 0) {
        throw Error(fmt::format("{}: row {}: attention_dp {} must be a divisor of its tp {} (tp = attention "
                                "replicated on every GPU of the group, 1 = none), or empty when the source does "
                                "not say",
                                csv.where(r, *c_adp), c.id, adp, plan.tp));
      }
      plan.attention_dp = static_cast<int>(adp);
    }
    plan.replicas = std::max(1, gpus / plan.gpus_per_replica());
    plan.weights = case_precision(c.precision, csv.where(r, c_w));
    plan.kv = case_precision(csv.text(r, c_kv), csv.where(r, c_kv));
    plan.input_len = csv.integer(r, c_in);
    plan.output_len = csv.integer(r, c_out);
    // What `infer` refuses, the validator refuses, naming the row: a prediction for a plan
    // gpuplan would not plan is no evidence about the model.
    if (const std::string why = weights_refusal(catalog, *c.gpu, plan.weights); !why.empty()) {
      throw Error(fmt::format("{}: row {}: weight_precision {}: {}", csv.where(r, c_w), c.id, c.precision, why));
    }
    if (const std::string why = check_infer_plan(*c.model, plan); !why.empty()) {
      throw Error(fmt::format("{}: row {}: {}", csv.where(r, c_tp), c.id, why));
    }
    // The source's benchmark launch captured CUDA graphs at these sizes with padding on.
    if (const SourceDate* rule = source_entry(catalog.source_dates, c.source)) {
      c.cuda_graph_batch_sizes = rule->cuda_graph_batch_sizes;
    }
    if (c.mode == "offline_max_throughput") {
      plan.mode = InferMode::max_throughput;
      // The source's benchmark sent a fixed number of requests per run: no more run at once.
      if (const SourceDate* rule = source_entry(catalog.source_dates, c.source)) {
        c.benchmark_requests = rule->benchmark_requests;
      }
      // The benchmark's dataset size where the source states it: its run is scored as a finite
      // run (ramp-up, steady state, drain; infer/finite_run.h), not as the steady state alone.
      if (c_requests && !csv.cell(r, *c_requests).empty()) {
        const long long n = csv.integer(r, *c_requests);
        if (n < 1 || n > 1'000'000) {
          throw Error(fmt::format("{}: row {}: num_requests {} must be the benchmark's request count, 1 to "
                                  "1,000,000, or empty when the source does not state it",
                                  csv.where(r, *c_requests), c.id, n));
        }
        c.num_requests = static_cast<int>(n);
      }
    } else if (c.mode == "fixed_concurrency" || c.mode == "light_load") {
      c.concurrency = csv.opt_number(r, c_conc).value_or(0);
      plan.mode = InferMode::concurrency;
      plan.load = c.concurrency > 0 ? c.concurrency : 1;
      if (c.concurrency <= 0) c.concurrency = 1;
      // The engine's benchmark client drew the lengths ([benchmark] random_range_ratio), and its
      // launch may have set batch waiting for this configuration ([benchmark] batch_wait_*).
      plan.lengths_vary = c.engine->benchmark_range_ratio < 1;
      if (c.engine->benchmark_batch_wait.applies(plan.input_len, plan.output_len, plan.tp)) {
        c.launch_wait = c.engine->benchmark_batch_wait.wait;
      }
    } else if (c.max_rate_within_slo()) {
      // The highest Poisson rate meeting both limits at the percentile (MLPerf Server);
      // value = output tokens/s at that rate.
      const auto limit = [&](const std::optional<std::size_t>& column, const char* name) {
        if (!column) throw Error(fmt::format("{}: mode max_rate_within_slo needs a column {}", csv.where(r, c_mode), name));
        const double v = csv.number(r, *column);
        if (!(v > 0)) {
          throw Error(fmt::format("{}: {} {} must be a positive limit in ms", csv.where(r, *column), name, v));
        }
        return v;
      };
      c.slo_ttft_ms = limit(c_slo_ttft, "slo_ttft_ms");
      c.slo_tpot_ms = limit(c_slo_tpot, "slo_tpot_ms");
      if (c_slo_pct) {
        if (const auto p = csv.opt_number(r, *c_slo_pct)) {
          if (!(*p > 0 && *p < 100)) {
            throw Error(fmt::format("{}: slo_percentile {} must be between 0 and 100 (e.g. 99), or empty for 99",
                                    csv.where(r, *c_slo_pct), *p));
          }
          c.slo_percentile = *p;
        }
      }
      if (c.metric != "output_tokens_per_s_total") {
        throw Error(fmt::format("{}: mode max_rate_within_slo scores output_tokens_per_s_total (the tokens/s at the "
                                "highest rate within the limits), not '{}'",
                                csv.where(r, c_metric), c.metric));
      }
      plan.mode = InferMode::max_throughput;
      c.concurrency = -1;
    } else {
      throw Error(fmt::format("{}: unknown mode '{}'; use offline_max_throughput, fixed_concurrency, light_load or "
                              "max_rate_within_slo",
                              csv.where(r, c_mode), c.mode));
    }
    if (c_requests && !csv.cell(r, *c_requests).empty() && c.mode != "offline_max_throughput") {
      throw Error(fmt::format("{}: row {}: num_requests applies to offline_max_throughput rows (a dataset queued at "
                              "t = 0), not mode '{}'; leave it empty",
                              csv.where(r, *c_requests), c.id, c.mode));
    }
    if (c.num_requests > 0 && c.metric != "output_tokens_per_s_total") {
      throw Error(fmt::format("{}: row {}: num_requests scales output_tokens_per_s_total, not '{}'; leave it empty",
                              csv.where(r, *c_requests), c.id, c.metric));
    }
    out.push_back(std::move(c));
  }
  return out;
}

double pooled_gemm_scale(const std::vector<InferFittedScale>& scales, const std::string& family) {
  double log_sum = 0;
  int rows = 0;
  for (const InferFittedScale& f : scales) {
    if (f.family != family || f.gemm_rows <= 0) continue;
    log_sum += f.gemm_rows * std::log(f.gemm_scale);
    rows += f.gemm_rows;
  }
  return rows > 0 ? std::exp(log_sum / rows) : 1.0;
}

double InferPredictor::predict(const InferCase& c, const InferOverrides* o, std::string* note,
                               double* finite_run_factor) {
  if (finite_run_factor) *finite_run_factor = 1;
  auto& slot = contexts_[{c.model, c.gpu, c.engine}];
  if (!slot) slot = std::make_unique<InferContext>(make_infer_context(*catalog_, *c.model, *c.gpu, *c.engine));
  InferContext& ctx = *slot;
  // A refit copy differs from the catalog entry only in constants the context derives nothing
  // from, so the context is shared and only its engine and serving scales swapped.
  const PerPrecision gemm = ctx.serving_gemm_scale;
  const PerPrecision bw = ctx.serving_bw_scale;
  if (o) {
    for (const auto& [base, refit] : o->engines) {
      if (base == c.engine) ctx.engine = &refit;
    }
    if (o->replace_scales) {
      // A precision of this family with no rows in the fit takes the family's GEMM factor
      // pooled over the precisions that have rows (as the catalog's `other` key does), not
      // Hopper's 1: the GEMM rate the engines reach on an architecture is shared by its
      // precisions; weight streaming (dequantising kernels) is not, so it stays 1.
      ctx.serving_gemm_scale.fill(pooled_gemm_scale(o->scales, c.family));
      ctx.serving_bw_scale.fill(1);
    }
    for (const InferFittedScale& f : o->scales) {
      if (f.family != c.family) continue;
      ctx.serving_gemm_scale[index_of(gemm_precision(*c.gpu, f.precision))] = f.gemm_scale;
      ctx.serving_bw_scale[index_of(f.precision)] = f.bw_scale;
    }
  }
  // The row's launch: the engine (refit or not) with the batch waiting its benchmark set, or
  // capped at the requests its benchmark sent (an offline run cannot hold more at once).
  Engine launched;
  if (c.launch_wait.on() || (c.benchmark_requests > 0 && c.benchmark_requests < ctx.engine->max_num_seqs) ||
      !c.cuda_graph_batch_sizes.empty()) {
    launched = *ctx.engine;
    if (c.launch_wait.on()) launched.batch_wait = c.launch_wait;
    if (c.benchmark_requests > 0) launched.max_num_seqs = std::min(launched.max_num_seqs, c.benchmark_requests);
    if (!c.cuda_graph_batch_sizes.empty()) launched.cuda_graph_batch_sizes = c.cuda_graph_batch_sizes;
    ctx.engine = &launched;
  }
  const InferEstimate e = evaluate_inference(ctx, c.plan);
  const bool simulated = c.max_rate_within_slo() || (simulate_ && c.plan.mode == InferMode::concurrency &&
                                                     (c.metric == "ttft_ms" || c.metric == "tpot_ms"));
  // With the refit engine and scales still in place: the simulation costs its steps with them.
  const Precision gp = gemm_precision(*c.gpu, c.plan.weights);
  const auto key = std::make_tuple(&c, ctx.engine->step_overhead_s, ctx.engine->request_overhead_s,
                                   ctx.serving_gemm_scale[index_of(gp)], ctx.serving_bw_scale[index_of(c.plan.weights)]);
  double sim = 0;
  if (e.feasible && simulated) {
    const auto hit = simulated_.find(key);
    if (hit != simulated_.end()) {
      sim = hit->second;
    } else {
      SimStepMemo* memo = c.max_rate_within_slo() ? nullptr : &step_memo(c, ctx);
      sim = simulated_.emplace(key, predict_simulated(c, ctx, e, memo)).first->second;
    }
  }
  // A benchmark run of a stated number of requests: the steady state scaled by the finite run
  // (ramp-up and drain), simulated with the refit engine and scales still in place.
  double finite = 1;
  if (e.feasible && !simulated && c.num_requests > 0) {
    const auto hit = finite_runs_.find(key);
    if (hit != finite_runs_.end()) {
      finite = hit->second;
    } else {
      InferPlan one = c.plan;
      one.replicas = 1;
      SimStepMemo memo(ctx, one);
      finite = finite_runs_.emplace(key, simulate_finite_run(ctx, one, e.memory, c.num_requests, &memo).factor)
                   .first->second;
    }
  }
  ctx.engine = c.engine;
  ctx.serving_gemm_scale = gemm;
  ctx.serving_bw_scale = bw;
  if (!e.feasible) {
    if (note) *note = e.reason_text();
    return 0;
  }
  if (simulated) {
    if (sim <= 0 && note) *note = "no rate meets the limits";
    return sim;
  }
  if (finite_run_factor) *finite_run_factor = finite;
  if (c.metric == "output_tokens_per_s_total") return e.output_tokens_per_s * finite;
  if (c.metric == "ttft_ms") return e.point.ttft_s * 1e3;
  if (c.metric == "tpot_ms") return e.point.tpot_s * 1e3;
  if (note) *note = "unknown metric";
  return 0;
}

SimStepMemo& InferPredictor::step_memo(const InferCase& c, const InferContext& ctx) {
  StepMemoSlot& slot = step_memos_[&c];
  // What a step's cost reads that a fit changes, but the engine's step overhead (the memo adds
  // the current one at every lookup): the per-layer overhead and the serving factors (the rest
  // of the context and the plan are the case's).
  const Engine& eng = *ctx.engine;
  if (!slot.memo || slot.layer_overhead_s != eng.layer_overhead_s || slot.gemm != ctx.serving_gemm_scale ||
      slot.bw != ctx.serving_bw_scale) {
    slot.layer_overhead_s = eng.layer_overhead_s;
    slot.gemm = ctx.serving_gemm_scale;
    slot.bw = ctx.serving_bw_scale;
    slot.plan = std::make_unique<InferPlan>(c.plan);
    slot.plan->replicas = 1;
    slot.memo = std::make_unique<SimStepMemo>(ctx, *slot.plan);
  }
  return *slot.memo;
}

double predict_simulated(const InferCase& c, const InferContext& ctx, const InferEstimate& e, SimStepMemo* memo) {
  InferPlan one = c.plan;
  one.replicas = 1;
  const SimScheduler sched = sim_scheduler_of(ctx, one, e.memory);
  SimWorkload w;
  w.input_len = one.input_len;
  w.output_len = one.output_len;
  if (c.max_rate_within_slo()) {
    SimRateQuestion q;
    q.ttft_s = c.slo_ttft_ms * 1e-3;
    q.tpot_s = c.slo_tpot_ms * 1e-3;
    q.percentile = c.slo_percentile;
    const SimRateAnswer a = max_rate_within_slo(ctx, one, sched, w, q);
    return a.feasible ? a.output_tokens_per_s * c.plan.replicas : 0;
  }
  // The closed loop as the benchmarks run it: C clients from t = 0, 10 requests each, means,
  // with the lengths the engine's benchmark client draws (Engine::benchmark_range_ratio).
  w.arrivals = SimArrivals::closed_loop;
  w.input_range_ratio = ctx.engine->benchmark_range_ratio;
  w.output_range_ratio = ctx.engine->benchmark_range_ratio;
  w.clients = static_cast<int>(std::ceil(c.plan.load - 1e-9));
  const SimResult r = simulate_serving(ctx, one, sched, w, {}, memo);
  return (c.metric == "ttft_ms" ? r.ttft_s.mean : r.tpot_s.mean) * 1e3;
}

InferFit fit_inference_constants(const std::vector<const InferCase*>& rows, InferPredictor& predictor) {
  InferOverrides o;
  o.replace_scales = true;
  InferFit fit;
  // The engines and (family, precision) pairs of these rows, in order of appearance.
  for (const InferCase* c : rows) {
    bool seen = false;
    for (const auto& [base, refit] : o.engines) seen = seen || base == c->engine;
    if (!seen) {
      o.engines.emplace_back(c->engine, *c->engine);
      InferFittedEngine f;
      f.engine = c->engine->id;
      f.step_overhead_s = c->engine->step_overhead_s;
      f.request_overhead_s = c->engine->request_overhead_s;
      fit.engines.push_back(f);
    }
    if (c->family.empty() || c->family == "hopper") continue;
    bool have = false;
    for (const auto& f : o.scales) have = have || (f.family == c->family && f.precision == c->plan.weights);
    if (!have) {
      InferFittedScale f;
      f.family = c->family;
      f.precision = c->plan.weights;
      o.scales.push_back(f);
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < o.engines.size(); ++i) {
      const Engine* base = o.engines[i].first;
      Engine& e = o.engines[i].second;
      // The engine constants are set on the reference family's rows (Hopper, where the engine
      // fractions were set) when there are any, so that another family's rows are explained
      // by that family's factors and not folded into the engine's overheads; on all of the
      // engine's rows otherwise (then they are fitted jointly with those factors).
      std::vector<const InferCase*> tpot, ttft;
      bool reference = false;
      for (const InferCase* c : rows) {
        reference = reference || (c->engine == base && small_concurrency(*c) && c->family == "hopper");
      }
      for (const InferCase* c : rows) {
        if (c->engine != base || !small_concurrency(*c) || (reference && c->family != "hopper")) continue;
        if (c->metric == "tpot_ms") tpot.push_back(c);
        if (c->metric == "ttft_ms") ttft.push_back(c);
      }
      // 0 to 4 ms per step in 25 µs steps; 0 to 200 ms per request in 1 ms steps.
      if (!tpot.empty()) fit_one(tpot, predictor, o, &e.step_overhead_s, 0, 4e-3, 25e-6);
      if (!ttft.empty()) fit_one(ttft, predictor, o, &e.request_overhead_s, 0, 0.2, 1e-3);
      fit.engines[i].step_overhead_s = e.step_overhead_s;
      fit.engines[i].step_rows = static_cast<int>(tpot.size());
      fit.engines[i].request_overhead_s = e.request_overhead_s;
      fit.engines[i].request_rows = static_cast<int>(ttft.size());
    }
    for (InferFittedScale& f : o.scales) {
      std::vector<const InferCase*> gemm_rows, bw_rows;
      for (const InferCase* c : rows) {
        if (c->family != f.family || c->plan.weights != f.precision || c->max_rate_within_slo()) continue;
        // A TTFT row whose launch held new prompts (batch waiting) has its first token set by
        // the decode steps it waited, not by the prefill GEMMs: no evidence of the GEMM rate.
        if (c->metric == "output_tokens_per_s_total" ||
            (c->metric == "ttft_ms" && small_concurrency(*c) && !c->launch_wait.on())) {
          gemm_rows.push_back(c);
        }
        if (c->metric == "tpot_ms" && small_concurrency(*c)) bw_rows.push_back(c);
      }
      // Factors 0.3 to 1.5 of the Hopper-set fractions, in steps of 0.01.
      if (!gemm_rows.empty()) fit_one(gemm_rows, predictor, o, &f.gemm_scale, 0.3, 1.5, 0.01);
      if (!bw_rows.empty()) fit_one(bw_rows, predictor, o, &f.bw_scale, 0.3, 1.5, 0.01);
      f.gemm_rows = static_cast<int>(gemm_rows.size());
      f.bw_rows = static_cast<int>(bw_rows.size());
    }
  }
  fit.scales = o.scales;
  return fit;
}

InferOverrides overrides_of(const InferFit& fit, const std::vector<InferCase>& cases) {
  InferOverrides o;
  o.replace_scales = true;
  o.scales = fit.scales;
  for (const InferCase& c : cases) {
    bool seen = false;
    for (const auto& [base, refit] : o.engines) seen = seen || base == c.engine;
    if (seen) continue;
    Engine e = *c.engine;
    for (const InferFittedEngine& f : fit.engines) {
      if (f.engine != e.id) continue;
      if (f.step_rows > 0) e.step_overhead_s = f.step_overhead_s;
      if (f.request_rows > 0) e.request_overhead_s = f.request_overhead_s;
    }
    o.engines.emplace_back(c.engine, e);
  }
  return o;
}

}  // namespace gpuplan
