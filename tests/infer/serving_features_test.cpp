// The serving features of `infer` (docs/model/serving-features.md): speculative decoding,
// prefix caching, disaggregated prefill/decode and SLO answers, each formula checked by hand
// and each feature's limits (off = the plain answer) checked as properties.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "catalog_util.h"
#include "core/error.h"
#include "infer/infer_request.h"
#include "infer/slo.h"
#include "infer/spec_decode.h"

namespace gpuplan {
namespace {

using testing::cat;

InferRequest llama8b(double concurrency) {
  InferRequest r;
  r.model = "llama3.1-8b";
  r.gpu = "h100-sxm";
  r.concurrency = concurrency;
  return r;
}

TEST(SpecDecode, ExpectedTokensIsLeviathanEq1) {
  // (1 − A^(K+1)) / (1 − A): K = 3, A = 0.8 → (1 − 0.4096) / 0.2 = 2.952.
  EXPECT_NEAR(spec_expected_tokens(3, 0.8), 2.952, 1e-12);
  // K = 1, A = 0.5 → (1 − 0.25) / 0.5 = 1.5.
  EXPECT_NEAR(spec_expected_tokens(1, 0.5), 1.5, 1e-12);
  // Nothing accepted: the target's own token only.
  EXPECT_EQ(spec_expected_tokens(4, 0), 1);
  // Tends to K + 1 as A → 1: K = 4, A = 0.999999 → 5 within 1e-4.
  EXPECT_NEAR(spec_expected_tokens(4, 0.999999), 5, 1e-4);
}

TEST(SpecDecode, GoodDraftSpeedsUpSingleStreamBadDraftSlowsIt) {
  InferRequest r = llama8b(1);
  r.model = "llama3.1-70b";
  r.tp = 4;
  r.features.spec_draft = "llama3.1-8b";  // same 128,256-token vocabulary
  r.features.spec_draft_tokens = 4;
  r.features.spec_acceptance = 0.8;
  const InferAnswer good = answer_infer(cat(), r);
  ASSERT_TRUE(good.features.spec && good.features.spec->estimate.feasible) << good.features.spec->estimate.reason;
  const SpecDecodeEstimate& g = good.features.spec->estimate;
  // One request: weight streaming bound. 8B draft over 70B target costs ~8/70 per draft step.
  EXPECT_GT(g.speedup, 1.5);
  EXPECT_LT(g.tpot_s, good.estimate.point.tpot_s);
  // TPOT_spec = (K·draft + verify) / E + the prompt work vLLM's chunked prefill mixes into the
  // plain TPOT beyond its pure decode step (unchanged by drafting).
  EXPECT_NEAR(g.tpot_s,
              (4 * g.draft_step_s + g.verify_step_s) / spec_expected_tokens(4, 0.8) + (g.base_tpot_s - g.decode_step_s),
              1e-12);
  EXPECT_GT(g.base_tpot_s, g.decode_step_s);
  // The verify step over 5 positions reads the weights once: far less than 5 decode steps.
  EXPECT_LT(g.verify_step_s, 1.5 * g.decode_step_s);
  r.features.spec_acceptance = 0;
  const InferAnswer bad = answer_infer(cat(), r);
  EXPECT_LT(bad.features.spec->estimate.speedup, 1);
  // The plain answer is untouched by the feature.
  EXPECT_EQ(bad.estimate.point.tpot_s, good.estimate.point.tpot_s);
}

TEST(SpecDecode, DraftMemoryIsCounted) {
  InferRequest r = llama8b(64);
  r.model = "llama3.1-70b";
  r.tp = 4;
  r.features.spec_draft = "llama3.1-8b";
  r.features.spec_draft_tokens = 2;
  r.features.spec_acceptance = 0.7;
  const InferAnswer a = answer_infer(cat(), r);
  const SpecDecodeEstimate& s = a.features.spec->estimate;
  ASSERT_TRUE(s.feasible) << s.reason;
  // Draft weights: Llama 3.1 8B bf16 over TP 4: 2 B × 8,030,261,248 / 4 = 4,015,130,624 B.
  EXPECT_DOUBLE_EQ(s.draft_weights_bytes, 2.0 * 8030261248 / 4);
  EXPECT_LT(s.max_seqs, a.estimate.memory.max_seqs);
}

TEST(SpecDecode, BadInputNamesTheFlag) {
  InferRequest r = llama8b(8);
  r.features.spec_draft_tokens = 3;
  EXPECT_THROW(answer_infer(cat(), r), Error);  // no acceptance
  r.features.spec_acceptance = 1.0;
  try {
    answer_infer(cat(), r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--spec-acceptance 1"), std::string::npos) << e.what();
  }
  r.features.spec_acceptance = 0.5;
  try {  // Llama 3.1 has no MTP module
    answer_infer(cat(), r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--spec-draft mtp"), std::string::npos) << e.what();
  }
  r.features.spec_draft = "mistral-7b";  // 32,000-token vocabulary vs 128,256
  try {
    answer_infer(cat(), r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vocabulary"), std::string::npos) << e.what();
  }
}

TEST(SpecDecode, MtpDraftIsOneMoeBlock) {
  const ModelSpec& v3 = cat().model("deepseek-v3");
  ASSERT_EQ(v3.mtp_layers, 1);
  const ModelSpec m = mtp_draft_model(v3);
  EXPECT_EQ(m.layers, 1);
  EXPECT_TRUE(m.is_moe_layer(0));  // the trunk's first 3 layers are dense; the MTP block is not
  EXPECT_EQ(m.vocab, v3.vocab);
}

TEST(PrefixCache, NoHitsIsThePlainAnswerAndHitsCutTtft) {
  InferRequest r = llama8b(16);
  r.features.prefix_hit_rate = 0;
  const InferAnswer none = answer_infer(cat(), r);
  const PrefixCacheEstimate& n = none.features.prefix->estimate;
  ASSERT_TRUE(n.feasible) << n.reason;
  EXPECT_DOUBLE_EQ(n.prefill_ratio, 1);
  EXPECT_NEAR(n.ttft_s, none.estimate.point.ttft_s, 1e-12);
  EXPECT_NEAR(n.output_tokens_per_s, none.estimate.output_tokens_per_s, 1e-6);
  r.features.prefix_hit_rate = 0.9;
  const InferAnswer hit = answer_infer(cat(), r);
  const PrefixCacheEstimate& h = hit.features.prefix->estimate;
  EXPECT_LT(h.prefill_ratio, 0.5);
  EXPECT_LT(h.ttft_s, none.estimate.point.ttft_s);
  EXPECT_GE(h.output_tokens_per_s, none.estimate.output_tokens_per_s);
  // 1,024-token prompt, 90% cached: 921.6 cached, 102.4 computed.
  EXPECT_NEAR(h.computed_tokens, 102.4, 1e-9);
}

TEST(PrefixCache, FullHitInAStaticBatchIsOneTokenStep) {
  // Batch 1, every prompt token cached: vLLM recomputes the last token only, so TTFT is one step
  // computing 1 token while attending to (and reading the KV of) the 1,024 cached ones; a static
  // batch's TTFT has no per-request engine cost to keep. Equal to that step within 0.1% (the
  // uncached reference step and the plain prefill step differ by the one token's logits row).
  InferRequest r = llama8b(1);
  r.concurrency.reset();
  r.batch = 1;
  r.features.prefix_hit_rate = 1;
  const InferAnswer a = answer_infer(cat(), r);
  const PrefixCacheEstimate& p = a.features.prefix->estimate;
  ASSERT_TRUE(p.feasible) << p.reason;
  EXPECT_EQ(p.computed_tokens, 1);
  EXPECT_NEAR(p.ttft_s, p.prefill_step_s, 1e-3 * p.prefill_step_s);
  EXPECT_LT(p.ttft_s, 0.3 * a.estimate.point.ttft_s);
}

TEST(PrefixCache, SharedPrefixIsHeldOnce) {
  InferRequest r = llama8b(16);
  r.features.shared_prefix_tokens = 520;  // 32 blocks of 16 + 8 tokens that share no full block
  const InferAnswer a = answer_infer(cat(), r);
  const PrefixCacheEstimate& p = a.features.prefix->estimate;
  EXPECT_EQ(p.shared_blocks_tokens, 512);
  // 512 tokens × 131,072 B (2 × 32 layers × 8 KV heads × 128 × 2 B) = 67,108,864 B once per GPU.
  EXPECT_DOUBLE_EQ(p.shared_kv_bytes, 512.0 * 131072);
  EXPECT_GT(p.max_seqs, a.estimate.memory.max_seqs);
  EXPECT_NEAR(a.features.prefix->input.hit_rate, 520.0 / 1024, 1e-12);  // H defaults to S / I
  r.features.prefix_hit_rate = 0.25;  // below 520 / 1024
  EXPECT_THROW(answer_infer(cat(), r), Error);
}

TEST(Disagg, PoolsTransferAndBalance) {
  InferRequest r = llama8b(64);
  r.features.disagg = "2:6";
  const InferAnswer a = answer_infer(cat(), r);
  const DisaggEstimate& d = a.features.disagg->estimate;
  ASSERT_TRUE(d.feasible) << d.reason;
  // 1,024 prompt tokens × 131,072 B = 134,217,728 B of KV per request.
  EXPECT_DOUBLE_EQ(d.kv_bytes_per_request, 1024.0 * 131072);
  EXPECT_EQ(d.fabric, "scale-up domain");  // 8 GPUs in one HGX H100 node
  EXPECT_EQ(d.prefill_replicas, 2);
  EXPECT_EQ(d.decode_replicas, 6);
  EXPECT_DOUBLE_EQ(d.requests_per_s, std::min({d.prefill_requests_per_s, d.transfer_requests_per_s,
                                               d.decode_requests_per_s}));
  EXPECT_NEAR(d.ttft_s, a.setup.ctx.engine->request_overhead_s + d.prefill_latency_s + d.kv_transfer_s, 1e-12);
  EXPECT_EQ(d.balanced_prefill_gpus + d.balanced_decode_gpus, 8);
  EXPECT_GE(d.balanced_requests_per_s, d.requests_per_s);
  // Across nodes the same transfer takes the NIC: slower than NVLink.
  r.features.disagg = "8:8";
  const InferAnswer far = answer_infer(cat(), r);
  EXPECT_EQ(far.features.disagg->estimate.fabric, "network");
  EXPECT_GT(far.features.disagg->estimate.kv_transfer_s / far.features.disagg->estimate.prompts_per_prefill_step,
            d.kv_transfer_s / d.prompts_per_prefill_step);
  r.features.disagg = "2-6";
  EXPECT_THROW(answer_infer(cat(), r), Error);
}

// Two GPU types (--disagg-prefill-gpu): each pool is costed on its own GPU exactly as a
// one-type disaggregation on that GPU costs it, the KV crosses the network at the slower end,
// and the balance adds prefill replicas to the given decode pool instead of splitting GPUs.
TEST(Disagg, PrefillOnAnotherGpuType) {
  InferRequest r;
  r.model = "llama3.1-70b";
  r.gpu = "h200-sxm";
  r.tp = 4;
  r.concurrency = 64;
  r.features.disagg = "8:8";
  r.features.disagg_prefill_gpu = "b200";
  const InferAnswer a = answer_infer(cat(), r);
  ASSERT_TRUE(a.features.disagg->prefill_ctx.has_value());
  const DisaggEstimate& d = a.features.disagg->estimate;
  ASSERT_TRUE(d.feasible) << d.reason;
  EXPECT_EQ(d.prefill_gpu, "b200");
  EXPECT_EQ(d.decode_gpu, "h200-sxm");

  InferRequest only_b200 = r;
  only_b200.gpu = "b200";
  only_b200.features.disagg_prefill_gpu.clear();
  const DisaggEstimate pb = answer_infer(cat(), only_b200).features.disagg->estimate;
  InferRequest only_h200 = r;
  only_h200.features.disagg_prefill_gpu.clear();
  const DisaggEstimate dh = answer_infer(cat(), only_h200).features.disagg->estimate;
  ASSERT_TRUE(pb.feasible && dh.feasible);
  EXPECT_DOUBLE_EQ(d.prefill_step_s, pb.prefill_step_s);
  EXPECT_DOUBLE_EQ(d.prompts_per_prefill_step, pb.prompts_per_prefill_step);
  EXPECT_DOUBLE_EQ(d.decode_step_s, dh.decode_step_s);
  EXPECT_DOUBLE_EQ(d.decode_requests_per_s, dh.decode_requests_per_s);
  EXPECT_LT(d.prefill_step_s, dh.prefill_step_s);  // B200's prompts run faster than H200's
  // 16 GPUs span two nodes in both one-type runs, so both crossed the network; the two-type
  // transfer is the slower end's.
  EXPECT_EQ(pb.fabric, "network");
  EXPECT_EQ(d.fabric, "network");
  EXPECT_GE(d.kv_transfer_s, pb.kv_transfer_s * (1 - 1e-12));

  // Balance: the fewest whole prefill replicas (tp 4) whose rate covers the 8 decode GPUs'.
  const double replica_rps =
      std::min(d.prompts_per_prefill_step / d.prefill_step_s, d.prompts_per_prefill_step / d.kv_transfer_s);
  EXPECT_EQ(d.balanced_decode_gpus, 8);
  EXPECT_EQ(d.balanced_prefill_gpus % 4, 0);
  EXPECT_GE(d.balanced_prefill_gpus / 4 * replica_rps, d.decode_requests_per_s * (1 - 1e-9));
  if (d.balanced_prefill_gpus > 4) {
    EXPECT_LT((d.balanced_prefill_gpus / 4 - 1) * replica_rps, d.decode_requests_per_s);
  }

  // Cost: 8 GPUs of each at its cheapest on-demand price.
  const double p_price = a.features.disagg->prefill_ctx->price_usd_per_gpu_hour;
  const double d_price = a.setup.ctx.price_usd_per_gpu_hour;
  ASSERT_GT(p_price, 0);
  ASSERT_GT(d_price, 0);
  EXPECT_DOUBLE_EQ(d.cost_usd_per_hour, 8 * p_price + 8 * d_price);
  EXPECT_NEAR(d.usd_per_million_output_tokens, d.cost_usd_per_hour / (d.output_tokens_per_s * 3600) * 1e6,
              1e-9 * d.usd_per_million_output_tokens);

  // Naming the plan's own GPU is the one-type answer.
  only_h200.features.disagg_prefill_gpu = "h200-sxm";
  const InferAnswer same = answer_infer(cat(), only_h200);
  EXPECT_FALSE(same.features.disagg->prefill_ctx.has_value());
  EXPECT_DOUBLE_EQ(same.features.disagg->estimate.requests_per_s, dh.requests_per_s);
}

// infer-search --disagg-prefill-gpus: each prefill GPU's best pair, its fleet figures by hand
// from its own pool rates, and the pair itself re-evaluated by estimate_disagg.
TEST(DisaggSearch, BestPairPerPrefillGpuAndFleetFigures) {
  InferSearchRequest r;
  r.model = "llama3.1-70b";
  r.gpu = "h200-sxm";
  r.input_len = 4096;
  r.output_len = 512;
  r.tpot_ms = 60;
  r.objective = "cost";
  r.disagg_prefill_gpus = {"h200-sxm", "b200"};
  const InferSearchAnswer a = answer_infer_search(cat(), r);
  ASSERT_TRUE(a.disagg.has_value());
  const DisaggSearchResult& d = a.disagg->result;
  ASSERT_TRUE(d.found) << d.reason;
  ASSERT_EQ(d.best_per_prefill_gpu.size(), 2U);
  EXPECT_EQ(d.best_per_prefill_gpu[0].prefill_gpu, "h200-sxm");
  EXPECT_EQ(d.best_per_prefill_gpu[1].prefill_gpu, "b200");
  EXPECT_GE(d.evaluated, d.feasible);
  EXPECT_GE(d.feasible, d.meeting);
  for (const DisaggCandidate& c : d.best_per_prefill_gpu) {
    EXPECT_LE(c.estimate.tpot_s, 0.060);
    EXPECT_LE(c.score, d.best.score);
    const double rp = std::min(c.estimate.prefill_requests_per_s, c.estimate.transfer_requests_per_s) / c.prefill_tp;
    const double rd = c.estimate.decode_requests_per_s / c.decode_tp;
    EXPECT_DOUBLE_EQ(c.prefill_requests_per_s_per_gpu, rp);
    EXPECT_DOUBLE_EQ(c.decode_requests_per_s_per_gpu, rd);
    EXPECT_NEAR(c.prefill_gpus_per_decode_gpu, rd / rp, 1e-12 * rd / rp);
    EXPECT_NEAR(c.output_tokens_per_s_per_gpu, 512 / (1 / rp + 1 / rd), 1e-9 * c.output_tokens_per_s_per_gpu);
    // Cost objective: score = output tokens per dollar = 1e6 / ($ per million).
    ASSERT_GT(c.usd_per_million_output_tokens, 0);
    EXPECT_NEAR(c.score, 1e6 / c.usd_per_million_output_tokens, 1e-9 * c.score);
  }
  // The b200 pair, evaluated again on its own: the same pools.
  const DisaggCandidate& b = d.best_per_prefill_gpu[1];
  InferPlan plan = a.disagg->base;
  plan.mode = InferMode::concurrency;
  plan.load = b.concurrency;
  const DisaggEstimate again = estimate_disagg(a.disagg->prefill_ctxs[1], a.setup.ctx, plan,
                                               DisaggInput{b.prefill_tp, b.decode_tp, b.prefill_tp, b.decode_tp});
  EXPECT_DOUBLE_EQ(again.prefill_step_s, b.estimate.prefill_step_s);
  EXPECT_DOUBLE_EQ(again.decode_step_s, b.estimate.decode_step_s);
  const double p_price = a.disagg->prefill_ctxs[1].price_usd_per_gpu_hour;
  const double d_price = a.setup.ctx.price_usd_per_gpu_hour;
  EXPECT_NEAR(b.usd_per_million_output_tokens,
              (p_price / b.prefill_requests_per_s_per_gpu + d_price / b.decode_requests_per_s_per_gpu) / 3600 / 512 * 1e6,
              1e-9 * b.usd_per_million_output_tokens);

  // A target nothing meets: not found, and the reason says what to relax.
  r.tpot_ms = 0.01;
  const InferSearchAnswer none = answer_infer_search(cat(), r);
  EXPECT_FALSE(none.disagg->result.found);
  EXPECT_NE(none.disagg->result.reason.find("relax"), std::string::npos) << none.disagg->result.reason;
}

TEST(Slo, ErlangCAndMdcWaitByHand) {
  // M/M/1: P(wait) = ρ.
  EXPECT_NEAR(erlang_c(1, 0.5), 0.5, 1e-12);
  // M/M/2 at a = 1: B = (1/2) / (1 + 1 + 1/2) = 0.2; C = 2·0.2 / (2 − 0.8) = 1/3.
  EXPECT_NEAR(erlang_c(2, 1), 1.0 / 3, 1e-12);
  // c = 1, λ = 0.5/s, service 1 s: p50 waits 0 (half never wait); p90 = ln(0.5/0.1) / (2·(1 − 0.5)) = ln 5.
  EXPECT_EQ(mdc_wait_quantile_s(1, 0.5, 1, 0.5), 0);
  EXPECT_NEAR(mdc_wait_quantile_s(1, 0.5, 1, 0.9), std::log(5.0), 1e-12);
}

TEST(Slo, GoodputMeetsTheTargetsAndRateSizesReplicas) {
  InferRequest r = llama8b(1);
  r.features.slo_ttft_ms = 500;
  r.features.slo_tpot_ms = 20;
  r.features.request_rate = 10;
  const InferAnswer a = answer_infer(cat(), r);
  const SloEstimate& s = a.features.slo->estimate;
  ASSERT_TRUE(s.feasible) << s.reason;
  EXPECT_LE(s.ttft_s, 0.5);
  EXPECT_LE(s.tpot_s, 0.020);
  ASSERT_TRUE(s.rate_served);
  EXPECT_GE(s.replicas * s.goodput_requests_per_s_per_replica, 10 - 1e-9);
  EXPECT_LT(s.utilization, 1);
  EXPECT_LE(s.ttft_p90_s, 0.5);
  EXPECT_LE(s.ttft_p50_s, s.ttft_p90_s);
  // Tighter TPOT: lower or equal goodput.
  r.features.slo_tpot_ms = 10;
  const InferAnswer tight = answer_infer(cat(), r);
  if (tight.features.slo->estimate.feasible) {
    EXPECT_LE(tight.features.slo->estimate.goodput_requests_per_s, s.goodput_requests_per_s);
  }
  r.features.slo_tpot_ms = -1;
  EXPECT_THROW(answer_infer(cat(), r), Error);
}

TEST(Slo, OperatingPointInterpolatesTheClosedLoopRateByHand) {
  // Closed-loop points: 1 in flight 2 req/s (TTFT 100 ms, TPOT 10 ms), 2 in flight 3 req/s
  // (TPOT 12 ms), 3 in flight 3.5 req/s (TPOT 16 ms).
  const std::vector<ConcurrencyPoint> pts{{1, 2, 0.100, 0.010}, {2, 3, 0.140, 0.012}, {3, 3.5, 0.200, 0.016}};
  // 1 req/s: half a request in flight; busy 1 − e^−0.5 = 0.39347; TTFT = 100 ms + 0.39347 ×
  // (5 ms + 0) = 101.967 ms.
  OperatingPoint op = operating_point(pts, 3, 1);
  ASSERT_TRUE(op.served);
  EXPECT_NEAR(op.concurrency, 0.5, 1e-12);
  EXPECT_NEAR(op.tpot_s, 0.010, 1e-12);
  EXPECT_NEAR(op.ttft_s, 0.100 + (1 - std::exp(-0.5)) * 0.005, 1e-12);
  // 2.5 req/s: halfway between 2 and 3 req/s: 1.5 in flight, TPOT 11 ms; busy 1 − e^−1.5 =
  // 0.77687; TTFT = 100 ms + 0.77687 × (5.5 ms + 1 ms) = 105.050 ms.
  op = operating_point(pts, 3, 2.5);
  EXPECT_NEAR(op.concurrency, 1.5, 1e-12);
  EXPECT_NEAR(op.tpot_s, 0.011, 1e-12);
  EXPECT_NEAR(op.ttft_s, 0.100 + (1 - std::exp(-1.5)) * 0.0065, 1e-12);
  // Above the cap's rate (3 req/s at a cap of 2): not served.
  EXPECT_FALSE(operating_point(pts, 2, 3.2).served);
  EXPECT_FALSE(operating_point({}, 2, 1).served);
}

// The closed-form M/D/c answer against the scheduler simulation it stands in for: Poisson
// arrivals at a fifth, half and four fifths of one replica's goodput, fixed lengths. Before
// the operating point, the closed form put every request at the goodput concurrency's TTFT
// (about ten times the simulated median at a fifth of the load).
TEST(Slo, ClosedFormTtftTracksTheSimulationAcrossTheLoad) {
  InferRequest base = llama8b(1);
  base.features.slo_tpot_ms = 25;
  base.features.request_rate = 1;
  const double goodput = answer_infer(cat(), base).features.slo->estimate.goodput_requests_per_s_per_replica;
  ASSERT_GT(goodput, 0);
  double previous_p50 = 0;
  for (const double share : {0.2, 0.5, 0.8}) {
    InferRequest r = base;
    r.concurrency.reset();
    r.features.request_rate = share * goodput;
    r.simulation.requests = 2000;
    const InferAnswer a = answer_infer(cat(), r);
    const SloEstimate& s = a.features.slo->estimate;
    ASSERT_TRUE(s.rate_served) << share;
    ASSERT_EQ(s.replicas, 1) << share;
    ASSERT_TRUE(a.simulation.has_value());
    const double sim_p50 = a.simulation->result.ttft_s.p50;
    const double sim_mean_running = a.simulation->result.mean_running;
    SCOPED_TRACE(fmt::format("share {}: closed form p50 {:.1f} ms, in flight {:.2f}; simulated p50 {:.1f} ms, "
                             "running {:.2f}",
                             share, s.ttft_p50_s * 1e3, s.operating_concurrency, sim_p50 * 1e3, sim_mean_running));
    EXPECT_NEAR(s.ttft_p50_s / sim_p50, 1.0, 0.15);
    EXPECT_NEAR(s.operating_concurrency / sim_mean_running, 1.0, 0.15);
    EXPECT_GE(s.ttft_p50_s, previous_p50);  // more load, no shorter wait
    previous_p50 = s.ttft_p50_s;
  }
}

}  // namespace
}  // namespace gpuplan
