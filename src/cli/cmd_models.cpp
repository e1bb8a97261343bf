// gpuplan models | model NAME|config.json

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "report/model_report.h"

namespace gpuplan {
void setup_models(CliCommand& cmd, CliContext& ctx) {
  auto json_out = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json_out, "Print one JSON object");
  cmd.callback([json_out, &ctx] {
    std::vector<const ModelSpec*> models;
    for (const ModelSpec& m : ctx.catalog().models) models.push_back(&m);
    if (*json_out) {
      nlohmann::ordered_json j;
      j["count"] = models.size();
      j["models"] = nlohmann::ordered_json::array();
      for (const ModelSpec* m : models) j["models"].push_back(model_json(*m, default_seq_len(*m)));
      ctx.print_json(j);
    } else {
      ctx.out << models_table_text(models);
    }
  });
}

void setup_model(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    std::string name;
    std::int64_t seq_len = 0;
    bool json = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd.add_option("name", opts->name, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  CliOption* seq_opt =
      cmd.add_option("--seq-len", opts->seq_len,
                     "Sequence length for FLOPs and the KV cache (default 4096, or the model's context if shorter)");
  cmd.add_flag("--json", opts->json, "Print one JSON object");
  cmd.callback([opts, seq_opt, &ctx] {
    constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 31;
    const bool seq_given = seq_opt->count() > 0;
    if (seq_given && (opts->seq_len < 1 || opts->seq_len > kMaxSeqLen)) {
      throw Error(fmt::format("--seq-len must be between 1 and {} tokens, got {}", kMaxSeqLen, opts->seq_len));
    }
    std::shared_ptr<ModelSpec> loaded;
    const ModelSpec* model = &ctx.resolve_model(opts->name, loaded);
    const std::int64_t seq_len = seq_given ? opts->seq_len : default_seq_len(*model);
    if (opts->json)
      ctx.print_json(model_json(*model, seq_len));
    else
      ctx.out << model_detail_text(*model, seq_len);
  });
}

}  // namespace gpuplan
