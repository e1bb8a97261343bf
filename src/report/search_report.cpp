#include "report/search_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"
#include "report/calibration_report.h"
#include "report/train_report.h"
#include "report/default_system_report.h"

namespace gpuplan {
namespace {

nlohmann::ordered_json candidate_json(const SearchAnswer& a, std::size_t i) {
  const Candidate& c = a.result.top[i];
  nlohmann::ordered_json j;
  j["score"] = c.score;
  if (a.options.usd_per_gpu_hour > 0) j["usd_per_step"] = a.top_usd_per_step[i];
  const nlohmann::ordered_json t = train_json(a.setup.ctx, c.plan, c.estimate, a.top_placement[i]);
  for (auto it = t.begin(); it != t.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace

nlohmann::ordered_json to_json(const SearchAnswer& a) {
  const TrainContext& ctx = a.setup.ctx;
  const SearchResult& r = a.result;
  const double price = a.options.usd_per_gpu_hour;
  nlohmann::ordered_json j;
  j["model"] = ctx.model->id;
  j["gpu"] = ctx.gpu->id;
  j["system"] = ctx.system ? ctx.system->id : "";
  j["gpus"] = a.space.gpus;
  j["objective"] = objective_name(a.options.objective);
  if (price > 0) {
    j["usd_per_gpu_hour"] = price;
    j["price_source"] = a.price_source;
  }
  j["space"] = r.space;
  j["evaluated"] = r.evaluated;
  j["feasible"] = r.feasible;
  j["pruned"] = r.pruned;
  j["elapsed_s"] = r.elapsed_s;
  j["threads"] = r.threads;
  j["complete"] = r.complete;
  j["best"] = r.top.empty() ? nlohmann::ordered_json() : candidate_json(a, 0);
  j["best_unvalidated"] = a.best_unvalidated;
  j["top"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.top.size(); ++i) j["top"].push_back(candidate_json(a, i));
  j["closest"] = nlohmann::ordered_json::array();
  for (const Candidate& c : r.closest) {
    nlohmann::ordered_json cj;
    cj["plan"] = plan_json(c.plan, *ctx.model, ctx.framework ? std::string_view(ctx.framework->id) : std::string_view());
    cj["reason"] = c.estimate.reason_text();
    if (c.estimate.valid()) cj["memory_bytes"] = c.estimate.memory.total_bytes;
    j["closest"].push_back(cj);
  }
  if (a.result.top.empty() && a.result.space > 0) {
    j["min_gpus_that_fit"] = a.min_gpus_that_fit;
    j["min_gpus_tried"] = a.min_gpus_tried;
  }
  if (!a.empty_space.empty()) {
    j["empty_space"] = {{"reason", a.empty_space}, {"batch_below", a.batch_below}, {"batch_above", a.batch_above}};
  }
  add_default_system_json(j, ctx.system, *ctx.gpu, a.setup.system_defaulted);
  add_calibration_json(j, a.setup.calibration_profile, a.setup.calibration_notes);
  return j;
}

std::string to_text(const SearchAnswer& a) {
  const TrainContext& ctx = a.setup.ctx;
  const SearchResult& r = a.result;
  const double price = a.options.usd_per_gpu_hour;
  std::string out = fmt::format(
      "{} on {} × {}: {} plans in the space, {} evaluated ({} feasible), {} pruned, {:.3f} s on {} threads{}\n",
      ctx.model->id, a.space.gpus, ctx.gpu->id, fmt_number(static_cast<double>(r.space)),
      fmt_number(static_cast<double>(r.evaluated)), fmt_number(static_cast<double>(r.feasible)),
      fmt_number(static_cast<double>(r.pruned)), r.elapsed_s, r.threads,
      r.complete ? "" : " (stopped by --time-limit: not exhaustive)");
  out += fmt::format("objective: {}", objective_name(a.options.objective));
  if (price > 0) out += fmt::format(" · ${:.2f}/GPU-hour ({})", price, a.price_source);
  out += "\n";
  out += default_system_text(ctx.system, *ctx.gpu, a.setup.system_defaulted);
  if (r.top.empty() && !a.empty_space.empty()) {
    out += "\nno plan in the space: " + a.empty_space + "\n";
    return out + calibration_text(a.setup.calibration_notes);
  }
  if (r.top.empty()) {
    out += "\nno plan fits. The closest:\n";
    for (const Candidate& c : r.closest) {
      out += fmt::format("  {}\n    fails: {}\n", plan_summary(c.plan, *ctx.model), c.estimate.reason_text());
    }
    if (a.min_gpus_that_fit > 0) {
      out += fmt::format("fewest GPUs that fit (doubling from {}): {}; try --gpus {}\n", a.space.gpus,
                         a.min_gpus_that_fit, a.min_gpus_that_fit);
    } else if (a.min_gpus_tried > 0) {
      out += fmt::format("no plan fits up to {} GPUs either (doubling from {}): ", a.min_gpus_tried, a.space.gpus);
    }
    out += "try more GPUs, a shorter --seq-len, a smaller --global-batch, or a GPU with more memory\n";
    return out + calibration_text(a.setup.calibration_notes);
  }
  TextTable t({"#", "plan", "step", "tokens/s", "MFU", "memory", "$/step"},
              {TextTable::Align::right, TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right});
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    const Candidate& c = r.top[i];
    const Estimate& e = c.estimate;
    t.add_row({std::to_string(i + 1), plan_summary(c.plan, *ctx.model), format_seconds(e.step_time_s),
               fmt_number(e.tokens_per_s), fmt::format("{:.1f}%", 100 * e.mfu),
               fmt::format("{:.1f} GiB", e.memory.total_bytes / kGiB),
               price > 0 ? fmt::format("{:.2f}", a.top_usd_per_step[i]) : "-"});
  }
  out += "\n";
  out += t.render();
  if (!a.best_unvalidated.empty()) {
    out += "\nnote: the best plan uses what the training validation does not cover (docs/validation.md):\n";
    for (const std::string& line : a.best_unvalidated) out += "  - " + line + "\n";
  }
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    out += fmt::format("\n#{} ", i + 1) + train_text(ctx, r.top[i].plan, r.top[i].estimate, a.top_placement[i]);
  }
  return out + calibration_text(a.setup.calibration_notes);
}

}  // namespace gpuplan
