#include <nlohmann/json.hpp>
#include "sweep/merge.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace gpuplan {

MergedSweep merge_payloads(const std::vector<std::string>& payloads, std::size_t cell_count) {
  std::vector<std::optional<SweepCellResult>> slots(cell_count);
  MergedSweep merged;
  for (std::size_t rank = 0; rank < payloads.size(); ++rank) {
    nlohmann::json j;
    RankTiming timing;
    try {
      j = nlohmann::json::parse(payloads[rank]);
      timing.rank = j.at("rank").get<int>();
      timing.elapsed_s = j.at("elapsed_s").get<double>();
      timing.cells = static_cast<int>(j.at("cells").size());
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("sweep: malformed results from rank {}: {}", rank, e.what()));
    }
    for (const auto& cj : j.at("cells")) {
      SweepCellResult cell = cell_result_from_json(cj);
      const auto idx = static_cast<std::size_t>(cell.cell);
      if (cell.cell < 0 || idx >= cell_count) {
        throw Error(fmt::format("sweep: rank {} sent cell {} of a {}-cell sweep; do all ranks read the same spec?",
                                rank, cell.cell, cell_count));
      }
      if (slots[idx]) {
        throw Error(fmt::format("sweep: cell {} came back twice (again from rank {}); do all ranks read the same spec?",
                                cell.cell, rank));
      }
      slots[idx] = std::move(cell);
    }
    merged.ranks.push_back(timing);
  }
  for (std::size_t idx = 0; idx < cell_count; ++idx) {
    if (!slots[idx]) throw Error(fmt::format("sweep: no rank sent cell {}; do all ranks read the same spec?", idx));
    merged.cells.push_back(std::move(*slots[idx]));
  }
  return merged;
}

}  // namespace gpuplan
