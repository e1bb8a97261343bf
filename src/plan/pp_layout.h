// Megatron-Core's explicit pipeline layout (--pipeline-model-parallel-layout;
// megatron/core/transformer/pipeline_parallel_layer_layout.py at d98e8a64, parse_str_to_list and
// validate_layer_layout): one string names what each pipeline chunk holds, chunks separated by
// `|` in Megatron's chunk order (chunk = v·pp + rank): `E` the embedding, `t` a decoder layer,
// `m` a multi-token-prediction depth, `L` the output head and loss; `x*n` repeats one character,
// `(…)*n` a group, commas are cosmetic. Megatron-Bridge's DeepSeek-V3 and Kimi-K2 recipes set
// one by (pp, vp): "Et*4|(t*4|)*14tmL" = the embedding and 4 layers, 14 chunks of 4, 1 layer +
// MTP + loss (docs/model/training.md §2, "Pipeline layouts").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.h"

namespace gpuplan {

struct PpLayout {
  std::vector<int> layers;  // decoder layers (`t`) per chunk
  int mtp_chunk = -1;       // the chunk holding the `m`s; -1 = none
  int mtp_layers = 0;       // `m`s in the layout
};

// Parses `text`; on a malformed string, returns false with `error` saying what is wrong and how
// to write it (the caller names the flag or field).
bool parse_pp_layout(std::string_view text, PpLayout& out, std::string& error);

// Checks a parsed layout against a plan's pp × vp, the model's decoder layers and the MTP depths
// the plan trains, as Megatron-Core's validate_layer_layout does: "" when it holds, else the
// reason and the fix.
std::string check_pp_layout(const PpLayout& layout, int pp, int vp, std::int64_t model_layers, int mtp_layers);

// The layout into the plan (Plan::pp_layout_layers, Plan::mtp_chunk).
void apply_pp_layout(const PpLayout& layout, Plan& p);

// A request's --mtp-layers and --pp-layout into the plan, checked against the model: throws a
// FieldError naming the field, the value and the fix (exit 2).
void apply_mtp_and_layout(const ModelSpec& model, int mtp_layers, std::string_view layout_text, Plan& p);

// The plan's layout in the grammar, runs of a repeated chunk folded ("Et*4|(t*4|)*14|tmL"); ""
// without one. parse_pp_layout reads it back to the same plan.
std::string pp_layout_text(const Plan& p);

}  // namespace gpuplan
