// Parser for `kind = "engine"` files (data/engines/). Schema: docs/data-format.md.
#include "catalog/engine.h"

#include <cmath>
#include <optional>

#include "catalog/parsers.h"
#include "core/units.h"

namespace gpuplan {

std::string_view budget_rule_name(KvBudgetRule rule) {
  switch (rule) {
    case KvBudgetRule::total_fraction: return "total_fraction";
    case KvBudgetRule::free_fraction: return "free_fraction";
    case KvBudgetRule::static_fraction: return "static_fraction";
  }
  return "total_fraction";
}

namespace {

// batch_wait_timeout_iters (whole steps >= 0) and batch_wait_max_tokens_ratio (a fraction of the
// token budget, 0 to 1) of a [scheduler] or [benchmark] table; both absent = off.
BatchWait parse_batch_wait(Fields& f) {
  BatchWait w;
  const double iters = f.opt_nonneg("batch_wait_timeout_iters").value_or(0);
  if (iters != std::floor(iters)) f.fail("batch_wait_timeout_iters", "give a whole number of steps (0 = no timeout wait)");
  w.timeout_iters = static_cast<int>(iters);
  const double ratio = f.opt_nonneg("batch_wait_max_tokens_ratio").value_or(0);
  if (ratio > 1) f.fail("batch_wait_max_tokens_ratio", "must be in [0, 1]: a fraction of max_num_batched_tokens");
  w.max_tokens_ratio = ratio;
  return w;
}

}  // namespace

Engine parse_engine(Fields& top) {
  Engine e;
  e.id = top.str("id");
  e.aliases = top.str_list("aliases");
  e.name = top.str("name");
  e.notes = top.opt_str("notes").value_or("");
  e.provenance = top.file_provenance();

  Fields mem = top.sub("memory");
  const std::string rule = mem.str("budget_rule");
  if (rule == "total_fraction") e.budget_rule = KvBudgetRule::total_fraction;
  else if (rule == "free_fraction") e.budget_rule = KvBudgetRule::free_fraction;
  else if (rule == "static_fraction") e.budget_rule = KvBudgetRule::static_fraction;
  else mem.fail("budget_rule", "use total_fraction (vLLM), free_fraction (TensorRT-LLM) or static_fraction (SGLang)");
  e.memory_fraction = mem.fraction("memory_fraction");
  e.kv_block_tokens = mem.pos("kv_block_tokens");
  e.runtime_bytes = mem.opt_nonneg("runtime_gib").value_or(0) * kGiB;
  mem.finish();

  Fields sched = top.sub("scheduler");
  e.max_num_seqs = sched.pos("max_num_seqs");
  e.max_num_batched_tokens = sched.pos("max_num_batched_tokens");
  e.chunked_prefill = sched.opt_boolean("chunked_prefill").value_or(true);
  e.reserve_full_sequence = sched.opt_boolean("reserve_full_sequence").value_or(false);
  if (const auto policy = sched.opt_str("step_policy")) {
    if (*policy == "prefill_first") e.prefill_first = true;
    else if (*policy != "running_first") sched.fail("step_policy", "use running_first (vLLM V1, TensorRT-LLM) or prefill_first (vLLM V0, SGLang)");
  }
  e.cuda_graph_batch_sizes = sched.num_list("cuda_graph_batch_sizes");
  for (std::size_t i = 0; i < e.cuda_graph_batch_sizes.size(); ++i) {
    const double b = e.cuda_graph_batch_sizes[i];
    if (!(b >= 1 && b == std::floor(b)) || (i > 0 && b <= e.cuda_graph_batch_sizes[i - 1])) {
      sched.fail("cuda_graph_batch_sizes", "give whole batch sizes >= 1 in increasing order");
    }
  }
  e.batch_wait = parse_batch_wait(sched);
  sched.finish();

  Fields perf = top.sub("performance");
  e.step_overhead_s = perf.opt_nonneg("step_overhead_us").value_or(0) * 1e-6;
  e.layer_overhead_s = perf.opt_nonneg("layer_overhead_us").value_or(0) * 1e-6;
  e.request_overhead_s = perf.opt_nonneg("request_overhead_us").value_or(0) * 1e-6;
  e.host_per_seq_s = perf.opt_nonneg("host_per_seq_us").value_or(0) * 1e-6;
  e.bw_fraction = perf.fraction("bw_fraction");
  if (perf.has("gemm_fraction")) e.gemm_fraction = perf.fraction("gemm_fraction");
  if (const auto p = perf.opt_pos("roofline_norm")) {
    if (*p < 1) perf.fail("roofline_norm", "must be >= 1 (1 = no overlap of memory and compute, 2 = smooth knee; leave it out for max)");
    e.roofline_norm = *p;
  }
  e.allreduce_latency_s = perf.opt_nonneg("allreduce_latency_us").value_or(0) * 1e-6;
  e.allreduce_one_shot_max_bytes_4gpu = perf.opt_nonneg("allreduce_one_shot_max_bytes_4gpu").value_or(0);
  e.allreduce_one_shot_max_bytes_8gpu = perf.opt_nonneg("allreduce_one_shot_max_bytes_8gpu").value_or(0);
  e.allreduce_custom_max_bytes = perf.opt_nonneg("allreduce_custom_max_bytes").value_or(0);
  e.allreduce_custom_max_gpus = static_cast<int>(perf.opt_nonneg("allreduce_custom_max_gpus").value_or(0));
  if ((e.allreduce_one_shot_max_bytes_8gpu > 0 || e.allreduce_custom_max_bytes > 0) && e.allreduce_latency_s <= 0) {
    perf.fail("allreduce_custom_max_bytes", "the engine's AllReduce rule needs allreduce_latency_us (its barrier latency)");
  }
  perf.finish();
  if (auto moe = top.opt_sub("moe")) {
    const std::string kernel = moe->str("grouped_gemm");
    if (kernel != "cutlass" && kernel != "triton") {
      moe->fail("grouped_gemm", "\"cutlass\" (CUTLASS grouped kernels) or \"triton\" (Triton fused MoE), not \"" + kernel + "\"");
    }
    e.moe_cutlass_grouped = kernel == "cutlass";
    for (const std::string& name : moe->str_list("routing_kernels")) {
      if (name == "topk_softmax") e.moe_routing_kernels.push_back(MoeRoutingKernel::topk_softmax);
      else if (name == "sort") e.moe_routing_kernels.push_back(MoeRoutingKernel::sort);
      else if (name == "gemm_setup") e.moe_routing_kernels.push_back(MoeRoutingKernel::gemm_setup);
      else if (name == "gather") e.moe_routing_kernels.push_back(MoeRoutingKernel::gather);
      else if (name == "activation") e.moe_routing_kernels.push_back(MoeRoutingKernel::activation);
      else if (name == "combine") e.moe_routing_kernels.push_back(MoeRoutingKernel::combine);
      else {
        moe->fail("routing_kernels", "kernels are topk_softmax, sort, gemm_setup, gather, activation or combine, not \"" +
                                         name + "\"");
      }
    }
    e.moe_kernel_floor_s = moe->opt_nonneg("kernel_floor_us").value_or(0) * 1e-6;
    if (!e.moe_routing_kernels.empty() && e.moe_kernel_floor_s <= 0) {
      moe->fail("kernel_floor_us", "routing_kernels needs the least time of one kernel (kernel_floor_us > 0)");
    }
    moe->finish();
  }
  if (std::optional<Fields> bench = top.opt_sub("benchmark")) {
    if (const auto r = bench->opt_pos("random_range_ratio")) {
      if (*r > 1) bench->fail("random_range_ratio", "must be in (0, 1]: lengths are drawn in [floor(L * ratio), L]");
      e.benchmark_range_ratio = *r;
    }
    e.benchmark_batch_wait.wait = parse_batch_wait(*bench);
    if (e.benchmark_batch_wait.wait.on()) {
      e.benchmark_batch_wait.input_len = static_cast<long long>(bench->pos("batch_wait_input_len"));
      e.benchmark_batch_wait.output_len = static_cast<long long>(bench->pos("batch_wait_output_len"));
      e.benchmark_batch_wait.below_tp = static_cast<int>(bench->pos("batch_wait_below_tp"));
    }
    bench->finish();
  }
  return e;
}

}  // namespace gpuplan
