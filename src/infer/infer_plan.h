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
  Precision weights = Precision::bf16;
  Precision kv = Precision::bf16;
  std::int64_t input_len = 1024;
  std::int64_t output_len = 256;
  InferMode mode = InferMode::batch;
  double load = 1;  // batch size (batch) or requests in flight (concurrency); unused for max_throughput

  int gpus_per_replica() const { return tp * pp; }
  int gpus() const { return tp * pp * replicas; }
};

}  // namespace gpuplan
