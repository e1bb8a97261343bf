// DeepSeek-V3's multi-token-prediction block (DeepSeek-AI 2024, arXiv:2412.19437 sec. 2.2;
// Megatron-Core megatron/core/transformer/multi_token_prediction.py and models/gpt/gpt_model.py
// at 0d8e0714, the Megatron-LM commit of Megatron-Bridge v0.2.0; kept at b0cc2706 and 55ac7082):
// per depth, RMSNorms of the shifted tokens' embeddings (`enorm`) and of the main model's last
// hidden states (`hnorm`), their concatenation [emb; h] projected 2h -> h (`eh_proj`, a
// column-parallel linear run in the fp8 context of an fp8 run), one transformer layer of the
// decoder's last layer spec (an MoE layer for DeepSeek-V3: the evaluator costs it as one more
// layer of the model's last layer's kind), the block's final norm, and a second pass of the
// shared output layer and the loss on the labels rolled by one.
#pragma once

#include "workload/ops.h"

namespace gpuplan {

// The block's own ops for one depth (its layer not included): enorm, hnorm, eh_proj (t × h/tp ×
// 2h, 2h·h/tp new weights), mtp_final_norm, mtp_logits (the shared head's weights: none new) and
// mtp_loss, all in OpGroup::head.
void build_mtp_ops(const ModelSpec& model, const OpShape& shape, LayerOps& out);

}  // namespace gpuplan
