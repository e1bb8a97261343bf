// The torchtitan job-TOML reader (`gpuplan train --from job.toml`): a file written by `--emit
// torchtitan` reads back to the same plan (round trip) and bad input names the key or line.
#include "emit/torchtitan_import.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/error.h"
#include "emit/launch_config.h"
#include "plan/plan_json.h"
#include "report/train_report.h"

namespace gpuplan {
namespace {

TrainRequest titan_request(int gpus) {
  TrainRequest r;
  r.model = "llama3.1-70b";
  r.gpu = "h100-sxm";
  r.gpus = gpus;
  r.framework = "torchtitan";
  return r;
}

// torchtitan always runs sequence parallelism with TP and shards with FSDP2, so the plans that
// round-trip are those: TP with SP, and ZeRO-3 (HSDP when dp_shard < dp).
void expect_titan_round_trip(const TrainRequest& request) {
  const Catalog& catalog = default_catalog();
  const TrainAnswer a = answer_train(catalog, request);
  const LaunchConfig c = emit_train(a, "torchtitan");
  ASSERT_EQ(c.files.at(0).name, "torchtitan.toml");
  TrainRequest back;
  back.model = request.model;
  back.gpu = request.gpu;
  back.gpus = request.gpus;
  read_torchtitan_toml(c.files.at(0).text, "torchtitan.toml", static_cast<int>(a.ctx().model->layers), back);
  const TrainAnswer b = answer_train(catalog, back);
  EXPECT_EQ(to_json(a)["plan"], to_json(b)["plan"]) << c.files.at(0).text;
  EXPECT_EQ(a.estimate.step_time_s, b.estimate.step_time_s);
}

TEST(TorchtitanImport, InterleavedFsdpRoundTrips) {
  TrainRequest r = titan_request(64);
  r.tp = 8;
  r.pp = 4;
  r.vp = 5;  // 80 layers / (4 × 5) = 4 layers per virtual stage
  r.sp = true;
  r.zero = 3;
  r.global_batch = 128;
  r.seq_len = 8192;
  expect_titan_round_trip(r);
}

TEST(TorchtitanImport, HybridShardedFp8WithoutPipelineRoundTrips) {
  TrainRequest r = titan_request(64);
  r.tp = 8;
  r.sp = true;
  r.zero = 3;
  r.dp_shard = 4;  // dp 8 = 2 replicas × 4 shards
  r.micro_batch = 2;
  r.global_batch = 64;  // 2 per rank × 8 ranks × 4 accumulation steps
  r.seq_len = 4096;
  r.precision = "fp8";
  r.recompute = "full";
  expect_titan_round_trip(r);
}

TEST(TorchtitanImport, ReadsTorchtitanSemantics) {
  TrainRequest r = titan_request(512);
  r.framework.clear();
  // Table 5 of torchtitan's 405B benchmark: FSDP 8, TP 8, PP 8, local batch 32, 1F1B with the
  // default one micro-batch per stage (microbatch size 4).
  read_torchtitan_toml(
      "[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\npipeline_parallel_degree = 8\n"
      "pipeline_parallel_microbatch_size = 4\n[training]\nlocal_batch_size = 32\nglobal_batch_size = 256\n"
      "seq_len = 8192\n[model]\nconverters = [\"float8\"]\n[activation_checkpoint]\nmode = \"full\"\n[job]\n"
      "description = \"ignored\"\n",
      "t5.toml", 126, r);
  EXPECT_EQ(r.dp.value_or(0), 8);  // -1: 512 / (8 × 8)
  EXPECT_EQ(r.zero, 3);
  EXPECT_EQ(r.micro_batch, 4);
  EXPECT_EQ(r.global_batch, 256);
  EXPECT_EQ(r.precision, "fp8");
  EXPECT_EQ(r.recompute, "full");
  EXPECT_TRUE(r.sp);
  EXPECT_EQ(r.framework, "torchtitan");
  EXPECT_EQ(r.elementwise, "eager");  // no [compile]: torchtitan's default is eager
  read_torchtitan_toml("[compile]\nenable = true\n", "c.toml", 126, r);
  EXPECT_EQ(r.elementwise, "fused");
  read_torchtitan_toml("[training]\ncompile = true\n", "c.toml", 126, r);  // the 2024 spelling
  EXPECT_EQ(r.elementwise, "fused");
}

TEST(TorchtitanImport, EagerPlanRoundTrips) {
  TrainRequest r = titan_request(64);
  r.tp = 8;
  r.sp = true;
  r.zero = 3;
  r.global_batch = 64;
  r.seq_len = 4096;
  r.elementwise = "eager";
  expect_titan_round_trip(r);
}

TEST(TorchtitanImport, BadInputNamesTheKeyOrLine) {
  auto error_of = [](const std::string& text, std::optional<int> gpus) {
    TrainRequest r = titan_request(8);
    r.gpus = gpus;
    try {
      read_torchtitan_toml(text, "job.toml", 80, r);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("[parallelism]\ndata_parallel_shard_degree = -1\n", std::nullopt).find("give --gpus"),
            std::string::npos);
  EXPECT_NE(error_of("[parallelism\n", 8).find("job.toml:1:"), std::string::npos);
  EXPECT_NE(error_of("[compile]\nenable = 1\n", 8).find("compile.enable"), std::string::npos);
  EXPECT_NE(error_of("[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = \"ZBVZeroBubble\"\n", 8)
                .find("pipeline_parallel_schedule"),
            std::string::npos);
  EXPECT_NE(
      error_of("[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = \"Interleaved1F1B\"\n", 8)
          .find("pipeline_parallel_layers_per_stage"),
      std::string::npos);
  EXPECT_NE(error_of("[parallelism]\ntensor_parallel_degree = 0\n", 8).find("tensor_parallel_degree"),
            std::string::npos);
  EXPECT_NE(error_of("[parallelism]\ntensor_parallel_degree = \"8\"\n", 8).find("whole number"), std::string::npos);
  EXPECT_NE(error_of("[training]\nglobal_batch_size = 7\n[parallelism]\ndata_parallel_shard_degree = 8\n", 8)
                .find("global_batch_size"),
            std::string::npos);
  EXPECT_NE(error_of("[parallelism]\npipeline_parallel_split_points = [\"layers.4\"]\n", 8).find("split"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuplan
