#include "report/sweep_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/table.h"
#include "core/units.h"
#include "report/train_report.h"

namespace gpuplan {

std::string to_text(const SweepAnswer& a) {
  const SweepSetup& setup = *a.setup;
  const MergedSweep& merged = a.merged;
  const SweepSpec& spec = setup.spec;
  std::string out = fmt::format(
      "sweep {}: {} cells ({} models × {} GPUs × {} counts), objective {}, on {} rank{} × {} thread{} in {:.2f} s\n",
      spec.file, setup.cells.size(), spec.models.size(), spec.gpus.size(), spec.gpu_counts.size(),
      objective_name(spec.objective), merged.ranks.size(), merged.ranks.size() == 1 ? "" : "s", a.threads,
      a.threads == 1 ? "" : "s", a.elapsed_s);
  TextTable t({"model", "GPU", "GPUs", "best plan", "step", "tokens/s", "MFU", "memory", "$/step"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::right, TextTable::Align::left,
               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
               TextTable::Align::right});
  for (const SweepCellResult& c : merged.cells) {
    const SweepCell& cell = setup.cells[static_cast<std::size_t>(c.cell)];
    const ModelSpec& model = *setup.models[static_cast<std::size_t>(cell.model_idx)];
    if (!c.feasible()) {
      t.add_row({c.model, c.gpu, std::to_string(c.gpus), "no plan fits: " + c.reason, "-", "-", "-",
                 c.closest ? fmt::format("{:.1f} GiB", c.closest->memory_bytes / kGiB) : "-", "-"});
      continue;
    }
    const SweepPlanRow& best = c.top.front();
    t.add_row({c.model, c.gpu, std::to_string(c.gpus), plan_summary(best.plan, model), format_seconds(best.step_time_s),
               fmt_number(best.tokens_per_s), fmt::format("{:.1f}%", 100 * best.mfu),
               fmt::format("{:.1f} GiB", best.memory_bytes / kGiB),
               c.usd_per_gpu_hour > 0 ? fmt::format("{:.2f}", best.usd_per_step) : "-"});
  }
  out += "\n";
  out += t.render();
  if (merged.ranks.size() > 1) {
    out += "\nper rank:";
    for (const RankTiming& r : merged.ranks) out += fmt::format(" {}: {} cells {:.2f} s;", r.rank, r.cells, r.elapsed_s);
    out.back() = '\n';
  }
  for (const std::string& path : a.written) out += fmt::format("wrote {}\n", path);
  return out;
}

nlohmann::ordered_json to_json(const SweepAnswer& a) {
  const SweepSetup& setup = *a.setup;
  const MergedSweep& merged = a.merged;
  const SweepSpec& spec = setup.spec;
  nlohmann::ordered_json j;
  j["spec"] = spec.file;
  j["cells"] = setup.cells.size();
  j["infeasible_cells"] =
      std::count_if(merged.cells.begin(), merged.cells.end(), [](const SweepCellResult& c) { return !c.feasible(); });
  j["ranks"] = merged.ranks.size();
  j["threads_per_rank"] = a.threads;
  j["elapsed_s"] = a.elapsed_s;
  j["per_rank"] = nlohmann::ordered_json::array();
  for (const RankTiming& r : merged.ranks) {
    j["per_rank"].push_back({{"rank", r.rank}, {"cells", r.cells}, {"elapsed_s", r.elapsed_s}});
  }
  j["csv"] = spec.out_csv;
  j["json"] = spec.out_json;
  return j;
}

}  // namespace gpuplan
