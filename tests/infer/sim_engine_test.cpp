// The scheduler simulation (infer/sim_engine.h): each case against a derivation by hand from
// step costs, plus determinism and conservation properties.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "infer_test_util.h"
#include "core/error.h"
#include "infer/evaluate.h"
#include "infer/sim_engine.h"
#include "infer/sim_slo.h"
#include "infer/step.h"

namespace gpuplan {
namespace {

using testing::cat;

InferPlan sim_plan(std::int64_t in, std::int64_t out) { return testing::fp8_plan(in, out, InferMode::concurrency); }

InferContext ctx_of(const char* engine, const char* model = "llama3.1-8b") {
  return make_infer_context(cat(), cat().model(model), cat().gpu("h200-sxm"), cat().engine(engine));
}

SimScheduler sched_of(const InferContext& ctx, const InferPlan& plan) {
  return sim_scheduler_of(ctx, plan, infer_memory(ctx, plan));
}

SimWorkload closed(int clients, std::int64_t in, std::int64_t out) {
  SimWorkload w;
  w.arrivals = SimArrivals::closed_loop;
  w.clients = clients;
  w.input_len = in;
  w.output_len = out;
  return w;
}

TEST(SimWorkload, PercentileInterpolatesAsNumpy) {
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);  // numpy.percentile([1,2,3,4], 50)
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);  // position 0.9 × 3 = 2.7
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
  std::vector<double> none;
  EXPECT_EQ(percentile(none, 99), 0);
}

// Runs of equal values answer exactly what the expanded list answers: hand-checked, then on
// values drawn with many repeats (as a step's inter-token gaps are), compared bit for bit.
TEST(SimWorkload, ValueRunsMatchTheExpandedList) {
  ValueRuns runs;
  EXPECT_EQ(runs.percentile(99), 0);
  EXPECT_EQ(runs.mean(), 0);
  for (double x : {4.0, 4.0, 1.0, 3.0, 3.0, 3.0, 2.0}) runs.add(x);  // sorted: 1 2 3 3 3 4 4
  EXPECT_EQ(runs.size(), 7u);
  EXPECT_DOUBLE_EQ(runs.percentile(50), 3);    // rank 3
  EXPECT_DOUBLE_EQ(runs.percentile(90), 4);    // position 5.4: between 4 and 4
  EXPECT_DOUBLE_EQ(runs.percentile(25), 2.5);  // position 1.5: between 2 and 3
  EXPECT_DOUBLE_EQ(runs.mean(), 20.0 / 7);

  // Long runs (the runs are sorted) and runs of one or two (the list is selected from).
  for (const int longest : {300, 2}) {
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> value(1, 40), repeat(1, longest);
    ValueRuns drawn;
    std::vector<double> expanded;
    for (int i = 0; i < 2000; ++i) {
      const double x = value(rng) * 0.0137;
      for (int k = repeat(rng); k > 0; --k) {
        drawn.add(x);
        expanded.push_back(x);
      }
    }
    double sum = 0;
    for (double x : expanded) sum += x;
    EXPECT_EQ(drawn.mean(), sum / static_cast<double>(expanded.size()));
    for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
      std::vector<double> copy = expanded;
      EXPECT_EQ(drawn.percentile(p), percentile(copy, p)) << longest << " " << p;
    }
  }
}

// add_repeatedly is the loop of additions, bit for bit: gaps of a step (milliseconds added to
// sums up to hours), values at a tie of the sum's ulp, sums crossing powers of two, values below
// half an ulp, a zero sum, negative values.
TEST(SimWorkload, AddRepeatedlyIsTheLoopBitForBit) {
  const auto loop = [](double sum, double value, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) sum += value;
    return sum;
  };
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> gap(1e-4, 0.2), log_sum(-3, 5);
  std::uniform_int_distribution<int> repeat(0, 600);
  for (int i = 0; i < 20000; ++i) {
    const double sum = i % 50 == 0 ? 0.0 : std::pow(10.0, log_sum(rng));
    const double value = i % 7 == 0 ? -gap(rng) : gap(rng);
    const int n = repeat(rng);
    ASSERT_EQ(add_repeatedly(sum, value, n), loop(sum, value, n)) << sum << " " << value << " " << n;
  }
  // Exact ties and near-ties of the ulp, and values far below it.
  for (const double sum : {1.0, 1.5, 1023.75, 4096.0 - 0x1p-40, 3e4}) {
    int e = 0;
    std::frexp(sum, &e);
    const double ulp = std::ldexp(1.0, e - 53);
    for (const double value : {ulp / 2, 1.5 * ulp, 2.5 * ulp, ulp / 2 + ulp / 1024, ulp / 3, ulp * 1e-9, 3 * ulp, 0.25}) {
      for (const int n : {1, 2, 3, 1000, 100000}) {
        ASSERT_EQ(add_repeatedly(sum, value, n), loop(sum, value, n)) << sum << " " << value << " " << n;
      }
    }
  }
}

