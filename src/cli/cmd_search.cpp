// gpuplan search --model M --gpu G --gpus N --global-batch B --seq-len S [--objective ...]:
// every valid plan through the training evaluator, the best K with their breakdowns.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/train_flags.h"
#include "core/error.h"
#include "core/units.h"
#include "core/table.h"
#include "report/train_report.h"
#include "search/search.h"

namespace gpuplan {
namespace {

struct SearchFlags {
  TrainFlags train;
  int global_batch = 0;
  int seq_len = 0;
  int top = 3;
  std::string objective = "time";
  int threads = 0;
  double usd_per_gpu_hour = 0;
  bool no_prune = false;
  double time_limit_s = 0;
};

nlohmann::ordered_json candidate_json(const TrainContext& ctx, const Candidate& c, const Ranker& r, double price) {
  nlohmann::ordered_json j;
  j["score"] = c.score;
  if (price > 0) j["usd_per_step"] = step_cost_usd(c.estimate.step_time_s, r.gpus, price);
  const nlohmann::ordered_json t = train_json(ctx, c.plan, c.estimate);
  for (auto it = t.begin(); it != t.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace

void setup_search(CliCommand& cmd, CliContext& ctx) {
  auto f = std::make_shared<SearchFlags>();
  cmd.add_option("--model", f->train.model, "Model id or alias, or a Hugging Face config.json")->required();
  cmd.add_option("--gpu", f->train.gpu, "GPU id or alias (default: the system's GPU)");
  cmd.add_option("--gpus", f->train.gpus, "Total GPUs")->required();
  cmd.add_option("--global-batch", f->global_batch, "Sequences per step")->required();
  cmd.add_option("--seq-len", f->seq_len, "Tokens per sequence (default: the model's context length)");
  cmd.add_option("--system", f->train.system, "Node or rack (default: the catalog's system for the GPU)");
  cmd.add_option("--fabric", f->train.fabric, "Scale-out fabric above the systems");
  cmd.add_option("--precision", f->train.precision, "Precision of the linear layers: bf16, fp16, fp8, tf32, fp32")
      ->capture_default_str();
  cmd.add_option("--top", f->top, "How many plans to show")->capture_default_str();
  cmd.add_option("--objective", f->objective, "Rank by: time (step time), cost ($ per step), mfu")
      ->capture_default_str();
  cmd.add_option("--threads", f->threads, "Worker threads (default: every core)");
  cmd.add_option("--usd-per-gpu-hour", f->usd_per_gpu_hour,
                 "Price for --objective cost (default: the catalog's cheapest current on-demand offer)");
  cmd.add_option("--time-limit", f->time_limit_s, "Stop after this many seconds (default: exhaustive)");
  cmd.add_flag("--no-prune", f->no_prune, "Evaluate every plan (brute force; same answer, slower)");
  cmd.add_option("--calibration", f->train.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the fitted GEMM rates by measured / reference");
  cmd.add_flag("--json", f->train.json, "Print one JSON object");
  cmd.callback([f, &ctx] {
    if (f->train.gpus < 1) throw Error("--gpus must be at least 1");
    if (f->global_batch < 1) throw Error("--global-batch must be at least 1");
    if (f->top < 1) throw Error("--top must be at least 1");
    const auto objective = parse_objective(f->objective);
    if (!objective) throw Error(fmt::format("--objective '{}': use time, cost or mfu", f->objective));
    const TrainSetup s = make_train_setup(ctx, f->train);
    SearchSpace space;
    space.gpus = f->train.gpus;
    space.global_batch = f->global_batch;
    space.seq_len = f->seq_len > 0 ? f->seq_len : static_cast<int>(s.ctx.model->max_seq_len);
    if (space.seq_len < 1) throw Error("the model has no context length: pass --seq-len");
    space.precision = s.plan.precision;

    SearchOptions opt;
    opt.top_k = f->top;
    opt.threads = f->threads;
    opt.prune = !f->no_prune;
    opt.time_limit_s = f->time_limit_s;
    opt.objective = *objective;
    std::string price_source;
    if (f->usd_per_gpu_hour > 0) {
      opt.usd_per_gpu_hour = f->usd_per_gpu_hour;
      price_source = "--usd-per-gpu-hour";
    } else if (const auto price = cheapest_on_demand(ctx.catalog(), *s.ctx.gpu)) {
      opt.usd_per_gpu_hour = price->usd_per_gpu_hour;
      price_source = price->source;
    } else if (opt.objective == Objective::cost) {
      throw Error(fmt::format("no current on-demand offer for {} in the catalog: pass --usd-per-gpu-hour",
                              s.ctx.gpu->id));
    }
    const SearchResult r = search_plans(s.ctx, space, opt);
    const Ranker ranker = make_ranker(s.ctx, space, opt);
    const double price = opt.usd_per_gpu_hour;

    if (f->train.json) {
      nlohmann::ordered_json j;
      j["model"] = s.ctx.model->id;
      j["gpu"] = s.ctx.gpu->id;
      j["system"] = s.ctx.system ? s.ctx.system->id : "";
      j["gpus"] = space.gpus;
      j["objective"] = objective_name(opt.objective);
      if (price > 0) {
        j["usd_per_gpu_hour"] = price;
        j["price_source"] = price_source;
      }
      j["space"] = r.space;
      j["evaluated"] = r.evaluated;
      j["feasible"] = r.feasible;
      j["pruned"] = r.pruned;
      j["elapsed_s"] = r.elapsed_s;
      j["threads"] = r.threads;
      j["complete"] = r.complete;
      j["best"] = r.top.empty() ? nlohmann::ordered_json() : candidate_json(s.ctx, r.top.front(), ranker, price);
      j["top"] = nlohmann::ordered_json::array();
      for (const Candidate& c : r.top) j["top"].push_back(candidate_json(s.ctx, c, ranker, price));
      j["closest"] = nlohmann::ordered_json::array();
      for (const Candidate& c : r.closest) {
        nlohmann::ordered_json cj;
        cj["plan"] = plan_json(c.plan, *s.ctx.model);
        cj["reason"] = c.estimate.reason_text();
        if (c.estimate.valid) cj["memory_bytes"] = c.estimate.memory.total;
        j["closest"].push_back(cj);
      }
      add_calibration_json(j, f->train.calibration, s.calibration_notes);
      ctx.print_json(j);
      return;
    }

    std::string out = fmt::format(
        "{} on {} × {}: {} plans in the space, {} evaluated ({} feasible), {} pruned, {:.3f} s on {} threads{}\n",
        s.ctx.model->id, space.gpus, s.ctx.gpu->id, fmt_number(static_cast<double>(r.space)),
        fmt_number(static_cast<double>(r.evaluated)), fmt_number(static_cast<double>(r.feasible)),
        fmt_number(static_cast<double>(r.pruned)), r.elapsed_s, r.threads,
        r.complete ? "" : " (stopped by --time-limit: not exhaustive)");
    out += fmt::format("objective: {}", objective_name(opt.objective));
    if (price > 0) out += fmt::format(" · ${:.2f}/GPU-hour ({})", price, price_source);
    out += "\n";
    if (r.top.empty()) {
      out += "\nno plan fits. The closest:\n";
      for (const Candidate& c : r.closest) {
        out += fmt::format("  {}\n    fails: {}\n", plan_summary(c.plan, *s.ctx.model), c.estimate.reason_text());
      }
      out += "try more GPUs, a shorter --seq-len, a smaller --global-batch, or a GPU with more memory\n";
      ctx.out << out << calibration_text(s.calibration_notes);
      return;
    }
    TextTable t({"#", "plan", "step", "tokens/s", "MFU", "memory", "$/step"},
                {TextTable::Align::right, TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                 TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
    int rank = 0;
    for (const Candidate& c : r.top) {
      const Estimate& e = c.estimate;
      t.add_row({std::to_string(++rank), plan_summary(c.plan, *s.ctx.model), format_seconds(e.step_time_s),
                 fmt_number(e.tokens_per_s), fmt::format("{:.1f}%", 100 * e.mfu),
                 fmt::format("{:.1f} GiB", e.memory.total / kGiB),
                 price > 0 ? fmt::format("{:.2f}", step_cost_usd(e.step_time_s, space.gpus, price)) : "-"});
    }
    out += "\n" + t.render();
    for (std::size_t i = 0; i < r.top.size(); ++i) {
      out += fmt::format("\n#{} ", i + 1) + train_text(s.ctx, r.top[i].plan, r.top[i].estimate);
    }
    ctx.out << out << calibration_text(s.calibration_notes);
  });
}

}  // namespace gpuplan
