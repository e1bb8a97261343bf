// gpuplan train ... | gpuplan memory ... [--rule-of-thumb]
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/train_flags.h"
#include "core/error.h"
#include "report/train_report.h"

namespace gpuplan {

void setup_train(CliCommand& cmd, CliContext& ctx) {
  auto flags = std::make_shared<TrainFlags>();
  add_train_flags(cmd, *flags);
  cmd.callback([flags, &ctx] {
    const TrainSetup s = make_train_setup(ctx, *flags);
    const Estimate e = evaluate(s.ctx, s.plan);
    if (flags->json) {
      auto j = train_json(s.ctx, s.plan, e);
      add_calibration_json(j, flags->calibration, s.calibration_notes);
      ctx.print_json(j);
    } else {
      ctx.out << train_text(s.ctx, s.plan, e);
      ctx.out << calibration_text(s.calibration_notes);
    }
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
    if (*thumb) {
      const Gpu& gpu = ctx.catalog().gpu(flags->gpu.empty() ? "h100-sxm" : flags->gpu);
      if (flags->json) ctx.print_json(rule_of_thumb_json(gpu, StateBytes{}));
      else ctx.out << rule_of_thumb_text(gpu, StateBytes{});
      if (flags->model.empty()) return;
    }
    if (flags->model.empty()) throw Error("--model is required (or --rule-of-thumb alone)");
    const TrainSetup s = make_train_setup(ctx, *flags);
    const Estimate e = evaluate(s.ctx, s.plan);
    if (flags->json) ctx.print_json(memory_json(s.ctx, s.plan, e));
    else ctx.out << memory_text(s.ctx, s.plan, e);
  });
}

}  // namespace gpuplan
