// The inference plan value type: how a model is split over GPUs for serving (TP, PP, EP,
// replicas), the weight and KV precisions, the request shape and the load.
#pragma once

#include <cstdint>

#include "core/precision.h"

namespace gpuplan {

// How the load is given: a static batch started together (--batch), a closed loop with C
// requests in flight under continuous batching (--concurrency), or the engine's offline
// maximum (--max-throughput: as many sequences as memory and the scheduler allow).
enum class InferMode { batch, concurrency, max_throughput };

struct InferPlan {
  int tp = 1;        // tensor parallel: heads, FFN columns and the vocabulary split tp ways
  int pp = 1;        // pipeline parallel: layers split pp ways
  int ep = 1;        // expert parallel inside the TP group: routed experts split ep ways (ep | tp)
  int replicas = 1;  // independent copies (data parallel serving)
  // Attention data parallelism inside the TP group (docs/model/attention-dp.md): the tp GPUs form
  // attention_dp ranks of tp / attention_dp GPUs each; every rank runs attention, the dense
  // (non-expert) layers, embeddings and head for its own requests with its own KV cache, TP-split
  // tp / attention_dp ways, and the routed experts stay spread over all tp GPUs (ep ways by
  // expert), reached by a token dispatch/combine all-to-all. attention_dp = tp is TensorRT-LLM's
  // enable_attention_dp; 1 < attention_dp < tp is SGLang's --dp-size with attention TP =
  // tp / dp (sglang/srt/layers/dp_attention.py). 1 = attention TP-split tp ways (no attention DP).
  int attention_dp = 1;
  Precision weights = Precision::bf16;
  Precision kv = Precision::bf16;
  std::int64_t input_len = 1024;
  std::int64_t output_len = 256;
  InferMode mode = InferMode::batch;
  double load = 1;  // batch size (batch) or requests in flight (concurrency); unused for max_throughput
  // The requests' lengths are drawn, not all equal (a benchmark client's random range, e.g.
  // bench_serving --random-range-ratio 0.8): requests started together finish apart, so a closed
  // loop does not stay in lockstep (infer/batching.cpp closed_loop). false = every request
  // input_len / output_len exactly.
  bool lengths_vary = false;

  int gpus_per_replica() const { return tp * pp; }
  int attention_tp() const { return attention_dp > 0 ? tp / attention_dp : tp; }
  int gpus() const { return tp * pp * replicas; }
};

}  // namespace gpuplan
