// Issue 33, "report/ only formats": every figure a report prints is in the answer its library
// call built. These tests check that the answers carry the figures, hand-checked where the
// figure is simple (DGX H100, H100 SXM, Llama 3.1 8B), and that the writers print the answer's
// value rather than one of their own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "calibration/collective_question.h"
#include "catalog/catalog.h"
#include "catalog/lookup_request.h"
#include "plan/train_request.h"
#include "report/collective_report.h"
#include "report/model_report.h"
#include "report/search_report.h"
#include "report/train_report.h"
#include "search/search_request.h"

namespace gpuplan {
namespace {

CollectiveCommandRequest allreduce_on_dgx_h100(int gpus) {
  CollectiveCommandRequest r;
  r.op = "allreduce";
  r.bytes = "1GiB";
  r.gpus = gpus;
  r.system = "dgx-h100";
  return r;
}

TEST(AnswerFigures, CollectiveCarriesEstimateCandidatesAndWhy) {
  const CollectiveAnswer a = answer_collective(default_catalog(), allreduce_on_dgx_h100(8));
  // nccl-tests' AllReduce bus-bandwidth factor 2(n-1)/n: 2 x 7/8 on 8 GPUs.
  EXPECT_DOUBLE_EQ(a.busbw_factor, 1.75);
  const CollectiveEstimate model = estimate_collective(a.query.request, a.topology);
  EXPECT_EQ(a.estimate.time_s, model.time_s);
  EXPECT_EQ(a.candidates.size(), collective_candidates(a.query.request, a.topology).size());
  ASSERT_FALSE(a.candidates.empty());
  EXPECT_EQ(a.why, collective_why(a.query, a.topology, a.estimate, a.candidates));
  EXPECT_NE(a.why.find("cheapest of"), std::string::npos);
  EXPECT_TRUE(a.sweep_rows.empty());
  // The writer prints the answer's sentence, whatever it says.
  CollectiveAnswer edited = a;
  edited.why = "a sentence only the answer holds";
  EXPECT_EQ(to_json(edited)["why"], "a sentence only the answer holds");
  EXPECT_NE(to_text(edited).find("a sentence only the answer holds"), std::string::npos);
}

TEST(AnswerFigures, CollectiveSweepCarriesOneRowPerSize) {
  CollectiveCommandRequest r = allreduce_on_dgx_h100(16);
  r.bytes.clear();
  r.sweep = true;
  const CollectiveAnswer a = answer_collective(default_catalog(), r);
  // 512 B ... 16 GiB doubling: 2^9 ... 2^34, 26 sizes.
  ASSERT_EQ(a.sweep_rows.size(), 26U);
  EXPECT_EQ(a.sweep_rows.front().bytes, 512);
  EXPECT_EQ(a.sweep_rows.back().bytes, 16.0 * (1ULL << 30));
  EXPECT_EQ(to_json(a)["rows"].size(), 26U);
  EXPECT_EQ(to_json(a)["rows"][3]["time_s"].get<double>(), a.sweep_rows[3].estimate.time_s);
}

TEST(AnswerFigures, ModelFiguresOfLlama31_8b) {
  const Catalog& catalog = default_catalog();
  const ModelAnswer a = answer_model(catalog.model("llama3.1-8b"), {"llama3.1-8b", 8192});
  const ModelFigures& f = a.figures;
  EXPECT_EQ(f.seq_len, 8192);
  EXPECT_EQ(f.params.total, count_params(catalog.model("llama3.1-8b")).total);
  // KV cache per token: 2 (K, V) x 32 layers x 8 KV heads x 128 dims x 2 B (bf16) = 131,072 B.
  ASSERT_EQ(f.kv_cache_bytes_per_token.size(), 2U);
  EXPECT_EQ(f.kv_cache_bytes_per_token[0].first, Precision::bf16);
  EXPECT_DOUBLE_EQ(f.kv_cache_bytes_per_token[0].second, 131072);
  EXPECT_DOUBLE_EQ(f.kv_cache_bytes_per_token[1].second, 65536);  // fp8: 1 B
  EXPECT_DOUBLE_EQ(f.kv_cache_bytes_per_sequence[0].second, 131072.0 * 8192);
  // Every parameter at bf16, fp8, int4: 2, 1 and 0.5 B.
  ASSERT_EQ(f.weight_bytes.size(), 3U);
  EXPECT_DOUBLE_EQ(f.weight_bytes[0].second, 2 * f.params.total);
  EXPECT_DOUBLE_EQ(f.weight_bytes[2].second, 0.5 * f.params.total);
  EXPECT_EQ(f.sliding_layers, 0);
  EXPECT_EQ(f.mamba_layers, 0);
  EXPECT_EQ(f.attention_layers, 32);
  // Training is three forward passes (forward, and backward at twice it).
  EXPECT_DOUBLE_EQ(f.train_flops_per_token, 3 * f.forward_flops_per_token);
  EXPECT_EQ(to_json(a)["forward_flops_per_token"].get<double>(), f.forward_flops_per_token);

  const ModelsAnswer all = answer_models(catalog);
  ASSERT_EQ(all.figures.size(), all.models.size());
  for (std::size_t i = 0; i < all.models.size(); ++i) {
    EXPECT_EQ(all.figures[i].seq_len, default_seq_len(*all.models[i])) << all.models[i]->id;
  }
}

TEST(AnswerFigures, GpuDerivedOfH100Sxm) {
  const Catalog& catalog = default_catalog();
  CompareRequest request;
  request.names = {"h100-sxm", "b200"};
  const CompareAnswer a = answer_compare(catalog, request);
  ASSERT_EQ(a.derived.size(), 2U);
  // 132 SMs x 128 FP32 lanes (the seeds' H100 figure).
  ASSERT_TRUE(a.derived[0].cuda_cores);
  EXPECT_EQ(*a.derived[0].cuda_cores, 16896);
  // Ridge point: 989 TFLOP/s bf16 over 3.35 TB/s is about 295 FLOP/B.
  const auto ridge = a.derived[0].ridge_point_flops_per_byte[index_of(Precision::bf16)];
  ASSERT_TRUE(ridge);
  EXPECT_NEAR(*ridge, 295, 1);
  const GpusAnswer gpus = answer_gpus(catalog, {});
  EXPECT_EQ(gpus.derived.size(), gpus.gpus.size());
}

TEST(AnswerFigures, SystemFiguresOfDgxH100) {
  const Catalog& catalog = default_catalog();
  const SystemAnswer a = answer_system(catalog, {"dgx-h100"});
  ASSERT_NE(a.system, nullptr);
  // 8 NICs x 400 Gb/s = 400 GB/s per node, 50 GB/s per GPU; NVLink 450 GB/s per GPU: 9x.
  EXPECT_DOUBLE_EQ(a.figures.scaleout_bw_uni_bytes_per_s_per_gpu, 50e9);
  EXPECT_DOUBLE_EQ(a.figures.scaleup_to_scaleout_ratio, 9);
  ASSERT_EQ(a.levels.size(), 1U);  // the node level alone
  EXPECT_EQ(a.levels[0].gpus, 8);
  const SystemsAnswer all = answer_systems(catalog);
  ASSERT_EQ(all.systems.size(), catalog.systems.size());
  ASSERT_EQ(all.fabrics.size(), catalog.fabrics.size());
  for (const SystemAnswer& f : all.fabrics) {
    // A fabric's levels: its system's node level, then each of its own.
    EXPECT_EQ(f.levels.size(), f.fabric->levels.size() + 1) << f.fabric->id;
    const SystemAnswer& built_from = *std::find_if(all.systems.begin(), all.systems.end(), [&](const SystemAnswer& s) {
      return s.system == &catalog.system(f.fabric->system);
    });
    EXPECT_NE(std::find(built_from.fabric_ids.begin(), built_from.fabric_ids.end(), f.fabric->id),
              built_from.fabric_ids.end());
  }
}

TrainRequest llama70b_on_64() {
  TrainRequest r;
  r.model = "llama3.1-70b";
  r.gpu = "h100-sxm";
  r.gpus = 64;
  r.tp = 8;
  r.pp = 2;
  r.sp = true;
  r.zero = 1;
  r.global_batch = 256;
  r.seq_len = 8192;
  r.recompute = "selective";
  return r;
}

TEST(AnswerFigures, TrainCarriesPlacementStatesAndRoofline) {
  const TrainAnswer a = answer_train(default_catalog(), llama70b_on_64());
  // TP, CP, EP, DP (gradients), PP; on 8-GPU nodes TP 8 fills one node, DP 4 and PP 2 cross.
  ASSERT_EQ(a.placement.size(), 5U);
  EXPECT_STREQ(a.placement[0].name, "TP");
  EXPECT_EQ(a.placement[0].group.size, 8);
  EXPECT_FALSE(a.placement[0].group.crosses_domains());
  EXPECT_EQ(a.placement[1].level, "-");  // CP 1
  EXPECT_STREQ(a.placement[3].name, "DP (gradients)");
  EXPECT_EQ(a.placement[3].group.size, 4);
  EXPECT_TRUE(a.placement[3].group.crosses_domains());
  EXPECT_EQ(to_json(a)["placement"][3]["level"], a.placement[3].level);
  // Mixed-precision Adam: 2 B weights + 2 B gradients + 12 B fp32 master and moments.
  EXPECT_DOUBLE_EQ(a.state.weight + a.state.grad + a.state.optimizer, 16);
  EXPECT_EQ(a.roofline.gpu, "h100-sxm");
  EXPECT_EQ(a.roofline.precision, "bf16");
  EXPECT_FALSE(a.roofline.ops.empty());

  TrainRequest eight_bit = llama70b_on_64();
  eight_bit.optimizer_state_bits = 8;
  EXPECT_LT(answer_train(default_catalog(), eight_bit).state.optimizer, a.state.optimizer);
}

TEST(AnswerFigures, RuleOfThumbRows) {
  const RuleOfThumbAnswer a = answer_rule_of_thumb(default_catalog(), "h100-sxm");
  EXPECT_DOUBLE_EQ(a.bytes_per_param, 16);
  ASSERT_EQ(a.rows.size(), 5U);
  EXPECT_STREQ(a.rows[0].size, "7B");
  // 7B x 16 B = 112 GB of states; the seed's 8 B: 56 GB.
  EXPECT_DOUBLE_EQ(a.rows[0].states_bytes, 112e9);
  EXPECT_DOUBLE_EQ(a.rows[0].seed_training_bytes, 56e9);
  EXPECT_DOUBLE_EQ(a.rows[0].gpus_for_states, std::ceil(112e9 / a.gpu->usable_memory_bytes));
  EXPECT_EQ(to_json(a)["rows"][4]["states_bytes"].get<double>(), 16e12);
}

TEST(AnswerFigures, SearchCarriesCostPlacementAndRoofline) {
  SearchRequest r;
  r.model = "llama3.1-8b";
  r.gpu = "h100-sxm";
  r.gpus = 16;
  r.global_batch = 128;
  r.threads = 1;
  r.usd_per_gpu_hour = 2;
  const SearchAnswer a = answer_search(default_catalog(), r);
  ASSERT_FALSE(a.result.top.empty());
  ASSERT_EQ(a.top_usd_per_step.size(), a.result.top.size());
  ASSERT_EQ(a.top_placement.size(), a.result.top.size());
  // A step's dollars: its seconds x 16 GPUs x $2 per GPU-hour / 3,600 s.
  EXPECT_DOUBLE_EQ(a.top_usd_per_step[0], a.result.top[0].estimate.step_time_s * 16 * 2 / 3600);
  EXPECT_EQ(to_json(a)["best"]["usd_per_step"].get<double>(), a.top_usd_per_step[0]);
  ASSERT_TRUE(a.roofline);
  EXPECT_EQ(a.roofline->ops.size(), op_roofline(a.setup.ctx, a.result.top.front().plan).ops.size());
}

}  // namespace
}  // namespace gpuplan
