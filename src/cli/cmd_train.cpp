// gpuplan train ... | gpuplan memory ... [--rule-of-thumb]: flags → TrainRequest →
// answer_train / answer_memory (plan/train_request.h) → report/train_report.h.
#include <nlohmann/json.hpp>

#include "catalog/resolve_model.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "cli/train_flags.h"
#include "core/error.h"
#include "emit/launch_config.h"
#include "emit/megatron_import.h"
#include "core/input_file.h"
#include "emit/nemo_import.h"
#include "emit/torchtitan_import.h"
#include "report/train_report.h"

namespace gpuplan {

void setup_train(CliCommand& cmd, CliContext& ctx) {
  auto flags = std::make_shared<TrainFlags>();
  auto output = std::make_shared<OutputFlags>();
  auto emit = std::make_shared<std::string>();
  auto from = std::make_shared<std::string>();
  add_train_flags(cmd, *flags);
  add_output_flags(cmd, *output);
  cmd.add_option("--from", *from,
                 "Evaluate the plan of a Megatron-LM argument list (pretrain_gpt.py flags), a NeMo launch script "
                 "(Hydra overrides model.*=, trainer.*=) or a torchtitan job TOML (*.toml); its values replace the "
                 "same flags here");
  cmd.add_option("--emit", *emit,
                 "Print the launch config of this plan instead: megatron, torchtitan or nemo (docs/emit.md)");
  cmd.callback([flags, output, emit, from, &ctx] {
    if (!from->empty()) {
      std::shared_ptr<ModelSpec> owned;
      const ModelSpec& model = resolve_model(ctx.catalog(), flags->request.model, owned);
      if (from->size() > 5 && from->compare(from->size() - 5, 5, ".toml") == 0) {
        read_torchtitan_toml_file(*from, static_cast<int>(model.layers), flags->request);
      } else if (const std::string text = read_input_file(*from, "--from"); looks_like_nemo_overrides(text)) {
        read_nemo_overrides(text, *from, flags->request);
      } else {
        read_megatron_args(text, *from, flags->request);
        check_megatron_shape(megatron_shape(text, *from), model, *from);
      }
    }
    const TrainAnswer a = answer_train(ctx.catalog(), flags->request);
    if (!emit->empty()) {
      ctx.print(emit_train(a, *emit), flags->json);
      return;
    }
    output->json = flags->json;
    present(ctx, a, *output);
  });
}

void setup_memory(CliCommand& cmd, CliContext& ctx) {
  auto flags = std::make_shared<TrainFlags>();
  auto thumb = std::make_shared<bool>(false);
  add_train_flags(cmd, *flags);
  cmd.get_option("--model")->required(false);
  cmd.add_flag("--rule-of-thumb", *thumb,
               "Show the seed documents' rule-of-thumb table (8 bytes/param) and why the full accounting differs");
  cmd.callback([flags, thumb, &ctx] {
    if (*thumb && flags->json && !flags->request.model.empty()) {
      // Both answers as one JSON object (issue 34: never two objects on stdout under --json).
      const RuleOfThumbAnswer t = answer_rule_of_thumb(ctx.catalog(), flags->request.gpu);
      const MemoryAnswer m = answer_memory(ctx.catalog(), flags->request);
      nlohmann::ordered_json both;
      both["rule_of_thumb"] = to_json(t);
      both["memory"] = to_json(m);
      ctx.print_json(both);
      return;
    }
    if (*thumb) {
      const RuleOfThumbAnswer a = answer_rule_of_thumb(ctx.catalog(), flags->request.gpu);
      ctx.print(a, flags->json);
      if (flags->request.model.empty()) return;
    }
    if (flags->request.model.empty()) throw Error("--model is required (or --rule-of-thumb alone)");
    const MemoryAnswer a = answer_memory(ctx.catalog(), flags->request);
    ctx.print(a, flags->json);
  });
}

}  // namespace gpuplan
