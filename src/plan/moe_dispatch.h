// The token copies a MoE layer's dispatch sends, per token routed, under the two dispatchers
// (plan.h MoeDispatcher; docs/model/training.md §3, "Dispatchers"). The combine returns as
// many. With balanced routing (the reference benchmarks force it) a token's top-k experts are
// k distinct experts drawn uniformly from E, spread E / ep per expert-parallel rank:
//   alltoall: k copies (one per chosen expert, permuted by expert before the AllToAll);
//   flex:     ep · (1 − C(E − E/ep, k) / C(E, k)) copies, the expected number of distinct
//             ranks holding at least one chosen expert (one copy per destination rank;
//             DeepEP/HybridEP: `num_tokens_per_rank`, `is_token_in_rank` in the dispatch layout).
// The self-copy is among them; the collective model charges the (ep − 1)/ep that leave the GPU.
#pragma once

#include <cstdint>

#include "plan/plan.h"

namespace gpuplan {

// Expected distinct ranks among `ep` ranks of `experts` / `ep` experts each that `top_k`
// distinct experts drawn uniformly land on. 1 for ep ≤ 1; top_k when every expert has its
// own rank (ep = experts).
double moe_distinct_ranks_per_token(double experts, double top_k, double ep);

// Copies per routed token the dispatch (and the combine) moves: top_k (alltoall) or the
// distinct destination ranks (flex).
double moe_dispatch_copies_per_token(double experts, double top_k, double ep, MoeDispatcher dispatcher);

// DeepSeek-V3's node-deduplicated dispatch (arXiv:2412.19437 sec. 3.2.2; deepseek-ai/DeepEP
// internode kernels): a token crosses the scale-out network once per destination node, to the
// GPU of its own local index there, which forwards it over NVLink to each GPU holding one of its
// experts. With node-limited routing (sec. 2.1.2: experts in `groups` groups, one per node, and
// a token's top-k drawn from its best `group_limit` of them) a token reaches at most
// group_limit nodes; the top-k are taken as drawn uniformly from the experts of those nodes
// (balanced routing). Without a limit, or when the groups are not one per node, the top-k are
// drawn from all the experts.
struct MoeNodeDispatch {
  double nodes_per_token = 1;  // copies over the scale-out network (own node included)
  double ranks_per_token = 1;  // copies forwarded inside the destination nodes (one per GPU)
};
MoeNodeDispatch moe_node_dispatch(double experts, double top_k, int nodes, int ranks_per_node, std::int64_t groups,
                                  std::int64_t group_limit);

}  // namespace gpuplan
