// When each source of a published-runs file was published (data/validation/*-sources.toml,
// `kind = "source_dates"`): what `validate training --time-split DATE` splits the rows on (fit
// on what was published before DATE, predict the rest); and, where a source's runs share
// settings its table leaves blank, how those blank cells resolve (a rule for every row of the
// source, with its evidence; never a row's reading).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

struct SourceDate {
  std::string match;      // a part of the rows' `source` cell (the first entry that matches wins)
  std::string published;  // "YYYY-MM-DD" (ISO dates compare as strings); "" only for an entry that gives a rule
  std::string evidence;   // where the date comes from
  // A narrower entry: it matches only rows whose `model_ref` is this one and whose `gpu` is one
  // of `gpus` (empty = any). A source's presets can differ for one model, or for one model on
  // some GPUs (Megatron-Bridge runs GPT-OSS with the AllToAll dispatcher where its other MoE
  // presets use the flex one); such an entry, listed before the source's, says so.
  std::string model_ref;
  std::vector<std::string> gpus;
  // What a blank `moe_overlap` / `moe_dispatcher` cell of this source's MoE rows means ("" = no
  // rule: the framework's default, else the fastest setting): "none" or "1f1b"; "alltoall" or
  // "flex". `unknowns_evidence` says where the rule comes from (required with either).
  std::string moe_overlap;
  std::string moe_dispatcher;
  // Whether the source's fp8 rows keep their GEMM weights in fp8 only (Plan::fp8_params), where
  // a row has no `fp8_params` cell; unset = no rule (16-bit working weights, Megatron-Core's
  // default). Needs `unknowns_evidence` too.
  std::optional<bool> fp8_params;
  // Whether the source's fp4 (NVFP4) rows overlap their TP collectives with GEMMs, where a row
  // has no `tp_comm_overlap` cell; unset = no rule (overlapped, the plan's default). Needs
  // `unknowns_evidence` too.
  std::optional<bool> nvfp4_tp_comm_overlap;
  // Whether every row of the source (any precision) overlaps its TP collectives with GEMMs, where
  // a row has no `tp_comm_overlap` cell; unset = no rule (nvfp4_tp_comm_overlap for fp4 rows, else
  // overlapped). torchtitan's 2D table reports a run without AsyncTP, whose DTensor collectives
  // block the GEMMs. Needs `unknowns_evidence` too.
  std::optional<bool> tp_comm_overlap;
  // Whether the source's fp4 (NVFP4) rows apply Transformer Engine's random Hadamard transforms
  // (Plan::nvfp4_rht), where a row has no cell for it; unset = no rule (applied, TE's default
  // recipe). Needs `unknowns_evidence` too.
  std::optional<bool> nvfp4_rht;
  // The models (zoo ids) whose pipelined rows in this source count the embedding and the output
  // head as one layer each when splitting layers over stages (Plan::pp_embedding_head_slots),
  // where a row has no `pp_embedding_head_slots` cell: a recipe's setting for one model
  // (Megatron-Bridge's Llama 3.1 405B recipe). Needs `unknowns_evidence` too.
  std::vector<std::string> pp_embedding_head_slots_models;
  // The models (zoo ids) whose rows in this source train DeepSeek-V3's multi-token-prediction
  // block at the model's own depth (Plan::mtp_layers; Megatron-Bridge's DeepSeek-V3 recipe sets
  // mtp_num_layers = 1). Needs `unknowns_evidence` too.
  std::vector<std::string> mtp_layers_models;
  // Explicit pipeline layouts a recipe sets by (pp, vp) (Plan::pp_layout_layers), each
  // "MODEL PP VP LAYOUT" in Megatron-Core's layout grammar ("deepseek-v3 16 1
  // Et*4|(t*4|)*14tmL"); a row gets the layout whose model, pp and vp are its own, else none.
  // Needs `unknowns_evidence` too.
  std::vector<std::string> pp_layouts;
  // Whether the source states that its pipelined runs overlap the pipeline's P2P sends with
  // compute, in a framework release that does so only with the interleaved schedule
  // (Megatron-Core r0.8: arguments.py turns overlap_p2p_comm off without virtual stages). A
  // pipelined row's stated vp of 1 then contradicts the source and is resolved like an unknown
  // vp (over the interleaving depths). Needs `unknowns_evidence` too.
  bool pp_overlap_needs_interleaving = false;
  // Megatron-Core's recompute modules the source's preset sets (--recompute-modules: "layernorm",
  // "moe_act", "moe", "core_attn", "mla_up_proj", "mlp"), where a row's `recompute` cell is
  // blank or unknown (Plan::recompute_modules). Needs `unknowns_evidence` too.
  std::vector<std::string> recompute_modules;
  // Megatron-Core's CUDA-graph scopes the source's preset captures (--cuda-graph-scope under a
  // --cuda-graph-impl: "attn", "mlp", "moe_router", "moe_preprocess", "mamba", "full_iteration";
  // Plan::cuda_graph_scope). Every row of the entry runs them. Needs `unknowns_evidence` too.
  std::vector<std::string> cuda_graph_scope;
  // Parameters per data-parallel gradient bucket the source's configurations set (Megatron-Core
  // bucket_size; Plan::dp_bucket_params), where it differs from the framework's default; 0 = no
  // rule. Needs `unknowns_evidence` too.
  double dp_bucket_params = 0;
  // NCCL channels (CTAs) the source's NCCL configuration allows the context-parallel
  // communicator (MLPerf's custom_communicator_cta.yaml: cp max_ctas 1; Plan::cp_comm_channels);
  // 0 = no rule (NCCL's own). Needs `unknowns_evidence` too.
  int cp_comm_channels = 0;
  // Serving runs (validate inference): the requests the source's offline benchmark sent per run,
  // which its rows do not state in a column (0 = no rule). Such a run holds at most that many
  // sequences at once, whatever memory and the engine's max_num_seqs would allow. Needs
  // `unknowns_evidence` too.
  double benchmark_requests = 0;
  // Serving runs: the batch sizes the source's benchmark launch captured CUDA graphs at with
  // padding on (TensorRT-LLM's cuda_graph_config {enable_padding: true, batch_sizes}), which its
  // rows do not state (empty = no rule, the engine's own). Needs `unknowns_evidence` too.
  std::vector<double> cuda_graph_batch_sizes;
  std::string unknowns_evidence;
};

struct SourceDates {
  std::string id;                    // "training-runs"
  std::vector<std::string> aliases;  // unused; the catalog's insert expects the field
  std::vector<SourceDate> sources;
  Provenance provenance;
};

// The publication date of a row whose `source` cell is `source`: the first entry, over the
// catalog's files in load order, whose `match` occurs in it; "" when none does.
std::string published_date(const std::vector<SourceDates>& tables, std::string_view source);

// The entry matching `source` by the same rule, for a row of model `model_ref` on `gpu` (entries
// narrowed to a model or GPUs match only such rows; "" matches only the unnarrowed entries);
// nullptr when none does.
const SourceDate* source_entry(const std::vector<SourceDates>& tables, std::string_view source,
                               std::string_view model_ref = "", std::string_view gpu = "");

// True for "YYYY-MM-DD" with a plausible month and day.
bool is_iso_date(std::string_view text);

}  // namespace gpuplan
