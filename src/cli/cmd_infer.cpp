// gpuplan infer / infer-search: flags → InferRequest / InferSearchRequest → answer_infer /
// answer_infer_search (infer/infer_request.h) → to_json / to_text (report/infer_report.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "cli/progress_printer.h"
#include "cli/field_flags.h"
#include "emit/launch_config.h"
#include "infer/infer_fields.h"
#include "infer/infer_request.h"
#include "report/infer_report.h"

namespace gpuplan {

// gpuplan infer --model M --gpu G [--gpus N --tp --pp --ep --attention-dp] [--weights --kv] --input-len
// --output-len [--batch B | --concurrency C | --max-throughput] [--engine E] [--json]
void setup_infer(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    InferRequest request;
    bool json = false;
    OutputFlags output;  // --html, --report-data: with the plan's throughput–latency curve
    std::string emit;
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, infer_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.add_option("--emit", o->emit, "Print the server launch config of this plan instead: vllm, sglang or trtllm (docs/emit.md)");
  add_output_flags(cmd, o->output);
  cmd.callback([o, &ctx] {
    const InferRequest& r = o->request;
    const InferAnswer a = answer_infer(ctx.catalog(), r);
    if (!o->emit.empty()) {
      ctx.print(emit_infer(a, o->emit), o->json);
      return;
    }
    if (o->output.html.empty() && !o->output.report_data) {
      ctx.print(a, o->json);
      return;
    }
    o->output.json = o->json;
    present(ctx, InferReport{a, infer_curve(ctx.catalog(), r)}, o->output);
  });
}

// gpuplan infer-search --model M --gpu G [--gpus-max N] --input-len L --output-len O
// [--ttft-ms X --tpot-ms Y] [--rate R] [--objective throughput|cost] [--json]
void setup_infer_search(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    InferSearchRequest request;
    bool json = false;
    OutputFlags output;  // --html, --report-data: the best plan's curve with the targets
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, infer_search_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  add_output_flags(cmd, o->output);
  CliCommand* app = &cmd;
  cmd.callback([o, app, &ctx] {
    InferSearchRequest& r = o->request;
    r.weights_given = app->count("--weights") > 0;
    ProgressPrinter shown(ctx.err, "infer-search", "plans");
    r.progress = shown.sink();
    const InferSearchAnswer a = answer_infer_search(ctx.catalog(), r);
    r.progress = nullptr;
    shown.finish();
    if (o->output.html.empty() && !o->output.report_data) {
      ctx.print(a, o->json);
      return;
    }
    o->output.json = o->json;
    std::vector<InferCurvePoint> curve;
    if (a.result.found) curve = infer_curve(ctx.catalog(), infer_request_for(r, a.result.plan));
    present(ctx, InferSearchReport{a, std::move(curve)}, o->output);
  });
}

}  // namespace gpuplan
