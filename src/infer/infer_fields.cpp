#include "infer/infer_fields.h"

namespace gpuplan {
namespace {

// InferCommon's fields, for either request.
template <class R>
std::vector<FieldSpec<R>> infer_common_fields() {
  return {
      {"model", GP_FIELD(R, model), "", "",
       "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json", kRequired | kModelId},
      {"gpu", GP_FIELD(R, gpu), "", "", "GPU id (see 'gpuplan gpus')", kRequired},
      {"engine", GP_FIELD(R, engine), "", "tensorrt-llm, tensorrt-llm-1.0, trtllm, vllm, vllm-v0, sglang",
       "Serving engine: tensorrt-llm (0.x), tensorrt-llm-1.0, trtllm, vllm (V1), vllm-v0 or sglang (default vllm)"},
      {"system", GP_FIELD(R, system), "", "",
       "System whose scale-up domain carries TP traffic (default: the GPU's usual node)"},
      {"weights", GP_FIELD(R, weights), "", "bf16, fp16, fp8, int8, int4, fp4",
       "Weight precision: bf16, fp16, fp8, int8, int4, fp4 (default bf16)"},
      {"kv", GP_FIELD(R, kv), "", "bf16, fp16, fp8",
       "KV-cache precision: bf16, fp16, fp8 (default: fp8 with 8-bit or smaller weights)"},
      {"input_len", GP_FIELD(R, input_len), "tokens", "", "Prompt tokens per request (default 1024)"},
      {"output_len", GP_FIELD(R, output_len), "tokens", "", "Generated tokens per request (default 256)"},
      {"allow_longer_context", GP_FIELD(R, allow_longer_context), "", "",
       "Allow --input-len + --output-len beyond the model's context length (max_seq_len)"},
      {"router_imbalance", GP_FIELD(R, router_imbalance), "", ">= 1",
       "MoE with --ep > 1: the busiest expert-parallel rank's routed tokens / the mean (default 1, balanced, as "
       "published DEP8 runs show; about 1.2 at EP 32 with real traffic)"},
      {"calibration", GP_FIELD(R, calibration), "", "",
       "Profile from gpuplan-bench for this GPU: scales the GEMM rates by measured / reference; or nccl-tests "
       "output (all_reduce_perf, ...): its rows calibrate the collective model's bandwidth and latency "
       "(docs/calibration.md)",
       kTakesPath},
  };
}

template <class R>
std::vector<FieldSpec<R>> with_infer_common(std::vector<FieldSpec<R>> own) {
  std::vector<FieldSpec<R>> fields = infer_common_fields<R>();
  fields.insert(fields.end(), own.begin(), own.end());
  return fields;
}

}  // namespace

// In the order `gpuplan infer --help` lists them. A serving flag is one entry here.
const std::vector<FieldSpec<InferRequest>>& infer_fields() {
  using R = InferRequest;
  static const std::vector<FieldSpec<R>> fields = with_infer_common<R>({
      {"gpus", GP_FIELD(R, gpus), "GPUs", "", "GPUs in all (default tp × pp); a multiple of tp × pp adds replicas"},
      {"tp", GP_FIELD(R, tp), "GPUs", "", "Tensor-parallel degree (default: --gpus / pp, else 1)"},
      {"pp", GP_FIELD(R, pp), "GPUs", "", "Pipeline-parallel degree (default 1)"},
      {"ep", GP_FIELD(R, ep), "GPUs", "", "Expert-parallel degree inside the TP group (MoE; default 1)"},
      {"attention_dp", GP_FIELD(R, attention_dp), "ranks", "",
       "Attention data-parallel ranks inside the TP group: attention, dense layers and KV cache per rank "
       "at TP = tp / N, experts over all tp GPUs (N = tp: DEP, TensorRT-LLM's enable_attention_dp; default 1)"},
      {"batch", GP_FIELD(R, batch), "requests", "", "Static batch: B requests started together (default 1)"},
      {"concurrency", GP_FIELD(R, concurrency), "requests", "",
       "Closed loop with C requests in flight under continuous batching"},
      {"max_throughput", GP_FIELD(R, max_throughput), "", "",
       "Offline serving: the running batch that maximises output tokens/s within memory"},
      {"spec_draft_tokens", GP_FIELD(R, features.spec_draft_tokens), "tokens", "",
       "Speculative decoding: tokens the draft proposes per verify step (K; default off)"},
      {"spec_acceptance", GP_FIELD(R, features.spec_acceptance), "", "[0, 1)",
       "Speculative decoding: per-token acceptance rate A in [0, 1) (required with K)"},
      {"spec_draft", GP_FIELD(R, features.spec_draft), "", "",
       "Speculative decoding draft: a model id with the target's vocabulary, or mtp (the target's "
       "multi-token-prediction module; default)",
       kModelId},
      {"prefix_hit_rate", GP_FIELD(R, features.prefix_hit_rate), "", "[0, 1]",
       "Prefix caching: share of prompt tokens found in the KV cache, 0 to 1 (default "
       "--shared-prefix-tokens / --input-len)"},
      {"shared_prefix_tokens", GP_FIELD(R, features.shared_prefix_tokens), "tokens", "",
       "Prefix caching: prompt tokens every request shares (a system prompt), held once"},
      {"disagg", GP_FIELD(R, features.disagg), "GPUs:GPUs", "",
       "Disaggregated prefill/decode: prefill GPUs : decode GPUs, e.g. 2:6 (KV moves over the fabric)"},
      {"disagg_prefill_tp", GP_FIELD(R, features.disagg_prefill_tp), "GPUs", "",
       "Disaggregated: TP of each prefill replica (default --tp)"},
      {"disagg_decode_tp", GP_FIELD(R, features.disagg_decode_tp), "GPUs", "",
       "Disaggregated: TP of each decode replica (default --tp)"},
      {"disagg_prefill_gpu", GP_FIELD(R, features.disagg_prefill_gpu), "", "",
       "Disaggregated: the prefill pool's GPU id when it differs from --gpu (default --gpu; the KV crosses the "
       "network)"},
      {"slo_ttft_ms", GP_FIELD(R, features.slo_ttft_ms), "ms", "",
       "SLO: time-to-first-token target in ms (goodput, GPUs for a rate)"},
      {"slo_tpot_ms", GP_FIELD(R, features.slo_tpot_ms), "ms", "", "SLO: time-per-output-token target in ms"},
      {"request_rate", GP_FIELD(R, features.request_rate), "requests/s", "",
       "SLO: requests/s offered (Poisson): the fewest GPUs, $/hour and p50/p90 TTFT that serve it"},
      // Engine scheduler limits and the scheduler simulation (infer/sim_answer.h).
      {"max_batch_size", GP_FIELD(R, max_batch_size), "sequences", "",
       "Engine: sequences the scheduler runs at once (max_num_seqs / max_batch_size; default the engine's)"},
      {"max_num_tokens", GP_FIELD(R, max_num_tokens), "tokens", "",
       "Engine: tokens per step (max_num_batched_tokens / max_num_tokens; default the engine's)"},
      {"chunked_prefill", GP_FIELD(R, chunked_prefill), "", "on, off", "Engine: on or off (default the engine's)"},
      {"sim_requests", GP_FIELD(R, simulation.requests), "requests", "",
       "Simulation (with --concurrency or --request-rate): requests sent (default 10 per client, else 1000)"},
      {"sim_seed", GP_FIELD(R, simulation.seed), "", "",
       "Simulation: seed of the Poisson arrivals and lengths (default 0)"},
      {"sim_warmup", GP_FIELD(R, simulation.warmup_requests), "requests", "",
       "Simulation: first requests run but not measured (default 0)"},
      {"input_spread", GP_FIELD(R, simulation.input_spread), "", "[0, 1)",
       "Simulation: prompt lengths uniform in --input-len x (1 +- s), 0 <= s < 1 (default 0)"},
      {"output_spread", GP_FIELD(R, simulation.output_spread), "", "[0, 1)",
       "Simulation: output lengths uniform in --output-len x (1 +- s) (default 0)"},
      {"random_range_ratio", GP_FIELD(R, simulation.random_range_ratio), "", "(0, 1]",
       "Simulation: prompt and output lengths uniform in [L x r, L], as InferenceMAX's benchmark_serving draws "
       "them (default 1: fixed)"},
      {"lengths_csv", GP_FIELD(R, simulation.lengths_csv), "", "",
       "Simulation: CSV with columns input_len,output_len, one row per request, sent in order and repeated "
       "(replaces the drawn lengths)",
       kTakesPath},
  });
  return fields;
}

// In the order `gpuplan infer-search --help` lists them.
const std::vector<FieldSpec<InferSearchRequest>>& infer_search_fields() {
  using R = InferSearchRequest;
  static const std::vector<FieldSpec<R>> fields = with_infer_common<R>({
      {"gpus_max", GP_FIELD(R, gpus_max), "GPUs", "", "GPUs of one model replica (tp × pp) at most (default 8)"},
      {"ttft_ms", GP_FIELD(R, ttft_ms), "ms", "", "Time-to-first-token target in ms (default none)"},
      {"tpot_ms", GP_FIELD(R, tpot_ms), "ms", "", "Time-per-output-token target in ms (default none)"},
      {"rate", GP_FIELD(R, rate), "requests/s", "",
       "Requests/s to serve: the fewest GPUs (replicas) that serve it within the targets"},
      {"slo_percentile", GP_FIELD(R, slo_percentile), "", "[50, 100]",
       "Targets at this percentile of the scheduler simulation (e.g. 99, MLPerf Server's) instead of the "
       "closed-form means; needs --ttft-ms or --tpot-ms"},
      {"objective", GP_FIELD(R, objective), "", "throughput, cost",
       "throughput (output tokens/s per GPU, default) or cost (per dollar)"},
      {"disagg_prefill_gpus", GP_FIELD(R, disagg_prefill_gpus), "", "",
       "Also search disaggregated serving: prompts on one of these GPU ids (e.g. b200,h100-sxm), decodes on "
       "--gpu; each pool's TP up to --gpus-max"},
  });
  return fields;
}

}  // namespace gpuplan
