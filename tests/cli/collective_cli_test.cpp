// `gpuplan collective` and `gpuplan validate collectives` end to end, in process.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

using testing::run;

TEST(CollectiveCli, JsonHasTheNcclTestsFigures) {
  const auto r =
      run({"collective", "--op", "allgather", "--bytes", "32MiB", "--gpus", "8", "--system", "dgx-h100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bytes"].get<double>(), 33554432.0);
  const double t = j["time_s"].get<double>();
  EXPECT_NEAR(j["algbw_bytes_per_s"].get<double>(), 33554432.0 / t, 1);
  EXPECT_NEAR(j["busbw_bytes_per_s"].get<double>(), 33554432.0 / t * 7 / 8, 1);
  EXPECT_EQ(j["algorithm"], "ring");
  EXPECT_TRUE(j.contains("protocol"));
  EXPECT_TRUE(j.contains("why"));
  EXPECT_TRUE(j.contains("bottleneck_level"));
  EXPECT_GE(j["candidates"].size(), 2u);
}

// The why names NCCL's LL ceiling where it set the rate: a 1 MiB ring LL AllGather on 8 H100
// runs at Hopper's llMaxBw, 141 GB/s of bus bandwidth per GPU (data/fitted/collectives/nccl.toml),
// below NVLink 4's rate; at 32 MiB (LL128, 0.92 of the links on all channels) nothing caps it.
TEST(CollectiveCli, WhyNamesNcclsLlCeilingWhereItBinds) {
  const auto ll =
      run({"collective", "--op", "allgather", "--bytes", "1MiB", "--gpus", "8", "--system", "dgx-h100", "--json"});
  ASSERT_EQ(ll.code, 0) << ll.err;
  const auto j = nlohmann::json::parse(ll.out);
  ASSERT_EQ(j["protocol"], "LL");
  EXPECT_NE(j["why"].get<std::string>().find("LL runs at NCCL's ceiling for it (llMaxBw: 141 GB/s per GPU)"),
            std::string::npos)
      << j["why"];
  // The level runs at the cap, below its links' 450 GB/s; the transfer is its bytes at that rate.
  EXPECT_DOUBLE_EQ(j["levels"][0]["bw_bytes_per_s"].get<double>(), 141e9);
  EXPECT_DOUBLE_EQ(j["levels"][0]["line_bw_bytes_per_s"].get<double>(), 450e9);
  EXPECT_NEAR(j["transfer_s"].get<double>(), 917504.0 / 141e9, 1e-12);
  const auto big =
      run({"collective", "--op", "allgather", "--bytes", "32MiB", "--gpus", "8", "--system", "dgx-h100", "--json"});
  ASSERT_EQ(big.code, 0) << big.err;
  EXPECT_EQ(nlohmann::json::parse(big.out)["why"].get<std::string>().find("ceiling"), std::string::npos);
}

