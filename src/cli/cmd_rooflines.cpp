// gpuplan rooflines --gpu G [--system S] [--fabric F] [--ffn F] [--experts E --topk k --ep Y]:
// flags (cost/rooflines_fields.h) → RooflinesRequest → answer_rooflines (cost/rooflines_request.h) → report/rooflines_report.h.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "cost/rooflines_fields.h"
#include "report/rooflines_report.h"

namespace gpuplan {

void setup_rooflines(CliCommand& cmd, CliContext& ctx) {
  struct Flags {
    RooflinesRequest request;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  add_field_flags(cmd, f->request, rooflines_fields());
  cmd.add_flag("--json", f->json, "Print one JSON object");
  cmd.callback([f, &ctx] {
    const RooflinesAnswer a = answer_rooflines(ctx.catalog(), f->request);
    ctx.print(a, f->json);
  });
}

}  // namespace gpuplan
