// Megatron-Core's pipeline layouts and DeepSeek-V3's multi-token-prediction block (plan/pp_layout.h,
// workload/mtp_ops.h): the grammar, the checks, the ops by hand, and the evaluator's terms.
#include "plan/pp_layout.h"

#include <gtest/gtest.h>

#include <string>

#include "catalog_util.h"
#include "core/error.h"
#include "core/field_error.h"
#include "cost/roofline.h"
#include "plan/evaluate.h"
#include "plan/plan_json.h"
#include "workload/mtp_ops.h"
#include "workload/test_models.h"

namespace gpuplan {
namespace {

PpLayout parsed(std::string_view text) {
  PpLayout l;
  std::string error;
  EXPECT_TRUE(parse_pp_layout(text, l, error)) << text << ": " << error;
  return l;
}

std::string parse_error(std::string_view text) {
  PpLayout l;
  std::string error;
  EXPECT_FALSE(parse_pp_layout(text, l, error)) << text;
  return error;
}

TEST(PpLayout, DeepSeekV3RecipeLayout) {
  // Megatron-Bridge's DeepSeek-V3 preset: the embedding and 4 layers, 14 chunks of 4, then 1
  // layer + MTP + loss: 4 + 14·4 + 1 = 61 layers in 16 chunks.
  const PpLayout l = parsed("Et*4|(t*4|)*14tmL");
  ASSERT_EQ(l.layers.size(), 16u);
  EXPECT_EQ(l.layers.front(), 4);
  for (std::size_t c = 1; c < 15; ++c) EXPECT_EQ(l.layers[c], 4) << c;
  EXPECT_EQ(l.layers.back(), 1);
  EXPECT_EQ(l.mtp_chunk, 15);
  EXPECT_EQ(l.mtp_layers, 1);
  EXPECT_EQ(check_pp_layout(l, 16, 1, 61, 1), "");
  EXPECT_EQ(check_pp_layout(l, 4, 4, 61, 1), "");  // chunk 15 = rank 3's last virtual stage
  // The H100 preset: "Et|(tt|)*30mL", 32 chunks, the last holding only the MTP and the loss.
  const PpLayout h100 = parsed("Et|(tt|)*30mL");
  ASSERT_EQ(h100.layers.size(), 32u);
  EXPECT_EQ(h100.layers.front(), 1);
  EXPECT_EQ(h100.layers[30], 2);
  EXPECT_EQ(h100.layers.back(), 0);
  EXPECT_EQ(check_pp_layout(h100, 8, 4, 61, 1), "");
  // Commas are cosmetic; x*N with N of two digits.
  EXPECT_EQ(parsed("Et*16,|t*16|t*16|t*13L").layers, (std::vector<int>{16, 16, 16, 13}));
}

TEST(PpLayout, TextReadsBackToTheSamePlan) {
  Plan p;
  p.pp = 16;
  p.mtp_layers = 1;
  apply_pp_layout(parsed("Et*4|(t*4|)*14tmL"), p);
  EXPECT_EQ(pp_layout_text(p), "Et*4|(t*4|)*14tmL");
  Plan k;
  k.pp = 4;
  k.vp = 4;
  apply_pp_layout(parsed("Et*4|(t*4|)*14tL"), k);
  EXPECT_EQ(k.mtp_chunk, -1);
  EXPECT_EQ(pp_layout_text(k), "Et*4|(t*4|)*14tL");
  Plan q;
  q.pp = 4;
  apply_pp_layout(parsed("Et*16|t*16|t*16|t*13L"), q);
  EXPECT_EQ(pp_layout_text(q), "Et*16|(t*16|)*2t*13L");
  EXPECT_EQ(parsed(pp_layout_text(q)).layers, q.pp_layout_layers);
  EXPECT_EQ(pp_layout_text(Plan{}), "");
}

TEST(PpLayout, PlanJsonCarriesTheLayoutAndReadsItBack) {
  Plan p;
  p.pp = 4;
  p.vp = 4;
  p.dp = 16;
  p.dp_shard = 16;  // the JSON writes the shard group and the global batch out
  p.global_batch = 64;
  p.seq_len = 4096;
  p.mtp_layers = 1;
  apply_pp_layout(parsed("Et*4|(t*4|)*14tmL"), p);
  const auto j = plan_json(p);
  EXPECT_EQ(j.value("pp_layout", ""), "Et*4|(t*4|)*14tmL");
  EXPECT_EQ(j.value("mtp_layers", 0), 1);
  EXPECT_EQ(plan_from_json(nlohmann::json::parse(j.dump())), p);
  // Without them the JSON has neither key (plans written before read as before).
  EXPECT_FALSE(plan_json(Plan{}).contains("pp_layout"));
  EXPECT_FALSE(plan_json(Plan{}).contains("mtp_layers"));
  auto bad = nlohmann::json::parse(j.dump());
  bad["pp_layout"] = "Et*4|(t*4|)*13tmL";  // 15 chunks for pp 4 × vp 4
  EXPECT_THROW(plan_from_json(bad), Error);
}

TEST(PpLayout, MalformedLayoutsSayWhatIsWrong) {
  EXPECT_NE(parse_error("Et*4|x|tL").find("'x' is not a layout character"), std::string::npos);
  EXPECT_NE(parse_error("t*4|tEL").find("embedding ('E') must come first"), std::string::npos);
  EXPECT_NE(parse_error("Et*4|tLt").find("loss ('L') must come last"), std::string::npos);
  EXPECT_NE(parse_error("Et*4|t*4").find("end with the loss"), std::string::npos);
  EXPECT_NE(parse_error("Et|mt|L").find("follows an MTP layer"), std::string::npos);
  EXPECT_NE(parse_error("Et|m|mL").find("two chunks"), std::string::npos);
  EXPECT_NE(parse_error("E(t*4|*14tL").find("not closed and repeated"), std::string::npos);
  EXPECT_NE(parse_error("E((t|)*2)*3L").find("nested"), std::string::npos);
  // Against the plan and the model.
  const PpLayout l = parsed("Et*4|(t*4|)*14tmL");
  EXPECT_NE(check_pp_layout(l, 8, 1, 61, 1).find("16 chunks and the plan pp 8 × vp 1 = 8"), std::string::npos);
  EXPECT_NE(check_pp_layout(l, 16, 1, 60, 1).find("61 decoder layers ('t') and the model has 60"), std::string::npos);
  EXPECT_NE(check_pp_layout(l, 16, 1, 61, 0).find("1 MTP layers ('m') and the plan trains 0"), std::string::npos);
  // All layers in chunks 0 to 10 and the MTP in chunk 10: rank 2's third virtual stage of PP 4 ×
  // VP 4, not its last (chunks 12 to 15 are the last virtual stages; Megatron-Core refuses it).
  const PpLayout early = parsed("Et*4|(t*6|)*9t*3m|||||L");
  EXPECT_EQ(early.mtp_chunk, 10);
  EXPECT_NE(check_pp_layout(early, 4, 4, 61, 1).find("not in a rank's last virtual stage"), std::string::npos);
}

TEST(PpLayout, RequestErrorsNameTheField) {
  const ModelSpec& v3 = testing::cat().model("deepseek-v3");  // num_nextn_predict_layers = 1
  Plan p;
  p.pp = 16;
  try {
    apply_mtp_and_layout(v3, 2, "", p);
    ADD_FAILURE() << "--mtp-layers 2 accepted";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), "mtp_layers");
    EXPECT_NE(std::string(e.what()).find("--mtp-layers 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use 0 to 1"), std::string::npos) << e.what();
  }
  try {
    apply_mtp_and_layout(v3, 0, "Et*4|(t*4|)*14tmL", p);
    ADD_FAILURE() << "a layout with an m and no MTP accepted";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.field(), "pp_layout");
    EXPECT_NE(std::string(e.what()).find("--pp-layout 'Et*4|(t*4|)*14tmL'"), std::string::npos) << e.what();
  }
  apply_mtp_and_layout(v3, 1, "Et*4|(t*4|)*14tmL", p);
  EXPECT_EQ(p.mtp_layers, 1);
  EXPECT_EQ(p.mtp_chunk, 15);
  EXPECT_EQ(p.pp_layout_layers.size(), 16u);
  // The evaluator's chunk ranges read the layout.
  EXPECT_EQ(plan_chunk_layers(p, 61, 0).begin, 0);
  EXPECT_EQ(plan_chunk_layers(p, 61, 0).end, 4);
  EXPECT_EQ(plan_chunk_layers(p, 61, 15).begin, 60);
  EXPECT_EQ(plan_chunk_layers(p, 61, 15).end, 61);
  EXPECT_EQ(plan_mtp_chunk(p), 15);
}

