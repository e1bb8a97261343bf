// Attention data parallelism with prompts arriving at the ranks unco-ordinated (docs/model/
// attention-dp.md §6). A steady state spreads its prompt tokens evenly over its steps
// (batching.cpp `continuous`): the mean step carries `prompts` whole prompts' worth of tokens in
// all. Which rank prefills in a given step is not planned: each attention-DP rank admits a new
// request when one of its own finishes (TensorRT-LLM's ADP request queue hands each rank its
// share; without `attention_dp_config.enable_balance` no rank waits for the others to have a
// prompt too), so the prompts of a step land on the ranks independently, and every rank waits
// at the first MoE layer's dispatch for the rank with the most. With `prompts / dp` prompts per
// rank per step on average, each rank's count is Poisson with that mean (arrivals thinned from
// many independent completions), and the step costs the busiest rank's count:
//   E[max of dp counts] = Σ_{k ≥ 0} (1 − F(k)^dp),  F the Poisson CDF.
// Between the mean share (prompts / dp: perfectly co-ordinated ranks) and all the step's
// prompts on one rank (the rule of a step whose prompts are fixed: slowest_attention_dp_rank).
#pragma once

namespace gpuplan {

// E[max of `n` independent Poisson(`mean`) counts]; `mean` for n ≤ 1, 0 for mean ≤ 0.
double expected_max_poisson(double mean, int n);

// Prompts the busiest of `attention_dp` ranks prefills in a mean step carrying `prompts`
// whole prompts over all ranks: expected_max_poisson(prompts / dp, dp); `prompts` when dp ≤ 1.
double busiest_rank_spread_prompts(double prompts, int attention_dp);

}  // namespace gpuplan
