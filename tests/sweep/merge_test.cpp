// A sweep split over N ranks merges into the same result files as one process: cells run on
// any rank give the same bytes, and the merge puts them in cell order whatever the partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/error.h"
#include "sweep/merge.h"
#include "sweep/partition.h"
#include "sweep/run.h"
#include "sweep/write.h"

namespace gpuplan {
namespace {

// 2 GPUs × 3 counts of Llama 3 8B: one GPU cannot hold its training state (an infeasible
// cell), 8 and 16 can.
SweepSetup small_setup() {
  const Catalog& cat = default_catalog();
  SweepSpec spec;
  spec.file = "test.json";
  spec.models = {"llama3-8b"};
  spec.gpus = {"h100-sxm", "a100-sxm-80gb"};
  spec.gpu_counts = {1, 8, 16};
  spec.global_batch = 32;
  spec.seq_len = 2048;
  spec.top_k = 2;
  return make_sweep_setup(cat, spec, {&cat.model("llama3-8b")});
}

// Every cell's result, run once (single-threaded) and shared by the tests.
const std::vector<SweepCellResult>& all_results() {
  static const std::vector<SweepCellResult> results = [] {
    const SweepSetup setup = small_setup();
    std::vector<SweepCellResult> r;
    for (const SweepCell& c : setup.cells) r.push_back(run_cell(setup, c, 1));
    return r;
  }();
  return results;
}

// The payloads N ranks would send, built from the shared results by the real partition.
std::vector<std::string> payloads_for(const SweepSetup& setup, int ranks) {
  std::vector<std::string> payloads;
  for (int rank = 0; rank < ranks; ++rank) {
    std::vector<SweepCellResult> mine;
    for (int idx : rank_cells(setup, rank, ranks)) mine.push_back(all_results()[static_cast<std::size_t>(idx)]);
    payloads.push_back(rank_payload(rank, mine, 0.5 * rank));  // timings differ by rank
  }
  return payloads;
}

TEST(SweepMerge, SetupEnumeratesCellsModelMajorThenGpuThenCount) {
  const SweepSetup setup = small_setup();
  ASSERT_EQ(setup.cells.size(), 6u);
  EXPECT_EQ(setup.cells[4].gpu_idx, 1);
  EXPECT_EQ(setup.cells[4].gpus, 8);
  for (std::size_t i = 0; i < setup.cells.size(); ++i) EXPECT_EQ(setup.cells[i].index, static_cast<int>(i));
  EXPECT_GT(setup.cells[2].plans_in_space, setup.cells[0].plans_in_space);
}

TEST(SweepMerge, CellsMatchGpuplanSearch) {
  const SweepSetup setup = small_setup();
  const auto& r = all_results();
  EXPECT_FALSE(r[0].feasible()) << "8B training state on one H100";
  ASSERT_TRUE(r[0].closest.has_value());
  EXPECT_GT(r[0].closest->memory_bytes, r[0].closest->memory_capacity_bytes);
  EXPECT_FALSE(r[0].reason.empty());
  EXPECT_EQ(r[0].system, "");
  for (std::size_t i : {1u, 2u, 4u, 5u}) {
    ASSERT_TRUE(r[i].feasible()) << i;
    EXPECT_EQ(r[i].top.size(), 2u);
    EXPECT_FALSE(r[i].system.empty());
    EXPECT_LE(r[i].top[0].score, r[i].top[1].score);
    EXPECT_EQ(r[i].top[0].rank, 1);
  }
  // The same search `gpuplan search` runs, with more threads: the same best plan.
  const SweepCell& c = setup.cells[2];
  const SearchResult sr = search_plans(setup.context(c), setup.space(c), setup.options(c, 2));
  ASSERT_FALSE(sr.top.empty());
  EXPECT_EQ(sr.top[0].estimate.step_time_s, r[2].top[0].step_time_s);
  EXPECT_EQ(sr.top[0].plan.tp, r[2].top[0].plan.tp);
  EXPECT_EQ(sr.space, r[2].plans_in_space);
}

TEST(SweepMerge, FilesAreTheSameBytesForAnyRankCount) {
  const SweepSetup setup = small_setup();
  const MergedSweep one = merge_payloads(payloads_for(setup, 1), setup.cells.size());
  const std::string csv = sweep_csv(setup.spec, one.cells);
  const std::string one_rank_json = sweep_json(setup.spec, one.cells);
  for (int ranks = 2; ranks <= 8; ++ranks) {
    std::vector<std::string> payloads = payloads_for(setup, ranks);
    // The merge may not rely on the gather's order either.
    std::shuffle(payloads.begin(), payloads.end(), std::mt19937(static_cast<unsigned>(ranks)));
    const MergedSweep merged = merge_payloads(payloads, setup.cells.size());
    EXPECT_EQ(merged.ranks.size(), static_cast<std::size_t>(ranks));
    EXPECT_EQ(sweep_csv(setup.spec, merged.cells), csv) << ranks << " ranks";
    EXPECT_EQ(sweep_json(setup.spec, merged.cells), one_rank_json) << ranks << " ranks";
  }
}

TEST(SweepMerge, RunRankOnThreeRanksEqualsOneProcess) {
  // The real run_rank, on different thread counts: the search's answer does not depend on them.
  const SweepSetup setup = small_setup();
  const MergedSweep one = merge_payloads({run_rank(setup, 0, 1, 2)}, setup.cells.size());
  std::vector<std::string> payloads;
  for (int rank = 0; rank < 3; ++rank) payloads.push_back(run_rank(setup, rank, 3, 1));
  const MergedSweep three = merge_payloads(payloads, setup.cells.size());
  EXPECT_EQ(sweep_csv(setup.spec, three.cells), sweep_csv(setup.spec, one.cells));
  EXPECT_EQ(sweep_json(setup.spec, three.cells), sweep_json(setup.spec, one.cells));
  int cells = 0;
  for (const RankTiming& t : three.ranks) cells += t.cells;
  EXPECT_EQ(cells, 6);
}

TEST(SweepMerge, MissingOrRepeatedCellsAreErrors) {
  const SweepSetup setup = small_setup();
  std::vector<std::string> payloads = payloads_for(setup, 2);
  EXPECT_THROW(merge_payloads({payloads[0]}, setup.cells.size()), Error);
  EXPECT_THROW(merge_payloads({payloads[0], payloads[1], payloads[1]}, setup.cells.size()), Error);
  EXPECT_THROW(merge_payloads({payloads[0], payloads[1]}, setup.cells.size() - 1), Error);
  EXPECT_THROW(merge_payloads({payloads[0], "{\"rank\": 1}"}, setup.cells.size()), Error);
}

}  // namespace
}  // namespace gpuplan
