// gpuplan recommend --model M --tokens T [--deadline DAYS | --budget USD] [--gpus-max N]
// [--gpus-list 8,16,...] [--providers aws,lambda,...]: the Pareto front of time-to-train vs
// cost over catalog GPUs, GPU counts and current on-demand cloud offers.
// gpuplan recommend --serve --model M --input-len L --output-len O [--rate R] [--ttft-ms X]
// [--tpot-ms Y] [--engine E] [--gpus-max N] [--providers ...]: the same for a serving target,
// through infer-search (search/recommend_serve.h).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "core/table.h"
#include "report/train_report.h"
#include "search/recommend.h"
#include "search/recommend_serve.h"
#include "cli/infer_flags.h"

namespace gpuplan {
namespace {

struct RecommendFlags {
  std::string model;
  std::string tokens;
  double deadline_days = 0;
  double budget_usd = 0;
  int gpus_max = 1024;
  std::string gpus_list;
  std::string providers;
  int global_batch = 1024;
  int seq_len = 0;
  std::string precision = "bf16";
  double time_limit_s = 2;
  int threads = 0;
  bool json = false;
  // --serve
  bool serve = false;
  long long input_len = 1024;
  long long output_len = 256;
  double rate = 0;
  double ttft_ms = 0;
  double tpot_ms = 0;
  std::string engine = "vllm";
  std::string weights;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = s.find(',', start);
    std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) out.push_back(item);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

void run_recommend_serve(CliContext& ctx, const RecommendFlags& f) {
  const Catalog& cat = ctx.catalog();
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& model = ctx.resolve_model(f.model, owned);
  if (f.rate < 0 || f.ttft_ms < 0 || f.tpot_ms < 0) throw Error("--rate, --ttft-ms and --tpot-ms must be positive");
  ServeRecommendOptions o;
  o.input_len = f.input_len;
  o.output_len = f.output_len;
  o.rate_rps = f.rate;
  o.ttft_s = f.ttft_ms * 1e-3;
  o.tpot_s = f.tpot_ms * 1e-3;
  o.gpus_max = f.gpus_max;
  o.engine = f.engine;
  for (const std::string& p : split_commas(f.providers)) o.providers.push_back(to_lower(p));
  if (!f.weights.empty()) o.weights = {parse_weight_precision(f.weights)};
  const ServeRecommendResult r = recommend_serving(cat, model, o);
  const bool rate = o.rate_rps > 0;
  auto point_json = [&](const ServePoint& p) {
    nlohmann::ordered_json j;
    j["gpu"] = p.gpu->id;
    j["system"] = p.system ? p.system->id : "";
    j["gpus"] = p.gpus;
    j["provider"] = p.offer->provider;
    j["instance"] = p.offer->instance;
    j["usd_per_gpu_hour"] = p.offer->usd_per_gpu_hour;
    j["price_date"] = p.offer->price_date;
    j["usd_per_hour"] = p.usd_per_hour;
    j["usd_per_million_output_tokens"] = p.usd_per_million_tokens;
    j["tp"] = p.plan.tp;
    j["pp"] = p.plan.pp;
    j["ep"] = p.plan.ep;
    j["replicas"] = p.plan.replicas;
    j["weights"] = precision_name(p.plan.weights);
    j["kv"] = precision_name(p.plan.kv);
    j["concurrency_per_replica"] = p.plan.load;
    j["ttft_s"] = p.estimate.point.ttft_s;
    j["tpot_s"] = p.estimate.point.tpot_s;
    j["output_tokens_per_s"] = p.estimate.output_tokens_per_s;
    j["output_tokens_per_s_per_gpu"] = p.estimate.output_tokens_per_s_per_gpu;
    j["requests_per_s"] = p.estimate.requests_per_s;
    j["bottleneck"] = p.estimate.bottleneck;
    j["reason"] = p.reason;
    return j;
  };
  if (f.json) {
    nlohmann::ordered_json j;
    j["model"] = model.id;
    j["serve"] = true;
    j["engine"] = o.engine;
    j["input_len"] = o.input_len;
    j["output_len"] = o.output_len;
    j["rate_rps"] = o.rate_rps;
    j["ttft_ms"] = f.ttft_ms;
    j["tpot_ms"] = f.tpot_ms;
    j["cost_axis"] = rate ? "usd_per_hour" : "usd_per_million_output_tokens";
    j["searched"] = r.searched;
    j["evaluated"] = r.evaluated;
    j["points"] = r.points;
    j["elapsed_s"] = r.elapsed_s;
    j["front"] = nlohmann::ordered_json::array();
    for (const ServePoint& p : r.front) j["front"].push_back(point_json(p));
    j["pick"] = r.have_pick ? point_json(r.pick) : nlohmann::ordered_json();
    j["notes"] = r.notes;
    ctx.print_json(j);
    return;
  }
  std::string targets;
  if (o.ttft_s > 0) targets += fmt::format(" · TTFT ≤ {:g} ms", f.ttft_ms);
  if (o.tpot_s > 0) targets += fmt::format(" · TPOT ≤ {:g} ms", f.tpot_ms);
  if (rate) targets += fmt::format(" · {:g} requests/s", o.rate_rps);
  std::string out = fmt::format(
      "{} serving with {}: in {} · out {}{}; {} GPUs searched ({} serving plans), {} priced points, {:.1f} s\n",
      model.id, o.engine, o.input_len, o.output_len, targets, r.searched, fmt_number(static_cast<double>(r.evaluated)),
      r.points, r.elapsed_s);
  if (r.front.empty()) {
    out += "no GPU serves this within the targets: relax --ttft-ms/--tpot-ms, lower --rate or raise --gpus-max\n";
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    ctx.out << out;
    return;
  }
  TextTable t({"GPU", "GPUs", "offer", "$/GPU-h", rate ? "$/hour" : "$/M tok", "TTFT", "TPOT", "tok/s/GPU", "plan"},
              {TextTable::Align::left, TextTable::Align::right, TextTable::Align::left, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::left});
  for (const ServePoint& p : r.front) {
    std::string plan = fmt::format("tp {} · pp {}", p.plan.tp, p.plan.pp);
    if (p.plan.ep > 1) plan += fmt::format(" · ep {}", p.plan.ep);
    if (p.plan.replicas > 1) plan += fmt::format(" · ×{}", p.plan.replicas);
    plan += fmt::format(" · {} · C {:.0f}", precision_name(p.plan.weights), p.plan.load);
    t.add_row({p.gpu->id, std::to_string(p.gpus), p.offer->provider + " " + p.offer->instance,
               fmt::format("{:.2f}", p.offer->usd_per_gpu_hour),
               rate ? fmt::format("${}", fmt_number(p.usd_per_hour, 2)) : fmt::format("${:.3f}", p.usd_per_million_tokens),
               fmt::format("{:.0f} ms", 1e3 * p.estimate.point.ttft_s), fmt::format("{:.1f} ms", 1e3 * p.estimate.point.tpot_s),
               fmt_number(p.estimate.output_tokens_per_s_per_gpu), plan});
  }
  out += fmt::format("\nPareto front, {} vs TPOT (cheapest first):\n", rate ? "cost per hour" : "cost per million output tokens");
  out += t.render();
  out += fmt::format("\npick (the cheapest within the targets): {}\n", r.pick.reason);
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  ctx.out << out;
}

}  // namespace

void setup_recommend(CliCommand& cmd, CliContext& ctx) {
  auto f = std::make_shared<RecommendFlags>();
  cmd.add_option("--model", f->model, "Model id or alias")->required();
  cmd.add_option("--tokens", f->tokens, "Training tokens (100B, 15T, 1e12); required unless --serve");
  auto* deadline = cmd.add_option("--deadline", f->deadline_days, "Keep only runs finishing within this many days");
  cmd.add_option("--budget", f->budget_usd, "Keep only runs costing at most this many dollars")->excludes(deadline);
  cmd.add_option("--gpus-max", f->gpus_max,
                 "Largest GPU count (powers of two up to it); with --serve, GPUs of one replica (default 8)")
      ->capture_default_str();
  cmd.add_option("--gpus-list", f->gpus_list, "GPU counts to try instead, e.g. 8,16,64");
  cmd.add_option("--providers", f->providers, "Cloud providers to consider, e.g. aws,lambda (default: all)");
  cmd.add_option("--global-batch", f->global_batch, "Sequences per step")->capture_default_str();
  cmd.add_option("--seq-len", f->seq_len, "Tokens per sequence (default: the model's context, at most 8192)");
  cmd.add_option("--precision", f->precision, "Precision of the linear layers")->capture_default_str();
  cmd.add_option("--time-limit", f->time_limit_s, "Search time limit per (GPU, count), seconds")->capture_default_str();
  cmd.add_option("--threads", f->threads, "Worker threads (default: every core)");
  cmd.add_flag("--json", f->json, "Print one JSON object");
  cmd.add_flag("--serve", f->serve, "Recommend for serving (infer-search per GPU) instead of training");
  cmd.add_option("--input-len", f->input_len, "--serve: prompt tokens per request")->capture_default_str();
  cmd.add_option("--output-len", f->output_len, "--serve: generated tokens per request")->capture_default_str();
  cmd.add_option("--rate", f->rate, "--serve: requests/s to serve (the fewest GPUs that do, within the targets)");
  cmd.add_option("--ttft-ms", f->ttft_ms, "--serve: time-to-first-token target, ms");
  cmd.add_option("--tpot-ms", f->tpot_ms, "--serve: time-per-output-token target, ms");
  cmd.add_option("--engine", f->engine, "--serve: tensorrt-llm, vllm or sglang")->capture_default_str();
  cmd.add_option("--weights", f->weights, "--serve: pin the weight precision (default: the search tries bf16, fp8, int4)");
  CliCommand* app = &cmd;
  cmd.callback([f, app, &ctx] {
    const char* serve_only[] = {"--input-len", "--output-len", "--rate", "--ttft-ms", "--tpot-ms", "--engine", "--weights"};
    if (f->serve) {
      for (const char* flag : {"--tokens", "--deadline", "--budget", "--gpus-list", "--global-batch", "--seq-len",
                               "--precision", "--time-limit"}) {
        if (app->count(flag) > 0) throw Error(fmt::format("{} is for training; drop it with --serve", flag));
      }
      if (app->count("--gpus-max") == 0) f->gpus_max = 8;
      run_recommend_serve(ctx, *f);
      return;
    }
    for (const char* flag : serve_only) {
      if (app->count(flag) > 0) throw Error(fmt::format("{} needs --serve", flag));
    }
    if (f->tokens.empty()) throw Error("--tokens is required (training tokens, e.g. 100B), or add --serve for serving");
    const Catalog& cat = ctx.catalog();
    const ModelSpec& model = cat.model(f->model);
    RecommendOptions o;
    o.tokens = parse_count(f->tokens, "--tokens");
    o.deadline_days = f->deadline_days;
    o.budget_usd = f->budget_usd;
    o.gpus_max = f->gpus_max;
    for (const std::string& s : split_commas(f->gpus_list)) {
      const int n = static_cast<int>(parse_count(s, "--gpus-list"));
      if (n < 1) throw Error(fmt::format("--gpus-list: '{}' is not a GPU count", s));
      o.gpu_counts.push_back(n);
    }
    for (const std::string& p : split_commas(f->providers)) o.providers.push_back(to_lower(p));
    o.global_batch = f->global_batch;
    o.seq_len = f->seq_len;
    const auto precision = parse_precision(f->precision);
    if (!precision) throw Error(fmt::format("--precision '{}': use bf16, fp16, fp8, tf32 or fp32", f->precision));
    o.precision = *precision;
    o.time_limit_per_point_s = f->time_limit_s;
    o.threads = f->threads;
    const RecommendResult r = recommend(cat, model, o);

    auto point_json = [&](const RecommendPoint& p) {
      nlohmann::ordered_json j;
      j["gpu"] = p.gpu->id;
      j["system"] = p.system->id;
      j["gpus"] = p.gpus;
      j["provider"] = p.offer->provider;
      j["instance"] = p.offer->instance;
      j["usd_per_gpu_hour"] = p.offer->usd_per_gpu_hour;
      j["price_date"] = p.offer->price_date;
      j["time_s"] = p.time_s;
      j["time_days"] = p.time_s / 86400;
      j["cost_usd"] = p.cost_usd;
      j["energy_kwh"] = p.energy_kwh;
      j["tokens_per_s"] = p.estimate.tokens_per_s;
      j["mfu"] = p.estimate.mfu;
      j["plan"] = plan_json(p.plan, model);
      j["search_complete"] = p.search_complete;
      j["reason"] = p.reason;
      return j;
    };
    if (f->json) {
      nlohmann::ordered_json j;
      j["model"] = model.id;
      j["tokens"] = o.tokens;
      j["searched"] = r.searched;
      j["cut_short"] = r.cut_short;
      j["time_limit_per_point_s"] = o.time_limit_per_point_s;
      j["points"] = r.points;
      j["filtered_out"] = r.filtered_out;
      j["elapsed_s"] = r.elapsed_s;
      j["front"] = nlohmann::ordered_json::array();
      for (const RecommendPoint& p : r.front) j["front"].push_back(point_json(p));
      j["pick"] = r.have_pick ? point_json(r.pick) : nlohmann::ordered_json();
      j["notes"] = r.notes;
      ctx.print_json(j);
      return;
    }
    std::string out = fmt::format(
        "{} for {} tokens: {} (GPU, count) searches (best plan each, --top 1, at most {:g} s per search; {} cut "
        "short), {} priced points on current on-demand offers, {} dropped by --deadline/--budget, {:.1f} s\n",
        model.id, fmt_number(o.tokens), r.searched, o.time_limit_per_point_s, r.cut_short, r.points, r.filtered_out,
        r.elapsed_s);
    if (r.front.empty()) {
      out += "no point fits the filters";
      out += r.points > 0 ? ": loosen --deadline/--budget or raise --gpus-max\n" : ": raise --gpus-max\n";
      for (const std::string& n : r.notes) out += "note: " + n + "\n";
      ctx.out << out;
      return;
    }
    TextTable t({"GPU", "GPUs", "offer", "$/GPU-h", "time", "cost", "energy", "MFU", "plan"},
                {TextTable::Align::left, TextTable::Align::right, TextTable::Align::left, TextTable::Align::right,
                 TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                 TextTable::Align::left});
    for (const RecommendPoint& p : r.front) {
      t.add_row({p.gpu->id, std::to_string(p.gpus), p.offer->provider + " " + p.offer->instance,
                 fmt::format("{:.2f}", p.offer->usd_per_gpu_hour), fmt::format("{:.1f} d", p.time_s / 86400),
                 fmt::format("${}", fmt_number(p.cost_usd)), p.energy_kwh > 0 ? fmt_number(p.energy_kwh) + " kWh" : "-",
                 fmt::format("{:.0f}%", 100 * p.estimate.mfu), plan_summary(p.plan, model)});
    }
    out += "\nPareto front, time-to-train vs cost (fastest first; energy = GPUs × TDP × time):\n";
    out += t.render();
    out += fmt::format("\npick ({}): {}\n",
                       o.budget_usd > 0 ? "the fastest within the budget"
                                        : (o.deadline_days > 0 ? "the cheapest within the deadline" : "the cheapest"),
                       r.pick.reason);
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    ctx.out << out;
  });
}

}  // namespace gpuplan
