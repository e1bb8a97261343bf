// The limits below are read off the scored rows of ../shared/data/training-runs.csv
// (2026-11-23; `gpuplan validate training` prints them): a row "covers" a mechanism when it
// uses it and has a measured step time or throughput.
#include "search/coverage.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuplan {
namespace {

// Largest FSDP/ZeRO-3 sharding group among rows predicted within ~25%: torchtitan
// TT-T3-8B-128gpu (128) and llm-foundry MPT-70b (128 A100); TT-T4-70B shards over 32 × 8.
// Above it the scored rows are DeepSpeed ZeRO-3 on 768–2,240 A100 (N21-T2-ZeRO3-*, predicted
// 57–79% too fast) and LLaMA-65B on 2,048 A100 (−25%).
constexpr int kFsdpValidatedShardGpus = 256;
// Scored CP rows: Megatron-Bridge / MLPerf Llama 3.1 405B and NeMo Llama 3 8B at 8,192 tokens
// (cp 2), torchtitan 8B at 65,536–262,144 tokens (cp 2–8).
constexpr int kCpValidatedMinSeq = 8192;
constexpr int kCpValidatedMaxDegree = 8;

}  // namespace

std::vector<std::string> unvalidated_mechanisms(const Plan& p, int domain_gpus) {
  std::vector<std::string> out;
  const int shard_gpus = std::min(p.shard_group(), p.dp) * p.cp;
  if (p.zero == 3 && p.pp > 1) {
    out.push_back("FSDP/ZeRO-3 under a pipeline: the only scored rows (torchtitan 405B, PP 8) are off by +244…+256%");
  } else if (p.zero == 3 && shard_gpus > kFsdpValidatedShardGpus) {
    out.push_back(fmt::format("FSDP/ZeRO-3 sharded over {} GPUs: validated up to {}; the scored runs above "
                              "(DeepSpeed ZeRO-3 on 768–2,240 A100) are predicted 57–79% too fast",
                              shard_gpus, kFsdpValidatedShardGpus));
  }
  if (p.zero >= 1 && p.shard_group() < p.dp) {
    out.push_back(fmt::format("hybrid sharding (dp_shard {} of dp {}): no scored row uses it", p.shard_group(), p.dp));
  }
  if (p.cp > 1) {
    const int seq = p.seq_len;
    if (seq > 0 && seq < kCpValidatedMinSeq) {
      out.push_back(fmt::format("context parallelism at {} tokens: scored CP rows are at {} tokens or more", seq,
                                kCpValidatedMinSeq));
    }
    if (p.cp > kCpValidatedMaxDegree) {
      out.push_back(fmt::format("CP {}: scored CP rows go up to {}", p.cp, kCpValidatedMaxDegree));
    }
  }
  if (p.tp > domain_gpus) {
    out.push_back(fmt::format("TP {} across scale-up domains of {} GPUs: no scored row has TP wider than a domain",
                              p.tp, domain_gpus));
  }
  if (p.pp_embedding_head_slots) {
    out.push_back("embedding and head counted as pipeline layers: no scored row uses it");
  }
  if (p.optimizer_state_bits != 32) {
    out.push_back(fmt::format("{}-bit Adam states: no scored row uses them", p.optimizer_state_bits));
  }
  if (p.offload_optimizer) {
    out.push_back(
        "optimizer offload to host memory: no scored row uses it; the CPU step is costed at the host's peak "
        "DRAM bandwidth (a lower bound)");
  }
  if (p.precision == Precision::fp4) {
    out.push_back(
        "NVFP4 training: no scored row trains in fp4, and every decoder layer is costed in fp4 (NVIDIA's recipe "
        "keeps some in bf16)");
  }
  return out;
}

}  // namespace gpuplan
