#include "infer/batching.h"

#include <algorithm>
#include <cmath>

#include "infer/batch_wait.h"
#include "infer/graph_padding.h"

namespace gpuplan {

namespace {

// Requests per concurrency slot of a fixed-concurrency benchmark: genai-perf/aiperf and
// AIConfigurator's runs use request-count = 10 × concurrency. The benchmark's protocol, not a
// fitted constant; only the spread regimes (chunked prefill, prompts beyond one step) use it.
constexpr double kBenchmarkWaves = 10;

// The first wave: fixed-concurrency benchmarks (genai-perf/aiperf --concurrency,
// benchmark_serving --max-concurrency) start all C requests at t = 0, so their prompts queue
// behind each other in steps of the token budget; request j gets its first token at the end
// of the step that holds its last prompt token. The mean over the `admitted` requests.
double first_wave_ttft_s(const InferContext& ctx, const InferPlan& plan, double admitted) {
  const Engine& e = *ctx.engine;
  const double in = static_cast<double>(plan.input_len);
  const double budget = replica_token_budget(e, plan);  // every attention-DP rank's together
  admitted = std::max(1.0, admitted);
  const double per_step = e.chunked_prefill ? budget : std::max(1.0, std::floor(budget / in)) * in;
  const double wave_tokens = admitted * in;
  const double wave_steps = std::ceil(wave_tokens / per_step - 1e-9);
  const StepCost full = step_cost(ctx, plan, {0, 0, std::min(per_step, wave_tokens), in});
  const StepCost last = step_cost(ctx, plan, {0, 0, wave_tokens - (wave_steps - 1) * per_step, in});
  double wave_s = 0;
  for (double j = 1; j <= admitted; ++j) {
    const double k = e.chunked_prefill ? std::ceil(j * in / per_step - 1e-9)
                                       : std::ceil(j / std::max(1.0, std::floor(budget / in)) - 1e-9);
    wave_s += (k - 1) * full.total_s + (k >= wave_steps ? last.total_s : full.total_s);
  }
  return plan.pp * wave_s / admitted;
}

}  // namespace

double closed_loop_cohort(const Engine& e, double input_len, double micro, int attention_dp) {
  // The first wave (engine idle) admits floor(budget / in) whole prompts per step; in steady
  // state the step that refills a cohort also carries the other micro − g running decodes, one
  // budget token each (TensorRT-LLM's max_num_tokens counts both), which can shrink it. A prompt
  // longer than the budget runs alone (engines without context chunking need max_num_tokens ≥
  // the longest prompt, so such a deployment has raised it). Attention DP: each of the dp ranks
  // admits whole prompts under its own budget, its share of the decodes counted against it.
  const double budget = e.max_num_batched_tokens;
  if (attention_dp > 1) {
    const double dp = attention_dp;
    const double first = std::max(1.0, std::min(micro, dp * std::floor(budget / input_len)));
    const double room = budget - (micro - first) / dp;
    return std::max(1.0, std::min(first, dp * std::floor(room / input_len)));
  }
  const double first = std::max(1.0, std::min(micro, std::floor(budget / input_len)));
  const double room = budget - (micro - first);
  return std::max(1.0, std::min(first, std::floor(room / input_len)));
}

namespace {

// TTFT as a client sees it: the engine's fixed cost per request, the prefill, and, when more
// requests are in flight than run at once, the wait for a running one to finish (Little's
// law on the closed loop).
void finish_closed_loop(const InferContext& ctx, const InferPlan& plan, ServingPoint& s, double prefill_ttft_s) {
  const double out = static_cast<double>(plan.output_len);
  const double service_ttft = ctx.engine->request_overhead_s + prefill_ttft_s;
  const double lifetime = service_ttft + std::max(0.0, out - 1) * s.tpot_s;
  const double req_rate = s.running / lifetime;
  s.queue_s = s.in_flight > s.running ? (s.in_flight - s.running) / req_rate : 0;
  s.ttft_s = s.queue_s + service_ttft;
  s.requests_per_s = req_rate;
}

}  // namespace

ServingPoint static_batch(const InferContext& ctx, const InferPlan& plan, double batch) {
  const double in = static_cast<double>(plan.input_len);
  const double out = static_cast<double>(plan.output_len);
  const double pp = plan.pp;
  ServingPoint s;
  s.in_flight = s.running = batch;
  // Prefill: the batch's prompts in pp micro-batches through pp stages: 2·pp − 1 stage slots.
  s.prefill = step_cost(ctx, plan, {0, 0, batch * in / pp, in});
  s.ttft_s = (2 * pp - 1) * s.prefill.total_s;
  // Decode at the average context of the generation, each token passing every stage.
  s.step = step_cost(ctx, plan, {batch / pp, in + out / 2, 0, 0});
  s.tpot_s = pp * s.step.total_s;
  const double e2e = s.ttft_s + std::max(0.0, out - 1) * s.tpot_s;
  s.output_tokens_per_s = batch * out / e2e;
  s.requests_per_s = batch / e2e;
  return s;
}

ServingPoint continuous(const InferContext& ctx, const InferPlan& plan, double in_flight, double max_running) {
  const Engine& e = *ctx.engine;
  const double in = static_cast<double>(plan.input_len);
  const double out = static_cast<double>(plan.output_len);
  const double pp = plan.pp;
  ServingPoint s;
  s.in_flight = in_flight;
  s.running = std::max(1.0, std::min(in_flight, max_running));
  const double micro = s.running / pp;  // sequences per pipeline micro-batch

  // Steady state: over one request lifetime each running sequence needs `in` prompt tokens and
  // `out` decode tokens. Spread evenly over n steps, each step carries micro·out/n decodes and
  // micro·in/n prompt tokens; n = out unless the step token budget forces more steps.
  const double budget = replica_token_budget(e, plan);
  const double steps = std::max(out, micro * (in + out) / budget);
  StepLoad load{micro * out / steps, in + out / 2, micro * in / steps, in};
  load.spread_prompts = true;  // under attention DP the ranks' prompts in a step are random
  // MoE expert traffic is not spread: the prompt tokens come in steps of their own (a chunk of
  // min(in, budget − decodes) with chunked prefill, a cohort of whole prompts otherwise), and
  // the other steps read only the experts their decodes are routed to, so the mean expert
  // reads per step do not grow with the prompt length (measured TPOT of MoE models is flat from
  // 1K to 8K prompts). The FLOPs and the dense weights stay spread.
  if (ctx.weights.moe_layers > 0 && load.prefill_tokens > 0) {
    const double prompt_step = e.chunked_prefill ? std::min(in, std::max(1.0, budget - load.decode_seqs))
                                                 : closed_loop_cohort(e, in, micro, plan.attention_dp) * in;
    load.expert_hit = expert_hit_of_calendar(ctx, load.decode_seqs, prompt_step, micro * in / prompt_step, steps);
  }
  s.step = step_cost(ctx, plan, load);
  // CUDA-graph padding: the steps of a lifetime that carry no prompt (those carrying one run
  // eagerly) replay the graph of the next captured size (infer/graph_padding.h). The prompt
  // steps are the calendar's heavy ones: a chunk each with chunked prefill, a cohort each else.
  if (!e.cuda_graph_batch_sizes.empty()) {
    const double prompt_step = e.chunked_prefill ? std::min(in, std::max(1.0, budget - load.decode_seqs))
                                                 : closed_loop_cohort(e, in, micro, plan.attention_dp) * in;
    const double heavy_steps = std::min(steps, micro * in / prompt_step);
    s.step = with_graph_padding(ctx, plan, s.step, load.decode_seqs, load.decode_context, 1 - heavy_steps / steps);
  }
  const double cycle_s = steps * pp * s.step.total_s;  // one lifetime of the running set
  s.tpot_s = cycle_s / out;
  s.output_tokens_per_s = s.running * out / cycle_s;

  // A new request's prompt in steady state. Chunked prefill: in chunks of the budget left after
  // the decodes (the chunk spill of every step smears the first wave's groups, so arrivals
  // spread out), after the rest of the step in flight when it arrives. The steps are of two
  // kinds: those carrying a prompt chunk (heavy) and pure decode steps; an arrival at a random
  // time lands in a step with probability proportional to its length, so the mean residual is
  // E[T²] / (2·E[T]) over the steps of a lifetime (renewal theory; the same term in NVIDIA
  // AIConfigurator's pass-calendar model, docs/design/queueing_model.md), not half a mean step.
  // Whole-prompt in-flight batching: the first wave is admitted in cohorts of the prompts that
  // fit one step (closed_loop_cohort), all of equal length, so each cohort finishes together
  // and its replacements arrive together at a step boundary and are prefilled in one step,
  // with the other cohorts decoding: the cohort persists, and its TTFT is that step.
  // Batch waiting holds a new prompt while others decode (TensorRT-LLM without attention DP).
  const BatchWait wait = plan.attention_dp <= 1 ? e.batch_wait : BatchWait{};
  if (e.chunked_prefill) {
    const double room = std::max(1.0, budget - load.decode_seqs);
    const double chunk = std::min(in, room);
    s.prefill = step_cost(ctx, plan, {load.decode_seqs, load.decode_context, chunk, in});
    const StepCost light = step_cost(ctx, plan, {load.decode_seqs, load.decode_context, 0, 0});
    const double heavy_steps = micro * in / chunk;  // per lifetime of the running set
    const double light_steps = std::max(0.0, steps - heavy_steps);
    const double heavy_s = pp * s.prefill.total_s;
    const double light_s = pp * light.total_s;
    const double residual_s = (heavy_steps * heavy_s * heavy_s + light_steps * light_s * light_s) /
                              (2 * (heavy_steps * heavy_s + light_steps * light_s));
    s.steady_ttft_s = residual_s + (in / chunk) * heavy_s;
    s.batch_wait_s = batch_wait_steady(wait, budget, in, load.decode_seqs, micro / steps).wait_steps * light_s;
  } else if (plan.lengths_vary) {
    // Drawn lengths: requests finish apart and their replacements arrive one at a time, so a
    // prompt is prefilled alone next to the running decodes, or with the prompts batch waiting
    // gathered while it was held.
    const BatchWaitSteady held = batch_wait_steady(wait, budget, in, load.decode_seqs, micro / steps);
    const double group = std::min(micro, held.group);
    s.prefill = step_cost(ctx, plan, {std::max(0.0, micro - group), load.decode_context, group * in, in});
    s.steady_ttft_s = pp * s.prefill.total_s;
    s.batch_wait_s = held.wait_steps * pp * step_cost(ctx, plan, {load.decode_seqs, load.decode_context, 0, 0}).total_s;
  } else {
    const double cohort = closed_loop_cohort(e, in, micro, plan.attention_dp);
    s.prefill = step_cost(ctx, plan, {micro - cohort, load.decode_context, cohort * in, in});
    s.steady_ttft_s = pp * s.prefill.total_s;
  }
  s.steady_ttft_s += s.batch_wait_s;
  s.first_wave_ttft_s = first_wave_ttft_s(ctx, plan, std::max(1.0, std::min(in_flight, s.running)) / pp);
  // What a fixed-concurrency benchmark reports: the mean over its requests, kBenchmarkWaves per
  // concurrency slot, the first wave bunched and the rest in steady state.
  finish_closed_loop(ctx, plan, s, (s.first_wave_ttft_s + (kBenchmarkWaves - 1) * s.steady_ttft_s) / kBenchmarkWaves);
  return s;
}

ServingPoint closed_loop(const InferContext& ctx, const InferPlan& plan, double in_flight, double max_running) {
  const Engine& e = *ctx.engine;
  // Lockstep (whole-prompt in-flight batching, TensorRT-LLM's default: context chunking is
  // opt-in). The benchmark starts all C requests at t = 0; when their prompts fit one step's
  // token budget they are prefilled in one step, produce their tokens in the same steps, finish
  // together, and the closed-loop client replaces them together: every wave is the first.
  // With chunked prefill, prompts that do not fit one step, or lengths that differ, the requests
  // drift apart: the first wave is bunched and the later ones spread (continuous).
  const double running = std::max(1.0, std::min(in_flight, max_running));
  // Lengths drawn by the client (plan.lengths_vary) break the lockstep after the first wave.
  const bool lockstep = !e.chunked_prefill && !plan.lengths_vary &&
                        running / plan.pp * static_cast<double>(plan.input_len) <= replica_token_budget(e, plan);
  if (!lockstep) return continuous(ctx, plan, in_flight, max_running);

  const double in = static_cast<double>(plan.input_len);
  const double out = static_cast<double>(plan.output_len);
  const double pp = plan.pp;
  ServingPoint s;
  s.in_flight = in_flight;
  s.running = std::max(1.0, std::min(in_flight, max_running));
  const double micro = s.running / pp;
  const double context = in + out / 2;
  // One pure prefill step of all prompts, then out − 1 pure decode steps.
  s.prefill = step_cost(ctx, plan, {0, context, micro * in, in});
  // Every decode step is a pure decode: padded to the next captured size (infer/graph_padding.h).
  s.step = with_graph_padding(ctx, plan, step_cost(ctx, plan, {micro, context, 0, 0}), micro, context, 1);
  const double cycle_s = pp * (s.prefill.total_s + std::max(0.0, out - 1) * s.step.total_s);
  s.tpot_s = pp * s.step.total_s;
  s.output_tokens_per_s = s.running * out / cycle_s;
  s.steady_ttft_s = pp * s.prefill.total_s;
  s.first_wave_ttft_s = s.steady_ttft_s;
  finish_closed_loop(ctx, plan, s, s.steady_ttft_s);
  return s;
}

ServingPoint max_throughput(const InferContext& ctx, const InferPlan& plan, double max_running) {
  ServingPoint best = continuous(ctx, plan, max_running, max_running);
  // Throughput normally rises with the batch up to the memory limit; a step-budget or
  // compute-bound regime can flatten it, so check a geometric grid below the limit too.
  for (double b = 1; b < max_running; b *= 1.5) {
    const double batch = std::floor(b);
    const ServingPoint p = continuous(ctx, plan, batch, batch);
    if (p.output_tokens_per_s > best.output_tokens_per_s * 1.0001) best = p;
  }
  return best;
}

}  // namespace gpuplan
