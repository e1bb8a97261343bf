// gpuplan recommend --model M --tokens T [--deadline DAYS | --budget USD] [--gpus-max N]
// [--gpus-list 8,16,...] [--providers aws,lambda,...]: the Pareto front of time-to-train vs
// cost over catalog GPUs, GPU counts and current on-demand cloud offers.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "report/table.h"
#include "report/train_report.h"
#include "search/recommend.h"

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

}  // namespace

void setup_recommend(CLI::App& cmd, CliContext& ctx) {
  auto f = std::make_shared<RecommendFlags>();
  cmd.add_option("--model", f->model, "Model id or alias")->required();
  cmd.add_option("--tokens", f->tokens, "Training tokens (100B, 15T, 1e12)")->required();
  auto* deadline = cmd.add_option("--deadline", f->deadline_days, "Keep only runs finishing within this many days");
  cmd.add_option("--budget", f->budget_usd, "Keep only runs costing at most this many dollars")->excludes(deadline);
  cmd.add_option("--gpus-max", f->gpus_max, "Largest GPU count (powers of two up to it)")->capture_default_str();
  cmd.add_option("--gpus-list", f->gpus_list, "GPU counts to try instead, e.g. 8,16,64");
  cmd.add_option("--providers", f->providers, "Cloud providers to consider, e.g. aws,lambda (default: all)");
  cmd.add_option("--global-batch", f->global_batch, "Sequences per step")->capture_default_str();
  cmd.add_option("--seq-len", f->seq_len, "Tokens per sequence (default: the model's context, at most 8192)");
  cmd.add_option("--precision", f->precision, "Precision of the linear layers")->capture_default_str();
  cmd.add_option("--time-limit", f->time_limit_s, "Search time limit per (GPU, count), seconds")->capture_default_str();
  cmd.add_option("--threads", f->threads, "Worker threads (default: every core)");
  cmd.add_flag("--json", f->json, "Print one JSON object");
  cmd.callback([f, &ctx] {
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
      j["serve"] = "not available: recommend --serve is not implemented (use infer-search per GPU)";
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
                 "$" + fmt_number(p.cost_usd), p.energy_kwh > 0 ? fmt_number(p.energy_kwh) + " kWh" : "-",
                 fmt::format("{:.0f}%", 100 * p.estimate.mfu), plan_summary(p.plan, model)});
    }
    out += "\nPareto front, time-to-train vs cost (fastest first; energy = GPUs × TDP × time):\n" + t.render();
    out += fmt::format("\npick ({}): {}\n",
                       o.budget_usd > 0 ? "the fastest within the budget"
                                        : (o.deadline_days > 0 ? "the cheapest within the deadline" : "the cheapest"),
                       r.pick.reason);
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    out += "note: a serving variant (recommend --serve) is not implemented yet; use infer-search per GPU\n";
    ctx.out << out;
  });
}

}  // namespace gpuplan