// SendRecv runs NCCL's send/receive kernel, as AllToAll does, at the shipped point-to-point
// fraction (issue 32, round 4): 64 MiB between 2 A100s of a DGX A100 (16 starting channels, 4 MiB
// parts) moves at 0.828 x 0.777 x 300 GB/s = 193.0 GB/s, the level's rate in the JSON breakdown,
// and the why says so. 1 GiB NCCL spreads from 16 channels to 32 (32 MiB parts): the loss halves,
// (1 - 0.172 x 16/32) x 0.777 x 300 GB/s = 0.914 x 233.1 = 213.05 GB/s, and the why names the
// spread (issue 32, fourteenth session).
TEST(CollectiveCli, SendRecvNamesThePointToPointKernelsFraction) {
  const auto r =
      run({"collective", "--op", "sendrecv", "--bytes", "64MiB", "--gpus", "2", "--system", "dgx-a100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["why"].get<std::string>().find("NCCL's send/receive kernel delivers 0.828 x the links' rate"),
            std::string::npos)
      << j["why"];
  EXPECT_NEAR(j["levels"][0]["bw_bytes_per_s"].get<double>(), 0.828 * 0.777 * 300e9, 1e6);
  EXPECT_NEAR(j["transfer_s"].get<double>(), 67108864.0 / (0.828 * 0.777 * 300e9), 1e-9);
  const auto big =
      run({"collective", "--op", "sendrecv", "--bytes", "1GiB", "--gpus", "2", "--system", "dgx-a100", "--json"});
  ASSERT_EQ(big.code, 0) << big.err;
  const auto b = nlohmann::json::parse(big.out);
  EXPECT_NE(b["why"].get<std::string>().find("NCCL spreads each peer over 32 channels, not its 16 starting ones"),
            std::string::npos)
      << b["why"];
  EXPECT_NEAR(b["levels"][0]["bw_bytes_per_s"].get<double>(), 0.914 * 0.777 * 300e9, 1e6);
  EXPECT_NEAR(b["transfer_s"].get<double>(), 1073741824.0 / (0.914 * 0.777 * 300e9), 1e-9);
}

// The grouped send/receive fixed cost runs at the GPU's clock (issue 32, sixteenth session): an
// 8 x A100 AllToAll of 512 B pays the shipped 9.8 us x 1,980 / 1,410 = 13.762 us, plus one NVLink 3
// LL hop 0.55 us x 1.404 = 0.772 us: 14.534 us of latency; the JSON and the text both show it.
TEST(CollectiveCli, AllToAllShowsItsFixedCostAtTheGpusClock) {
  const auto r =
      run({"collective", "--op", "alltoall", "--bytes", "512", "--gpus", "8", "--system", "dgx-a100", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["p2p_fixed_cost_s"].get<double>(), 9.8e-6 * 1980 / 1410, 1e-12);
  EXPECT_NEAR(j["latency_s"].get<double>(), 9.8e-6 * 1980 / 1410 + 0.55e-6 * 1.404, 1e-12);
  const auto text = run({"collective", "--op", "alltoall", "--bytes", "512", "--gpus", "8", "--system", "dgx-a100"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("fixed cost 13.8 us (p2p_us at Hopper's 1,980 MHz"), std::string::npos) << text.out;
}

// The answer names the transport and the protocol it assumed: two A3 Mega nodes run Simple
// only (Google's TCPXO profile), and the text says so.
TEST(CollectiveCli, NamesTheTransportAndProtocol) {
  const auto r =
      run({"collective", "--op", "allreduce", "--bytes", "64KiB", "--gpus", "16", "--system", "gcp-a3-mega", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["transport"]["id"], "tcpxo");
  EXPECT_EQ(j["transport"]["family"], "cloud");
  EXPECT_EQ(j["transport"]["net_protocols"], nlohmann::json::array({"Simple"}));
  EXPECT_TRUE(j["transport_used"].get<bool>());
  EXPECT_EQ(j["protocol"], "Simple");
  for (const auto& c : j["candidates"]) EXPECT_EQ(c["protocol"], "Simple");
  const auto text =
      run({"collective", "--op", "allreduce", "--bytes", "64KiB", "--gpus", "16", "--system", "gcp-a3-mega"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("transport   tcpxo"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("carries Simple only"), std::string::npos) << text.out;
  const auto bad = run({"collective", "--op", "allreduce", "--bytes", "64KiB", "--gpus", "16", "--system",
                        "gcp-a3-mega", "--algorithm", "nvls"});
  EXPECT_EQ(bad.code, 2);
}

TEST(CollectiveCli, TextAndSweep) {
  const auto one = run({"collective", "--op", "allreduce", "--bytes", "1GiB", "--gpus", "16", "--system", "dgx-h100"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("busbw"), std::string::npos);
  EXPECT_NE(one.out.find("bottleneck"), std::string::npos);
  const auto sweep =
      run({"collective", "--op", "alltoall", "--gpus", "8", "--system", "dgx-b200", "--sweep", "--json"});
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  const auto j = nlohmann::json::parse(sweep.out);
  ASSERT_EQ(j["rows"].size(), 26u);  // 512 B ... 16 GiB, doubling
  EXPECT_EQ(j["rows"].front()["bytes"].get<double>(), 512.0);
  EXPECT_EQ(j["rows"].back()["bytes"].get<double>(), 16.0 * 1024 * 1024 * 1024);
}

TEST(CollectiveCli, FabricAndIdeal) {
  const auto r = run({"collective", "--op", "allreduce", "--bytes", "1GB", "--gpus", "1024", "--fabric",
                      "dgx-superpod-h100", "--algorithm", "nvls", "--ideal", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["system"], "dgx-h100");
  EXPECT_EQ(j["bottleneck_level"], "leaf");
  EXPECT_NEAR(j["algbw_bytes_per_s"].get<double>(), 400e9, 1e6);
}

TEST(CollectiveCli, BadInputExitsTwoWithAMessage) {
  auto expect_error = [](const std::vector<std::string>& args, const std::string& needle) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  };
  const std::vector<std::string> base = {"collective", "--bytes", "1MiB", "--system", "dgx-h100"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_error(with({"--op", "allreduce", "--gpus", "12"}), "not a multiple");
  expect_error(with({"--op", "allreduce", "--gpus", "9", "--nodes", "1"}), "holds 8 GPUs");
  expect_error(with({"--op", "allreduse", "--gpus", "8"}), "unknown --op");
  expect_error(with({"--op", "allgather", "--gpus", "8", "--algorithm", "tree"}), "AllReduce only");
  expect_error({"collective", "--op", "allreduce", "--bytes", "0", "--gpus", "8", "--system", "dgx-h100"}, "positive");
  expect_error({"collective", "--op", "allreduce", "--bytes", "-4KiB", "--gpus", "8", "--system", "dgx-h100"},
               "positive");
  expect_error({"collective", "--op", "allreduce", "--bytes", "1MiB", "--gpus", "8", "--system", "dgx-a100",
                "--algorithm", "nvls"},
               "NVLS");
  expect_error(
      {"collective", "--op", "allreduce", "--bytes", "1MiB", "--gpus", "2048", "--fabric", "dgx-superpod-h100"},
      "do not fit");
  expect_error({"collective", "--op", "allreduce", "--bytes", "1MiB", "--gpus", "8", "--system", "dgx-h10"},
               "unknown system");
}

std::string shared_collectives_csv() {
  return (std::filesystem::path(testing::source_dir()) / ".." / "shared" / "data" / "collectives.csv").string();
}

// The acceptance target of issue 3 on the measured file: median |error| <= 10% for messages
// of 1 MiB and more, <= 25% below. 195 rows since the 2026-11-23 additions (Azure 8-GPU
// nodes, CoreWeave NVL72 racks); the model reaches 4.8% / 6.4% on them.
TEST(ValidateCli, CollectivesMeetTheTargetOnTheSharedFile) {
  const std::string csv = shared_collectives_csv();
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << csv << " not present";
  const auto r = run({"validate", "collectives", csv, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"].size(), 195u);
  EXPECT_LE(j["summary"]["by_size"][">= 1 MiB"]["median_abs_error_pct"].get<double>(), 10.0);
  EXPECT_LE(j["summary"]["by_size"]["< 1 MiB"]["median_abs_error_pct"].get<double>(), 25.0);
  EXPECT_TRUE(j["summary"]["by_gpu"].contains("h100-sxm"));
  EXPECT_TRUE(j["summary"]["by_op"].contains("alltoall"));
}

// Issue 15's held-out error with every fitted constant refitted per fold (the third round's
// 5.998% refitted the NVLS pair only). Measured 2026-11-24: in-sample 5.79%; leave one source
// out 22.83% (1 node 23.0%, one NVL72 rack 7.79%, two racks 9.34%); leave one GPU out 11.87%
// (12.1 / 7.79 / 9.33%). The target (<= 6%, <= 10% per band) is NOT met held out
// (docs/validation.md says why); the bounds are what was measured, so a change that makes the
// held-out error worse fails here. Re-measured 2026-11-27 (issue 32, fourth round: NCCL's
// protocol bandwidths as data, a hop scale needs two message sizes): in-sample 5.96% (worse),
// leave one source out 20.08% (one rack 7.79%, two racks 10.72%, worse), leave one GPU out
// 11.33%. The folds must say which constants fell back to a prior: without AIConfigurator no
// AllToAll row is left, so its fraction and p2p cost keep theirs, and NVLink 4's hop scale is
// seen at one message size only (Azure's 1 MiB), so it keeps NCCL's 1.0.
TEST(ValidateCli, CollectivesHeldOutWithEveryConstantRefitted) {
  const std::string csv = shared_collectives_csv();
  if (!std::filesystem::exists(csv)) GTEST_SKIP() << csv << " not present";
  const auto r = run({"validate", "collectives", csv, "--leave-one-source-out", "--leave-one-gpu-out", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto median = [](const nlohmann::json& g) { return g["median_abs_error_pct"].get<double>(); };
  EXPECT_LE(median(j["summary"]["all"]), 5.97);
  const auto& loso = j["leave_one_source_out"];
  EXPECT_LE(median(loso["all"]), 20.1);
  ASSERT_EQ(loso["by_scale"].size(), 3u);
  EXPECT_LE(median(loso["by_scale"]["1 NVLink domain (> 8 GPUs)"]), 7.8);
  EXPECT_LE(median(loso["by_scale"]["multi-rack"]), 10.8);
  const auto& logo = j["leave_one_gpu_out"];
  EXPECT_LE(median(logo["all"]), 11.4);
  EXPECT_EQ(logo["folds"].size(), 4u);
  const auto& aic = loso["folds"][0];
  EXPECT_EQ(aic["rows"], 19);
  for (const auto& c : aic["constants"]) {
    const std::string name = c["name"];
    if (name == "alltoall_bw_fraction" || name == "p2p_us" || name == "hop_scale nvlink4") {
      EXPECT_FALSE(c["refitted"].get<bool>()) << name;
      EXPECT_EQ(c["value"], c["prior"]) << name;
    }
  }
}

TEST(ValidateCli, BadRowsNameFileAndLine) {
  const auto dir = testing::scratch_dir("validate-coll");
  const std::string header =
      "id,gpu,system,nodes,gpus_per_node,num_gpus,op,bytes,algorithm,dtype,measured_time_us,"
      "measured_busbw_GBps\n";
  const auto good = testing::write_file(dir / "good.csv", header +
                                                              "a,\"h100-sxm\",dgx-h100,1,8,8,allreduce,1048576,"
                                                              "auto,fp16,30.0,\n");
  const auto ok = run({"validate", "collectives", good.string()});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("median"), std::string::npos);
  const auto bad_system =
      testing::write_file(dir / "bad1.csv", header +
                                                "a,h100-sxm,dgx-h100,1,8,8,allreduce,1048576,auto,fp16,30,\n"
                                                "b,h100-sxm,dgx-h1000,1,8,8,allreduce,1048576,auto,fp16,30,\n");
  const auto r1 = run({"validate", "collectives", bad_system.string()});
  EXPECT_EQ(r1.code, 2);
  EXPECT_NE(r1.err.find("bad1.csv:3: column 'system'"), std::string::npos) << r1.err;
  const auto bad_number = testing::write_file(dir / "bad2.csv", header +
                                                                    "a,h100-sxm,dgx-h100,1,8,8,allreduce,1MB,"
                                                                    "auto,fp16,30,\n");
  const auto r2 = run({"validate", "collectives", bad_number.string()});
  EXPECT_EQ(r2.code, 2);
  EXPECT_NE(r2.err.find("bad2.csv:2: column 'bytes'"), std::string::npos) << r2.err;
  EXPECT_EQ(run({"validate"}).code, 2);  // a validator must be named
  EXPECT_EQ(run({"validate", "collectives", (dir / "missing.csv").string()}).code, 2);
}

}  // namespace
}  // namespace gpuplan
