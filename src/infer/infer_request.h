// The serving questions as library calls: `gpuplan infer` (one plan → its estimate) and
// `gpuplan infer-search` (the best plan). Request in (fields named after the CLI flags,
// defaults = the CLI's), answer out; bad input throws Error naming the flag, the value and
// the fix; an infeasible plan is a value in the answer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/progress.h"
#include "infer/evaluate.h"
#include "infer/disagg_search.h"
#include "infer/infer_context.h"
#include "infer/infer_features.h"
#include "infer/infer_plan.h"
#include "infer/search.h"
#include "infer/sim_answer.h"

namespace gpuplan {

// What `infer` and `infer-search` share.
struct InferCommon {
  std::string model;  // --model: zoo id or alias, or a Hugging Face config.json
  std::string gpu;    // --gpu
  std::string engine = "vllm";
  std::string system;                // --system; empty = the GPU's usual node
  std::string weights = "bf16";      // --weights
  std::string kv;                    // --kv; empty = 16-bit like the weights, fp8 with ≤ 8-bit weights
  std::int64_t input_len = 1024;     // --input-len
  std::int64_t output_len = 256;     // --output-len
  // --router-imbalance: busiest expert-parallel rank's routed tokens / the mean, >= 1 (MoE, ep > 1).
  double router_imbalance = kDefaultRouterImbalance;
  std::string calibration;           // --calibration: gpuplan-bench profile of this GPU
  bool allow_longer_context = false; // --allow-longer-context: input + output may exceed max_seq_len
};

struct InferRequest : InferCommon {
  std::optional<int> gpus;  // --gpus; none = tp × pp
  std::optional<int> tp;    // --tp; none = gpus / pp, else 1
  int pp = 1;               // --pp
  int ep = 1;               // --ep
  int attention_dp = 1;     // --attention-dp: attention data-parallel ranks inside the TP group (infer_plan.h)
  // The load: at most one of the three (answer_infer refuses two); none = a static batch of 1.
  std::optional<double> batch;        // --batch
  std::optional<double> concurrency;  // --concurrency
  bool max_throughput = false;        // --max-throughput
  // Serving features (speculative decoding, prefix caching, disaggregation, SLOs): all off by
  // default; infer/infer_features.h.
  InferFeatures features;
  // The engine's scheduler limits instead of its data's (also what the closed-form estimate
  // and the memory budget use): --max-batch-size (max_num_seqs / max_batch_size),
  // --max-num-tokens (max_num_batched_tokens / max_num_tokens), --chunked-prefill on|off.
  std::optional<double> max_batch_size;
  std::optional<double> max_num_tokens;
  std::string chunked_prefill;  // "", "on" or "off"
  // The scheduler simulation (infer/sim_answer.h): run with --concurrency or --request-rate.
  SimOptions simulation;
};

// The resolved question: model, GPU, engine, system, precisions and calibration.
struct InferSetup {
  std::shared_ptr<ModelSpec> owned_model;  // when read from a config.json (ctx.model points into it)
  std::shared_ptr<Engine> owned_engine;    // the catalog's with the request's scheduler limits (ctx.engine points into it)
  InferContext ctx;
  Precision weights = Precision::bf16;
  Precision kv = Precision::bf16;
  std::string calibration;                     // the profile path, empty = none
  std::vector<std::string> calibration_notes;  // what --calibration changed, and what it could not
  bool system_defaulted = false;  // ctx.system is the GPU's default (no --system); the answer says so
};

struct InferAnswer {
  InferSetup setup;
  InferPlan plan;
  InferEstimate estimate;
  InferFeatureAnswer features;  // the features the request turned on (infer/infer_features.h)
  std::optional<SimAnswer> simulation;  // --concurrency or --request-rate: the scheduler simulation
  std::vector<std::string> notes;  // what the answer wants the user to know about the plan itself
};

struct InferSearchRequest : InferCommon {
  int gpus_max = 8;         // --gpus-max
  std::optional<double> ttft_ms;       // --ttft-ms; none = no target
  std::optional<double> tpot_ms;       // --tpot-ms; none = no target
  double rate = 0;          // --rate (requests/s); 0 = one replica
  // --slo-percentile P (50..100): the targets apply to the P-th percentile of the scheduler
  // simulation (infer/search_sim.h); none = to the closed-form means.
  std::optional<double> slo_percentile;
  std::string objective = "throughput";
  // Whether --weights / --kv were given: then the search keeps them, else it tries them all.
  bool weights_given = false;
  // --disagg-prefill-gpus: also search disaggregated serving with prompts on one of these GPUs
  // (the plan's --gpu may be among them) and decodes on --gpu (infer/disagg_search.h).
  std::vector<std::string> disagg_prefill_gpus;
  ProgressSink progress;  // not a field: plans evaluated so far, for the CLI's stderr (core/progress.h)
};

struct DisaggSearchAnswer {
  std::vector<InferContext> prefill_ctxs;  // one per --disagg-prefill-gpus entry
  InferPlan base;                          // the precisions and lengths both pools run
  DisaggSearchSpec spec;
  DisaggSearchResult result;
};

struct InferSearchAnswer {
  InferSetup setup;
  InferSearchSpec spec;
  InferSearchResult result;
  std::optional<DisaggSearchAnswer> disagg;
};

// Throws Error on bad input (see strict_infer_input_test.cpp for every case).
InferAnswer answer_infer(const Catalog& catalog, const InferRequest& request);
InferSearchAnswer answer_infer_search(const Catalog& catalog, const InferSearchRequest& request);

// --weights and --kv as users type them; Error names the flag and the choices.
Precision parse_weight_precision(const std::string& text);
Precision parse_kv_precision(const std::string& text);

// Why `gpu` cannot serve `weights` as the engines run them ("" = it can): a GPU with neither the
// precision's tensor cores nor 16-bit ones to dequantise into. `infer`, `infer-search` and
// `validate inference` refuse the same plans with it.
std::string weights_refusal(const Catalog& catalog, const Gpu& gpu, Precision weights);

// The note an answer carries when `weights` run weight-only on `gpu` (FP4 or FP6 without their
// tensor cores: dequantised to 16 bits in the GEMM); "" otherwise.
std::string weights_note(const Gpu& gpu, Precision weights);

}  // namespace gpuplan
