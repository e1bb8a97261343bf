#include "infer/infer_request.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibration/calibration_scale.h"
#include "calibration/collective_fit.h"
#include "calibration/nccl_tests_log.h"
#include "calibration/profile.h"
#include "catalog/resolve_model.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/strings.h"
#include "infer/evaluate.h"
#include "infer/infer_fields.h"
#include "plan/plan_rules.h"

namespace gpuplan {
namespace {

const Engine& find_engine(const Catalog& catalog, const std::string& id) {
  if (const Engine* found = catalog.find_engine(id)) return *found;
  std::vector<std::string> ids;
  for (const Engine& e : catalog.engines) ids.push_back(e.id);
  throw Error(fmt::format("unknown engine '{}'; known engines: {}", id, join(ids, ", ")));
}

InferSetup make_setup(const Catalog& catalog, const InferCommon& r) {
  if (r.input_len < 1) {
    throw Error(fmt::format("--input-len {}: a request needs at least 1 prompt token; use --input-len 1 or more",
                            r.input_len));
  }
  if (r.output_len < 1) {
    throw Error(fmt::format("--output-len {}: a request generates at least 1 token; use --output-len 1 or more",
                            r.output_len));
  }
  InferSetup s;
  const ModelSpec& model = resolve_model(catalog, r.model, s.owned_model);
  ClusterQuery query;
  query.gpu = r.gpu;
  query.system = r.system;
  const ClusterChoice cluster = choose_cluster(catalog, query);
  const Engine& engine = find_engine(catalog, r.engine);
  s.weights = parse_weight_precision(r.weights);
  if (const std::string why = weights_refusal(catalog, *cluster.gpu, s.weights); !why.empty()) {
    throw Error(fmt::format("--weights {}: {}", precision_name(s.weights), why));
  }
  if (!r.kv.empty()) {
    s.kv = parse_kv_precision(r.kv);
  } else {
    s.kv = precision_bytes(s.weights) < 2 ? Precision::fp8 : s.weights == Precision::fp16 ? Precision::fp16
                                                                                           : Precision::bf16;
  }
  const std::int64_t context = r.input_len + r.output_len;
  if (model.max_seq_len > 0 && context > model.max_seq_len && !r.allow_longer_context) {
    throw Error(fmt::format("--input-len {} + --output-len {} = {} tokens exceeds the {}-token context length "
                            "(max_seq_len) of {}; shorten them, or pass --allow-longer-context",
                            r.input_len, r.output_len, context, model.max_seq_len, model.id));
  }
  if (!(r.router_imbalance >= 1) || !std::isfinite(r.router_imbalance)) {
    throw Error(fmt::format("--router-imbalance {}: the busiest rank's routed tokens over the mean is at least 1; "
                            "use 1 for balanced routing, or leave it out for {}",
                            r.router_imbalance, kDefaultRouterImbalance));
  }
  s.ctx = make_infer_context(catalog, model, *cluster.gpu, engine, cluster.system);
  s.ctx.router_imbalance = r.router_imbalance;
  s.system_defaulted = cluster.system == nullptr && s.ctx.system != nullptr;
  if (!r.calibration.empty()) {
    // A gpuplan-bench profile (GEMMs, HBM, collectives) or an nccl-tests log (collectives only).
    const CalibrationProfile profile = load_collective_calibration(r.calibration);
    s.calibration = r.calibration;
    if (!profile_is_collectives_only(profile)) {
      const CalibrationScale scale = calibration_scale(*cluster.gpu, profile);
      s.ctx.calibration_gemm_scale = scale.gemm;
      s.ctx.calibration_attention_scale = scale.attention;
      s.ctx.calibration_bw_scale = scale.memory_bw;
      s.calibration_notes = calibration_notes(scale);
    }
    if (!profile.collectives.empty() && !s.ctx.topology) {
      s.calibration_notes.push_back(
          "skipped: the collective rows: no system, so tensor parallelism uses the host-PCIe fallback; name one "
          "with --system");
    } else if (s.ctx.topology) {
      for (std::string& note : calibrate_collective_topology(profile, *s.ctx.topology)) {
        s.calibration_notes.push_back(std::move(note));
      }
    }
  }
  return s;
}

void check_at_least_one(const char* flag, int value, const char* fix) {
  if (value < 1) throw Error(fmt::format("{} {}: must be at least 1; {}", flag, value, fix));
}

// The plan `infer` evaluates: degrees from --gpus/--tp/--pp/--ep, the load from the mode flags.
InferPlan make_plan(const InferRequest& r, const InferSetup& s) {
  check_at_least_one("--pp", r.pp, "use --pp 1 for no pipeline parallelism");
  check_at_least_one("--ep", r.ep, "use --ep 1 for no expert parallelism");
  check_at_least_one("--attention-dp", r.attention_dp, "use --attention-dp 1 for attention split over the TP group");
  if (r.tp) check_at_least_one("--tp", *r.tp, "use --tp 1 for no tensor parallelism, or leave it out");
  if (r.gpus) check_at_least_one("--gpus", *r.gpus, "leave it out for tp × pp GPUs");
  InferPlan plan;
  plan.pp = r.pp;
  plan.ep = r.ep;
  plan.tp = r.tp ? *r.tp : (r.gpus ? std::max(1, *r.gpus / r.pp) : 1);
  plan.attention_dp = r.attention_dp;
  if (plan.tp % plan.attention_dp != 0) {
    throw Error(fmt::format("--attention-dp {} does not divide the TP degree {}: attention-DP ranks split the TP "
                            "group; use a divisor of {} (--attention-dp {} replicates attention on every GPU, "
                            "TensorRT-LLM's enable_attention_dp), or raise --tp",
                            plan.attention_dp, plan.tp, plan.tp, plan.tp));
  }
  if (r.gpus) {
    if (*r.gpus % plan.gpus_per_replica() != 0) {
      throw Error(fmt::format("--gpus {} is not a multiple of tp × pp = {}; change --gpus, --tp or --pp", *r.gpus,
                              plan.gpus_per_replica()));
    }
    plan.replicas = *r.gpus / plan.gpus_per_replica();
  }
  plan.weights = s.weights;
  plan.kv = s.kv;
  plan.input_len = r.input_len;
  plan.output_len = r.output_len;
  // One load at most, for every interface (the CLI and Python used to check it each their own way).
  if ((r.batch ? 1 : 0) + (r.concurrency ? 1 : 0) + (r.max_throughput ? 1 : 0) > 1) {
    throw Error("batch, concurrency and max_throughput exclude each other: give one");
  }
  if (r.batch && !(*r.batch >= 1)) {
    throw Error(fmt::format("--batch {}: a batch holds at least 1 request; use --batch 1 or more", *r.batch));
  }
  if (r.concurrency && !(*r.concurrency >= 1)) {
    throw Error(fmt::format("--concurrency {}: at least 1 request must be in flight; use --concurrency 1 or more",
                            *r.concurrency));
  }
  if (r.max_throughput) {
    plan.mode = InferMode::max_throughput;
  } else if (r.concurrency) {
    plan.mode = InferMode::concurrency;
    plan.load = *r.concurrency;
    // Lengths drawn per request (the simulation's spread, range ratio or lengths file): the
    // closed form's closed loop then leaves lockstep too (InferPlan::lengths_vary).
    const SimOptions& o = r.simulation;
    plan.lengths_vary = o.input_spread > 0 || o.output_spread > 0 || o.random_range_ratio < 1 || !o.lengths_csv.empty();
  } else {
    plan.mode = InferMode::batch;
    plan.load = r.batch ? *r.batch : 1;
  }
  return plan;
}

// --max-batch-size, --max-num-tokens, --chunked-prefill: a copy of the engine with them.
void apply_engine_limits(InferSetup& s, const InferRequest& r) {
  if (!r.max_batch_size && !r.max_num_tokens && r.chunked_prefill.empty()) return;
  auto e = std::make_shared<Engine>(*s.ctx.engine);
  const auto whole = [](const char* flag, double v, const char* what) {
    if (!(v >= 1 && v <= 1e7 && v == std::floor(v))) {
      throw Error(fmt::format("{} {}: {} must be a whole number from 1 to 10,000,000; give one, or leave it out for "
                              "the engine's default",
                              flag, v, what));
    }
  };
  if (r.max_batch_size) {
    whole("--max-batch-size", *r.max_batch_size, "the sequences the scheduler runs at once");
    e->max_num_seqs = *r.max_batch_size;
  }
  if (r.max_num_tokens) {
    whole("--max-num-tokens", *r.max_num_tokens, "the tokens of one step");
    e->max_num_batched_tokens = *r.max_num_tokens;
  }
  if (r.chunked_prefill == "on") {
    e->chunked_prefill = true;
  } else if (r.chunked_prefill == "off") {
    e->chunked_prefill = false;
  } else if (!r.chunked_prefill.empty()) {
    throw Error(fmt::format("--chunked-prefill '{}': use on or off", r.chunked_prefill));
  }
  s.owned_engine = e;
  s.ctx.engine = e.get();
}

}  // namespace

// Weights the GPU cannot multiply at all: every quantised format needs a 16-bit tensor-core
// GEMM to dequantise into where the GPU lacks its own tensor cores (FP4 on Hopper and Ampere
// runs weight-only, W4A16: gemm_precision in infer/step.h).
std::string weights_refusal(const Catalog& catalog, const Gpu& gpu, Precision weights) {
  (void)catalog;
  if (gpu.dense(weights) > 0 || gpu.dense(Precision::bf16) > 0 || gpu.dense(Precision::fp16) > 0) return {};
  return fmt::format("{} has neither {} nor 16-bit tensor cores to run {} weights", gpu.id, precision_name(weights),
                     precision_name(weights));
}

std::string weights_note(const Gpu& gpu, Precision weights) {
  if ((weights != Precision::fp4 && weights != Precision::fp6) || gpu.dense(weights) > 0) return {};
  const Precision wide = gemm_precision(gpu, weights);
  return fmt::format("--weights {} on {} (no {} tensor cores): weight-only, the {}-bit weights dequantised to {} "
                     "inside the GEMM (W4A16), as TensorRT-LLM's Triton MoE backend and vLLM's Marlin kernels run FP4 "
                     "checkpoints on Hopper: {}'s bytes at {}'s FLOP rate",
                     precision_name(weights), gpu.id, precision_name(weights), weights == Precision::fp4 ? 4 : 6,
                     precision_name(wide), precision_name(weights), precision_name(wide));
}

Precision parse_weight_precision(const std::string& text) {
  const auto p = parse_precision(to_lower(text));
  if (!p || (*p != Precision::bf16 && *p != Precision::fp16 && *p != Precision::fp8 && *p != Precision::int8 &&
             *p != Precision::int4 && *p != Precision::fp4)) {
    throw Error(fmt::format("--weights '{}': use bf16, fp16, fp8, int8, int4 or fp4", text));
  }
  return *p;
}

Precision parse_kv_precision(const std::string& text) {
  const auto p = parse_precision(to_lower(text));
  if (!p || (*p != Precision::bf16 && *p != Precision::fp16 && *p != Precision::fp8)) {
    throw Error(fmt::format("--kv '{}': use bf16, fp16 or fp8", text));
  }
  return *p;
}

namespace {

// A plan that breaks a structural rule (--tp 3 on 32 heads, --ep on a dense model, --pp past
// the layers) is bad input: exit 2 with the rule and the nearest valid values, not an
// "infeasible" answer (infer/evaluate.h keeps the rule text for the search's candidates).
void check_infer_plan_rules(const ModelSpec& m, const InferPlan& plan) {
  const int atp = plan.attention_tp();
  if (m.heads > 0 && atp >= 1 && m.heads % atp != 0) {
    throw Error(fmt::format("--tp {}: tensor parallelism splits the attention heads, and {} has {}; use --tp {}",
                            plan.tp, m.id, m.heads, nearest_divisors_text(m.heads, atp)));
  }
  if (plan.pp > m.layers && m.layers > 0) {
    throw Error(fmt::format("--pp {}: {} has {} layers, and each stage needs one; use --pp {} or fewer", plan.pp,
                            m.id, m.layers, m.layers));
  }
  if (plan.ep > 1 && !m.is_moe()) {
    throw Error(fmt::format("--ep {} on {}, a dense model: expert parallelism needs a mixture-of-experts model; use "
                            "--ep 1",
                            plan.ep, m.id));
  }
  if (const std::string why = check_infer_plan(m, plan); !why.empty()) {
    throw Error(fmt::format("the plan breaks a rule: {}", why));
  }
}

}  // namespace

InferAnswer answer_infer(const Catalog& catalog, const InferRequest& request) {
  check_field_numbers(request, infer_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  InferAnswer a;
  a.setup = make_setup(catalog, request);
  apply_engine_limits(a.setup, request);
  a.plan = make_plan(request, a.setup);
  check_infer_plan_rules(*a.setup.ctx.model, a.plan);
  a.estimate = evaluate_inference(a.setup.ctx, a.plan);
  if (a.plan.attention_dp > 1 && !a.setup.ctx.model->is_moe()) {
    a.notes.push_back(fmt::format(
        "--attention-dp {} on the dense model {}: with no expert layers to share, this is {} independent copies of "
        "TP {} stepping together; --gpus {} --tp {} (replicas) is the same plan without the lockstep",
        a.plan.attention_dp, a.setup.ctx.model->id, a.plan.attention_dp, a.plan.attention_tp(), a.plan.gpus(),
        a.plan.attention_tp()));
  }
  if (const std::string note = weights_note(*a.setup.ctx.gpu, a.plan.weights); !note.empty()) {
    a.notes.push_back(note);
  }
  a.features = answer_infer_features(catalog, a.setup.ctx, a.plan, a.estimate, request.features);
  a.simulation = answer_simulation(a.setup.ctx, a.plan, a.estimate, request.concurrency,
                                   request.features.request_rate.value_or(0), request.simulation);
  // The net under the fields no range check above covers; the answer is not given.
  check_field_numbers(request, infer_fields(), FieldNumberRule::kNoNegativeNumbers);
  return a;
}

namespace {

// infer-search --disagg-prefill-gpus: the disaggregated search beside the co-located one, with
// the co-located best plan's precisions and EP (else the request's), so the two compare.
DisaggSearchAnswer answer_disagg_search(const Catalog& catalog, const InferSearchRequest& r,
                                        const InferSearchAnswer& colocated) {
  if (r.rate > 0) {
    throw Error(fmt::format("--disagg-prefill-gpus with --rate {}: the disaggregated search sizes pools per request, "
                            "not to a rate; leave one of the two out",
                            r.rate));
  }
  if (r.output_len < 2) {
    throw Error("--disagg-prefill-gpus with --output-len 1: the prefill pool produces the only token, there is "
                "nothing to decode; use --output-len 2 or more");
  }
  DisaggSearchAnswer d;
  const InferContext& ctx = colocated.setup.ctx;
  d.base.input_len = r.input_len;
  d.base.output_len = r.output_len;
  d.base.weights = colocated.result.found ? colocated.result.plan.weights : colocated.setup.weights;
  d.base.kv = colocated.result.found ? colocated.result.plan.kv : colocated.setup.kv;
  d.base.ep = 1;
  for (const std::string& id : r.disagg_prefill_gpus) {
    d.prefill_ctxs.push_back(prefill_pool_context(catalog, ctx, id, d.base.weights, "--disagg-prefill-gpus"));
  }
  d.spec.tp_max = r.gpus_max;
  d.spec.ttft_s = r.ttft_ms ? *r.ttft_ms * 1e-3 : 0;
  d.spec.tpot_s = r.tpot_ms ? *r.tpot_ms * 1e-3 : 0;
  d.spec.objective = colocated.spec.objective;
  std::vector<const InferContext*> prefill;
  for (const InferContext& p : d.prefill_ctxs) prefill.push_back(&p);
  d.result = search_disagg(prefill, ctx, d.base, d.spec);
  return d;
}

}  // namespace

InferSearchAnswer answer_infer_search(const Catalog& catalog, const InferSearchRequest& r) {
  check_field_numbers(r, infer_search_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  check_at_least_one("--gpus-max", r.gpus_max, "a replica needs at least one GPU (default 8)");
  // Both targets alike: a positive number of ms, or left out for none (0 is no target of either).
  if (r.ttft_ms && !(*r.ttft_ms > 0)) {
    throw Error(fmt::format("--ttft-ms {}: {}; give a target in ms, or leave it out for none", *r.ttft_ms,
                            *r.ttft_ms < 0 ? "a time target cannot be negative"
                                           : "a time to first token must be positive (0 is no target)"));
  }
  if (r.tpot_ms && !(*r.tpot_ms > 0)) {
    throw Error(fmt::format("--tpot-ms {}: a time per output token must be positive; give a target in ms, or leave "
                            "it out for none",
                            *r.tpot_ms));
  }
  if (!(r.rate >= 0)) {
    throw Error(fmt::format("--rate {}: a request rate cannot be negative; give requests/s, or leave it out", r.rate));
  }
  if (r.slo_percentile) {
    if (!(*r.slo_percentile >= 50 && *r.slo_percentile <= 100)) {
      throw Error(fmt::format("--slo-percentile {}: use a percentile from 50 to 100 (99 is MLPerf Server's; below "
                              "the median is not a service level), or leave it out for the closed-form means",
                              *r.slo_percentile));
    }
    if (!r.ttft_ms && !r.tpot_ms) {
      throw Error(fmt::format("--slo-percentile {}: there is no target to test at it; give --ttft-ms and/or "
                              "--tpot-ms, or leave --slo-percentile out",
                              *r.slo_percentile));
    }
  }
  check_field_numbers(r, infer_search_fields(), FieldNumberRule::kNoNegativeNumbers);  // after the range checks
  InferSearchSpec spec;
  if (r.objective == "throughput") spec.objective = InferObjective::throughput;
  else if (r.objective == "cost") spec.objective = InferObjective::cost;
  else throw Error(fmt::format("--objective '{}': use throughput or cost", r.objective));
  InferSearchAnswer a;
  a.setup = make_setup(catalog, r);
  spec.gpus_max = r.gpus_max;
  spec.input_len = r.input_len;
  spec.output_len = r.output_len;
  spec.ttft_s = r.ttft_ms ? *r.ttft_ms * 1e-3 : 0;
  spec.tpot_s = r.tpot_ms ? *r.tpot_ms * 1e-3 : 0;
  spec.rate_rps = r.rate;
  spec.slo_percentile = r.slo_percentile.value_or(0);
  // --weights / --kv given explicitly pin the precision; otherwise the search tries them all.
  if (r.weights_given) spec.weights = {a.setup.weights};
  if (!r.kv.empty()) spec.kvs = {a.setup.kv};
  spec.progress = &r.progress;
  a.result = infer_search(a.setup.ctx, spec);
  spec.progress = nullptr;  // the answer keeps no pointer to the caller's sink
  a.spec = spec;
  if (!r.disagg_prefill_gpus.empty()) a.disagg = answer_disagg_search(catalog, r, a);
  return a;
}

}  // namespace gpuplan
