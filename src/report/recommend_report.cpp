#include "report/recommend_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"
#include "plan/plan_json.h"
#include "report/train_report.h"

namespace gpuplan {
namespace {

using Align = TextTable::Align;

nlohmann::ordered_json point_json(const RecommendPoint& p, const ModelSpec& model) {
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
}

nlohmann::ordered_json point_json(const ServePoint& p) {
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
  j["bottleneck"] = p.estimate.bottleneck_text();
  j["reason"] = p.reason;
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const RecommendAnswer& r) {
  nlohmann::ordered_json j;
  j["model"] = r.model->id;
  j["tokens"] = r.request.tokens;
  j["searched"] = r.searched;
  j["cut_short"] = r.cut_short;
  j["time_limit_per_point_s"] = r.request.time_limit_s;
  j["points"] = r.points;
  j["filtered_out"] = r.filtered_out;
  j["elapsed_s"] = r.elapsed_s;
  j["front"] = nlohmann::ordered_json::array();
  for (const RecommendPoint& p : r.front) j["front"].push_back(point_json(p, *r.model));
  j["pick"] = r.have_pick ? point_json(r.pick, *r.model) : nlohmann::ordered_json();
  j["pick_rule"] = r.pick_rule;
  j["cost_tolerance"] = r.request.cost_tolerance;
  j["knee"] = r.knee_index >= 0 ? point_json(r.front[r.knee_index], *r.model) : nlohmann::ordered_json();
  j["knee_index"] = r.knee_index;
  j["over_capacity"] = r.over_capacity;
  j["notes"] = r.notes;
  return j;
}

std::string to_text(const RecommendAnswer& r) {
  const RecommendRequest& o = r.request;
  std::string out = fmt::format(
      "{} for {} tokens: {} (GPU, count) searches (best plan each, --top 1, at most {:g} s per search; {} cut "
      "short), {} priced points on current on-demand offers, {} dropped by --deadline/--budget, {:.1f} s\n",
      r.model->id, fmt_number(o.tokens), r.searched, o.time_limit_s, r.cut_short, r.points, r.filtered_out,
      r.elapsed_s);
  if (r.front.empty()) {
    out += "no point fits the filters";
    out += r.points > 0 ? ": loosen --deadline/--budget or raise --gpus-max\n" : ": raise --gpus-max\n";
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    return out;
  }
  TextTable t({"", "GPU", "GPUs", "offer", "max GPUs", "$/GPU-h", "time", "cost", "energy", "MFU", "plan"},
              {Align::left, Align::left, Align::right, Align::left, Align::right, Align::right, Align::right,
               Align::right, Align::right, Align::right, Align::left});
  for (std::size_t i = 0; i < r.front.size(); ++i) {
    const RecommendPoint& p = r.front[i];
    const bool picked = r.have_pick && p.gpu == r.pick.gpu && p.gpus == r.pick.gpus && p.offer == r.pick.offer;
    const std::string mark = std::string(picked ? "pick" : "") +
                             (static_cast<int>(i) == r.knee_index ? (picked ? ", knee" : "knee") : "");
    t.add_row({mark, p.gpu->id, std::to_string(p.gpus), p.offer->provider + " " + p.offer->instance,
               p.offer->max_gpus > 0 ? fmt_number(p.offer->max_gpus) : "unknown",
               fmt::format("{:.2f}", p.offer->usd_per_gpu_hour), fmt::format("{:.1f} d", p.time_s / 86400),
               fmt::format("${}", fmt_number(p.cost_usd)), p.energy_kwh > 0 ? fmt_number(p.energy_kwh) + " kWh" : "-",
               fmt::format("{:.0f}%", 100 * p.estimate.mfu), plan_summary(p.plan, *r.model)});
  }
  out += "\nPareto front, time-to-train vs cost (fastest first; energy = GPUs × TDP × time):\n" + t.render();
  if (r.knee_index >= 0) {
    const RecommendPoint& k = r.front[r.knee_index];
    out += fmt::format("\nknee: {} × {} on {} {}, {:.1f} d for ${} (past it, more time buys little saving)\n",
                       k.gpus, k.gpu->id, k.offer->provider, k.offer->instance, k.time_s / 86400,
                       fmt_number(k.cost_usd));
  }
  out += fmt::format("\npick ({}):\n  {}\n", r.pick_rule, r.pick.reason);
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

nlohmann::ordered_json to_json(const ServeRecommendAnswer& r) {
  const ServeRecommendRequest& o = r.request;
  nlohmann::ordered_json j;
  j["model"] = r.model->id;
  j["serve"] = true;
  j["engine"] = o.engine;
  j["input_len"] = o.input_len;
  j["output_len"] = o.output_len;
  j["rate_rps"] = o.rate_rps.value_or(0);
  j["ttft_ms"] = o.ttft_ms.value_or(0);
  j["tpot_ms"] = o.tpot_ms.value_or(0);
  j["cost_axis"] = o.rate_rps ? "usd_per_hour" : "usd_per_million_output_tokens";
  j["searched"] = r.searched;
  j["evaluated"] = r.evaluated;
  j["points"] = r.points;
  j["elapsed_s"] = r.elapsed_s;
  j["front"] = nlohmann::ordered_json::array();
  for (const ServePoint& p : r.front) j["front"].push_back(point_json(p));
  j["pick"] = r.have_pick ? point_json(r.pick) : nlohmann::ordered_json();
  j["notes"] = r.notes;
  return j;
}

std::string to_text(const ServeRecommendAnswer& r) {
  const ServeRecommendRequest& o = r.request;
  const bool rate = o.rate_rps.has_value();
  std::string targets;
  if (o.ttft_ms) targets += fmt::format(" · TTFT ≤ {:g} ms", *o.ttft_ms);
  if (o.tpot_ms) targets += fmt::format(" · TPOT ≤ {:g} ms", *o.tpot_ms);
  if (rate) targets += fmt::format(" · {:g} requests/s", *o.rate_rps);
  std::string out = fmt::format(
      "{} serving with {}: in {} · out {}{}; {} GPUs searched ({} serving plans), {} priced points, {:.1f} s\n",
      r.model->id, o.engine, o.input_len, o.output_len, targets, r.searched,
      fmt_number(static_cast<double>(r.evaluated)), r.points, r.elapsed_s);
  if (r.front.empty()) {
    out += "no GPU serves this within the targets: relax --ttft-ms/--tpot-ms, lower --rate or raise --gpus-max\n";
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    return out;
  }
  TextTable t({"GPU", "GPUs", "offer", "$/GPU-h", rate ? "$/hour" : "$/M tok", "TTFT", "TPOT", "tok/s/GPU", "plan"},
              {Align::left, Align::right, Align::left, Align::right, Align::right, Align::right, Align::right,
               Align::right, Align::left});
  for (const ServePoint& p : r.front) {
    std::string plan = fmt::format("tp {} · pp {}", p.plan.tp, p.plan.pp);
    if (p.plan.ep > 1) plan += fmt::format(" · ep {}", p.plan.ep);
    if (p.plan.replicas > 1) plan += fmt::format(" · ×{}", p.plan.replicas);
    plan += fmt::format(" · {} · C {:.0f}", precision_name(p.plan.weights), p.plan.load);
    t.add_row({p.gpu->id, std::to_string(p.gpus), p.offer->provider + " " + p.offer->instance,
               fmt::format("{:.2f}", p.offer->usd_per_gpu_hour),
               rate ? fmt::format("${}", fmt_number(p.usd_per_hour, 2)) : fmt::format("${:.3f}", p.usd_per_million_tokens),
               fmt::format("{:.0f} ms", 1e3 * p.estimate.point.ttft_s),
               fmt::format("{:.1f} ms", 1e3 * p.estimate.point.tpot_s),
               fmt_number(p.estimate.output_tokens_per_s_per_gpu), plan});
  }
  out += fmt::format("\nPareto front, {} vs TPOT (cheapest first):\n",
                     rate ? "cost per hour" : "cost per million output tokens");
  out += t.render();
  out += fmt::format("\npick (the cheapest within the targets): {}\n", r.pick.reason);
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace gpuplan