TEST(SimWorkload, PoissonIsSeededAndHasTheRate) {
  SimWorkload w;
  w.arrivals = SimArrivals::poisson;
  w.rate_per_s = 5;
  w.requests = 4000;
  w.seed = 7;
  const auto a = open_loop_arrivals(w);
  EXPECT_EQ(a, open_loop_arrivals(w));
  w.seed = 8;
  EXPECT_NE(a, open_loop_arrivals(w));
  EXPECT_EQ(a.front(), 0);
  // 3,999 gaps of mean 1/5 s: the mean is within 5 standard errors (0.2 / √3999 each).
  EXPECT_NEAR(a.back() / 3999, 0.2, 5 * 0.2 / std::sqrt(3999.0));
}

TEST(SimWorkload, SpreadLengthsStayInTheRange) {
  SimWorkload w;
  w.requests = 500;
  w.input_len = 1000;
  w.input_spread = 0.5;
  const SimLengths l = draw_lengths(w);
  double sum = 0;
  for (auto x : l.input) {
    EXPECT_GE(x, 500);
    EXPECT_LE(x, 1500);
    sum += x;
  }
  EXPECT_NEAR(sum / 500, 1000, 40);
  for (auto x : l.output) EXPECT_EQ(x, 256);
}

// benchmark_serving's --random-range-ratio 0.8 as InferenceMAX's client reads it:
// np.random.randint(int(0.8 L), L + 1), so 1,024 gives integers in [819, 1024], mean 921.5
// (standard deviation 206 / √12 ≈ 59.5 each). Ratio 1 is fixed and draws nothing.
TEST(SimWorkload, RangeRatioLengthsAsBenchServing) {
  SimWorkload w;
  w.requests = 2000;
  w.input_len = 1024;
  w.output_len = 1024;
  w.input_range_ratio = 0.8;
  w.output_range_ratio = 0.8;
  const SimLengths l = draw_lengths(w);
  for (const auto* v : {&l.input, &l.output}) {
    double sum = 0;
    int lo = 1 << 30, hi = 0;
    for (auto x : *v) {
      sum += x;
      lo = std::min<int>(lo, x);
      hi = std::max<int>(hi, x);
    }
    EXPECT_EQ(lo, 819);  // 2,000 draws of 206 values: each end is hit with near certainty
    EXPECT_EQ(hi, 1024);
    EXPECT_NEAR(sum / 2000, 921.5, 5 * 59.5 / std::sqrt(2000.0));
  }
  EXPECT_NE(l.input, l.output);
  w.input_range_ratio = 1;
  const SimLengths fixed_in = draw_lengths(w);
  for (auto x : fixed_in.input) EXPECT_EQ(x, 1024);
  // A fixed prompt leaves the output drawn in its range.
  for (auto x : fixed_in.output) {
    EXPECT_GE(x, 819);
    EXPECT_LE(x, 1024);
  }
}

