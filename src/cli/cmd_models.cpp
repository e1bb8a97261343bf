// gpuplan models | model NAME|config.json: flags → one library call (catalog/lookup_request.h)
// → one writer (report/model_report.h).
#include <cstdint>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "report/model_report.h"

namespace gpuplan {

void setup_models(CliCommand& cmd, CliContext& ctx) {
  auto json_out = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json_out, "Print one JSON object");
  cmd.callback([json_out, &ctx] {
    const ModelsAnswer answer = answer_models(ctx.catalog());
    ctx.print(answer, *json_out);
  });
}

void setup_model(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    ModelRequest request;
    std::int64_t seq_len = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd.add_option("name", o->request.name, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  CliOption* seq_opt =
      cmd.add_option("--seq-len", o->seq_len,
                     "Sequence length for FLOPs and the KV cache (default 4096, or the model's context if shorter)");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, seq_opt, &ctx] {
    if (seq_opt->count() > 0) o->request.seq_len = o->seq_len;
    // TODO(issue 12): catalog-level resolve_model (helper A) once it lands; then answer_model
    // takes the catalog and resolves the name itself.
    std::shared_ptr<ModelSpec> loaded;
    const ModelAnswer answer = answer_model(ctx.resolve_model(o->request.name, loaded), o->request);
    ctx.print(answer, o->json);
  });
}

}  // namespace gpuplan
