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

#include "plan/plan.h"

namespace gpuplan {

// Expected distinct ranks among `ep` ranks of `experts` / `ep` experts each that `top_k`
// distinct experts drawn uniformly land on. 1 for ep ≤ 1; top_k when every expert has its
// own rank (ep = experts).
double moe_distinct_ranks_per_token(double experts, double top_k, double ep);

// Copies per routed token the dispatch (and the combine) moves: top_k (alltoall) or the
// distinct destination ranks (flex).
double moe_dispatch_copies_per_token(double experts, double top_k, double ep, MoeDispatcher dispatcher);

}  // namespace gpuplan
