// gpuplan rooflines --gpu G [--system S] [--fabric F] [--ffn F] [--experts E --topk k --ep Y]:
// flags → RooflinesRequest → answer_rooflines (cost/rooflines_request.h) → report/rooflines_report.h.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "report/rooflines_report.h"

namespace gpuplan {

void setup_rooflines(CliCommand& cmd, CliContext& ctx) {
  struct Flags {
    RooflinesRequest request;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  RooflinesRequest& r = f->request;
  cmd.add_option("--gpu", r.gpu, "GPU whose peak sets C (default: the system's); may differ from the system's GPU "
                                 "for what-ifs (H100 compute on NVL72 bandwidth)");
  cmd.add_option("--system", r.system, "Node or rack (default: the fabric's, or the catalog's for the GPU)");
  cmd.add_option("--fabric", r.fabric, "Fabric above the nodes (e.g. dgx-superpod-h100)");
  cmd.add_option("--precision", r.precision, "Precision of the peak C")->capture_default_str();
  cmd.add_option("--ffn", r.ffn, "MLP width F for the TP bound")->capture_default_str();
  cmd.add_option("--experts", r.experts, "Routed experts E (MoE bound)")->capture_default_str();
  cmd.add_option("--topk", r.topk, "Experts per token k")->capture_default_str();
  cmd.add_option("--ep", r.ep, "Expert-parallel degree Y")->capture_default_str();
  cmd.add_flag("--json", f->json, "Print one JSON object");
  cmd.callback([f, &ctx] {
    const RooflinesAnswer a = answer_rooflines(ctx.catalog(), f->request);
    ctx.print(a, f->json);
  });
}

}  // namespace gpuplan
