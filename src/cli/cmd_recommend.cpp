// gpuplan recommend --model M --tokens T [--deadline DAYS | --budget USD] [--gpus-max N]
// [--gpus-list 8,16,...] [--providers aws,lambda,...]: the Pareto front of time-to-train vs
// cost over catalog GPUs, GPU counts and current on-demand cloud offers.
// gpuplan recommend --serve --model M --input-len L --output-len O [--rate R] [--ttft-ms X]
// [--tpot-ms Y] [--engine E] [--gpus-max N] [--providers ...]: the same for a serving target.
// Flags → econ/recommend_request.h or econ/serve_recommend_request.h → report/recommend_report.h.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "infer/infer_request.h"
#include "cli/output_flags.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "econ/recommend_request.h"
#include "econ/serve_recommend_request.h"
#include "report/recommend_report.h"

namespace gpuplan {
namespace {

// The flags as typed: lists and token counts are parsed into the requests after parsing.
struct RecommendFlags {
  RecommendRequest train;
  ServeRecommendRequest serve;
  std::string tokens;
  std::string gpus_list;
  std::string providers;
  std::string weights;
  bool json = false;
  bool serving = false;
  OutputFlags output;  // --html, --report-data (training only)
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= s.size();) {
    const std::size_t end = s.find(',', start);
    std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) out.push_back(to_lower(item));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void run_serve(CliContext& ctx, RecommendFlags& f) {
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& model = ctx.resolve_model(f.train.model, owned);
  f.serve.model = f.train.model;
  f.serve.gpus_max = f.train.gpus_max;
  f.serve.providers = split_commas(f.providers);
  if (!f.weights.empty()) f.serve.weights = {parse_weight_precision(f.weights)};
  ctx.print(answer_serve_recommend(ctx.catalog(), model, f.serve), f.json);
}

void run_train(CliContext& ctx, RecommendFlags& f) {
  if (f.tokens.empty()) throw Error("--tokens is required (training tokens, e.g. 100B), or add --serve for serving");
  f.train.tokens = parse_count(f.tokens, "--tokens");
  for (const std::string& s : split_commas(f.gpus_list)) {
    const double n = parse_count(s, "--gpus-list");
    if (n != std::floor(n) || n > 1e6) throw Error(fmt::format("--gpus-list {}: not a whole GPU count", s));
    f.train.gpus_list.push_back(static_cast<int>(n));
  }
  f.train.providers = split_commas(f.providers);
  f.output.json = f.json;
  present(ctx, answer_recommend(ctx.catalog(), f.train), f.output);
}

}  // namespace

void setup_recommend(CliCommand& cmd, CliContext& ctx) {
  auto f = std::make_shared<RecommendFlags>();
  RecommendRequest& t = f->train;
  ServeRecommendRequest& s = f->serve;
  cmd.add_option("--model", t.model, "Model id or alias")->required();
  cmd.add_option("--tokens", f->tokens, "Training tokens (100B, 15T, 1e12); required unless --serve");
  auto* deadline = cmd.add_option("--deadline,--deadline-days", t.deadline_days,
                                  "Keep only runs finishing within this many days");
  cmd.add_option("--budget,--budget-usd", t.budget_usd, "Keep only runs costing at most this many dollars")
      ->excludes(deadline);
  cmd.add_option("--cost-tolerance", t.cost_tolerance,
                 "Without --budget, pick the fastest run within this fraction of the cheapest (0.05 = 5%)")
      ->capture_default_str();
  cmd.add_option("--gpus-max", t.gpus_max,
                 "Largest GPU count (powers of two up to it); with --serve, GPUs of one replica (default 8)")
      ->capture_default_str();
  cmd.add_option("--gpus-list", f->gpus_list, "GPU counts to try instead, e.g. 8,16,64");
  cmd.add_option("--providers", f->providers, "Cloud providers to consider, e.g. aws,lambda (default: all)");
  cmd.add_option("--global-batch", t.global_batch, "Sequences per step")->capture_default_str();
  cmd.add_option("--seq-len", t.seq_len, "Tokens per sequence (default: the model's context, at most 8192)");
  cmd.add_option("--precision", t.precision, "Precision of the linear layers")->capture_default_str();
  cmd.add_option("--time-limit", t.time_limit_s, "Search time limit per (GPU, count), seconds")->capture_default_str();
  cmd.add_option("--threads", t.threads, "Worker threads (default: every core)");
  cmd.add_flag("--json", f->json, "Print one JSON object");
  add_output_flags(cmd, f->output);
  cmd.add_flag("--serve", f->serving, "Recommend for serving (infer-search per GPU) instead of training");
  cmd.add_option("--input-len", s.input_len, "--serve: prompt tokens per request")->capture_default_str();
  cmd.add_option("--output-len", s.output_len, "--serve: generated tokens per request")->capture_default_str();
  cmd.add_option("--rate", s.rate_rps, "--serve: requests/s to serve (the fewest GPUs that do, within the targets)");
  cmd.add_option("--ttft-ms", s.ttft_ms, "--serve: time-to-first-token target, ms");
  cmd.add_option("--tpot-ms", s.tpot_ms, "--serve: time-per-output-token target, ms");
  cmd.add_option("--engine", s.engine, "--serve: tensorrt-llm, vllm or sglang")->capture_default_str();
  cmd.add_option("--weights", f->weights,
                 "--serve: pin the weight precision (default: the search tries bf16, fp8, int4)");
  CliCommand* app = &cmd;
  cmd.callback([f, app, &ctx] {
    if (f->serving) {
      for (const char* flag : {"--tokens", "--deadline", "--budget", "--gpus-list", "--global-batch", "--seq-len",
                               "--precision", "--time-limit", "--html", "--report-data"}) {
        if (app->count(flag) > 0) throw Error(fmt::format("{} is for training; drop it with --serve", flag));
      }
      if (app->count("--gpus-max") == 0) f->train.gpus_max = 8;
      run_serve(ctx, *f);
      return;
    }
    for (const char* flag :
         {"--input-len", "--output-len", "--rate", "--ttft-ms", "--tpot-ms", "--engine", "--weights"}) {
      if (app->count(flag) > 0) throw Error(fmt::format("{} needs --serve", flag));
    }
    run_train(ctx, *f);
  });
}

}  // namespace gpuplan
