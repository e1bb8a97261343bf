// gpuplan monitor over a fake sampler: throttle decoding, NVLink rates, CSV, table, JSON, and
// the path where NVML is missing.
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "fake_sampler.h"
#include "monitor/monitor.h"
#include "monitor/nvml_sampler.h"
#include "test_util.h"

namespace gpuplan {
namespace {

using testing::busy_h100;
using testing::FakeSampler;

// A clock that advances only when the monitor sleeps.
struct FakeClock {
  double now = 100.0;
  std::vector<double> sleeps;
  MonitorIo io(std::ostream* out, std::ostream* csv) {
    MonitorIo result;
    result.out = out;
    result.csv = csv;
    result.now_s = [this] { return now; };
    result.sleep_s = [this](double s) {
      sleeps.push_back(s);
      now += s;
    };
    return result;
  }
};

TEST(Throttle, DecodesEveryKnownBitAndKeepsUnknownOnes) {
  EXPECT_EQ(throttle_reasons_text(0), "none");
  EXPECT_EQ(throttle_reasons_text(0x4), "sw_power_cap");
  EXPECT_EQ(throttle_reasons_text(0x1 | 0x40), "gpu_idle|hw_thermal_slowdown");
  const auto names = throttle_reason_names(0x1ff);
  ASSERT_EQ(names.size(), 9u);
  EXPECT_EQ(names.front(), "gpu_idle");
  EXPECT_EQ(names.back(), "display_clock_setting");
  EXPECT_EQ(throttle_reasons_text(0x8 | 0x1000), "hw_slowdown|unknown_0x1000");
}

TEST(NvlinkRate, DifferenceOverElapsedTimeAndNoNegativeRates) {
  GpuSample before = busy_h100(1e9);
  GpuSample after = busy_h100(3e9);
  fill_nvlink_rates(before, after, 2.0);
  ASSERT_TRUE(after.nvlink_tx_bytes_per_s);
  EXPECT_DOUBLE_EQ(*after.nvlink_tx_bytes_per_s, 1e9);  // (3e9 - 1e9) B / 2 s
  EXPECT_DOUBLE_EQ(*after.nvlink_rx_bytes_per_s, 0.5e9);
  GpuSample reset = busy_h100(0.5e9);  // counter went backwards: driver reloaded
  fill_nvlink_rates(after, reset, 1.0);
  EXPECT_FALSE(reset.nvlink_tx_bytes_per_s);
  GpuSample no_link;  // a PCIe card: no counters, no rate
  fill_nvlink_rates(no_link, no_link, 1.0);
  EXPECT_FALSE(no_link.nvlink_tx_bytes_per_s);
}

TEST(Monitor, CsvHasAHeaderAndOneRowPerGpuPerRound) {
  GpuSample pcie_card;
  pcie_card.name = "NVIDIA L4";
  pcie_card.gpu_util_pct = 3;
  FakeSampler sampler({{busy_h100(0), busy_h100(4e9)}, {pcie_card}});
  FakeClock clock;
  std::ostringstream csv;
  run_monitor(sampler, {.interval_s = 2.0, .count = 2, .json = false}, clock.io(nullptr, &csv));
  EXPECT_EQ(clock.sleeps, std::vector<double>{2.0});  // no sleep before the first round

  const CsvTable table = CsvTable::parse(csv.str(), "monitor.csv");
  ASSERT_EQ(table.header(), monitor_csv_columns());
  ASSERT_EQ(table.rows().size(), 4u);
  const auto& second_h100 = table.rows()[2];
  EXPECT_EQ(table.cell(second_h100, table.column("time_s")), "2.000");
  EXPECT_EQ(table.cell(second_h100, table.column("name")), "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(table.number(second_h100, table.column("power_w")), 699.5);
  EXPECT_DOUBLE_EQ(table.number(second_h100, table.column("sm_clock_hz")), 1755e6);
  EXPECT_EQ(table.cell(second_h100, table.column("throttle_reasons")), "sw_power_cap");
  EXPECT_EQ(table.cell(second_h100, table.column("throttle_reasons_mask")), "0x4");
  EXPECT_DOUBLE_EQ(table.number(second_h100, table.column("nvlink_tx_bytes_per_s")), 2e9);  // 4e9 B / 2 s
  // First round: no previous counter, so no NVLink rate; the PCIe card leaves its blanks blank.
  EXPECT_EQ(table.cell(table.rows()[0], table.column("nvlink_tx_bytes_per_s")), "");
  EXPECT_EQ(table.cell(table.rows()[1], table.column("power_w")), "");
  EXPECT_EQ(table.cell(table.rows()[1], table.column("throttle_reasons")), "");
}

TEST(Monitor, CsvQuotesNamesWithCommas) {
  GpuSample odd;
  odd.name = "GPU, \"renamed\"";
  const std::string row = monitor_csv_row(0, odd);
  EXPECT_EQ(row.rfind("0.000,0,\"GPU, \"\"renamed\"\"\",", 0), 0u) << row;
  const std::string header = fmt::format("{}\n", fmt::join(monitor_csv_columns(), ","));
  const CsvTable table = CsvTable::parse(header + row, "row.csv");
  EXPECT_EQ(table.cell(table.rows()[0], table.column("name")), "GPU, \"renamed\"");
}

TEST(Monitor, TableShowsHumanUnits) {
  const std::string text = monitor_table_text(1.0, {busy_h100(0)});
  EXPECT_NE(text.find("71.5 / 85.0"), std::string::npos) << text;  // GB
  EXPECT_NE(text.find("1,755"), std::string::npos) << text;        // SM MHz
  EXPECT_NE(text.find("700 / 700"), std::string::npos) << text;    // W (699.5 rounds up)
  EXPECT_NE(text.find("12 / 34"), std::string::npos) << text;      // PCIe MB/s
  EXPECT_NE(text.find("sw_power_cap"), std::string::npos) << text;
}

TEST(Monitor, JsonIsOneObjectPerRoundWithNullsForMissingFigures) {
  GpuSample bare;
  bare.name = "bare";
  FakeSampler sampler({{busy_h100(0)}, {bare}});
  FakeClock clock;
  std::ostringstream out;
  run_monitor(sampler, {.interval_s = 0.5, .count = 3, .json = true}, clock.io(&out, nullptr));
  std::istringstream lines(out.str());
  std::string line;
  int rounds = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), 0.5 * rounds);
    ASSERT_EQ(j["gpus"].size(), 2u);
    EXPECT_EQ(j["gpus"][0]["throttle_reasons"], nlohmann::json::array({"sw_power_cap"}));
    EXPECT_TRUE(j["gpus"][1]["power_w"].is_null());
    ++rounds;
  }
  EXPECT_EQ(rounds, 3);
}

TEST(Monitor, MissingNvmlSaysSoPlainly) {
  try {
    open_nvml_sampler("/nonexistent/libnvidia-ml.so.1");
    FAIL() << "expected NvmlUnavailable";
  } catch (const NvmlUnavailable& e) {
    EXPECT_EQ(std::string(e.what()).rfind("NVML not found: no NVIDIA driver on this machine", 0), 0u) << e.what();
  }
}

TEST(Monitor, CliWithoutNvmlFailsWithTheMessageAndWritesNoCsv) {
  const auto dir = testing::scratch_dir("monitor-no-nvml");
  const auto csv = dir / "samples.csv";
  const auto r = testing::run({"monitor", "--count", "1", "--csv", csv.string(), "--nvml-library",
                               "/nonexistent/libnvidia-ml.so.1"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("NVML not found: no NVIDIA driver on this machine"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(csv));
}

TEST(Monitor, CliRejectsABadInterval) {
  const auto r = testing::run({"monitor", "--interval", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--interval"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
