// Serving memory per GPU and the engine's KV budget: weights (quantised linear layers, 16-bit
// embeddings and norms), activation workspace for one step's token budget, runtime memory,
// then what the engine's rule leaves for the KV cache and how many sequences that holds.
// Formulas and sources: docs/model/inference.md §3.
#pragma once

#include <string>

#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

// Weight bytes of the whole model when the linear layers are stored at `p` and embeddings,
// head and norms stay 16-bit (what TensorRT-LLM, vLLM and SGLang do with FP8/INT8/INT4
// checkpoints by default).
double serving_weight_bytes(const InferWeights& w, Precision p);

struct InferMemory {
  double capacity = 0;     // usable memory of one GPU
  double weights = 0;      // per GPU (the heaviest pipeline stage)
  double activations = 0;  // workspace for one step of max_num_batched_tokens
  double runtime = 0;      // CUDA context, graphs, NCCL
  double kv_budget = 0;    // what the engine's rule gives the KV cache (<= 0: nothing)
  double kv_per_seq = 0;   // one sequence as the scheduler counts it (paged), per GPU
  double max_seqs = 0;     // sequences the KV budget holds (0 when none), all attention-DP ranks
  double engine_cap = 0;   // the engine's own cap (memory_fraction × capacity or equivalent)
  bool fits = false;
  std::string reason;      // why not, naming the fix
};

// The engine's per-scheduler caps for one replica of `plan`: each attention-DP rank runs its own
// scheduler with the engine's max_num_seqs and max_num_batched_tokens (TensorRT-LLM's
// max_batch_size / max_num_tokens are per rank under enable_attention_dp; SGLang's DP-attention
// workers each schedule their own batch), so a replica runs attention_dp times as many.
inline double replica_max_num_seqs(const Engine& e, const InferPlan& plan) {
  return plan.attention_dp > 1 ? e.max_num_seqs * plan.attention_dp : e.max_num_seqs;
}
inline double replica_token_budget(const Engine& e, const InferPlan& plan) {
  return plan.attention_dp > 1 ? e.max_num_batched_tokens * plan.attention_dp : e.max_num_batched_tokens;
}

// Memory of one GPU of `plan`. The KV per sequence is counted at the full length
// (prompt + output) when the engine reserves it, at the average length otherwise.
InferMemory infer_memory(const InferContext& ctx, const InferPlan& plan);

}  // namespace gpuplan
