// Every catalog GPU is plannable without --system: each one has a system (a product, or gpuplan's
// default server in data/hardware/systems/defaults/), training and serving answer at 1, 8 and 64
// GPUs (an answer that does not fit in memory is an answer; an Error is a refusal), and the
// text and JSON name the default server the numbers assume.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "catalog/catalog.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "infer/infer_request.h"
#include "plan/train_request.h"
#include "report/infer_report.h"
#include "report/train_report.h"

namespace gpuplan {
namespace {

TEST(DefaultServer, EveryGpuHasASystemWithAScaleOutNetwork) {
  const Catalog& cat = default_catalog();
  for (const Gpu& gpu : cat.gpus) {
    if (!gpu.is_gpu()) continue;  // TPUs, Trainium, Gaudi: comparison rows only
    const System* s = default_system_for(cat, gpu);
    ASSERT_NE(s, nullptr) << gpu.id;
    EXPECT_EQ(cat.find_gpu(s->gpu), &gpu) << gpu.id;
    // More than one domain needs NICs: 64 GPUs never fit one 8-GPU box.
    EXPECT_GT(s->nics, 0) << gpu.id << " on " << s->id << " has no scale-out NIC";
    EXPECT_GT(s->nic_bw_uni_bytes_per_s, 0) << gpu.id;
  }
}

// The defaults keep the product systems where the catalog has them (default_system_for ranks
// by scale-out bandwidth per GPU, so a default must not outrank a product for the same GPU).
TEST(DefaultServer, ProductSystemsStayTheDefault) {
  const Catalog& cat = default_catalog();
  EXPECT_EQ(default_system_for(cat, cat.gpu("h100-sxm"))->id, "dgx-h100");
  EXPECT_EQ(default_system_for(cat, cat.gpu("mi300x"))->id, "mi300x-8");
  EXPECT_EQ(default_system_for(cat, cat.gpu("l40s"))->id, "pcie-server-l40s");
  EXPECT_EQ(default_system_for(cat, cat.gpu("mi325x"))->id, "mi325x-8");
  EXPECT_EQ(default_system_for(cat, cat.gpu("gh200"))->id, "gh200-node");
  EXPECT_EQ(default_system_for(cat, cat.gpu("h100-nvl"))->id, "pcie-server-h100-nvl");
}

// NVLink-bridged cards: the scale-up domain is the bridged group, at the bridge's rate.
TEST(DefaultServer, BridgedPairsAreTheScaleUpDomain) {
  const Catalog& cat = default_catalog();
  const System& nvl = cat.system("pcie-server-h100-nvl");
  EXPECT_EQ(nvl.gpus, 2);
  EXPECT_EQ(nvl.scaleup_topology, "mesh");
  EXPECT_DOUBLE_EQ(nvl.scaleup_bw_uni_bytes_per_s, 300e9);  // 1 peer x 300 GB/s
  // 2-8-5: 4 east-west NICs for 8 cards = 1 per pair, 400 Gb/s = 50 GB/s, 25 GB/s per GPU.
  EXPECT_DOUBLE_EQ(nvl.scaleout_bw_uni_bytes_per_s_per_gpu(), 25e9);
  const System& h200 = cat.system("pcie-server-h200-nvl");
  EXPECT_EQ(h200.gpus, 4);
  EXPECT_DOUBLE_EQ(h200.scaleup_bw_uni_bytes_per_s, 450e9);  // 3 peers x 150 GB/s
  const System& l40s = cat.system("pcie-server-l40s");
  EXPECT_EQ(l40s.scaleup_topology, "pcie");
  EXPECT_DOUBLE_EQ(l40s.scaleup_bw_uni_bytes_per_s, 31.5e9);  // PCIe 4.0 x16, one way
  // 4 x 200 Gb/s = 100 GB/s over 8 GPUs = 12.5 GB/s each.
  EXPECT_DOUBLE_EQ(l40s.scaleout_bw_uni_bytes_per_s_per_gpu(), 12.5e9);
}

class EveryGpu : public ::testing::TestWithParam<int> {};

TEST_P(EveryGpu, TrainAndInferAnswer) {
  const Catalog& cat = default_catalog();
  const int n = GetParam();
  for (const Gpu& gpu : cat.gpus) {
    if (!gpu.is_gpu()) continue;
    TrainRequest t;
    t.model = "llama3-8b";
    t.gpu = gpu.id;
    t.gpus = n;
    // 16-bit weights everywhere: V100/T4/2080 Ti have no BF16, so plan them in FP16.
    t.precision = gpu.dense(Precision::bf16) > 0 ? "bf16" : "fp16";
    try {
      const TrainAnswer a = answer_train(cat, t);
      if (!a.estimate.feasible()) {
        EXPECT_FALSE(std::string(a.estimate.reason_text()).empty()) << gpu.id << " × " << n;
      }
      if (n > 1) {
        ASSERT_NE(a.ctx().system, nullptr) << gpu.id;
        EXPECT_TRUE(a.setup.system_defaulted) << gpu.id;
        EXPECT_NE(to_text(a).find("system: " + a.ctx().system->id), std::string::npos) << gpu.id;
        EXPECT_EQ(to_json(a)["default_system"]["id"], a.ctx().system->id) << gpu.id;
      }
    } catch (const Error& e) {
      ADD_FAILURE() << "train refused " << gpu.id << " × " << n << ": " << e.what();
    }
    InferRequest r;
    r.model = "llama3-8b";
    r.gpu = gpu.id;
    r.gpus = n;
    r.tp = n > 8 ? 8 : n;  // 64 GPUs: 8 replicas of tp 8
    r.weights = t.precision;
    try {
      const InferAnswer a = answer_infer(cat, r);
      ASSERT_NE(a.setup.ctx.system, nullptr) << gpu.id;
      EXPECT_TRUE(a.setup.system_defaulted) << gpu.id;
      EXPECT_NE(to_text(a).find("system: " + a.setup.ctx.system->id), std::string::npos) << gpu.id;
    } catch (const Error& e) {
      ADD_FAILURE() << "infer refused " << gpu.id << " × " << n << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gpus, EveryGpu, ::testing::Values(1, 8, 64));

// A named system is not a default: no line, no JSON member.
TEST(DefaultServer, NamedSystemIsNotCalledADefault) {
  TrainRequest t;
  t.model = "llama3-8b";
  t.system = "dgx-h100";
  t.gpus = 8;
  const TrainAnswer a = answer_train(default_catalog(), t);
  EXPECT_FALSE(a.setup.system_defaulted);
  EXPECT_EQ(to_text(a).find("system: dgx-h100"), std::string::npos);
  EXPECT_FALSE(to_json(a).contains("default_system"));
}

}  // namespace
}  // namespace gpuplan
