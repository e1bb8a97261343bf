// A serving engine (TensorRT-LLM, vLLM, SGLang) as the inference model sees it: how it splits
// GPU memory between weights, runtime and KV cache (its documented budget rule and default),
// its paged-KV block size and scheduler limits, and its per-step and per-layer overheads.
// Loaded from data/engines/*.toml by engine_parse.cpp; used by src/infer/.
#pragma once

#include <string>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

// What the engine's memory fraction caps (docs/model/inference.md §3):
//  total_fraction  — vLLM gpu_memory_utilization: weights + activations + runtime + KV ≤ f × total
//  free_fraction   — TensorRT-LLM kv_cache_free_gpu_mem_fraction: KV = f × (free after weights,
//                    runtime and activations)
//  static_fraction — SGLang mem_fraction_static: weights + KV ≤ f × total (activations and
//                    runtime live outside the static pool)
enum class KvBudgetRule { total_fraction, free_fraction, static_fraction };

// The kernels a MoE layer launches besides its expert GEMMs, as the engine's MoE path runs them
// (`[moe] routing_kernels`, data/engines/*.toml; docs/model/moe-serving.md, "Routing kernels"):
//  topk_softmax — the router's top-k and softmax over the expert logits
//  sort         — tokens grouped by expert: counts, offsets, the permutation (vLLM's
//                 moe_align_block_size, TensorRT-LLM's fusedBuildExpertMapsSortFirstToken)
//  gemm_setup   — per-expert problem pointers and strides for the grouped kernel (TensorRT-LLM's
//                 computeStridesTmaWarpSpecialized)
//  gather       — each token's hidden state copied to its k experts' rows (expandInputRows)
//  activation   — the gated activation between the two GEMMs (silu_and_mul, doActivation)
//  combine      — the k expert outputs weighted and summed back per token (moe_sum,
//                 finalizeMoeRouting)
enum class MoeRoutingKernel { topk_softmax, sort, gemm_setup, gather, activation, combine };

// Batch waiting of a scheduler (Engine::batch_wait). Both 0 = off.
struct BatchWait {
  int timeout_iters = 0;          // steps a context may be held while others decode
  double max_tokens_ratio = 0;    // release once the step's tokens reach this × the token budget
  bool on() const { return timeout_iters > 0 || max_tokens_ratio > 0; }
};

// A benchmark launch that set batch waiting only where the prompt and output lengths are these
// and the tensor parallelism is below below_tp (InferenceMAX's TensorRT-LLM scripts: 1K/1K, TP < 8).
struct BenchmarkBatchWait {
  BatchWait wait;
  long long input_len = 0;
  long long output_len = 0;
  int below_tp = 0;
  bool applies(long long in, long long out, int tp) const {
    return wait.on() && in == input_len && out == output_len && tp < below_tp;
  }
};

