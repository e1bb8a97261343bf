// Calibration profiles: strict loading, the achievable ceilings, and overrides of a catalog GPU,
// against a fake profile (no GPU has been measured yet).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "calibration/calibrate.h"
#include "calibration/profile.h"
#include "core/error.h"
#include "test_util.h"

namespace gpuplan {
namespace {

// A fake H100 SXM profile: bf16 GEMMs at 620 and 700 TFLOP/s, tf32 at 400, fp8 at 1,300; HBM
// read 3.0 TB/s, copy 2.9 TB/s (copy counts both directions), write 3.1 TB/s (ignored: writes are
// not the ceiling); L2 10 TB/s and host links 50 GB/s (ignored: not HBM); an 8-GPU all-reduce
// (busbw = algbw · 2·7/8), one Llama-3-8B-shaped layer and one 1B-class training step.
nlohmann::json fake_profile() {
  auto gemm = [](const char* precision, double mnk, double flops) {
    return nlohmann::json{{"kernel", "cublaslt"}, {"precision", precision}, {"m", mnk}, {"n", mnk}, {"k", mnk},
                          {"time_s", 2 * mnk * mnk * mnk / flops}, {"flops_per_s", flops}};
  };
  auto bw = [](const char* op, double bytes, double bw_bytes_per_s) {
    const double moved = std::string(op) == "copy" ? 2 * bytes : bytes;
    return nlohmann::json{{"op", op}, {"bytes", bytes}, {"time_s", moved / bw_bytes_per_s}, {"bw_bytes_per_s", bw_bytes_per_s}};
  };
  return {
      {"schema", "gpuplan-calibration/3"},
      {"gpu", {{"id", "h100-sxm"}, {"name", "NVIDIA H100 80GB HBM3"}, {"sm_count", 132}, {"driver", "580.82.07"},
               {"cuda", "13.0"}}},
      {"measured", {{"tool", "gpuplan-bench 0.1.0"}, {"command", "gpuplan-bench --gpu h100-sxm --out x.json"},
                    {"date", "2025-01-01T00:00:00Z"}, {"host", "fake"}}},
      {"gemm", {gemm("bf16", 4096, 620e12), gemm("bf16", 8192, 700e12), gemm("tf32", 8192, 400e12),
                gemm("fp8", 8192, 1300e12)}},
      {"memory_bandwidth", {bw("read", 1e9, 3.0e12), bw("copy", 1e9, 2.9e12), bw("write", 1e9, 3.1e12),
                            bw("l2_read", 16777216, 10e12), bw("h2d_pinned", 1e9, 50e9),
                            bw("d2h_pageable", 1e9, 20e9)}},
      {"collectives", nlohmann::json::array({{{"op", "all_reduce"}, {"gpus", 8}, {"bytes", 1e9}, {"time_s", 0.01},
                                              {"algbw_bytes_per_s", 1e11}, {"busbw_bytes_per_s", 1.75e11}}})},
      {"layers", nlohmann::json::array({{{"name", "llama3.1-8b"}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8},
                                         {"ffn", 14336}, {"seq", 2048}, {"batch", 1}, {"precision", "bf16"},
                                         {"fwd_time_s", 0.002}, {"bwd_time_s", 0.004}, {"flops", 2.4e12},
                                         {"flops_per_s", 4e14}}})},
      {"steps", nlohmann::json::array({{{"name", "1b-class"}, {"layers", 16}, {"hidden", 2048}, {"heads", 32},
                                        {"kv_heads", 8}, {"ffn", 8192}, {"vocab", 128256}, {"seq", 2048},
                                        {"batch", 1}, {"precision", "bf16"}, {"fwd_time_s", 0.012},
                                        {"step_time_s", 0.04}, {"flops", 1.6e13}, {"flops_per_s", 4e14}}})},
  };
}

std::string calibration_error(const nlohmann::json& doc) {
  try {
    parse_calibration(doc, "fake.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Calibration, CeilingsAreTheBestMeasurements) {
  const CalibrationProfile p = parse_calibration(fake_profile(), "fake.json");
  EXPECT_EQ(p.gpu_id, "h100-sxm");
  ASSERT_EQ(p.gemm.size(), 4u);
  EXPECT_DOUBLE_EQ(*p.peak_flops_per_s(Precision::bf16), 700e12);
  EXPECT_DOUBLE_EQ(*p.peak_flops_per_s(Precision::tf32), 400e12);
  EXPECT_DOUBLE_EQ(*p.peak_flops_per_s(Precision::fp8), 1300e12);
  EXPECT_FALSE(p.peak_flops_per_s(Precision::fp16));
  // Read, not the 3.1 of write, nor the 10 TB/s of L2 or a host link.
  EXPECT_DOUBLE_EQ(*p.hbm_bw_bytes_per_s(), 3.0e12);
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].gpus, 8);
  ASSERT_EQ(p.layers.size(), 1u);
  EXPECT_EQ(p.layers[0].shape.kv_heads, 8);
  EXPECT_DOUBLE_EQ(p.layers[0].flops_per_s, 4e14);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].shape.name(), "1b-class");
  EXPECT_EQ(p.steps[0].shape.layers, 16);
  EXPECT_EQ(p.steps[0].shape.vocab, 128256);
  EXPECT_EQ(p.steps[0].shape.layer.kv_heads, 8);
  EXPECT_EQ(p.steps[0].shape.layer.seq, 2048);
  EXPECT_DOUBLE_EQ(p.steps[0].fwd_time_s, 0.012);
  EXPECT_DOUBLE_EQ(p.steps[0].step_time_s, 0.04);
}