// The memo keeps a step without the engine's step overhead and adds the current one back at each
// lookup, as step.cpp adds it: bit for bit the step model's total, before and after the overhead
// changes (validate's fit of it), for a prompt step and a decode step on a grid point.
TEST(SimEngine, MemoAddsTheStepOverheadBackExactly) {
  InferContext ctx = ctx_of("vllm");
  const InferPlan plan = sim_plan(1024, 8);
  SimStepMemo memo(ctx, plan);
  EXPECT_EQ(memo.step_s(0, 0, 1024, 1024), step_cost(ctx, plan, {0, 0, 1024, 1024}).total_s);
  EXPECT_EQ(memo.step_s(8, 1024, 0, 0), step_cost(ctx, plan, {8, 1024, 0, 0}).total_s);
  Engine slower = *ctx.engine;
  slower.step_overhead_s += 3.1e-3;
  ctx.engine = &slower;
  EXPECT_EQ(memo.step_s(0, 0, 1024, 1024), step_cost(ctx, plan, {0, 0, 1024, 1024}).total_s);
  EXPECT_EQ(memo.step_s(8, 1024, 0, 0), step_cost(ctx, plan, {8, 1024, 0, 0}).total_s);
  EXPECT_EQ(memo.size(), 2u);
}

// A lengths CSV: the two columns by name among others, quoted cells, one request per row, and
// the rows sent again from the first when more requests are sent than there are rows.
TEST(SimWorkload, LengthsCsvRowsAreSentInOrderAndRepeat) {
  const SimLengths l = parse_sim_lengths_csv("note,output_len,input_len\n\"a, b\",128,1024\nx,7,3\n", "l.csv");
  ASSERT_EQ(l.input.size(), 2u);
  EXPECT_EQ(l.input, (std::vector<std::int32_t>{1024, 3}));
  EXPECT_EQ(l.output, (std::vector<std::int32_t>{128, 7}));
  SimWorkload w;
  w.requests = 5;
  w.input_spread = 0.5;  // the file's lengths replace the drawn ones
  w.lengths = std::make_shared<const SimLengths>(l);
  const SimLengths sent = draw_lengths(w);
  EXPECT_EQ(sent.input, (std::vector<std::int32_t>{1024, 3, 1024, 3, 1024}));
  EXPECT_EQ(sent.output, (std::vector<std::int32_t>{128, 7, 128, 7, 128}));
}

// Every bad lengths file throws an Error naming the file, and for a cell its line, its column
// and the value; none is read as a default or rounded.
TEST(SimWorkload, LengthsCsvIsStrict) {
  struct Bad {
    const char* text;
    std::vector<const char*> said;
  };
  const std::vector<Bad> cases = {
      {"input_len\n5\n", {"l.csv", "output_len"}},
      {"input_len,output_len\n", {"l.csv", "no request lengths"}},
      {"input_len,output_len\n1024,1.5\n", {"l.csv:2", "output_len", "'1.5'", "whole number"}},
      {"input_len,output_len\n10,20\n-3,20\n", {"l.csv:3", "input_len", "'-3'"}},
      {"input_len,output_len\n0,20\n", {"l.csv:2", "input_len", "'0'"}},
      {"input_len,output_len\n20,\n", {"l.csv:2", "output_len", "''"}},
      {"input_len,output_len\n99999999999,20\n", {"l.csv:2", "input_len", "'99999999999'"}},
      {"input_len,output_len\n1e3,20\n", {"l.csv:2", "'1e3'"}},
      {"input_len,output_len\n\"12,20\n", {"l.csv"}},
  };
  for (const Bad& c : cases) {
    try {
      parse_sim_lengths_csv(c.text, "l.csv");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const Error& e) {
      const std::string msg = e.what();
      for (const char* s : c.said) EXPECT_NE(msg.find(s), std::string::npos) << c.text << " -> " << msg;
    }
  }
}

// Why the range ratio matters (docs/model/simulation.md §2): with lengths drawn in [0.8 L, L]
// a closed loop of 4 vLLM clients desynchronises after the first wave, so most prompts are
// prefilled in steps of their own; with fixed lengths the 4 stay in lockstep and every wave
// pays a step of 4 prompts. The median TTFT of the first falls below the second's, towards
// one prompt's prefill step.
TEST(SimEngine, DrawnLengthsDesynchroniseAClosedLoop) {
  InferContext ctx = ctx_of("vllm", "llama3.1-70b");
  InferPlan plan = sim_plan(1024, 256);
  plan.tp = 4;
  const SimScheduler s = sched_of(ctx, plan);
  SimWorkload w = closed(4, 1024, 256);
  const SimResult lockstep = simulate_serving(ctx, plan, s, w);
  w.input_range_ratio = 0.8;
  w.output_range_ratio = 0.8;
  const SimResult spread = simulate_serving(ctx, plan, s, w);
  const double four = step_cost(ctx, plan, {0, 0, 4 * 1024, 1024}).total_s;
  const double one = step_cost(ctx, plan, {3, 1024, 1024, 1024}).total_s;
  EXPECT_NEAR(lockstep.ttft_s.p50, ctx.engine->request_overhead_s + four, 1e-9);
  EXPECT_LT(spread.ttft_s.p50, ctx.engine->request_overhead_s + 0.5 * (one + four));
  EXPECT_GT(spread.ttft_s.p50, ctx.engine->request_overhead_s + 0.5 * one);
}

// TensorRT-LLM (no context chunking, running first), 4 clients of 1,024-token prompts and 8
// output tokens: the four prompts fit one step of the launch's 16,384-token budget, so every wave is one prefill step
// of 4 × 1,024 tokens then 7 decode steps of 4, in lockstep. TTFT = request overhead + that
// prefill step (the next wave is sent when the last finishes and seen an overhead later).
TEST(SimEngine, LockstepWavesMatchTheStepCosts) {
  InferContext ctx = ctx_of("trtllm");
  const InferPlan plan = sim_plan(1024, 8);
  const SimScheduler s = sched_of(ctx, plan);
  ASSERT_FALSE(s.chunked_prefill);
  const SimResult r = simulate_serving(ctx, plan, s, closed(4, 1024, 8));
  const double prefill = step_cost(ctx, plan, {0, 0, 4 * 1024, 1024}).total_s;
  EXPECT_EQ(r.requests, 40);
  EXPECT_EQ(r.steps, 10 * 8);
  EXPECT_NEAR(r.ttft_s.p50, ctx.engine->request_overhead_s + prefill, 1e-12);
  EXPECT_NEAR(r.ttft_s.p99, r.ttft_s.p50, 1e-12);
  double decodes = 0;
  for (int k = 1; k <= 7; ++k) decodes += step_cost(ctx, plan, {4, 1024.0 + k, 0, 0}).total_s;
  EXPECT_NEAR(r.tpot_s.mean, decodes / 7, 1e-3 * decodes / 7);  // context interpolated on the memo's grid
  EXPECT_EQ(r.preemptions, 0);
  EXPECT_EQ(r.peak_running, 4);
}

// Batch waiting, step by step (TensorRT-LLM py_executor.py _waiting_requests, timeout 3, ratio
// 0.9): requests A (16 tokens in, 20 out) and B (16 in, 4 out) start together with nothing
// decoding, so they are prefilled at once (step 1). B's last token comes at step 4 and the client
// sends C (16 in, 4 out) then; no request overhead. C's 16 tokens plus A's one decode stay far
// below 0.9 × the budget, so C is held in steps 5, 6 and 7 (counts 1, 2, 3) and prefilled in
// step 8 beside A's decode: C's TTFT is steps 5 to 8, three decode steps of A longer than without
// waiting, where C is prefilled in step 5.
TEST(SimEngine, BatchWaitingHoldsANewPromptWhileOthersDecode) {
  InferContext ctx = ctx_of("trtllm");
  const InferPlan plan = sim_plan(16, 20);
  SimScheduler s = sched_of(ctx, plan);
  s.request_overhead_s = 0;
  s.cuda_graph_batch_sizes.clear();
  SimWorkload w = closed(2, 16, 20);
  SimLengths l;
  l.input = {16, 16, 16};
  l.output = {20, 4, 4};
  w.lengths = std::make_shared<const SimLengths>(l);
  w.requests = 3;
  w.warmup_requests = 2;  // only C is measured
  const SimResult plain = simulate_serving(ctx, plan, s, w);
  s.batch_wait = BatchWait{3, 0.9};
  const SimResult held = simulate_serving(ctx, plan, s, w);
  ASSERT_EQ(held.requests, 1);
  // A's decode in step k reads a context of 16 + (k − 1) tokens (its prompt and the tokens so far).
  // (C's prefill step then carries A's decode at context 23 instead of 20: a few tokens of attention.)
  double hold = 0;
  for (int k = 5; k <= 7; ++k) hold += step_cost(ctx, plan, {1, 15.0 + k, 0, 0}).total_s;
  EXPECT_NEAR(held.ttft_s.mean - plain.ttft_s.mean, hold, 1e-3 * hold);
  EXPECT_EQ(held.steps, plain.steps);  // A's 20 tokens set the run's length either way
  // With nothing decoding there is no wait at all (the engine's guard against dead waiting):
  // two clients of equal requests run in lockstep and are never held.
  SimWorkload same = closed(2, 16, 4);
  same.requests = 6;
  s.batch_wait = BatchWait{};
  const SimResult lock_plain = simulate_serving(ctx, plan, s, same);
  s.batch_wait = BatchWait{3, 0.9};
  const SimResult lock_held = simulate_serving(ctx, plan, s, same);
  EXPECT_NEAR(lock_held.ttft_s.mean, lock_plain.ttft_s.mean, 1e-15);
  // A ratio of 0 releases at once (tokens >= 0): timeout alone never holds, as in the engine.
  s.batch_wait = BatchWait{3, 0};
  EXPECT_NEAR(simulate_serving(ctx, plan, s, w).ttft_s.mean, plain.ttft_s.mean, 1e-15);
}

