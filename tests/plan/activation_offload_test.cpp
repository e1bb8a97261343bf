// Activation offload to host memory (plan/activation_offload.h, docs/model/training.md
// "Activation offloading"): the closed form by hand, then the evaluator by the identities it
// implies on a GB300 (NVLink-C2C host link).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "plan/activation_offload.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"
#include "plan/resolve.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

TEST(ActivationOffload, CopiesHiddenBehindOneLayerByHand) {
  // 10 layers, 4 offloaded, 4.5 GB stored per layer over 450 GB/s: 10 ms a copy each way.
  // A layer's forward of 8 ms hides 8 of the copy down (2 ms shows); its backward of 16 ms
  // hides all of the copy back. Exposed 4 × 2 ms = 8 ms; moved 2 × 4 × 10 ms = 80 ms; 6 of 10
  // layers' activations stay on the GPU.
  const ActivationOffloadCost c = activation_offload_cost(10, 4, 4.5e9, 450e9, 0.008, 0.016);
  EXPECT_NEAR(c.transfer_s, 0.080, 1e-15);
  EXPECT_NEAR(c.exposed_s, 0.008, 1e-15);
  EXPECT_DOUBLE_EQ(c.resident_fraction, 0.6);
  // A backward shorter than the copy shows too: 4 × (2 + 4) ms.
  EXPECT_NEAR(activation_offload_cost(10, 4, 4.5e9, 450e9, 0.008, 0.006).exposed_s, 0.024, 1e-15);
  // Nothing offloaded, or no host link: no cost, everything resident.
  const ActivationOffloadCost none = activation_offload_cost(10, 0, 4.5e9, 450e9, 0.008, 0.016);
  EXPECT_DOUBLE_EQ(none.transfer_s, 0);
  EXPECT_DOUBLE_EQ(none.exposed_s, 0);
  EXPECT_DOUBLE_EQ(none.resident_fraction, 1);
  EXPECT_DOUBLE_EQ(activation_offload_cost(10, 4, 4.5e9, 0, 0.008, 0.016).resident_fraction, 1);
}

struct Gb300Fixture {
  const Catalog& catalog = default_catalog();
  const ModelSpec model = testing::llama3_8b();
  const TrainContext ctx =
      make_train_context(catalog, model, catalog.gpu("gb300"), &catalog.system("gb300-nvl72"), nullptr);
  Plan plan() const {
    Plan p;
    p.seq_len = 8192;
    p.dp = 8;
    p.zero = 1;
    p.micro_batch = 4;
    p.global_batch = 64;
    return p;
  }
};

TEST(ActivationOffload, GraceSuperchipsUseTheirC2cHostLink) {
  // gb300.toml names nvlink-c2c as its host link (450 GB/s one way), not its PCIe 6 slot;
  // B200 (x86 host) keeps the PCIe link.
  Gb300Fixture f;
  const Catalog& c = f.catalog;
  const TrainContext b200 = make_train_context(c, f.model, c.gpu("b200"), &c.system("dgx-b200"), nullptr);
  EXPECT_EQ(c.gpu("gb300").host_link, "nvlink-c2c");
  EXPECT_EQ(c.gpu("gb200").host_link, "nvlink-c2c");
  EXPECT_TRUE(c.gpu("b200").host_link.empty());
  EXPECT_LE(f.ctx.host_link_bw_bytes_per_s, c.link("nvlink-c2c").device_bw_uni_bytes_per_s);
  EXPECT_GT(f.ctx.host_link_bw_bytes_per_s, 2 * b200.host_link_bw_bytes_per_s);
}

TEST(ActivationOffload, StepAddsTheExposedCopiesAndMemoryDropsByTheOffloadedShare) {
  Gb300Fixture f;
  Plan p = f.plan();
  const Estimate base = evaluate(f.ctx, p);
  ASSERT_TRUE(base.valid()) << base.reason_text();
  p.offload_activation_layers = 8;  // of 32
  const Estimate off = evaluate(f.ctx, p);
  ASSERT_TRUE(off.valid()) << off.reason_text();
  const CommCost& o = off.breakdown.offload_activations;
  EXPECT_GT(o.total_s, 0);
  EXPECT_LE(o.exposed_s, o.total_s);
  // Only the exposed copies lengthen the step (one pipeline stage: every micro-batch's).
  EXPECT_NEAR(off.step_time_s - base.step_time_s, o.exposed_s, 1e-12 * base.step_time_s);
  EXPECT_DOUBLE_EQ(off.breakdown.forward_s, base.breakdown.forward_s);
  // A quarter of the stored activations leave the GPU (one micro-batch in flight without a
  // pipeline); the working set of the layer being run stays.
  EXPECT_LT(off.memory.activations_bytes, base.memory.activations_bytes);
  EXPECT_DOUBLE_EQ(base.breakdown.offload_activations.total_s, 0);
}

