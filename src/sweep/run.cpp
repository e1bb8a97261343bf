#include <nlohmann/json.hpp>
#include "sweep/run.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include <nlohmann/json.hpp>

#include "sweep/partition.h"

namespace gpuplan {
namespace {

SweepPlanRow plan_row(const Candidate& c, int rank, const SweepCell& cell, double usd_per_gpu_hour) {
  SweepPlanRow r;
  r.rank = rank;
  r.plan = c.plan;
  r.score = c.score;
  const Estimate& e = c.estimate;
  r.step_time_s = e.step_time_s;
  r.tokens_per_s = e.tokens_per_s;
  r.tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
  r.mfu = e.mfu;
  r.memory_bytes = e.memory.total_bytes;
  r.memory_capacity_bytes = e.memory_capacity_bytes;
  r.usd_per_step = usd_per_gpu_hour > 0 ? step_cost_usd(e.step_time_s, cell.gpus, usd_per_gpu_hour) : 0;
  r.bottleneck = bottleneck_name(e.bottleneck);
  return r;
}

}  // namespace

SweepCellResult run_cell(const SweepSetup& setup, const SweepCell& cell, int threads) {
  const TrainContext& ctx = setup.context(cell);
  const SweepGpu& gpu = setup.gpus[static_cast<std::size_t>(cell.gpu_idx)];
  const SearchResult sr = search_plans(ctx, setup.space(cell), setup.options(cell, threads));
  SweepCellResult r;
  r.cell = cell.index;
  r.model = ctx.model->id;
  r.gpu = gpu.gpu->id;
  r.system = ctx.system ? ctx.system->id : "";
  r.gpus = cell.gpus;
  r.plans_in_space = sr.space;
  r.complete = sr.complete;
  r.usd_per_gpu_hour = gpu.usd_per_gpu_hour;
  r.price_source = gpu.price_source;
  for (std::size_t i = 0; i < sr.top.size(); ++i) {
    r.top.push_back(plan_row(sr.top[i], static_cast<int>(i) + 1, cell, gpu.usd_per_gpu_hour));
  }
  if (r.top.empty()) {
    // Only a structurally valid closest plan is reported: the search keeps its valid plans by
    // least memory over the whole space (the same on any thread count), but invalid ones in
    // the order its threads met them.
    if (!sr.closest.empty() && sr.closest.front().estimate.valid()) {
      r.closest = plan_row(sr.closest.front(), 0, cell, gpu.usd_per_gpu_hour);
      r.reason = sr.closest.front().estimate.reason_text();
    } else {
      r.reason = "no structurally valid plan: check that the GPU count, global batch and model shape divide";
    }
  }
  return r;
}

std::vector<int> rank_cells(const SweepSetup& setup, int rank, int ranks) {
  std::vector<double> cost;
  cost.reserve(setup.cells.size());
  for (const SweepCell& c : setup.cells) cost.push_back(static_cast<double>(std::max(1LL, c.plans_in_space)));
  return partition_cells(cost, ranks)[static_cast<std::size_t>(rank)];
}

std::string rank_payload(int rank, const std::vector<SweepCellResult>& cells, double elapsed_s) {
  nlohmann::ordered_json payload;
  payload["rank"] = rank;
  payload["elapsed_s"] = elapsed_s;
  payload["cells"] = nlohmann::ordered_json::array();
  for (const SweepCellResult& c : cells) payload["cells"].push_back(cell_result_json(c));
  return payload.dump();
}

std::string run_rank(const SweepSetup& setup, int rank, int ranks, int threads, const ProgressSink* progress) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<SweepCellResult> results;
  const std::vector<int> mine = rank_cells(setup, rank, ranks);
  ProgressCounter cells_done(progress, static_cast<std::int64_t>(mine.size()));
  for (int idx : mine) {
    results.push_back(run_cell(setup, setup.cells[static_cast<std::size_t>(idx)], threads));
    cells_done.advance();
  }
  return rank_payload(rank, results, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace gpuplan
