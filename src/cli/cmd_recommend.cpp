// gpuplan recommend --model M --tokens T [--deadline DAYS | --budget USD] [--gpus-max N]
// [--gpus-list 8,16,...] [--providers aws,lambda,...]: the Pareto front of time-to-train vs
// cost over catalog GPUs, GPU counts and current on-demand cloud offers.
// gpuplan recommend --serve --model M --input-len L --output-len O [--rate R] [--ttft-ms X]
// [--tpot-ms Y] [--engine E] [--gpus-max N] [--providers ...]: the same for a serving target.
// Flags (econ/recommend_question.h's table) → econ/recommend_request.h or
// econ/serve_recommend_request.h → report/recommend_report.h.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "cli/output_flags.h"
#include "cli/progress_printer.h"
#include "core/error.h"
#include "econ/recommend_question.h"
#include "report/recommend_report.h"

namespace gpuplan {
namespace {

struct RecommendFlags {
  RecommendQuestion question;
  bool json = false;
  OutputFlags output;  // --html, --report-data (training only)
};

void run_serve(CliContext& ctx, const RecommendFlags& f) {
  ServeRecommendRequest request = recommend_serving_request(f.question);
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& model = ctx.resolve_model(request.model, owned);  // a config.json path too
  ProgressPrinter shown(ctx.err, "recommend", "GPUs");
  request.progress = shown.sink();
  const ServeRecommendAnswer a = answer_serve_recommend(ctx.catalog(), model, request);
  request.progress = nullptr;
  shown.finish();
  ctx.print(a, f.json);
}

void run_train(CliContext& ctx, const RecommendFlags& f) {
  RecommendRequest request = recommend_training_request(f.question);
  OutputFlags output = f.output;
  output.json = f.json;
  ProgressPrinter shown(ctx.err, "recommend", "searches");
  request.progress = shown.sink();
  const RecommendAnswer a = answer_recommend(ctx.catalog(), request);
  request.progress = nullptr;
  shown.finish();
  present(ctx, a, output);
}

}  // namespace

void setup_recommend(CliCommand& cmd, CliContext& ctx) {
  auto f = std::make_shared<RecommendFlags>();
  add_field_flags(cmd, f->question, recommend_fields());
  cmd.add_flag("--json", f->json, "Print one JSON object");
  add_output_flags(cmd, f->output);
  CliCommand* app = &cmd;
  cmd.callback([f, app, &ctx] {
    if (!f->question.serving) {
      run_train(ctx, *f);
      return;
    }
    for (const char* flag : {"--html", "--report-data"}) {
      if (app->count(flag) > 0) throw Error(fmt::format("{} is for training; drop it with --serve", flag));
    }
    run_serve(ctx, *f);
  });
}

}  // namespace gpuplan
