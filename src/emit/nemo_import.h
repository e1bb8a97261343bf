// The other way round for NeMo (`gpuplan train --from job.sbatch`): the Hydra overrides of
// NeMo's megatron_gpt_pretraining.py (`model.tensor_model_parallel_size=2 ...`, the keys of
// examples/nlp/language_modeling/conf/megatron_gpt_config.yaml), as `gpuplan train --emit nemo`
// writes them or a user's launch script holds them, read into a TrainRequest.
//
// Strict like the Megatron-LM reader: a plan key with a value gpuplan does not model is an Error
// naming the file, the line, the key and the value; keys that do not change the plan (data,
// tokenizer, optimiser hyper-parameters, logging, checkpoints) are skipped. Reading rules
// (NeMo semantics): GPUs = trainer.num_nodes × trainer.devices (checked against --gpus when
// both are given); model.optim.name=distributed_fused_adam is Megatron's distributed optimizer
// (ZeRO-1); model.fp8=true trains the linear layers in FP8; activations_checkpoint_granularity
// full needs method uniform and one layer per checkpoint (what gpuplan models).
#pragma once

#include <string>
#include <string_view>

#include "plan/train_request.h"

namespace gpuplan {

// True when `text` holds NeMo Hydra overrides (a `trainer.` or `model.` key with a value).
bool looks_like_nemo_overrides(std::string_view text);

void read_nemo_overrides(std::string_view text, const std::string& where, TrainRequest& request);

}  // namespace gpuplan
