// gpuplan infer --model M --gpu G [--gpus N --tp --pp --ep] [--weights --kv] --input-len
// --output-len [--batch B | --concurrency C | --max-throughput] [--engine E] [--json]
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/infer_flags.h"
#include "core/error.h"
#include "infer/evaluate.h"
#include "infer/search.h"
#include "report/infer_report.h"

namespace gpuplan {

void setup_infer(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    InferFlags flags;
    int gpus = 0;
    int tp = 0;
    int pp = 1;
    int ep = 1;
    double batch = 0;
    double concurrency = 0;
    bool max_throughput = false;
  };
  auto o = std::make_shared<Opts>();
  add_infer_flags(cmd, o->flags);
  cmd.add_option("--gpus", o->gpus, "GPUs in all (default tp × pp); a multiple of tp × pp adds replicas");
  cmd.add_option("--tp", o->tp, "Tensor-parallel degree (default: --gpus / pp, else 1)");
  cmd.add_option("--pp", o->pp, "Pipeline-parallel degree (default 1)");
  cmd.add_option("--ep", o->ep, "Expert-parallel degree inside the TP group (MoE; default 1)");
  auto* batch = cmd.add_option("--batch", o->batch, "Static batch: B requests started together (default 1)");
  auto* conc = cmd.add_option("--concurrency", o->concurrency,
                              "Closed loop with C requests in flight under continuous batching");
  auto* maxt = cmd.add_flag("--max-throughput", o->max_throughput,
                            "Offline serving: the running batch that maximises output tokens/s within memory");
  batch->excludes(conc)->excludes(maxt);
  conc->excludes(maxt);
  cmd.callback([o, &ctx] {
    const InferSetup s = make_infer_setup(ctx, o->flags);
    InferPlan plan;
    plan.pp = o->pp;
    plan.ep = o->ep;
    if (o->pp < 1 || o->ep < 1) throw Error("--pp and --ep must be at least 1");
    plan.tp = o->tp > 0 ? o->tp : (o->gpus > 0 ? std::max(1, o->gpus / o->pp) : 1);
    if (o->gpus > 0) {
      if (o->gpus % plan.gpus_per_replica() != 0) {
        throw Error(fmt::format("--gpus {} is not a multiple of tp × pp = {}; change --gpus, --tp or --pp", o->gpus,
                                plan.gpus_per_replica()));
      }
      plan.replicas = o->gpus / plan.gpus_per_replica();
    }
    plan.weights = s.weights;
    plan.kv = s.kv;
    plan.input_len = o->flags.input_len;
    plan.output_len = o->flags.output_len;
    if (o->max_throughput) {
      plan.mode = InferMode::max_throughput;
    } else if (o->concurrency > 0) {
      plan.mode = InferMode::concurrency;
      plan.load = o->concurrency;
    } else {
      plan.mode = InferMode::batch;
      plan.load = o->batch > 0 ? o->batch : 1;
    }
    if (o->batch < 0 || o->concurrency < 0) throw Error("--batch and --concurrency must be positive");
    const InferEstimate e = evaluate_inference(s.ctx, plan);
    if (o->flags.json) {
      auto j = infer_json(s.ctx, plan, e);
      add_calibration_json(j, o->flags.calibration, s.calibration_notes);
      ctx.print_json(j);
    } else {
      ctx.out << infer_text(s.ctx, plan, e);
      ctx.out << calibration_text(s.calibration_notes);
    }
  });
}

// gpuplan infer-search --model M --gpu G [--gpus-max N] --input-len L --output-len O
// [--ttft-ms X --tpot-ms Y] [--rate R] [--objective throughput|cost] [--json]
void setup_infer_search(CliCommand& cmd, CliContext& ctx) {
  struct Opts {
    InferFlags flags;
    int gpus_max = 8;
    double ttft_ms = 0;
    double tpot_ms = 0;
    double rate = 0;
    std::string objective = "throughput";
  };
  auto o = std::make_shared<Opts>();
  add_infer_flags(cmd, o->flags);
  cmd.add_option("--gpus-max", o->gpus_max, "GPUs of one model replica (tp × pp) at most (default 8)");
  cmd.add_option("--ttft-ms", o->ttft_ms, "Time-to-first-token target in ms (default none)");
  cmd.add_option("--tpot-ms", o->tpot_ms, "Time-per-output-token target in ms (default none)");
  cmd.add_option("--rate", o->rate, "Requests/s to serve: the fewest GPUs (replicas) that serve it within the targets");
  cmd.add_option("--objective", o->objective, "throughput (output tokens/s per GPU, default) or cost (per dollar)");
  CliCommand* app = &cmd;
  cmd.callback([o, app, &ctx] {
    if (o->gpus_max < 1) throw Error("--gpus-max must be at least 1");
    if (o->ttft_ms < 0 || o->tpot_ms < 0 || o->rate < 0) throw Error("--ttft-ms, --tpot-ms and --rate must be positive");
    InferSearchSpec spec;
    if (o->objective == "throughput") spec.objective = InferObjective::throughput;
    else if (o->objective == "cost") spec.objective = InferObjective::cost;
    else throw Error(fmt::format("--objective '{}': use throughput or cost", o->objective));
    const InferSetup s = make_infer_setup(ctx, o->flags);
    spec.gpus_max = o->gpus_max;
    spec.input_len = o->flags.input_len;
    spec.output_len = o->flags.output_len;
    spec.ttft_s = o->ttft_ms * 1e-3;
    spec.tpot_s = o->tpot_ms * 1e-3;
    spec.rate_rps = o->rate;
    // --weights / --kv given explicitly pin the precision; otherwise the search tries them all.
    if (app->count("--weights") > 0) spec.weights = {s.weights};
    if (!o->flags.kv.empty()) spec.kvs = {s.kv};
    const InferSearchResult r = infer_search(s.ctx, spec);
    if (o->flags.json) {
      auto j = infer_search_json(s.ctx, spec, r);
      add_calibration_json(j, o->flags.calibration, s.calibration_notes);
      ctx.print_json(j);
    } else {
      ctx.out << infer_search_text(s.ctx, spec, r);
      ctx.out << calibration_text(s.calibration_notes);
    }
  });
}

}  // namespace gpuplan