// A prompt longer than the step budget is prefilled in chunks: 10,000 tokens under vLLM's
// 8,192 take two steps (8,192 then 1,808), and the first token comes at the end of the second.
TEST(SimEngine, ChunkedPrefillSplitsALongPrompt) {
  InferContext ctx = ctx_of("vllm");
  const InferPlan plan = sim_plan(10000, 2);
  const SimScheduler s = sched_of(ctx, plan);
  SimWorkload w = closed(1, 10000, 2);
  w.requests = 1;
  const SimResult r = simulate_serving(ctx, plan, s, w);
  const double t = step_cost(ctx, plan, {0, 0, 8192, 10000}).total_s + step_cost(ctx, plan, {0, 0, 1808, 10000}).total_s;
  EXPECT_NEAR(r.ttft_s.mean, ctx.engine->request_overhead_s + t, 1e-12);
  EXPECT_EQ(r.steps, 3);
}

// vLLM pads a pure-decode step of 3 sequences to its CUDA graph of 4: the step costs as 4 rows
// reading the 3 real sequences' cached keys (the dummy row adds a token, not a context:
// infer/graph_padding.h), 4 rows at 3/4 of the context.
TEST(SimEngine, DecodeStepsArePaddedToACapturedGraph) {
  InferContext ctx = ctx_of("vllm");
  InferPlan plan = sim_plan(16, 3);
  SimScheduler s = sched_of(ctx, plan);
  ASSERT_FALSE(s.cuda_graph_batch_sizes.empty());
  SimWorkload w = closed(3, 16, 3);
  w.requests = 3;
  const SimResult padded = simulate_serving(ctx, plan, s, w);
  s.cuda_graph_batch_sizes.clear();
  const SimResult exact = simulate_serving(ctx, plan, s, w);
  // Two decode steps each (tokens 2 and 3); the padded ones cost as 4 sequences.
  const double four = step_cost(ctx, plan, {4, 17.0 * 3 / 4, 0, 0}).total_s +
                      step_cost(ctx, plan, {4, 18.0 * 3 / 4, 0, 0}).total_s;
  const double three = step_cost(ctx, plan, {3, 17, 0, 0}).total_s + step_cost(ctx, plan, {3, 18, 0, 0}).total_s;
  // (The memo interpolates contexts on a 16-token grid: 12.75 and 13.5 between 0 and 16, within a
  // percent of the padding's cost.)
  EXPECT_NEAR(padded.e2e_s.mean - exact.e2e_s.mean, four - three, 0.01 * (four - three));
  EXPECT_GT(four, three);
}

