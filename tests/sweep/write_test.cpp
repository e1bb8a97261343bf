// The result writers and the cell JSON that carries results between ranks: lossless numbers,
// RFC 4180 quoting, one row per ranked plan, and byte-stable round trips.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include <nlohmann/json.hpp>
#include "core/csv.h"
#include "core/error.h"
#include "sweep/result.h"
#include "sweep/write.h"

namespace gpuplan {
namespace {

SweepSpec spec() {
  SweepSpec s;
  s.file = "s.json";
  s.models = {"m"};
  s.gpus = {"g"};
  s.gpu_counts = {8};
  s.global_batch = 64;
  s.seq_len = 4096;
  return s;
}

SweepPlanRow plan_row(int rank, double step_time_s) {
  SweepPlanRow r;
  r.rank = rank;
  r.plan.tp = 2;
  r.plan.dp = 4;
  r.plan.zero = 1;
  r.plan.global_batch = 64;
  r.plan.seq_len = 4096;
  r.plan.recompute = Recompute::selective;
  r.score = step_time_s;
  r.step_time_s = step_time_s;
  r.tokens_per_s = 64 * 4096 / step_time_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / 8;
  r.mfu = 0.1 + 0.2;  // 0.30000000000000004: must survive the trip
  r.memory_bytes = 123456789012.5;
  r.memory_capacity_bytes = 80e9;
  r.usd_per_step = 1e-300;
  r.bottleneck = "compute";
  return r;
}

SweepCellResult feasible_cell() {
  SweepCellResult c;
  c.cell = 0;
  c.model = "m";
  c.gpu = "g";
  c.system = "sys";
  c.gpus = 8;
  c.plans_in_space = 1234;
  c.usd_per_gpu_hour = 2.99;
  c.price_source = "lambda 8x H100, on-demand, 2025-06-10";  // a comma: quoted in CSV
  c.top = {plan_row(1, 1.0 / 3), plan_row(2, 0.5)};
  return c;
}

SweepCellResult infeasible_cell() {
  SweepCellResult c;
  c.cell = 1;
  c.model = "m";
  c.gpu = "g";
  c.gpus = 1;
  c.plans_in_space = 12;
  c.closest = plan_row(0, 2.0);
  c.reason = "needs 115 GiB, \"has\" 80";
  return c;
}

TEST(SweepWrite, CellJsonRoundTripsByteForByte) {
  for (const SweepCellResult& c : {feasible_cell(), infeasible_cell()}) {
    const std::string text = cell_result_json(c).dump();
    const SweepCellResult back = cell_result_from_json(nlohmann::json::parse(text));
    EXPECT_EQ(cell_result_json(back).dump(), text);
    if (c.feasible()) {
      // Doubles come back exactly, not to some decimals.
      EXPECT_EQ(back.top[0].step_time_s, 1.0 / 3);
      EXPECT_EQ(back.top[0].mfu, 0.1 + 0.2);
      EXPECT_EQ(back.top[0].usd_per_step, 1e-300);
      EXPECT_EQ(back.top[0].plan.recompute, Recompute::selective);
    } else {
      ASSERT_TRUE(back.closest.has_value());
      EXPECT_EQ(back.reason, c.reason);
    }
  }
}

TEST(SweepWrite, MalformedCellJsonIsAnError) {
  nlohmann::json j = cell_result_json(feasible_cell());
  j.erase("gpus");
  EXPECT_THROW(cell_result_from_json(j), Error);
}

TEST(SweepWrite, CsvHasOneRowPerRankedPlanAndReadsBack) {
  const std::string text = sweep_csv(spec(), {feasible_cell(), infeasible_cell()});
  const CsvTable t = CsvTable::parse(text, "sweep.csv");
  ASSERT_EQ(t.rows().size(), 3u);
  const auto& r = t.rows();
  EXPECT_EQ(t.text(r[0], t.column("status")), "ok");
  EXPECT_EQ(t.integer(r[1], t.column("rank")), 2);
  EXPECT_EQ(t.text(r[0], t.column("price_source")), "lambda 8x H100, on-demand, 2025-06-10");
  EXPECT_EQ(t.text(r[0], t.column("recompute")), "selective");
  EXPECT_EQ(t.integer(r[0], t.column("dp_shard")), 4);  // "all of dp" written as the number
  // Shortest round-trip formatting: the CSV holds the exact doubles.
  EXPECT_EQ(std::strtod(std::string(t.cell(r[0], t.column("step_time_s"))).c_str(), nullptr), 1.0 / 3);
  EXPECT_EQ(std::strtod(std::string(t.cell(r[0], t.column("mfu"))).c_str(), nullptr), 0.1 + 0.2);
  // The infeasible cell: its closest plan's memory and the reason, no ranked metrics.
  EXPECT_EQ(t.text(r[2], t.column("status")), "infeasible");
  EXPECT_EQ(t.cell(r[2], t.column("rank")), "");
  EXPECT_EQ(t.cell(r[2], t.column("step_time_s")), "");
  EXPECT_EQ(t.number(r[2], t.column("memory_bytes")), 123456789012.5);
  EXPECT_EQ(t.text(r[2], t.column("reason")), "needs 115 GiB, \"has\" 80");
  EXPECT_EQ(t.cell(r[2], t.column("usd_per_gpu_hour")), "");
  // Every line as wide as the header.
  for (const auto& row_cells : r) EXPECT_EQ(row_cells.cells.size(), t.header().size());
}

TEST(SweepWrite, JsonCarriesTheSpecButNoOutputPathsOrTimings) {
  SweepSpec s = spec();
  s.out_csv = "somewhere/a.csv";
  const std::string text = sweep_json(s, {feasible_cell(), infeasible_cell()});
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema"], kSweepSchema);
  EXPECT_EQ(j["cells"], 2);
  EXPECT_EQ(j["spec"]["seq_len"], 4096);
  EXPECT_EQ(j["results"][1]["status"], "infeasible");
  EXPECT_EQ(text.find("somewhere"), std::string::npos);
  EXPECT_EQ(text.find("elapsed"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}

TEST(SweepWrite, UnwritablePathIsNamed) {
  const std::string path = "/proc/gpuplan-cannot-write-here/a.csv";
  for (const auto& attempt : {std::function<void()>([&] { write_text_file(path, "x"); }),
                              std::function<void()>([&] { check_writable(path); })}) {
    try {
      attempt();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(SweepWrite, CheckWritableLeavesAnExistingFileAlone) {
  const auto dir = std::filesystem::temp_directory_path() / "gpuplan-test-sweep-writable";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "r.csv").string();
  check_writable(path);  // creates the folder and an empty file
  EXPECT_TRUE(std::filesystem::exists(path));
  write_text_file(path, "kept");
  check_writable(path);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "kept");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuplan
