// gpuplan gpus | gpu NAME | compare A B [C...] [--model M --gpus N ...]: flags → one library call
// (catalog/lookup_request.h, calibration/gpu_request.h, search/compare_training.h) → one writer
// (report/gpu_report.h, report/compare_report.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
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
    CompareTrainingRequest request;
    std::string names_list;  // --names A,B: the positionals as one value (the web API's key)
    bool json = false;
    OutputFlags output;  // --html, --report-data: the difference in words, the ratios charted
  };
  auto o = std::make_shared<Opts>();
  SearchRequest& s = o->request.search;
  cmd.add_option("names", o->request.names, "Two or more GPU ids; ratios are to the first");
  cmd.add_option("--names", o->names_list, "The GPUs as one comma-separated list (instead of the positionals)");
  cmd.add_option("--model", s.model,
                 "Compare training this model (zoo id or config.json): each GPU's fastest plan, step time and cost "
                 "per million tokens");
  cmd.add_option("--gpus", s.gpus, "GPUs of the training question (with --model)");
  cmd.add_option("--global-batch", s.global_batch, "Sequences per step (with --model)");
  cmd.add_option("--seq-len", s.seq_len, "Sequence length (with --model; default: the model's context)");
  cmd.add_option("--precision", s.precision, "bf16 or fp8 (with --model)");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  add_output_flags(cmd, o->output);
  cmd.callback([o, &ctx] {
    CompareTrainingRequest r = o->request;
    if (!o->names_list.empty()) {
      if (!r.names.empty()) throw Error("compare: give the GPUs as positionals or as --names A,B, not both");
      std::string_view rest = o->names_list;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        if (comma != 0) r.names.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    }
    r.training = !r.search.model.empty();
    if (!r.training && (r.search.gpus > 0 || r.search.global_batch > 0 || r.search.seq_len)) {
      throw Error("compare: --gpus, --global-batch and --seq-len ask a training question; add --model M");
    }
    OutputFlags flags = o->output;
    flags.json = o->json;
    present(ctx, answer_compare_training(ctx.catalog(), r), flags);
  });
}

}  // namespace gpuplan
