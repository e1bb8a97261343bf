// The plan space of a training job: every valid combination of TP, PP, VP, DP, CP, EP, ZeRO
// stage, hybrid-shard size, sequence parallelism, micro-batch and recompute for a fixed GPU
// count, global batch, sequence length and precision. Rules: docs/model/search.md.
#pragma once

#include <vector>

#include "plan/plan.h"
#include "workload/model.h"

namespace gpuplan {

// What the user fixed; everything else is searched.
struct SearchSpace {
  int gpus = 1;
  int global_batch = 1;  // sequences per step
  int seq_len = 0;       // tokens per sequence
  Precision precision = Precision::bf16;
  bool tp_comm_overlap = true;
  // Fixed for the whole search, as the user sets them (docs/model/search.md): the state
  // precision changes the optimizer's numerics, not only its speed, and offload would double the
  // space for plans that mostly lose to sharding.
  int optimizer_state_bits = 32;
  bool offload_optimizer = false;
  bool eager_elementwise = false;  // the software's element-wise kernels (Plan::eager_elementwise), fixed
  ScalingRecipe scaling = ScalingRecipe::delayed;  // the fp8/fp4 recipe (plan.h), fixed
  bool low_precision_act_cache = false;
  bool fp8_params = false;  // fp8 primary weights (Plan::fp8_params), fixed
};

// The model-parallel layout: the outer loop of the search. dp = gpus / (tp × pp × cp).
struct Layout {
  int tp = 1, pp = 1, vp = 1, cp = 1, dp = 1, ep = 1;
};

// (zero stage, dp_shard) pairs: ZeRO 0, then stages 1–3 over every divisor of dp (0 = all of dp).
struct ShardChoice {
  int zero = 0;
  int dp_shard = 0;
};

std::vector<int> divisors(int n);

// Every layout whose degrees satisfy the divisibility rules, in a fixed order.
std::vector<Layout> enumerate_layouts(const ModelSpec& model, const SearchSpace& space);

// The inner choices for one layout.
std::vector<bool> sp_choices(const Layout& layout);
std::vector<ShardChoice> shard_choices(const Layout& layout);
std::vector<int> micro_batch_choices(const Layout& layout, const SearchSpace& space);
constexpr Recompute kRecomputeChoices[] = {Recompute::full, Recompute::selective, Recompute::none};

Plan make_plan(const Layout& layout, const SearchSpace& space, bool sp, ShardChoice shard, int micro_batch,
               Recompute recompute);

// The whole space, materialised (for tests and small spaces; the search iterates instead).
std::vector<Plan> enumerate_plans(const ModelSpec& model, const SearchSpace& space);

// Number of plans in the space without building them.
long long count_plans(const ModelSpec& model, const SearchSpace& space);

}  // namespace gpuplan
