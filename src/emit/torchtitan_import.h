// The other way round for torchtitan (`gpuplan train --from job.toml`): a torchtitan job TOML
// (torchtitan/config/job_config.py: [parallelism], [training], [activation_checkpoint],
// [float8]/[model] converters) read into a TrainRequest, so users can check the job they run.
//
// Strict: a key of [parallelism] or [training] that would change the plan but that gpuplan does
// not model (uneven first/last pipeline stages, custom module splits) is an Error naming the
// file, the key and the value; sections that do not change the plan (job, metrics, optimizer,
// checkpoint, ...) are skipped. Reading rules (torchtitan semantics):
//   dp = data_parallel_replicate_degree × data_parallel_shard_degree; shard > 1 is FSDP2
//   (ZeRO-3), with HSDP when both are > 1; shard = -1 fills the GPUs left (needs --gpus);
//   with pipeline parallelism the micro-batch is pipeline_parallel_microbatch_size and
//   local_batch_size is split into local / microbatch_size micro-batches; without it the
//   micro-batch is local_batch_size (gradient accumulation up to global_batch_size);
//   Interleaved1F1B needs pipeline_parallel_layers_per_stage dividing the layers per rank.
#pragma once

#include <string>
#include <string_view>

#include "plan/train_request.h"

namespace gpuplan {

// `model_layers`: the decoder layers of the model the request names (for the interleaving).
void read_torchtitan_toml(std::string_view text, const std::string& where, int model_layers, TrainRequest& request);
void read_torchtitan_toml_file(const std::string& path, int model_layers, TrainRequest& request);

}  // namespace gpuplan
