#include "plan/plan_rules.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

std::string nearest_divisors_text(std::int64_t n, std::int64_t value) {
  std::vector<std::int64_t> below, above;
  for (std::int64_t d = std::min(value - 1, n); d >= 1 && below.size() < 2; --d) {
    if (n % d == 0) below.push_back(d);
  }
  for (std::int64_t d = value + 1; d <= n && above.size() < 2; ++d) {
    if (n % d == 0) above.push_back(d);
  }
  std::vector<std::int64_t> all(below.rbegin(), below.rend());
  all.insert(all.end(), above.begin(), above.end());
  std::string text;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) text += i + 1 == all.size() ? " or " : ", ";
    text += fmt::format("{}", all[i]);
  }
  return text;
}

void check_train_plan_rules(const ModelSpec& m, const Plan& p, int seq_len) {
  if (m.heads > 0 && m.heads % p.tp != 0) {
    throw Error(fmt::format("--tp {}: tensor parallelism splits the attention heads, and {} has {}; use --tp {}", p.tp,
                            m.id, m.heads, nearest_divisors_text(m.heads, p.tp)));
  }
  if (!m.mla && m.kv_heads > 0 && m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0) {
    throw Error(fmt::format("--tp {}: {}'s {} KV heads and the TP degree must divide one another; use --tp {}", p.tp,
                            m.id, m.kv_heads, nearest_divisors_text(m.kv_heads, p.tp)));
  }
  if (p.vp > 1 && p.pp == 1) {
    throw Error(fmt::format("--vp {} without a pipeline: virtual stages interleave the layers of pipeline ranks; "
                            "give --pp 2 or more, or use --vp 1",
                            p.vp));
  }
  const std::int64_t slots = m.layers + (p.pp_embedding_head_slots ? 2 : 0);
  if (slots > 0 && p.pp * static_cast<std::int64_t>(p.vp) > slots && p.pp_layout_layers.empty()) {
    throw Error(fmt::format("--pp {} × --vp {} = {} pipeline stages for {}'s {} layers: each stage needs a layer; "
                            "use --pp {} or fewer{}",
                            p.pp, p.vp, p.pp * p.vp, m.id, slots, slots / p.vp,
                            p.vp > 1 ? fmt::format(" (or a smaller --vp)") : ""));
  }
  if (m.is_moe()) {
    if (m.moe.experts % p.ep != 0) {
      throw Error(fmt::format("--ep {}: expert parallelism splits {}'s {} experts evenly; use --ep {}", p.ep, m.id,
                              m.moe.experts, nearest_divisors_text(m.moe.experts, p.ep)));
    }
    const int tcd = p.tp * p.cp * p.dp;
    if (tcd % p.ep != 0) {
      throw Error(fmt::format("--ep {}: the expert-parallel group lies within tp × cp × dp = {}; use --ep {}", p.ep,
                              tcd, nearest_divisors_text(std::min<std::int64_t>(tcd, m.moe.experts), p.ep)));
    }
  } else if (p.ep > 1) {
    throw Error(fmt::format("--ep {} on {}, a dense model: expert parallelism needs a mixture-of-experts model; use "
                            "--ep 1",
                            p.ep, m.id));
  }
  if (seq_len > 0 && seq_len % p.cp != 0) {
    throw Error(fmt::format("--cp {}: context parallelism splits the {}-token sequence evenly; use --cp {}", p.cp,
                            seq_len, nearest_divisors_text(seq_len, p.cp)));
  }
  if (p.dp_shard > 0 && p.dp % p.dp_shard != 0) {
    throw Error(fmt::format("--dp-shard {}: the sharding group must divide dp {}; use --dp-shard {}", p.dp_shard, p.dp,
                            nearest_divisors_text(p.dp, p.dp_shard)));
  }
  const int micro_batches = p.global_batch > 0 ? p.global_batch / (p.dp * p.micro_batch) : 1;
  if (p.vp > 1 && micro_batches % p.pp != 0) {
    throw Error(fmt::format("--vp {}: the interleaved schedule runs whole rounds of pp {} micro-batches, and a step has "
                            "{}; give a --global-batch of dp {} × micro-batch {} × a multiple of {} (e.g. {}), or use "
                            "--vp 1",
                            p.vp, p.pp, micro_batches, p.dp, p.micro_batch, p.pp,
                            static_cast<long long>(p.dp) * p.micro_batch * p.pp *
                                std::max(1, (micro_batches + p.pp - 1) / p.pp)));
  }
  // Megatron-Core (TransformerConfig.__post_init__, core_v0.16.1): the EP AllToAll overlap
  // needs the interleaved schedule under a pipeline, and no full recompute.
  if (m.is_moe() && p.moe_overlap == MoeOverlap::one_f_one_b && p.pp > 1 && p.vp == 1) {
    throw Error(fmt::format("--moe-overlap 1f1b with --pp {} --vp 1: Megatron-Core overlaps the expert-parallel "
                            "AllToAll only in the interleaved schedule; give --vp 2 or more, or --moe-overlap none",
                            p.pp));
  }
  if (m.is_moe() && p.moe_overlap == MoeOverlap::one_f_one_b && p.recompute == Recompute::full) {
    throw Error("--moe-overlap 1f1b with --recompute full: Megatron-Core does not overlap the expert-parallel "
                "AllToAll under full recompute; use --recompute selective or none, or --moe-overlap none");
  }
  if (p.moe_overlap == MoeOverlap::dualpipe && (p.pp < 2 || p.pp % 2 != 0 || p.vp > 1)) {
    throw Error(fmt::format("--moe-overlap dualpipe with --pp {} --vp {}: DualPipe runs two pipelines over the same "
                            "ranks, so it needs an even --pp of 2 or more and --vp 1",
                            p.pp, p.vp));
  }
}

}  // namespace gpuplan