// A pool of few blocks under vLLM (no reservation): sequences grow into it and the newest is
// evicted and recomputed, yet every request finishes with all its tokens. With TensorRT-LLM's
// reservation of prompt + output no sequence is ever evicted, and no more run than fit whole.
TEST(SimEngine, PreemptionWhenBlocksRunOutAndNoneWithReservation) {
  InferContext ctx = ctx_of("vllm");
  const InferPlan plan = sim_plan(100, 400);
  SimScheduler s = sched_of(ctx, plan);
  s.kv_blocks = 4 * 32;  // 32 blocks of 16 tokens hold one 500-token sequence
  SimWorkload w = closed(8, 100, 400);
  w.requests = 16;
  const SimResult r = simulate_serving(ctx, plan, s, w);
  EXPECT_EQ(r.requests, 16);
  EXPECT_GT(r.preemptions, 0);
  s.reserve_full_sequence = true;
  const SimResult reserved = simulate_serving(ctx, plan, s, w);
  EXPECT_EQ(reserved.requests, 16);
  EXPECT_EQ(reserved.preemptions, 0);
  EXPECT_EQ(reserved.peak_running, 4);
}

// Conservation and determinism: offline and Poisson runs finish every request, output tokens/s
// = requests × output / duration, and the same seed gives the same answer.
TEST(SimEngine, PoissonRunsAreDeterministicAndConserveTokens) {
  InferContext ctx = ctx_of("sglang");
  const InferPlan plan = sim_plan(512, 128);
  const SimScheduler s = sched_of(ctx, plan);
  ASSERT_TRUE(s.prefill_first);
  SimWorkload w;
  w.arrivals = SimArrivals::poisson;
  w.rate_per_s = 20;
  w.requests = 300;
  w.input_len = 512;
  w.output_len = 128;
  w.input_spread = 0.3;
  w.seed = 3;
  const SimResult a = simulate_serving(ctx, plan, s, w);
  const SimResult b = simulate_serving(ctx, plan, s, w);
  EXPECT_EQ(a.requests, 300);
  EXPECT_EQ(a.ttft_s.p99, b.ttft_s.p99);
  EXPECT_EQ(a.tpot_s.p50, b.tpot_s.p50);
  EXPECT_NEAR(a.output_tokens_per_s, 300.0 * 128 / a.duration_s, 1e-9);
  EXPECT_LE(a.ttft_s.p50, a.ttft_s.p90);
  EXPECT_LE(a.ttft_s.p90, a.ttft_s.p99);
  EXPECT_GT(a.itl_s.p99, 0);
  // Heavier load, longer waits.
  w.rate_per_s = 80;
  const SimResult heavy = simulate_serving(ctx, plan, s, w);
  EXPECT_GT(heavy.ttft_s.p90, a.ttft_s.p90);
}

// Warm-up requests run but are not measured.
TEST(SimEngine, WarmupRequestsAreNotMeasured) {
  InferContext ctx = ctx_of("vllm");
  const InferPlan plan = sim_plan(256, 32);
  const SimScheduler s = sched_of(ctx, plan);
  SimWorkload w = closed(4, 256, 32);
  w.warmup_requests = 8;
  EXPECT_EQ(simulate_serving(ctx, plan, s, w).requests, 32);
}

// The highest Poisson rate within the limits: tighter limits give a lower rate, and the answer
// meets them at the percentile; a limit below one unloaded step is infeasible.
TEST(SimSlo, MaxRateWithinSloMeetsTheLimits) {
  InferContext ctx = ctx_of("vllm");
  const InferPlan plan = sim_plan(512, 64);
  const SimScheduler s = sched_of(ctx, plan);
  SimWorkload w;
  w.input_len = 512;
  w.output_len = 64;
  SimRateQuestion q;
  q.requests = 400;
  q.ttft_s = 0.25;
  q.tpot_s = 0.05;
  const SimRateAnswer loose = max_rate_within_slo(ctx, plan, s, w, q);
  ASSERT_TRUE(loose.feasible) << loose.reason;
  EXPECT_LE(loose.ttft_s, q.ttft_s);
  EXPECT_LE(loose.tpot_s, q.tpot_s);
  EXPECT_DOUBLE_EQ(loose.output_tokens_per_s, loose.rate_per_s * 64);
  q.ttft_s = 0.08;
  const SimRateAnswer tight = max_rate_within_slo(ctx, plan, s, w, q);
  ASSERT_TRUE(tight.feasible) << tight.reason;
  EXPECT_LT(tight.rate_per_s, loose.rate_per_s);
  q.tpot_s = 1e-5;
  EXPECT_FALSE(max_rate_within_slo(ctx, plan, s, w, q).feasible);
}

}  // namespace
}  // namespace gpuplan