TEST(MtpOps, ToyBlockByHand) {
  // t = 3 tokens, h = 8, V = 32, tp 1, bf16: eh_proj 2·3·16·8 = 768 FLOPs forward and
  // 16·8 = 128 weights; the second logits 2·3·8·32 = 1,536 and no new weights (the shared
  // head); three RMSNorms of 8 weights, memory-only.
  ModelSpec m = testing::llama3_8b();
  m.hidden = 8;
  m.vocab = 32;
  OpShape s;
  s.micro_batch = 1;
  s.seq_len = 3;
  LayerOps ops;
  build_mtp_ops(m, s, ops);
  double norm_params = 0;
  int norms = 0;
  for (const Op& op : ops) {
    if (op.group == OpGroup::norm) {
      ++norms;
      norm_params += op.params;
      EXPECT_EQ(op.fwd_flops, 0) << op.name;
    }
  }
  EXPECT_EQ(norms, 3);
  EXPECT_DOUBLE_EQ(norm_params, 24);
  const Op* eh = nullptr;
  const Op* logits = nullptr;
  for (const Op& op : ops) {
    if (std::string_view(op.name) == "mtp_eh_proj") eh = &op;
    if (std::string_view(op.name) == "mtp_logits") logits = &op;
  }
  ASSERT_NE(eh, nullptr);
  ASSERT_NE(logits, nullptr);
  EXPECT_DOUBLE_EQ(eh->fwd_flops, 768);
  EXPECT_DOUBLE_EQ(eh->params, 128);
  EXPECT_DOUBLE_EQ(logits->fwd_flops, 1536);
  EXPECT_DOUBLE_EQ(logits->params, 0);
  EXPECT_DOUBLE_EQ(ops.params(), 128 + 24);
}