TEST(ActivationOffload, MegatronCoreLimitsAreRefusedAndJsonRoundTrips) {
  Gb300Fixture f;
  Plan p = f.plan();
  p.offload_activation_layers = 32;  // all 32 layers: Megatron-Core wants fewer
  const Estimate e = evaluate(f.ctx, p);
  EXPECT_FALSE(e.valid());
  EXPECT_NE(std::string(e.reason_text()).find("offload_activation_layers 32"), std::string::npos) << e.reason_text();
  // Neither with a pipeline nor with recompute.
  p.offload_activation_layers = 8;
  Plan piped = p;
  piped.pp = 2;
  piped.dp = 4;
  EXPECT_NE(std::string(evaluate(f.ctx, piped).reason_text()).find("pp > 1"), std::string::npos);
  Plan recomputed = p;
  recomputed.recompute = Recompute::selective;
  EXPECT_NE(std::string(evaluate(f.ctx, recomputed).reason_text()).find("recompute"), std::string::npos);
  p.offload_activation_layers = 20;
  EXPECT_FALSE(plan_json(f.plan()).contains("offload_activation_layers"));
  const Plan back = plan_from_json(nlohmann::json::parse(plan_json(p).dump()));
  EXPECT_EQ(back.offload_activation_layers, 20);
}

// An unknown recompute on a Grace superchip: where nothing fits without recompute, the
// framework's "lightest that fits" offloads the fewest eighths of the layers that fit before it
// recomputes (docs/model/training.md §6); on a PCIe host (B200) offloading is not tried.
TEST(ActivationOffload, ResolverOffloadsBeforeItRecomputesOnGraceSuperchips) {
  const Catalog& c = default_catalog();
  const ModelSpec& m = c.model("llama3-70b");
  Plan p;
  p.seq_len = 8192;
  p.dp = 64;
  p.zero = 3;
  p.micro_batch = 2;
  p.global_batch = 256;
  p.precision = Precision::fp8;
  p.scaling = ScalingRecipe::tensorwise;
  PlanUnknowns u;
  u.recompute = true;
  SettingDefaults d;
  d.recompute = Recompute::none;
  const TrainContext gb300 = make_train_context(c, m, c.gpu("gb300"), &c.system("gb300-nvl72"), nullptr);
  Plan none = p;
  ASSERT_FALSE(evaluate(gb300, none).fits());  // the premise: it needs something
  const Resolved r = resolve_with_defaults(gb300, p, u, 64, d);
  ASSERT_TRUE(r.estimate.feasible()) << r.estimate.reason_text();
  EXPECT_EQ(r.plan.recompute, Recompute::none);
  EXPECT_GT(r.plan.offload_activation_layers, 0);
  EXPECT_EQ(r.plan.offload_activation_layers % 10, 0);  // eighths of 80 layers
  // The fewest that fit: one eighth fewer does not.
  Plan fewer = r.plan;
  fewer.offload_activation_layers -= 10;
  EXPECT_FALSE(evaluate(gb300, fewer).fits());
  // Full recompute would have fitted too, and is slower.
  Plan full = p;
  full.recompute = Recompute::full;
  const Estimate e_full = evaluate(gb300, full);
  ASSERT_TRUE(e_full.feasible());
  EXPECT_LT(r.estimate.step_time_s, e_full.step_time_s);
  // B200 (x86 host over PCIe): no offload candidate.
  const TrainContext b200 = make_train_context(c, m, c.gpu("b200"), &c.system("dgx-b200"), nullptr);
  EXPECT_EQ(resolve_with_defaults(b200, p, u, 64, d).plan.offload_activation_layers, 0);
}

}  // namespace
}  // namespace gpuplan
