#include "plan/plan_json.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "plan/pp_layout.h"

namespace gpuplan {

nlohmann::ordered_json plan_json(const Plan& p) {
  nlohmann::ordered_json j;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["vp"] = p.vp;
  j["dp"] = p.dp;
  j["cp"] = p.cp;
  j["ep"] = p.ep;
  j["sp"] = p.sp;
  j["zero"] = p.zero;
  j["dp_shard"] = p.shard_group();
  j["micro_batch"] = p.micro_batch;
  j["global_batch"] = p.global_batch_seqs();
  j["seq_len"] = p.seq_len;
  j["recompute"] = recompute_name(p.recompute);
  // Only when set, so that plans without them read as before.
  if (p.recompute_modules != 0) j["recompute_modules"] = recompute_modules_name(p.recompute_modules);
  if (p.cuda_graph_scope != 0) j["cuda_graph_scope"] = cuda_graph_scope_name(p.cuda_graph_scope);
  j["precision"] = precision_name(p.precision);
  j["tp_comm_overlap"] = p.tp_comm_overlap;
  // Only when set, so that plans without it read as before.
  if (p.pp_embedding_head_slots) j["pp_embedding_head_slots"] = true;
  // Only when set, so that plans without them read as before: the layout in Megatron-Core's
  // grammar (plan/pp_layout.h), and the MTP depths.
  if (!p.pp_layout_layers.empty()) j["pp_layout"] = pp_layout_text(p);
  if (p.mtp_layers > 0) j["mtp_layers"] = p.mtp_layers;
  j["moe_overlap"] = moe_overlap_name(p.moe_overlap);
  j["moe_imbalance"] = p.moe_imbalance;
  // Only when set, so that plans without it read as before.
  if (p.moe_dispatcher != MoeDispatcher::alltoall) j["moe_dispatcher"] = moe_dispatcher_name(p.moe_dispatcher);
  // Only when set, so that plans without them read as before.
  if (p.optimizer_state_bits != 32) j["optimizer_state_bits"] = p.optimizer_state_bits;
  if (p.offload_optimizer) j["offload_optimizer"] = true;
  if (p.offload_activation_layers > 0) j["offload_activation_layers"] = p.offload_activation_layers;
  if (p.eager_elementwise) j["elementwise"] = elementwise_name(true);
  if (p.scaling != default_scaling_recipe(p.precision)) j["fp8_recipe"] = scaling_recipe_name(p.scaling);
  if (p.low_precision_act_cache) j["fp8_activation_cache"] = true;
  if (p.fp8_params) j["fp8_params"] = true;
  if (p.precision == Precision::fp4 && !p.nvfp4_rht) j["nvfp4_rht"] = false;
  // Only when a run's configuration set them (plan/comm_config.h), so other plans read as before.
  if (p.dp_bucket_params > 0) j["dp_bucket_params"] = p.dp_bucket_params;
  if (p.cp_comm_channels > 0) j["cp_comm_channels"] = p.cp_comm_channels;
  return j;
}

nlohmann::ordered_json plan_json(const Plan& p, const ModelSpec& m, std::string_view framework) {
  Plan resolved = p;
  resolved.seq_len = plan_seq_len(p, m);
  nlohmann::ordered_json j = plan_json(resolved);
  if (!framework.empty()) j["framework"] = std::string(framework);
  return j;
}

Plan plan_from_json(const nlohmann::json& j) {
  Plan p;
  p.tp = j.at("tp").get<int>();
  p.pp = j.at("pp").get<int>();
  p.vp = j.at("vp").get<int>();
  p.dp = j.at("dp").get<int>();
  p.cp = j.at("cp").get<int>();
  p.ep = j.at("ep").get<int>();
  p.sp = j.at("sp").get<bool>();
  p.zero = j.at("zero").get<int>();
  p.dp_shard = j.at("dp_shard").get<int>();
  p.micro_batch = j.at("micro_batch").get<int>();
  p.global_batch = j.at("global_batch").get<int>();
  p.seq_len = j.at("seq_len").get<int>();
  const auto recompute = parse_recompute(j.at("recompute").get<std::string>());
  const auto precision = parse_precision(j.at("precision").get<std::string>());
  if (!recompute || !precision) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
  p.recompute = *recompute;
  if (j.contains("recompute_modules")) {
    const std::string names = j.at("recompute_modules").get<std::string>();
    std::size_t start = 0;
    while (start <= names.size()) {
      const std::size_t end = std::min(names.find(',', start), names.size());
      const auto bit = parse_recompute_module(std::string_view(names).substr(start, end - start));
      if (!bit) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
      p.recompute_modules |= *bit;
      start = end + 1;
    }
  }
  if (j.contains("cuda_graph_scope")) {
    const std::string names = j.at("cuda_graph_scope").get<std::string>();
    std::size_t start = 0;
    while (start <= names.size()) {
      const std::size_t end = std::min(names.find(',', start), names.size());
      const auto bit = parse_cuda_graph_scope(std::string_view(names).substr(start, end - start));
      if (!bit) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
      p.cuda_graph_scope |= *bit;
      start = end + 1;
    }
  }
  p.precision = *precision;
  p.tp_comm_overlap = j.at("tp_comm_overlap").get<bool>();
  p.pp_embedding_head_slots = j.value("pp_embedding_head_slots", false);
  p.mtp_layers = j.value("mtp_layers", 0);
  if (p.mtp_layers < 0) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
  if (j.contains("pp_layout")) {
    PpLayout layout;
    std::string error;
    // The model's layer count is not in the plan: the evaluator checks the layout's sum.
    const auto placed = [&] {
      std::int64_t n = 0;
      for (int c : layout.layers) n += c;
      return n;
    };
    if (!parse_pp_layout(j.at("pp_layout").get<std::string>(), layout, error) ||
        !(error = check_pp_layout(layout, p.pp, p.vp, placed(), p.mtp_layers)).empty()) {
      throw Error(fmt::format("sweep result: bad plan {} (pp_layout: {})", j.dump(), error));
    }
    apply_pp_layout(layout, p);
  }
  // Absent in results written before MoE overlap was a plan field: the defaults.
  if (j.contains("moe_overlap")) {
    const auto overlap = parse_moe_overlap(j.at("moe_overlap").get<std::string>());
    if (!overlap) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
    p.moe_overlap = *overlap;
  }
  if (j.contains("moe_imbalance")) p.moe_imbalance = j.at("moe_imbalance").get<double>();
  if (j.contains("moe_dispatcher")) {
    const auto dispatcher = parse_moe_dispatcher(j.at("moe_dispatcher").get<std::string>());
    if (!dispatcher) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
    p.moe_dispatcher = *dispatcher;
  }
  p.optimizer_state_bits = j.value("optimizer_state_bits", 32);
  if (p.optimizer_state_bits != 32 && p.optimizer_state_bits != 16 && p.optimizer_state_bits != 8) {
    throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
  }
  p.offload_optimizer = j.value("offload_optimizer", false);
  p.offload_activation_layers = j.value("offload_activation_layers", 0);
  if (j.contains("elementwise")) {
    const auto eager = parse_elementwise(j.at("elementwise").get<std::string>());
    if (!eager) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
    p.eager_elementwise = *eager;
  }
  p.scaling = default_scaling_recipe(p.precision);
  if (j.contains("fp8_recipe")) {
    const auto recipe = parse_scaling_recipe(j.at("fp8_recipe").get<std::string>());
    if (!recipe || !scaling_recipe_fits(*recipe, p.precision)) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
    p.scaling = *recipe;
  }
  p.low_precision_act_cache = j.value("fp8_activation_cache", false);
  p.fp8_params = j.value("fp8_params", false);
  p.nvfp4_rht = j.value("nvfp4_rht", true);
  if (p.fp8_params && p.precision != Precision::fp8) throw Error(fmt::format("sweep result: bad plan {}", j.dump()));
  p.dp_bucket_params = j.value("dp_bucket_params", 0.0);
  p.cp_comm_channels = j.value("cp_comm_channels", 0);
  if (!(p.dp_bucket_params >= 0) || p.cp_comm_channels < 0) {
    throw Error(fmt::format("sweep result: bad plan {} (dp_bucket_params and cp_comm_channels: 0 or more)", j.dump()));
  }
  return p;
}

}  // namespace gpuplan
