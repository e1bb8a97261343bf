// gpuplan gpus | gpu NAME | compare A B [C...]: flags → one library call
// (catalog/lookup_request.h, calibration/gpu_request.h) → one writer (report/gpu_report.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "report/gpu_report.h"

namespace gpuplan {

void setup_gpus(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    GpusRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("--vendor", o->request.vendor, "Only this vendor (NVIDIA, AMD, Intel, Google, AWS)");
  cmd.add_flag("--gpus-only", o->request.gpus_only, "Leave out the non-GPU comparison rows (TPU, Gaudi, Trainium)");
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
  cmd.add_option("name", o->request.name, "GPU id or alias (see 'gpuplan gpus')")->required();
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.add_option("--calibration", o->request.calibration, "Profile from gpuplan-bench: show datasheet vs measured");
  cmd.callback([o, &ctx] {
    const GpuAnswer answer = answer_gpu(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

void setup_compare(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    CompareRequest request;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("names", o->request.names, "Two or more GPU ids; ratios are to the first")->required();
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const CompareAnswer answer = answer_compare(ctx.catalog(), o->request);
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