TEST(Calibration, HbmBandwidthNeverComesFromL2OrHostLinks) {
  auto doc = fake_profile();
  doc["memory_bandwidth"] = {doc["memory_bandwidth"][3], doc["memory_bandwidth"][4], doc["memory_bandwidth"][5]};
  const CalibrationProfile p = parse_calibration(doc, "fake.json");
  EXPECT_EQ(p.memory_bandwidth.size(), 3u);
  EXPECT_FALSE(p.hbm_bw_bytes_per_s());
}

TEST(Calibration, BusFactorsAreNcclTests) {
  // doc/PERFORMANCE.md of nccl-tests: all_reduce 2(n−1)/n, the others (n−1)/n.
  EXPECT_DOUBLE_EQ(collective_bus_factor("all_reduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(collective_bus_factor("all_gather", 8), 0.875);
  EXPECT_DOUBLE_EQ(collective_bus_factor("reduce_scatter", 4), 0.75);
  EXPECT_DOUBLE_EQ(collective_bus_factor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(collective_bus_factor("all_reduce", 1), 0);
}

TEST(Calibration, ReadsSchemaTwoWithoutSteps) {
  auto doc = fake_profile();
  doc["schema"] = "gpuplan-calibration/2";
  doc.erase("steps");
  const CalibrationProfile p = parse_calibration(doc, "v2.json");
  EXPECT_EQ(p.layers.size(), 1u);
  EXPECT_TRUE(p.steps.empty());
  EXPECT_EQ(p.memory_bandwidth.size(), 6u);  // /2 knows l2_read and the host links

  auto with_steps = doc;
  with_steps["steps"] = fake_profile()["steps"];
  EXPECT_NE(calibration_error(with_steps).find("fake.json: steps: unknown key"), std::string::npos)
      << calibration_error(with_steps);
}

TEST(Calibration, ReadsSchemaOneWithoutTheAdditions) {
  auto doc = fake_profile();
  doc["schema"] = "gpuplan-calibration/1";
  doc.erase("layers");
  doc.erase("steps");
  doc["memory_bandwidth"] = {doc["memory_bandwidth"][0], doc["memory_bandwidth"][1]};
  const CalibrationProfile p = parse_calibration(doc, "old.json");
  EXPECT_DOUBLE_EQ(*p.hbm_bw_bytes_per_s(), 3.0e12);
  EXPECT_TRUE(p.layers.empty());

  auto with_layers = doc;
  with_layers["layers"] = fake_profile()["layers"];
  EXPECT_NE(calibration_error(with_layers).find("layers: unknown key"), std::string::npos)
      << calibration_error(with_layers);
  auto with_l2 = doc;
  with_l2["memory_bandwidth"].push_back(fake_profile()["memory_bandwidth"][3]);
  EXPECT_NE(calibration_error(with_l2).find("memory_bandwidth[2].op: 'l2_read' is not one of read, write, copy"),
            std::string::npos)
      << calibration_error(with_l2);
}

TEST(Calibration, WriterAndReaderRoundTrip) {
  const CalibrationProfile p = parse_calibration(fake_profile(), "fake.json");
  const nlohmann::json written = nlohmann::json::parse(calibration_json(p).dump());
  EXPECT_EQ(written, fake_profile());
}

TEST(Calibration, UnknownKeysAndBadValuesNameTheKey) {
  auto doc = fake_profile();
  doc["gemm"][1]["mm"] = 3;
  EXPECT_NE(calibration_error(doc).find("fake.json: gemm[1].mm: unknown key"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["gpu"]["sm_count"] = -1;
  EXPECT_NE(calibration_error(doc).find("gpu.sm_count: must be a whole number"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["gemm"][0]["precision"] = "bf17";
  EXPECT_NE(calibration_error(doc).find("gemm[0].precision: unknown precision 'bf17'"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["memory_bandwidth"][0]["op"] = "scan";
  EXPECT_NE(calibration_error(doc).find("memory_bandwidth[0].op: 'scan' is not one of read, write, copy, l2_read"),
            std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["collectives"][0]["busbw_bytes_per_s"] = 1e11;  // algbw, not busbw
  EXPECT_NE(calibration_error(doc).find("collectives[0].busbw_bytes_per_s: 100000000000 does not match"),
            std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["collectives"][0]["gpus"] = 1;
  EXPECT_NE(calibration_error(doc).find("collectives[0].gpus: a collective needs at least 2 GPUs"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["layers"][0]["flops_per_s"] = 5e14;
  EXPECT_NE(calibration_error(doc).find("layers[0].flops_per_s: 500000000000000 does not match"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["layers"][0]["heads"] = 0;
  EXPECT_NE(calibration_error(doc).find("layers[0].heads: must be a whole number"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0].erase("vocab");
  EXPECT_NE(calibration_error(doc).find("fake.json: steps[0].vocab: missing"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0]["layers"] = 2.5;
  EXPECT_NE(calibration_error(doc).find("steps[0].layers: must be a whole number"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0]["step_time_s"] = -0.04;
  EXPECT_NE(calibration_error(doc).find("steps[0].step_time_s: must be a positive number"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0]["precision"] = "bf17";
  EXPECT_NE(calibration_error(doc).find("steps[0].precision: unknown precision 'bf17'"), std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0]["flops_per_s"] = 1.6e13 / 0.052;  // against fwd + step time, not the step time
  EXPECT_NE(calibration_error(doc).find("steps[0].flops_per_s: "), std::string::npos) << calibration_error(doc);
  EXPECT_NE(calibration_error(doc).find("does not match"), std::string::npos) << calibration_error(doc);

  doc = fake_profile();
  doc["steps"][0]["loss"] = 10.4;
  EXPECT_NE(calibration_error(doc).find("steps[0].loss: unknown key"), std::string::npos) << calibration_error(doc);

  doc = fake_profile();
  doc["memory_bandwidth"][2]["bw_bytes_per_s"] = 9e12;  // edited by hand: no longer matches its time
  EXPECT_NE(calibration_error(doc).find("memory_bandwidth[2].bw_bytes_per_s: 9000000000000 does not match"),
            std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc.erase("measured");
  EXPECT_NE(calibration_error(doc).find("fake.json: measured: missing"), std::string::npos) << calibration_error(doc);

  doc = fake_profile();
  doc["schema"] = "gpuplan-calibration/0";
  EXPECT_NE(calibration_error(doc).find("schema: 'gpuplan-calibration/0' is not 'gpuplan-calibration/3', "
                                        "'gpuplan-calibration/2' or 'gpuplan-calibration/1'"),
            std::string::npos)
      << calibration_error(doc);

  doc = fake_profile();
  doc["extra"] = true;
  EXPECT_NE(calibration_error(doc).find("fake.json: extra: unknown key"), std::string::npos) << calibration_error(doc);
}

TEST(Calibration, OverridesOnlyWhatWasMeasured) {
  Gpu datasheet;
  datasheet.id = "h100-sxm";
  datasheet.dense_flops_per_s[index_of(Precision::bf16)] = 989.4e12;
  datasheet.dense_flops_per_s[index_of(Precision::fp16)] = 989.4e12;
  datasheet.dense_flops_per_s[index_of(Precision::fp8)] = 1978.9e12;
  datasheet.dense_flops_per_s[index_of(Precision::tf32)] = 494.7e12;
  datasheet.memory_bw_bytes_per_s = 3.35e12;
  const Gpu calibrated = apply_calibration(datasheet, parse_calibration(fake_profile(), "fake.json"));
  EXPECT_DOUBLE_EQ(calibrated.dense(Precision::bf16), 700e12);
  EXPECT_DOUBLE_EQ(calibrated.dense(Precision::tf32), 400e12);
  EXPECT_DOUBLE_EQ(calibrated.dense(Precision::fp8), 1300e12);
  EXPECT_DOUBLE_EQ(calibrated.dense(Precision::fp16), 989.4e12);  // not measured: datasheet stays
  EXPECT_DOUBLE_EQ(calibrated.memory_bw_bytes_per_s, 3.0e12);
  EXPECT_DOUBLE_EQ(datasheet.dense(Precision::bf16), 989.4e12);  // the catalog copy is untouched
}

TEST(Calibration, RefusesAProfileFromAnotherGpu) {
  Gpu b200;
  b200.id = "b200";
  try {
    apply_calibration(b200, parse_calibration(fake_profile(), "fake.json"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("measured on 'h100-sxm'"), std::string::npos) << e.what();
  }
}

TEST(Calibration, GpuCommandShowsDatasheetVsMeasured) {
  const auto dir = testing::scratch_dir("calibration-cli");
  const auto file = testing::write_file(dir / "h100.json", fake_profile().dump(2));
  auto r = testing::run({"gpu", "h100-sxm", "--calibration", file.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("datasheet vs measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("70.7%"), std::string::npos) << r.out;  // 700 / 989.4 bf16 TFLOP/s

  r = testing::run({"gpu", "h100-sxm", "--calibration", file.string(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["bf16_dense_flops_per_s"].get<double>(), 700e12);
  EXPECT_DOUBLE_EQ(j["hbm_bw_bytes_per_s"].get<double>(), 3.0e12);
  EXPECT_EQ(j["calibration"]["overrides"].size(), 4u);  // bf16, tf32, fp8, HBM

  r = testing::run({"gpu", "b200", "--calibration", file.string()});
  EXPECT_EQ(r.code, 2);
  r = testing::run({"gpu", "h100-sxm", "--calibration", (dir / "missing.json").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A key written twice in one object is an error naming it: a hand-edited profile must not have
// the second figure silently win.
TEST(Calibration, RepeatedKeyIsAnError) {
  const auto dir = testing::scratch_dir("calibration-duplicate-key");
  std::string text = R"({"schema": "gpuplan-calibration/3", "schema": "gpuplan-calibration/3"})";
  const auto file = testing::write_file(dir / "dup.json", text).string();
  try {
    load_calibration(file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate key 'schema'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuplan
