// Multi-head latent attention (DeepSeek-V2/V3) as serving engines run its decode steps: with the
// key and value up-projections absorbed into the query and output projections, a decode token
// attends as multi-query attention over the cached latent itself, every query head dotting
// against the kv_lora_rank + qk_rope_head_dim latent key and gathering a kv_lora_rank-wide latent
// value. Sources: DeepSeek-V2 §2.1.2 (W^UK absorbed into W^Q, W^UV into W^O at inference);
// TensorRT-LLM tech blog 3 @02643c1 (docs/source/blogs/tech_blog/
// blog3_Optimizing_DeepSeek_R1_Throughput_on_NVIDIA_Blackwell_GPUs.md, "Weights absorb and MQA":
// "For the decoding phase, the weights absorb significantly reduces the math FLOPS needed to up
// project the K and V ... non absorbed version is beneficial for the prefill phase with input
// length 256 or larger"); on Hopper TensorRT-LLM decodes it in FlashMLA, head_dim_k 576 and
// head_dim_v 512 (tensorrt_llm/_torch/model_config.py @1a0dc5f, enable_flash_mla). Prompts keep
// the multi-head form: keys of qk_nope + qk_rope and values of v_head_dim per head.
// docs/model/inference.md §4, "MLA decode".
#pragma once

#include "workload/model.h"

namespace gpuplan {

// FLOPs per cached key per layer of one decode token in the absorbed form,
// 2·heads·(kv_lora_rank + qk_rope_head_dim) for QK^T plus 2·heads·kv_lora_rank for PV
// (DeepSeek-V3: 2·128·576 + 2·128·512 = 278,528, against 2·128·(192 + 128) = 81,920 in the
// multi-head form). 0 for a model without MLA.
double mla_absorbed_decode_flops_per_key_layer(const ModelSpec& m);

}  // namespace gpuplan
