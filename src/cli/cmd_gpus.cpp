// gpuplan gpus | gpu NAME | compare A B [C...] [--model M --gpus N ...]: flags → one library call
// (catalog/lookup_request.h, calibration/gpu_request.h, search/compare_training.h) → one writer
// (report/gpu_report.h, report/compare_report.h).
#include <nlohmann/json.hpp>

#include "calibration/gpu_fields.h"
#include "catalog/lookup_fields.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/field_flags.h"
#include "cli/output_flags.h"
#include "core/error.h"
#include "report/compare_report.h"
#include "report/gpu_report.h"
#include "search/compare_training.h"

namespace gpuplan {

void setup_gpus(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    GpusRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, gpus_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const GpusAnswer answer = answer_gpus(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

void setup_gpu(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    GpuRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  add_field_flags(cmd, o->request, gpu_fields(), "name");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const GpuAnswer answer = answer_gpu(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

void setup_compare(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    CompareTrainingRequest request;
    std::vector<std::string> positional;  // compare A B: the GPUs as positionals (or --names A,B, the table's)
    bool json = false;
    OutputFlags output;  // --html, --report-data: the difference in words, the ratios charted
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("names", o->positional, "Two or more GPU ids; ratios are to the first");
  add_field_flags(cmd, o->request, compare_fields());
  cmd.add_flag("--json", o->json, "Print one JSON object");
  add_output_flags(cmd, o->output);
  cmd.callback([o, &ctx] {
    CompareTrainingRequest r = o->request;
    if (!o->positional.empty()) {
      if (!r.names.empty()) throw Error("compare: give the GPUs as positionals or as --names A,B, not both");
      r.names = o->positional;
    }
    OutputFlags flags = o->output;
    flags.json = o->json;
    present(ctx, answer_compare_training(ctx.catalog(), r), flags);
  });
}

}  // namespace gpuplan
