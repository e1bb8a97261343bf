#include "report/rooflines_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"

namespace gpuplan {

nlohmann::ordered_json to_json(const RooflinesAnswer& a) {
  const RooflineInputs& in = a.inputs;
  nlohmann::ordered_json j;
  j["gpu"] = a.gpu->id;
  j["system"] = a.system->id;
  j["fabric"] = a.fabric ? a.fabric->id : "";
  j["flops_per_s"] = in.flops_per_s;
  j["ffn"] = in.ffn;
  j["experts"] = in.experts;
  j["top_k"] = in.top_k;
  j["ep"] = in.ep;
  j["levels"] = nlohmann::ordered_json::array();
  for (const LevelRoofline& r : a.levels) {
    nlohmann::ordered_json l;
    l["name"] = r.name;
    l["gpus"] = r.gpus;
    l["bw_per_gpu_uni_bytes_per_s"] = r.bw_per_gpu_uni_bytes_per_s;
    l["in_network_reduction"] = r.in_network_reduction;
    l["allreduce_bw_bytes_per_s"] = r.allreduce_bw_bytes_per_s;
    l["dp_min_tokens_per_gpu"] = r.dp_tokens_per_gpu;
    l["fsdp_min_tokens_per_gpu"] = r.fsdp_tokens_per_gpu;
    l["moe_allreduce_bw_bytes_per_s"] = r.moe_allreduce_bw_bytes_per_s;
    l["moe_min_tokens_per_gpu"] = r.moe_tokens_per_gpu;
    l["tp_max"] = r.tp_max > 0 ? nlohmann::ordered_json(r.tp_max) : nullptr;
    j["levels"].push_back(l);
  }
  return j;
}

std::string to_text(const RooflinesAnswer& a) {
  const RooflineInputs& in = a.inputs;
  std::string out = fmt::format("Scaling rooflines (seed 004): {} at C = {:.1f} TFLOP/s {} on {}{}\n", a.gpu->id,
                                in.flops_per_s / 1e12, precision_name(a.precision), a.system->id,
                                a.fabric ? " / " + a.fabric->id : "");
  TextTable t({"level", "GPUs", "GB/s per GPU", "AllReduce GB/s", "DP tokens/GPU", "FSDP tokens/GPU",
               fmt::format("MoE tokens/GPU (E {:.0f}, k {:.0f}, EP {})", in.experts, in.top_k, in.ep),
               fmt::format("max TP (F {:.0f})", in.ffn)});
  for (const LevelRoofline& r : a.levels) {
    t.add_row({r.name + (r.in_network_reduction ? " (in-network reduction)" : ""), fmt_number(r.gpus),
               fmt_number(r.bw_per_gpu_uni_bytes_per_s / 1e9), fmt_number(r.allreduce_bw_bytes_per_s / 1e9),
               fmt_number(r.dp_tokens_per_gpu), fmt_number(r.fsdp_tokens_per_gpu), fmt_number(r.moe_tokens_per_gpu),
               r.tp_max > 0 ? fmt_number(r.tp_max, 1) : "-"});
  }
  out += t.render();
  out += "DP/FSDP/MoE: the smallest per-GPU batch (tokens) for which compute outlasts the gradient\n"
         "reduction at that level; max TP: the TP degree at which TP communication matches compute.\n";
  return out;
}

}  // namespace gpuplan
