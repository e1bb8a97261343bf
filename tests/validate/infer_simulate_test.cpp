// `validate inference --simulate` (issue 30): the closed-loop rows are replayed with the lengths
// the engine's benchmark client draws, and the step costs a case's simulations share while a fit
// changes only the request overhead give the same predictions as costing every step afresh.
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog_util.h"
#include "core/csv.h"
#include "infer/evaluate.h"
#include "infer/sim_engine.h"
#include "validate/infer_fit.h"

namespace gpuplan {
namespace {

using testing::cat;

std::vector<InferCase> simulate_cases(const char* metric) {
  const std::string text =
      std::string("id,source,model_ref,gpu,num_gpus,tp,pp,ep,weight_precision,kv_precision,input_len,output_len,mode,"
                  "concurrency,engine,metric,value,notes\n") +
      "r1,own,llama3.1-8b,h100-sxm,1,1,1,1,fp8,fp8,1024,64,fixed_concurrency,4,vllm," + metric + ",50,\n";
  return read_inference_cases(CsvTable::parse(text, "t.csv"), cat());
}

InferOverrides with_overheads(const Engine& base, double step_s, double request_s) {
  InferOverrides o;
  Engine e = base;
  e.step_overhead_s = step_s;
  e.request_overhead_s = request_s;
  o.engines.emplace_back(&base, e);
  return o;
}

// A predictor that re-simulates a case with another request or step overhead reuses the step
// costs of its last simulation (SimStepMemo adds the current step overhead at each lookup); its
// answer must be bit for bit a fresh predictor's.
TEST(InferSimulate, SharedStepCostsGiveTheFreshAnswer) {
  const std::vector<InferCase> cases = simulate_cases("ttft_ms");
  ASSERT_EQ(cases.size(), 1u);
  const InferCase& c = cases[0];
  const InferOverrides a = with_overheads(*c.engine, 2e-3, 5e-3);
  const InferOverrides b = with_overheads(*c.engine, 2e-3, 12e-3);
  const InferOverrides slower = with_overheads(*c.engine, 3e-3, 12e-3);
  InferPredictor shared(cat(), true);
  const double ttft_a = shared.predict(c, &a);
  const double ttft_b = shared.predict(c, &b);
  const double ttft_slower = shared.predict(c, &slower);
  InferPredictor fresh_b(cat(), true);
  InferPredictor fresh_slower(cat(), true);
  EXPECT_EQ(ttft_b, fresh_b.predict(c, &b));
  EXPECT_EQ(ttft_slower, fresh_slower.predict(c, &slower));
  EXPECT_GT(ttft_b, ttft_a);  // the later arrivals: every request pays the larger overhead
  // The larger step overhead is applied, not a stale memo's (TTFT need not grow with it: slower
  // steps move where the drawn-length requests land against each other).
  EXPECT_NE(ttft_slower, ttft_b);
}

// The simulated row is the closed loop of 4 clients sending 10 requests each with prompt and
// output lengths uniform in [0.8 L, L] (data/engines/vllm.toml [benchmark]): the same as
// simulating that workload directly.
TEST(InferSimulate, RowsReplayTheEnginesBenchmarkLengths) {
  const std::vector<InferCase> cases = simulate_cases("tpot_ms");
  ASSERT_EQ(cases.size(), 1u);
  const InferCase& c = cases[0];
  ASSERT_DOUBLE_EQ(c.engine->benchmark_range_ratio, 0.8);
  InferPredictor p(cat(), true);
  const double tpot_ms = p.predict(c);

  const InferContext ctx = make_infer_context(cat(), *c.model, *c.gpu, *c.engine);
  InferPlan one = c.plan;
  one.replicas = 1;
  const InferEstimate e = evaluate_inference(ctx, one);
  SimWorkload w;
  w.arrivals = SimArrivals::closed_loop;
  w.clients = 4;
  w.input_len = 1024;
  w.output_len = 64;
  w.input_range_ratio = 0.8;
  w.output_range_ratio = 0.8;
  const SimResult r = simulate_serving(ctx, one, sim_scheduler_of(ctx, one, e.memory), w);
  EXPECT_EQ(r.requests, 40);
  EXPECT_DOUBLE_EQ(tpot_ms, r.tpot_s.mean * 1e3);
}

}  // namespace
}  // namespace gpuplan