struct Engine {
  std::string id;  // "vllm"
  std::vector<std::string> aliases;
  std::string name;
  KvBudgetRule budget_rule = KvBudgetRule::total_fraction;
  double memory_fraction = 0.9;       // the engine's default for its rule
  double kv_block_tokens = 16;        // paged KV: tokens per block (a sequence holds whole blocks)
  double max_num_seqs = 256;          // scheduler cap on sequences in flight
  double max_num_batched_tokens = 8192;  // token budget of one step (prefill chunks + decodes)
  bool chunked_prefill = true;        // prefills split into chunks that share steps with decodes
  // The scheduler admits a sequence only when blocks for its whole length (prompt + max output)
  // are free (TensorRT-LLM GUARANTEED_NO_EVICT); false = blocks allocated as tokens arrive,
  // preempting on overflow (vLLM, SGLang), so the pool holds sequences at their average length.
  bool reserve_full_sequence = false;
  // How a step is filled when prompts wait (the scheduler simulation, infer/sim_engine.h):
  // false = running sequences first (their decodes and unfinished prompt chunks), new prompts
  // in the budget left (vLLM V1, TensorRT-LLM in-flight batching); true = a step of prompts
  // only whenever one can be admitted, decodes in the steps between (vLLM V0, SGLang).
  bool prefill_first = false;
  // Batch sizes the engine captured CUDA graphs for and pads a pure-decode step up to (the next
  // size at or above the batch; none beyond the last). Empty = no padding (eager, or graphs
  // used only at their exact size, TensorRT-LLM's default enable_padding = false).
  std::vector<double> cuda_graph_batch_sizes;
  // Batch waiting (TensorRT-LLM's batch_wait_timeout_iters / batch_wait_max_tokens_ratio,
  // tensorrt_llm/_torch/pyexecutor/py_executor.py _waiting_requests): while sequences are
  // decoding, new contexts are held back until either the scheduled tokens (the contexts'
  // prompts + one per decode) reach max_tokens_ratio × max_num_batched_tokens or the contexts
  // have been held timeout_iters steps; then all are scheduled and the count restarts. Never
  // with no decodes in the step (no dead waiting). Both 0 = off (the engine's default).
  BatchWait batch_wait;
  // The benchmark launch behind the engine's published latency rows, where it set batch waiting
  // for some configurations only ([benchmark] batch_wait_*, data/engines/trtllm.toml): applied
  // by `validate inference` to the rows it matches (validate/infer_fit.h), not to a user's plan.
  BenchmarkBatchWait benchmark_batch_wait;
  double runtime_bytes = 0;           // CUDA context, CUDA graphs, NCCL and library workspaces
  double step_overhead_s = 0;         // host time per engine step (scheduling, sampling, detokenize)
  // Host time of the executor loop per sequence in a step (`[performance] host_per_seq_us`):
  // scheduling, KV-cache bookkeeping, input preparation, the sampler's per-request update and
  // the responses, which a Python executor (TensorRT-LLM's PyExecutor) runs once per request
  // per step. Its overlap scheduler prepares step n+1 on the host while step n runs on the GPU,
  // so a step takes max(GPU time, host time); it binds only where many sequences share a short
  // step (docs/model/inference.md, "Host time per sequence"). 0 = not modelled.
  double host_per_seq_s = 0;
  // Fixed cost per request before its first token, outside the GPU steps: HTTP, tokenisation,
  // hand-off to the scheduler and the first token back to the client (closed-loop TTFT only).
  double request_overhead_s = 0;
  // The fixed-concurrency benchmark client behind the engine's published latency rows
  // ([benchmark] random_range_ratio, data/engines/*.toml): prompt and output lengths drawn as
  // integers uniform in [⌊L·r⌋, L] (benchmark_serving's RandomDataset before vLLM 0.9, which
  // InferenceMAX/InferenceX's bench_serving keeps); 1 = every request exactly L. Used where
  // validate replays those rows (the simulation's lengths; the closed form's
  // InferPlan::lengths_vary), not for a user's lengths.
  double benchmark_range_ratio = 1;
  double layer_overhead_s = 0;        // small kernels per layer per step (norms, RoPE, residuals)
  double bw_fraction = 0.85;          // achieved / datasheet HBM bandwidth streaming weights and KV
  double gemm_fraction = 0;           // achieved / dense peak on prefill GEMMs; 0 = the GPU family's
  // Linear-layer time near the ridge point: (t_mem^p + t_flops^p)^(1/p). Weight streaming and
  // tensor-core work overlap imperfectly in real GEMM kernels, so the knee of the roofline is
  // smooth; 0 = the ideal roofline max(t_mem, t_flops).
  double roofline_norm = 0;
  double allreduce_latency_s = 0;     // one-shot custom AllReduce latency (small messages); 0 = NCCL's
  // The engine's own choice between its kernels and NCCL, where its code fixes one (vLLM's
  // custom_all_reduce.cuh / custom_all_reduce.py): one-shot below these message sizes at ≤ 4 and
  // ≤ 8 GPUs (always at 2), two-shot above, NCCL at or above allreduce_custom_max_bytes or beyond
  // allreduce_custom_max_gpus. All 0 = no rule known: the cheapest of one-shot, two-shot and NCCL.
  double allreduce_one_shot_max_bytes_4gpu = 0;
  double allreduce_one_shot_max_bytes_8gpu = 0;
  double allreduce_custom_max_bytes = 0;
  int allreduce_custom_max_gpus = 0;
  // The engine runs its routed-expert GEMMs in CUTLASS grouped kernels (`[moe] grouped_gemm =
  // "cutlass"`) where the experts multiply in their own precision: the kernels the grouped-GEMM
  // measurement of the GPU family describes (cost/grouped_gemm.h). Other kernels (Triton's fused
  // MoE, weight-only dequantising kernels) were not measured and get no grouped term.
  bool moe_cutlass_grouped = false;
  // The MoE layer's kernels outside the expert GEMMs, and the least time one of them takes in a
  // replayed CUDA graph however little it moves (`[moe] kernel_floor_us`): each costs
  // max(floor, its bytes / HBM rate). Empty = no routing-kernel term.
  std::vector<MoeRoutingKernel> moe_routing_kernels;
  double moe_kernel_floor_s = 0;
  std::string notes;
  Provenance provenance;
};

std::string_view budget_rule_name(KvBudgetRule rule);

}  // namespace gpuplan
