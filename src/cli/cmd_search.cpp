// gpuplan search --model M --gpu G --gpus N --global-batch B --seq-len S [--objective ...]:
// flags → SearchRequest → answer_search (search/search_request.h) → report/search_report.h.
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "cli/progress_printer.h"
#include "cli/field_flags.h"
#include "report/search_report.h"
#include "search/search_fields.h"

namespace gpuplan {

void setup_search(CliCommand& cmd, CliContext& ctx) {
  struct Flags {
    SearchRequest request;
    OutputFlags output;
  };
  auto f = std::make_shared<Flags>();
  add_field_flags(cmd, f->request, search_fields());
  cmd.add_flag("--json", f->output.json, "Print one JSON object");
  add_output_flags(cmd, f->output);
  cmd.callback([f, &ctx] {
    // Not assigned after the call: an answer's context points into the answer itself.
    ProgressPrinter shown(ctx.err, "search", "layouts");
    f->request.progress = shown.sink();
    const SearchAnswer a = answer_search(ctx.catalog(), f->request);
    f->request.progress = nullptr;
    shown.finish();
    present(ctx, a, f->output);
  });
}

}  // namespace gpuplan
