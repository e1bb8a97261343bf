// gpuplan collective --op OP --bytes SIZE --gpus N --system NAME [--nodes M] [--fabric F] ...
// flags → CollectiveCommandRequest → answer_collective (calibration/collective_question.h) →
// to_json / to_text (report/collective_report.h).
#include <nlohmann/json.hpp>

#include "calibration/collective_fields.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "cli/output_flags.h"
#include "report/collective_page.h"
#include "report/collective_report.h"

namespace gpuplan {

void setup_collective(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    CollectiveCommandRequest request;
    bool json = false;
    OutputFlags output;  // --html, --report-data: the answer in words and, for --sweep, the curve
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, collective_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  add_output_flags(cmd, o->output);
  cmd.callback([o, &ctx] {
    const CollectiveAnswer a = answer_collective(ctx.catalog(), o->request);
    OutputFlags flags = o->output;
    flags.json = o->json;
    present(ctx, a, flags);
  });
}

}  // namespace gpuplan
