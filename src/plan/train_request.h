// The training questions as library calls: `gpuplan train` and `gpuplan memory` (and the web
// server and Python module beside them) fill a TrainRequest, call answer_train and hand the
// TrainAnswer to report/train_report.h. Bad input throws Error naming the flag, the value and
// the fix; a plan that cannot run is a value (Estimate's verdict), never an error.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/evaluate.h"
#include "plan/nearest_plans.h"
#include "plan/op_roofline.h"
#include "plan/placement.h"

namespace gpuplan {

// Field names follow the CLI flags (seq_len for --seq-len); defaults are the CLI's.
struct TrainRequest {
  std::string model;  // zoo id or alias, or a Hugging Face config.json (catalog/resolve_model.h)
  std::string gpu;
  std::string system;
  std::string fabric;
  std::optional<int> gpus;  // unset = tp × pp × cp × dp
  int tp = 1;
  int pp = 1;
  int vp = 1;
  std::optional<int> dp;  // unset = gpus / (tp × pp × cp), or 1
  int cp = 1;
  int ep = 1;
  bool sp = false;
  int zero = 0;
  std::optional<int> dp_shard;  // unset = all of dp
  int micro_batch = 1;
  int global_batch = 0;         // 0 = dp × micro_batch
  std::optional<int> seq_len;   // unset = the model's context length
  bool allow_longer_context = false;  // --allow-longer-context: plan a seq_len past max_seq_len
  std::string recompute = "none";
  // --recompute-modules: Megatron-Core's recompute modules, comma-separated (Plan::recompute_modules); "" = none
  std::string recompute_modules;
  // --cuda-graphs: Megatron-Core's CUDA-graph scopes, comma-separated (Plan::cuda_graph_scope); "" = eager
  std::string cuda_graphs;
  std::string precision = "bf16";
  std::string fp8_recipe;            // --fp8-recipe: delayed, tensorwise, blockwise, mxfp8; "" = delayed (nvfp4 for fp4)
  bool fp8_activation_cache = false; // --fp8-activation-cache (Plan::low_precision_act_cache)
  bool fp8_params = false;           // --fp8-params (Plan::fp8_params)
  bool nvfp4_rht = true;             // false: --no-nvfp4-rht (Plan::nvfp4_rht; fp4 only)
  bool tp_overlap = true;   // false: --no-tp-overlap
  std::string moe_overlap = "none";  // none, 1f1b, dualpipe (plan.h MoeOverlap)
  std::string moe_dispatcher = "alltoall";  // alltoall, flex (plan.h MoeDispatcher)
  double moe_imbalance = 1.0;        // max / mean tokens per expert-parallel rank
  std::string framework;    // --framework: id or alias (catalog/framework.h); "" = the default (megatron-core)
  std::optional<double> overhead_gib;  // unset = the GPU family's
  double memory_headroom_gib = 0;  // --memory-headroom-gib: kept free per GPU; 0 = none
  bool pp_embedding_head_slots = false;  // --pp-embedding-head-slots (Plan::pp_embedding_head_slots)
  std::string pp_layout;  // --pp-layout: Megatron-Core's layout string (Plan::pp_layout_layers); "" = even split
  int mtp_layers = 0;     // --mtp-layers: multi-token-prediction depths trained (Plan::mtp_layers)
  int optimizer_state_bits = 32;         // --optimizer-state-bits: 32, 16 or 8 (Plan::optimizer_state_bits)
  bool offload_optimizer = false;        // --offload-optimizer (Plan::offload_optimizer)
  int offload_activation_layers = 0;     // --offload-activation-layers (Plan::offload_activation_layers)
  std::string elementwise = "fused";     // --elementwise: fused or eager (Plan::eager_elementwise)
  std::string calibration;  // gpuplan-bench profile (calibration/calibration_scale.h), nccl-tests log or
                            // training calibration (calibration/training_calibration_file.h)
};

// The model, GPU and cluster a request names and its plan, checked; no estimate yet. The plan
// search starts from this too.
struct TrainSetup {
  std::shared_ptr<ModelSpec> owned_model;  // when read from a config.json
  TrainContext ctx;
  Plan plan;
  std::string calibration_profile;             // the request's, echoed in the answer
  std::vector<std::string> calibration_notes;  // what the profile changed, and what it could not
  // A training calibration (`gpuplan calibrate training`): the calibrated copies ctx points at.
  std::shared_ptr<const Efficiency> calibrated_efficiency;
  std::shared_ptr<const Framework> calibrated_framework;
  bool system_defaulted = false;  // ctx.system is the GPU's default (none named); the answer says so
  // Every default the answer depends on, one line each ("seq_len 8192: ..."): printed under
  // "assumptions" in text, JSON and the report, so a newcomer sees what was not asked.
  std::vector<std::string> assumptions;
};

struct TrainAnswer {
  TrainSetup setup;
  Estimate estimate;
  // The plan cannot run: the nearest single-change plans on the same GPUs that can
  // (plan/nearest_plans.h), fastest first; empty when it runs.
  std::vector<NearbyPlan> nearest;
  // Figures the reports print beside the estimate: each parallel group and the level it
  // reaches, the bytes per parameter of the model states under the plan's optimizer, and the
  // first layer's ops on the GPU's roofline (the HTML report's chart).
  std::vector<PlacedGroup> placement;
  StateBytes state;
  OpRoofline roofline;
  const TrainContext& ctx() const { return setup.ctx; }
  const Plan& plan() const { return setup.plan; }
};

// `gpuplan memory`: the same answer, written as a memory breakdown.
struct MemoryAnswer {
  TrainAnswer train;
};

// `gpuplan memory --rule-of-thumb`: the seed documents' table beside the full accounting.
// One row: the seed's figures as it prints them, and ours at the answer's bytes per parameter.
struct RuleOfThumbRow {
  const char* size = "";           // "7B"
  double params = 0;
  const char* seed_weights = "";   // "14 GB"
  const char* seed_training = "";  // "~56 GB"
  const char* seed_gpus = "";      // "1× H100 (80GB)"
  double weights_bytes = 0;        // params × 16-bit weight bytes
  double seed_training_bytes = 0;  // params × the seed's 8 B
  double states_bytes = 0;         // params × bytes_per_param
  double gpus_for_states = 0;      // ⌈states / the GPU's usable memory⌉
};
struct RuleOfThumbAnswer {
  const Gpu* gpu = nullptr;
  StateBytes state;
  double bytes_per_param = 0;  // weight + gradient + optimizer bytes of `state`
  std::vector<RuleOfThumbRow> rows;
};

// Resolves and checks the request (throws Error on bad input: unknown names, degrees below 1,
// --gpus that do not match the degrees, a micro-batch that does not divide the global batch,
// a --seq-len past the model's context length without allow_longer_context, ...).
TrainSetup make_train_setup(const Catalog& catalog, const TrainRequest& request);

TrainAnswer answer_train(const Catalog& catalog, const TrainRequest& request);
MemoryAnswer answer_memory(const Catalog& catalog, const TrainRequest& request);
// `gpu` empty = h100-sxm (the seed documents' GPU).
RuleOfThumbAnswer answer_rule_of_thumb(const Catalog& catalog, const std::string& gpu);

// Checks shared with the plan search (search_request.h): "--flag VALUE: at least 1" and the
// context-length rule; throw Error.
void require_at_least(const char* flag, long long value, long long minimum, const std::string& fix = "");
int resolve_seq_len(const ModelSpec& model, std::optional<int> seq_len, bool allow_longer_context);

// The training sequence length when --seq-len is left out (issue 34): the model's pretraining
// length where its config says it (rope_scaling.original_max_position_embeddings: 8,192 for
// Llama 3.1, whose context is 131,072), else its context length capped at 8,192 tokens, a common
// pretraining length, so that a default plan is one a newcomer would run. `why` says which.
inline constexpr int kDefaultTrainSeqLenCap = 8192;
struct DefaultSeqLen {
  int tokens = 0;
  std::string why;
};
DefaultSeqLen default_train_seq_len(const ModelSpec& model);
// --memory-headroom-gib: a finite number ≥ 0 (throws Error naming the flag otherwise); bytes.
double parse_memory_headroom(double gib);
// --precision for training: bf16, fp16, fp8, tf32 or fp32 (throws Error otherwise).
Precision parse_train_precision(const std::string& precision);
// --moe-overlap: none, 1f1b or dualpipe; --moe-imbalance: at least 1 (throw Error otherwise).
MoeOverlap parse_train_moe_overlap(const std::string& overlap);
// --moe-dispatcher: alltoall or flex (throws Error otherwise).
MoeDispatcher parse_train_moe_dispatcher(const std::string& dispatcher);
double check_moe_imbalance(double imbalance);
// --optimizer-state-bits: 32, 16 or 8 (throws Error otherwise).
int check_optimizer_state_bits(int bits);

// --elementwise's value: true for "eager", false for "fused"; a bad value throws naming the flag.
bool parse_train_elementwise(const std::string& name);
// --fp8-recipe for a plan in `precision` ("" = the precision's default recipe); throws Error.
ScalingRecipe parse_train_scaling(const std::string& text, Precision precision);
// An NVFP4 or MXFP8 plan on a GPU without block-scaled tensor cores is an input error.
void check_scaling_hardware(const Gpu& gpu, const Plan& p);
// --offload-optimizer on `ctx`: its system must have a host in the catalog and its GPU a PCIe
// generation (throws Error naming the flag, the system and the fix otherwise).
void check_offload_optimizer(const Catalog& catalog, const TrainContext& ctx);

}  // namespace gpuplan
