// gpuplan infer / infer-search: flags → InferRequest / InferSearchRequest → answer_infer /
// answer_infer_search (infer/infer_request.h) → to_json / to_text (report/infer_report.h).
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output_flags.h"
#include "cli/infer_flags.h"
#include "cli/infer_feature_flags.h"
#include "emit/launch_config.h"
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
    int gpus = 0;
    int tp = 0;
    double batch = 0;
    double concurrency = 0;
    std::string emit;
    double max_batch_size = 0, max_num_tokens = 0;
    int sim_requests = 0;
  };
  auto o = std::make_shared<Opts>();
  add_infer_flags(cmd, o->request, o->json);
  auto* gpus = cmd.add_option("--gpus", o->gpus, "GPUs in all (default tp × pp); a multiple of tp × pp adds replicas");
  auto* tp = cmd.add_option("--tp", o->tp, "Tensor-parallel degree (default: --gpus / pp, else 1)");
  cmd.add_option("--pp", o->request.pp, "Pipeline-parallel degree (default 1)");
  cmd.add_option("--ep", o->request.ep, "Expert-parallel degree inside the TP group (MoE; default 1)");
  cmd.add_option("--attention-dp", o->request.attention_dp,
                 "Attention data-parallel ranks inside the TP group: attention, dense layers and KV cache per rank "
                 "at TP = tp / N, experts over all tp GPUs (N = tp: DEP, TensorRT-LLM's enable_attention_dp; default 1)");
  auto* batch = cmd.add_option("--batch", o->batch, "Static batch: B requests started together (default 1)");
  auto* conc = cmd.add_option("--concurrency", o->concurrency,
                              "Closed loop with C requests in flight under continuous batching");
  auto* maxt = cmd.add_flag("--max-throughput", o->request.max_throughput,
                            "Offline serving: the running batch that maximises output tokens/s within memory");
  cmd.add_option("--emit", o->emit, "Print the server launch config of this plan instead: vllm, sglang or trtllm (docs/emit.md)");
  batch->excludes(conc)->excludes(maxt);
  conc->excludes(maxt);
  add_output_flags(cmd, o->output);
  const auto read_features = add_infer_feature_flags(cmd, o->request.features);
  // Engine scheduler limits and the scheduler simulation (infer/sim_answer.h).
  auto* mbs = cmd.add_option("--max-batch-size", o->max_batch_size,
                             "Engine: sequences the scheduler runs at once (max_num_seqs / max_batch_size; default the engine's)");
  auto* mnt = cmd.add_option("--max-num-tokens", o->max_num_tokens,
                             "Engine: tokens per step (max_num_batched_tokens / max_num_tokens; default the engine's)");
  cmd.add_option("--chunked-prefill", o->request.chunked_prefill, "Engine: on or off (default the engine's)");
  auto* simn = cmd.add_option("--sim-requests", o->sim_requests,
                              "Simulation (with --concurrency or --request-rate): requests sent (default 10 per client, else 1000)");
  cmd.add_option("--sim-seed", o->request.simulation.seed, "Simulation: seed of the Poisson arrivals and lengths (default 0)");
  cmd.add_option("--sim-warmup", o->request.simulation.warmup_requests,
                 "Simulation: first requests run but not measured (default 0)");
  cmd.add_option("--input-spread", o->request.simulation.input_spread,
                 "Simulation: prompt lengths uniform in --input-len x (1 +- s), 0 <= s < 1 (default 0)");
  cmd.add_option("--output-spread", o->request.simulation.output_spread,
                 "Simulation: output lengths uniform in --output-len x (1 +- s) (default 0)");
  cmd.callback([o, gpus, tp, batch, conc, read_features, mbs, mnt, simn, &ctx] {
    InferRequest& r = o->request;
    read_features();
    if (mbs->count() > 0) r.max_batch_size = o->max_batch_size;
    if (mnt->count() > 0) r.max_num_tokens = o->max_num_tokens;
    if (simn->count() > 0) r.simulation.requests = o->sim_requests;
    if (gpus->count() > 0) r.gpus = o->gpus;
    if (tp->count() > 0) r.tp = o->tp;
    if (batch->count() > 0) r.batch = o->batch;
    if (conc->count() > 0) r.concurrency = o->concurrency;
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
    double tpot_ms = 0;
    OutputFlags output;  // --html, --report-data: the best plan's curve with the targets
  };
  auto o = std::make_shared<Opts>();
  add_infer_flags(cmd, o->request, o->json);
  cmd.add_option("--gpus-max", o->request.gpus_max, "GPUs of one model replica (tp × pp) at most (default 8)");
  cmd.add_option("--ttft-ms", o->request.ttft_ms, "Time-to-first-token target in ms (default none)");
  auto* tpot = cmd.add_option("--tpot-ms", o->tpot_ms, "Time-per-output-token target in ms (default none)");
  cmd.add_option("--rate", o->request.rate,
                 "Requests/s to serve: the fewest GPUs (replicas) that serve it within the targets");
  cmd.add_option("--objective", o->request.objective,
                 "throughput (output tokens/s per GPU, default) or cost (per dollar)");
  add_output_flags(cmd, o->output);
  CliCommand* app = &cmd;
  cmd.callback([o, app, tpot, &ctx] {
    InferSearchRequest& r = o->request;
    if (tpot->count() > 0) r.tpot_ms = o->tpot_ms;
    r.weights_given = app->count("--weights") > 0;
    const InferSearchAnswer a = answer_infer_search(ctx.catalog(), r);
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
