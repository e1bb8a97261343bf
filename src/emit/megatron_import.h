// The other way round (`gpuplan train --from ARGS`): a Megatron-LM argument list (the flags of
// pretrain_gpt.py, as `--emit megatron` writes them in pretrain_args.txt, or copied from a
// launch script) read into a TrainRequest, so users can check the job they already run.
//
// Strict: every flag that changes the plan gpuplan evaluates is read; a flag that would change
// it but that gpuplan does not model (uneven first/last pipeline stages, expert TP, ...) is an
// Error naming the line and the flag; flags that do not change the plan (data, tokenizer,
// learning rate, logging, checkpoints) are skipped. The model's shape flags, when present, must
// match the model named with --model.
#pragma once

#include <string>
#include <string_view>

#include "plan/train_request.h"

namespace gpuplan {

// Reads `text` (whitespace-separated "--flag value" and "--switch" tokens; '#' starts a comment;
// a line ending in '\' continues) into `request` over its current fields. `where` names the
// file in messages. Throws Error "FILE:LINE: --flag VALUE: ..." on bad input.
void read_megatron_args(std::string_view text, const std::string& where, TrainRequest& request);

// Checks the shape flags read (--num-layers, --hidden-size, --ffn-hidden-size,
// --num-attention-heads, --num-query-groups) against the resolved model; throws Error naming
// the flag, both values and the fix.
struct MegatronShape {
  long long layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, query_groups = 0;
};
MegatronShape megatron_shape(std::string_view text, const std::string& where);
void check_megatron_shape(const MegatronShape& shape, const ModelSpec& model, const std::string& where);

}  // namespace gpuplan
