// The training and the serving evaluators count the same tensor-parallel reductions per layer
// (issue 33: step.cpp charged 2 × layers while plan/ followed the model's structure, so they
// disagreed for Falcon's parallel block and Nemotron-H's single-block layers). Each evaluator's
// TP communication for the zoo model is compared with the same model rebuilt as Megatron's
// sequential block (attention and MLP in every layer, reduced separately: 2 per layer). A
// reduction moves the same bytes in both (tokens × hidden × element size), so the ratio is the
// model's reductions over 2 × layers, and the two evaluators must give the same ratio.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer/infer_context.h"
#include "infer/step.h"
#include "plan/evaluate.h"
#include "workload/tp_reductions.h"

namespace gpuplan {
namespace {

// Every layer attention + MLP, reduced after each (Shoeybi et al. 2019, fig. 4).
ModelSpec as_sequential_blocks(ModelSpec m) {
  m.parallel_block = false;
  m.layer_mixer.assign(static_cast<std::size_t>(m.layers), MixerKind::attention);
  m.layer_has_ffn.assign(static_cast<std::size_t>(m.layers), true);
  return m;
}

double train_tp_comm_s(const ModelSpec& m) {
  testing::DgxH100 f;
  Plan p;  // 8 GPUs of a DGX H100; ZeRO-3 so that the all-MLP twin of Nemotron-H fits
  p.tp = 2;
  p.dp = 4;
  p.zero = 3;
  p.micro_batch = 1;
  p.global_batch = 4;
  p.seq_len = 2048;
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  const Estimate e = evaluate(ctx, p);
  EXPECT_TRUE(e.feasible()) << m.id << ": " << e.reason_text();
  return e.breakdown.tp.total_s;
}

double infer_tp_comm_s(const ModelSpec& m) {
  const Catalog& c = default_catalog();
  const InferContext ctx = make_infer_context(c, m, c.gpu("h100-sxm"), c.engine("vllm"), &c.system("dgx-h100"));
  InferPlan p;
  p.tp = 2;
  const StepCost step = step_cost(ctx, p, {32, 1024, 0, 0});  // 32 decodes at 1k context
  return step.comm_s;
}

// Falcon's heads (71) divide by no TP degree: the twin keeps its parallel block and hidden size
// with 71 → 64 heads of 71 dimensions, which moves no reduction and no reduced byte.
ModelSpec tp_splittable(ModelSpec m) {
  if (m.heads % 2 != 0) {
    m.head_dim = m.hidden / 64;
    m.heads = 64;
    m.kv_heads = 1;
  }
  return m;
}

TEST(TpReductionsAgree, FalconAndNemotronHTrainAndServeWithTheSameCount) {
  const Catalog& c = default_catalog();
  for (const std::string id : {"falcon-7b", "nemotron-h-8b"}) {
    SCOPED_TRACE(id);
    const ModelSpec m = tp_splittable(c.model(id));
    const ModelSpec sequential = as_sequential_blocks(m);
    // By hand: Falcon-7B's 32 layers each reduce once (attention and MLP summed first);
    // Nemotron-H-8B's 52 layers each hold one block (Mamba, MLP or attention): 52.
    const double reductions = tp_reductions_all_layers(m, MoeFfnReduction::all_experts);
    EXPECT_EQ(reductions, static_cast<double>(m.layers));
    const double want = reductions / (2.0 * static_cast<double>(m.layers));
    EXPECT_NEAR(train_tp_comm_s(m) / train_tp_comm_s(sequential), want, 1e-12);
    EXPECT_NEAR(infer_tp_comm_s(m) / infer_tp_comm_s(sequential), want, 1e-12);
  }
}

}  // namespace
}  // namespace gpuplan