// DeepSeek-V3 on two stages, every plan's slowest rank the second: the layouts move one MoE
// layer (layer 20) between the ranks, and the MTP block adds one MoE layer and its own ops.
TEST(MtpOps, BreakdownTermIsOneLayerPlusTheBlocksOps) {
  testing::DgxH100 f;
  const ModelSpec& m = f.catalog.model("deepseek-v3");
  const TrainContext ctx = make_train_context(f.catalog, m, f.gpu, &f.system, nullptr);
  Plan base;
  base.seq_len = 4096;
  base.pp = 2;
  base.dp = 8;
  base.ep = 8;
  base.global_batch = 16;
  const auto with = [&](const char* layout, int mtp) {
    Plan p = base;
    apply_mtp_and_layout(m, mtp, layout, p);
    const Estimate e = evaluate(ctx, p);
    EXPECT_TRUE(e.valid()) << layout << ": " << e.reason_text();
    return e;
  };
  const Estimate a = with("Et*20|t*41L", 0);
  const Estimate b = with("Et*21|t*40L", 0);
  const Estimate c = with("Et*20|t*41mL", 1);
  const auto compute = [](const Estimate& e) { return e.breakdown.forward_s + e.breakdown.backward_s; };
  const double moe_layer_s = compute(a) - compute(b);  // micro-batches × one MoE layer
  ASSERT_GT(moe_layer_s, 0);
  EXPECT_EQ(a.breakdown.mtp_s, 0);
  EXPECT_NEAR(c.breakdown.mtp_s, compute(c) - compute(a), 1e-12 * compute(c));
  // The block's own ops, timed op by op as the evaluator times an edge (issue-bound sums).
  Plan pc = base;
  apply_mtp_and_layout(m, 1, "Et*20|t*41mL", pc);
  const OpShape shape = train_op_shape(ctx, pc);
  LayerOps ops;
  build_mtp_ops(m, shape, ops);
  OpTime sum;
  for (const Op& op : ops) {
    const OpTime t = op_time(ctx.device, op, shape.gemm, shape.act);
    sum.fwd_s += t.fwd_s;
    sum.bwd_s += t.bwd_s;
    sum.host_fwd_s += t.host_fwd_s;
    sum.host_bwd_s += t.host_bwd_s;
  }
  const double block_ops_s =
      c.micro_batches * (issue_bound_s(sum.fwd_s, sum.host_fwd_s) + issue_bound_s(sum.bwd_s, sum.host_bwd_s));
  EXPECT_NEAR(c.breakdown.mtp_s, moe_layer_s + block_ops_s, 1e-9 * c.breakdown.mtp_s);
  // The layouts only move layers: the same hardware FLOPs; the block adds its own.
  EXPECT_NEAR(b.hardware_flops_per_step / a.hardware_flops_per_step, 1.0, 1e-12);
  EXPECT_GT(c.hardware_flops_per_step, a.hardware_flops_per_step);
}

}  // namespace
}  // namespace gpuplan
