// gpuplan rooflines --gpu G [--system S] [--fabric F] [--ffn F] [--experts E --topk k --ep Y]
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "cost/rooflines.h"
#include "catalog/system_choice.h"
#include "core/table.h"

namespace gpuplan {

void setup_rooflines(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string gpu;
    std::string system;
    std::string fabric;
    std::string precision = "bf16";
    RooflineInputs in;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("--gpu", o->gpu, "GPU whose peak sets C (default: the system's); may differ from the system's GPU "
                                  "for what-ifs (H100 compute on NVL72 bandwidth)");
  cmd.add_option("--system", o->system, "Node or rack (default: the fabric's, or the catalog's for the GPU)");
  cmd.add_option("--fabric", o->fabric, "Fabric above the nodes (e.g. dgx-superpod-h100)");
  cmd.add_option("--precision", o->precision, "Precision of the peak C")->capture_default_str();
  cmd.add_option("--ffn", o->in.ffn, "MLP width F for the TP bound")->capture_default_str();
  cmd.add_option("--experts", o->in.experts, "Routed experts E (MoE bound)")->capture_default_str();
  cmd.add_option("--topk", o->in.top_k, "Experts per token k")->capture_default_str();
  cmd.add_option("--ep", o->in.ep, "Expert-parallel degree Y")->capture_default_str();
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const Catalog& catalog = ctx.catalog();
    const Fabric* fabric = o->fabric.empty() ? nullptr : &catalog.fabric(o->fabric);
    const System* system = !o->system.empty() ? &catalog.system(o->system)
                           : fabric           ? &catalog.system(fabric->system)
                                              : nullptr;
    const Gpu* gpu = o->gpu.empty() ? nullptr : &catalog.gpu(o->gpu);
    if (!system) {
      if (!gpu) throw Error("name a GPU (--gpu h100-sxm), a system (--system dgx-h100) or a fabric");
      system = default_system_for(catalog, *gpu);
      if (!system) throw Error(fmt::format("no system in the catalog uses {}; pass --system", gpu->id));
    }
    if (!gpu) gpu = &catalog.gpu(system->gpu);
    if (fabric && catalog.find_system(fabric->system) != system) {
      throw Error(fmt::format("fabric '{}' is built from {}, not {}", fabric->id, fabric->system, system->id));
    }
    const auto precision = parse_precision(o->precision);
    if (!precision || gpu->dense(*precision) <= 0) {
      throw Error(fmt::format("--precision '{}': {} has no dense peak for it", o->precision, gpu->id));
    }
    RooflineInputs in = o->in;
    in.flops_per_s = gpu->dense(*precision);
    const Switch* sw = system->nvswitch.empty() ? nullptr : catalog.find_switch(system->nvswitch);
    const auto levels = bandwidth_levels(*system, sw, fabric);
    const auto rows = scaling_rooflines(levels, system->in_network_reduction, fabric && fabric->in_network_reduction, in);
    if (o->json) {
      nlohmann::ordered_json j;
      j["gpu"] = gpu->id;
      j["system"] = system->id;
      j["fabric"] = fabric ? fabric->id : "";
      j["flops_per_s"] = in.flops_per_s;
      j["ffn"] = in.ffn;
      j["experts"] = in.experts;
      j["top_k"] = in.top_k;
      j["ep"] = in.ep;
      j["levels"] = nlohmann::ordered_json::array();
      for (const auto& r : rows) {
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
      ctx.print_json(j);
      return;
    }
    ctx.out << fmt::format("Scaling rooflines (seed 004): {} at C = {:.1f} TFLOP/s {} on {}{}\n", gpu->id,
                           in.flops_per_s / 1e12, precision_name(*precision), system->id,
                           fabric ? " / " + fabric->id : "");
    TextTable t({"level", "GPUs", "GB/s per GPU", "AllReduce GB/s", "DP tokens/GPU", "FSDP tokens/GPU",
                 fmt::format("MoE tokens/GPU (E {:.0f}, k {:.0f}, EP {})", in.experts, in.top_k, in.ep),
                 fmt::format("max TP (F {:.0f})", in.ffn)});
    for (const auto& r : rows) {
      t.add_row({r.name + (r.in_network_reduction ? " (in-network reduction)" : ""), fmt_number(r.gpus),
                 fmt_number(r.bw_per_gpu_uni_bytes_per_s / 1e9), fmt_number(r.allreduce_bw_bytes_per_s / 1e9),
                 fmt_number(r.dp_tokens_per_gpu), fmt_number(r.fsdp_tokens_per_gpu), fmt_number(r.moe_tokens_per_gpu),
                 r.tp_max > 0 ? fmt_number(r.tp_max, 1) : "-"});
    }
    ctx.out << t.render();
    ctx.out << "DP/FSDP/MoE: the smallest per-GPU batch (tokens) for which compute outlasts the gradient\n"
               "reduction at that level; max TP: the TP degree at which TP communication matches compute.\n";
  });
}

}  // namespace gpuplan
