// A parallel training plan: how a model is split over GPUs and how each step is run. A plain
// value; the evaluator (evaluate.h) turns plan × model × cluster into an Estimate.
#pragma once

#include "core/precision.h"
#include "workload/activations.h"

namespace gpuplan {

struct Plan {
  int tp = 1;  // tensor parallel (Megatron column/row split of every GEMM)
  int pp = 1;  // pipeline stages
  int vp = 1;  // virtual stages per pipeline rank (interleaved 1F1B when > 1)
  int dp = 1;  // data parallel replicas (of the dense part)
  int cp = 1;  // context parallel (ring attention over the sequence)
  int ep = 1;  // expert parallel, carved out of dp × cp × tp (expert TP = 1)
  bool sp = false;  // sequence parallelism with TP (Korthikanti et al. 2022)
  int zero = 0;      // 0 DDP, 1 optimizer sharding (distributed optimizer), 2 + gradients, 3 FSDP
  int dp_shard = 0;  // ZeRO/FSDP sharding group (HSDP); 0 = all of dp
  int micro_batch = 1;   // sequences per micro-batch per data-parallel rank
  int global_batch = 0;  // sequences per step; 0 = dp × micro_batch (one micro-batch)
  int seq_len = 0;       // tokens per sequence; 0 = the model's max_seq_len
  Recompute recompute = Recompute::none;
  Precision precision = Precision::bf16;  // of the linear layers (fp8: Transformer Engine recipe)
  // TP collectives overlapped with GEMMs as far as the GPU family's software does (the
  // efficiency entry's tp_comm_fraction); false = fully exposed.
  bool tp_comm_overlap = true;

  int gpus() const { return tp * pp * dp * cp; }
  int shard_group() const { return dp_shard > 0 ? dp_shard : dp; }
  int global_batch_seqs() const { return global_batch > 0 ? global_batch : dp * micro_batch; }
  int micro_batches() const { return global_batch_seqs() / (dp * micro_batch); }
};

// Tokens per sequence under the plan: its seq_len, or the model's max_seq_len where that is 0.
inline int plan_seq_len(const Plan& p, const ModelSpec& m) {
  return p.seq_len > 0 ? p.seq_len : static_cast<int>(m.max_seq_len);
}

}  // namespace gpuplan
