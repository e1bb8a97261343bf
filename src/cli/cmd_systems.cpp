// gpuplan systems | system NAME | clouds: flags (catalog/lookup_fields.h) → one library call (catalog/lookup_request.h)
// → one writer (report/system_report.h).
#include <nlohmann/json.hpp>

#include "catalog/lookup_fields.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "report/system_report.h"

namespace gpuplan {

void setup_systems(CliCommand& cmd, CliContext& ctx) {
  auto json_out = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json_out, "Print one JSON object");
  cmd.callback([json_out, &ctx] {
    const SystemsAnswer answer = answer_systems(ctx.catalog());
    ctx.print(answer, *json_out);
  });
}

void setup_system(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    SystemRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, system_fields(), "name");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const SystemAnswer answer = answer_system(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

void setup_clouds(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    CloudsRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, clouds_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const CloudsAnswer answer = answer_clouds(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
