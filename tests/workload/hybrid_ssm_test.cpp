// Hybrid state-space models: Jamba (Mamba-1 + attention + MoE) and Nemotron-H (Mamba-2,
// attention and MLP as separate layers). Parameter counts, scan FLOPs, the fixed recurrent
// state that replaces a KV cache in Mamba layers, the ops of a Mamba layer and their
// activation memory, each worked by hand from the fixture's fields.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "test_util.h"
#include "workload/activations.h"
#include "workload/hf_config.h"
#include "workload/kv_cache.h"
#include "workload/mamba.h"
#include "workload/ops.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

using nlohmann::json;

std::string hybrid_fixture(const std::string& file) {
  return testing::source_dir() + "/tests/workload/fixtures/" + file;
}

json hybrid_json(const std::string& file) {
  std::ifstream in(hybrid_fixture(file));
  return json::parse(in);
}

// Jamba v0.1 (AI21, arXiv:2403.19887: 52B total, 12B active). Mamba-1 mixer, d_inner 8,192,
// N 16, Δ rank 256, conv 4: in_proj 4,096 x 16,384 = 67,108,864; conv 8,192 x 4 + 8,192 =
// 40,960; x_proj 8,192 x 288 = 2,359,296; dt_proj 256 x 8,192 + 8,192 = 2,105,344; A_log
// 131,072; D 8,192; out_proj 33,554,432; Δ/B/C norms 288: 105,308,448. Attention (32 heads,
// 8 KV) 41,943,040; dense MLP 3 x 4,096 x 14,336 = 176,160,768; MoE 16 of those + router
// 65,536; two norms 8,192 per layer. 4 attention + 28 Mamba layers, 16 dense + 16 MoE:
// 4 x 41,943,040 + 28 x 105,308,448 + 16 x 176,160,768 + 16 x 2,818,637,824 + 32 x 8,192 +
// embeddings 2 x 65,536 x 4,096 + 4,096 = 51,570,323,328. Active: MoE layers run 2 experts
// (352,321,536 + 65,536): 12,110,311,296.
TEST(HybridSsm, JambaLayoutAndCounts) {
  const ModelSpec m = load_hf_config_file(hybrid_fixture("jamba-v0.1.json"));
  EXPECT_EQ(m.mamba.version, 1);
  EXPECT_EQ(m.mamba.d_inner, 8192);
  EXPECT_EQ(m.mamba.dt_rank, 256);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(m.is_attention_layer(i), i % 8 == 4) << i;
    EXPECT_EQ(m.is_mamba_layer(i), i % 8 != 4) << i;
    EXPECT_EQ(m.is_moe_layer(i), i % 2 == 1) << i;
    EXPECT_TRUE(m.has_ffn(i));
  }
  EXPECT_DOUBLE_EQ(mamba_params(m).total(), 105308448.0);
  const ParamCounts c = count_params(m);
  EXPECT_DOUBLE_EQ(c.total, 51570323328.0);
  EXPECT_DOUBLE_EQ(c.active, 12110311296.0);
  EXPECT_NEAR(c.total / 52e9, 1.0, 0.01);
  EXPECT_NEAR(c.active / 12e9, 1.0, 0.01);
  // "auto" Δ rank = ⌈4,096 / 16⌉ = 256; anything else is named.
  json j = hybrid_json("jamba-v0.1.json");
  j["mamba_dt_rank"] = "auto";
  EXPECT_EQ(model_from_hf_config(j, "config.json").mamba.dt_rank, 256);
  j["mamba_dt_rank"] = "big";
  EXPECT_THROW(model_from_hf_config(j, "config.json"), Error);
  j = hybrid_json("jamba-v0.1.json");
  j["attn_layer_offset"] = 8;
  EXPECT_THROW(model_from_hf_config(j, "config.json"), Error);
}

// Nemotron-H 8B (NVIDIA, arXiv:2504.03624: 8B). Mamba-2: 128 heads x 64 = d_inner 8,192, 8
// groups of N 128: in_proj 4,096 x (2 x 8,192 + 2 x 8 x 128 + 128 = 18,560) = 76,021,760; conv
// channels 10,240 x 4 + 10,240 = 51,200; dt_bias, A_log, D 384; gated norm 8,192; out_proj
// 33,554,432: 109,635,968. Attention 41,943,040; squared-ReLU MLP 2 x 4,096 x 21,504 =
// 176,160,768; one norm 4,096 per layer. 24 M + 4 * + 24 -, embeddings 2 x 131,072 x 4,096:
// 24 x 109,640,064 + 4 x 41,947,136 + 24 x 176,164,864 + 1,073,741,824 + 4,096 =
// 8,100,852,736 (8.1B against "8B").
TEST(HybridSsm, NemotronH8bPatternAndCounts) {
  const ModelSpec m = load_hf_config_file(hybrid_fixture("nemotron-h-8b.json"));
  EXPECT_EQ(m.mamba.version, 2);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.mlp, MlpKind::relu2);
  EXPECT_TRUE(m.is_mamba_layer(0));
  EXPECT_FALSE(m.has_ffn(0));
  EXPECT_EQ(m.mixer(1), MixerKind::none);
  EXPECT_TRUE(m.has_ffn(1));
  EXPECT_TRUE(m.is_attention_layer(7));
  EXPECT_FALSE(m.has_ffn(7));
  EXPECT_EQ(layer_kind(m, 0), 6);
  EXPECT_EQ(layer_kind(m, 1), 9);
  EXPECT_EQ(layer_kind(m, 7), 7);
  EXPECT_DOUBLE_EQ(mamba_params(m).total(), 109635968.0);
  const ParamCounts c = count_params(m);
  EXPECT_DOUBLE_EQ(c.total, 8100852736.0);
  EXPECT_NEAR(c.total / 1e9, 8, 1);
  // A pattern of the wrong length or with an unknown letter names the field.
  json j = hybrid_json("nemotron-h-8b.json");
  j["hybrid_override_pattern"] = "M-*";
  try {
    model_from_hf_config(j, "config.json");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid_override_pattern"), std::string::npos) << e.what();
  }
  j["hybrid_override_pattern"] = std::string(52, 'X');
  EXPECT_THROW(model_from_hf_config(j, "config.json"), Error);
}

// Nemotron-H 56B (arXiv:2504.03624 table 1: 118 layers, 10 of them attention, hidden 8,192,
// FFN 32,768, 256 Mamba heads of 64, state 256, 8 groups): 54 Mamba, 10 attention and 54 MLP
// layers (the order here is illustrative; the count does not depend on it). Mamba in_proj
// 8,192 x 37,120 = 304,087,040, conv 20,480 x 5 = 102,400, 768 + 16,384, out_proj 134,217,728:
// 438,424,320; attention 150,994,944; MLP 536,870,912; embeddings 2,147,483,648:
// 56,324,350,464 (0.6% over 56B).
TEST(HybridSsm, NemotronH56bFromThePaperShape) {
  json j = hybrid_json("nemotron-h-8b.json");
  std::string pattern;
  for (int i = 0; i < 10; ++i) pattern += i < 8 ? "M-M-M-M-M*-" : "M-M-M-M-M-M-M*-";
  j["hybrid_override_pattern"] = pattern.substr(0, 118);
  j["num_hidden_layers"] = 118;
  j["hidden_size"] = 8192;
  j["num_attention_heads"] = 64;
  j["intermediate_size"] = 32768;
  j["mamba_num_heads"] = 256;
  j["ssm_state_size"] = 256;
  const ModelSpec m = model_from_hf_config(j, "config.json");
  std::int64_t mamba = 0, attention = 0, mlp = 0;
  for (std::int64_t i = 0; i < m.layers; ++i) {
    mamba += m.is_mamba_layer(i) ? 1 : 0;
    attention += m.is_attention_layer(i) ? 1 : 0;
    mlp += m.mixer(i) == MixerKind::none ? 1 : 0;
  }
  ASSERT_EQ(mamba, 54);
  ASSERT_EQ(attention, 10);
  ASSERT_EQ(mlp, 54);
  EXPECT_DOUBLE_EQ(count_params(m).total, 56324350464.0);
  EXPECT_NEAR(count_params(m).total / 56e9, 1.0, 0.01);
}

// Scan FLOPs per token and layer. Mamba-1 (Jamba): 9 x 8,192 x 16 = 1,179,648. Mamba-2
// (Nemotron-H 8B, chunk 128): 8 x 2 x 128 x 128 + 128 x (2 x 128 x 64 + 4 x 128 x 64) =
// 262,144 + 6,291,456 = 6,553,600. Training model FLOPs add 3 x the scans of every Mamba layer.
TEST(HybridSsm, ScanFlops) {
  const ModelSpec jamba = load_hf_config_file(hybrid_fixture("jamba-v0.1.json"));
  const ModelSpec nh = load_hf_config_file(hybrid_fixture("nemotron-h-8b.json"));
  EXPECT_DOUBLE_EQ(mamba_scan_flops_per_token(jamba.mamba), 1179648.0);
  EXPECT_DOUBLE_EQ(mamba_scan_flops_per_token(nh.mamba), 6553600.0);
  EXPECT_DOUBLE_EQ(mamba_scan_flops_per_token(nh), 24 * 6553600.0);
  const double matmul = count_params(nh).matmul_active;
  EXPECT_DOUBLE_EQ(train_flops_per_token(nh, 4096),
                   6 * matmul + 3 * attention_flops_per_token(nh, 4096) + 3 * 24 * 6553600.0);
  // Only the 4 attention layers see keys: 2 x 32 x 256 = 16,384 FLOPs per key per layer.
  EXPECT_DOUBLE_EQ(decode_flops_per_token(nh, 8192) - decode_flops_per_token(nh, 1), 4 * 16384.0 * 8191);
}

// Mamba-2's chunked scan as training runs it (mamba.h): Nemotron-H 8B, 2-byte activations,
// d = 128 x 64 = 8,192, Q = N = 128 (chunk states s = 8,192 per token), G = 8 (G·N = G·Q =
// 1,024), H = 128. Forward 3 x 2 x 8,192 + 12 x 8,192 + 4 x 2 x 1,024 + 8 x 1,024 + 26 x 128
// = 49,152 + 98,304 + 8,192 + 8,192 + 3,328 = 167,168 bytes per token, + the gate 2 x 2 x
// 8,192 = 32,768: 199,936; backward the recomputed forward 16,384 + 98,304 + 6,144 + 4,096 +
// 2,304 = 127,232 plus the gradients 10 x 2 x 8,192 + 28 x 8,192 + 20 x 1,024 + 12 x 2 x 1,024
// + 40 x 128 = 163,840 + 229,376 + 20,480 + 24,576 + 5,120 = 443,392 plus the gate's 6 x 2 x
// 8,192 = 98,304: 668,928. The training op carries them, where the serving
// estimate keeps the fused kernel's (3 x 8,192 + 2 x 1,024 + 128) x 2 = 53,504. The conv's
// backward adds its recomputed forward: 3 x its forward 2 x (8,192 + 2,048) x 2 = 40,960.
TEST(HybridSsm, Mamba2ScanTrafficAsItsKernelsRun) {
  const ModelSpec nh = load_hf_config_file(hybrid_fixture("nemotron-h-8b.json"));
  const ScanBytes b = mamba2_ssd_training_bytes_per_token(nh.mamba, 2);
  EXPECT_DOUBLE_EQ(b.fwd, 199936.0);
  EXPECT_DOUBLE_EQ(b.bwd, 668928.0);
  EXPECT_DOUBLE_EQ(mamba_scan_bytes_per_token(nh.mamba, 2), 53504.0);
  OpShape shape;
  shape.micro_batch = 1;
  shape.seq_len = 4096;
  LayerOps ops;
  build_layer_ops(nh, 0, shape, ops);
  const Op* scan = nullptr;
  for (const Op& op : ops) scan = std::string(op.name) == "mamba_scan" ? &op : scan;
  ASSERT_NE(scan, nullptr);
  EXPECT_DOUBLE_EQ(scan->fwd_bytes, 4096 * 199936.0);
  EXPECT_DOUBLE_EQ(scan->bwd_bytes, 4096 * 668928.0);
  const Op* conv = nullptr;
  for (const Op& op : ops) conv = std::string(op.name) == "mamba_conv1d" ? &op : conv;
  ASSERT_NE(conv, nullptr);
  EXPECT_DOUBLE_EQ(conv->fwd_bytes, 4096 * 40960.0);
  EXPECT_DOUBLE_EQ(conv->bwd_bytes, 3 * 4096 * 40960.0);
  // One sequence per micro-batch: no layout copies. Two: the in_proj output (2 x 8,192 + 2 x
  // 1,024 + 128 = 18,560 wide) and the scan output (8,192) copied both ways, 2 x 8,192 tokens
  // x 26,752 x 2 bytes = 876,609,536 forward and backward.
  for (const Op& op : ops) EXPECT_NE(std::string(op.name), "mamba_layout");
  shape.micro_batch = 2;
  LayerOps two;
  build_layer_ops(nh, 0, shape, two);
  const Op* layout = nullptr;
  for (const Op& op : two) layout = std::string(op.name) == "mamba_layout" ? &op : layout;
  ASSERT_NE(layout, nullptr);
  EXPECT_DOUBLE_EQ(layout->fwd_bytes, 876609536.0);
  EXPECT_DOUBLE_EQ(layout->bwd_bytes, 876609536.0);
  shape.micro_batch = 1;
  shape.tp = 2;  // heads split over TP: half the traffic per rank
  LayerOps split;
  build_layer_ops(nh, 0, shape, split);
  for (const Op& op : split) {
    if (std::string(op.name) == "mamba_scan") {
      EXPECT_DOUBLE_EQ(op.fwd_bytes, 4096 * 199936.0 / 2);
    }
  }
}

// The recurrent state: Jamba per Mamba layer 8,192 x 16 (SSM) + 8,192 x 3 (conv) = 155,648
// elements, 28 layers x 2 bytes = 8,716,288 bytes whatever the context; its 4 attention layers
// add 2 x 8 x 128 x 2 bytes = 4,096 per token each. Nemotron-H 8B: 128 x 64 x 128 + 10,240 x 3
// = 1,079,296 elements per layer.
TEST(HybridSsm, FixedStateInsteadOfAGrowingCache) {
  const ModelSpec jamba = load_hf_config_file(hybrid_fixture("jamba-v0.1.json"));
  EXPECT_DOUBLE_EQ(mamba_state_elems_per_layer(jamba.mamba), 155648.0);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(jamba, 0, Precision::bf16), 8716288.0);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(jamba, 1000, Precision::bf16), 8716288.0 + 4 * 4096.0 * 1000);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(jamba, Precision::bf16), 4 * 4096.0);
  const KvShape kv = make_kv_shape(jamba);
  EXPECT_EQ(kv.full_layers, 4);
  EXPECT_EQ(kv.mamba_layers, 28);
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_seq_per_gpu(kv, 2, 2), 8716288.0 / 4);
  const ModelSpec nh = load_hf_config_file(hybrid_fixture("nemotron-h-8b.json"));
  EXPECT_DOUBLE_EQ(mamba_state_elems_per_layer(nh.mamba), 1079296.0);
  // An attention-only model holds no state.
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_seq_per_gpu(make_kv_shape(ModelSpec{}), 1, 1), 0.0);
}

// A Nemotron-H Mamba layer on one GPU, 2 x 4,096 tokens: in_proj and out_proj GEMMs,
// 2 x (76,021,760 + 33,554,432) FLOPs per token, and the scan's 6,553,600: 225,705,984 per
// token forward. Its weights are the mixer's 109,635,968 + the norm's 4,096.
TEST(HybridSsm, MambaLayerOps) {
  const ModelSpec nh = load_hf_config_file(hybrid_fixture("nemotron-h-8b.json"));
  OpShape shape;
  shape.micro_batch = 2;
  shape.seq_len = 4096;
  LayerOps ops;
  build_layer_ops(nh, 0, shape, ops);
  const double t = 2 * 4096.0;
  EXPECT_DOUBLE_EQ(ops.fwd_flops(), t * 225705984.0);
  EXPECT_DOUBLE_EQ(ops.params(), 109635968.0 + 4096);
  bool scan = false;
  for (const Op& op : ops) scan = scan || std::string(op.name) == "mamba_scan";
  EXPECT_TRUE(scan);
  // TP 2 halves every width.
  shape.tp = 2;
  LayerOps split;
  build_layer_ops(nh, 0, shape, split);
  EXPECT_DOUBLE_EQ(split.fwd_flops(), ops.fwd_flops() / 2);
  // The MLP-only layer has no mixer ops; its activations: one residual block (norm input and
  // output, 4 bytes x 4,096) + the up-projection output and the squared-ReLU output
  // (2 x 2 bytes x 21,504) per token = 102,400 bytes.
  shape.tp = 1;
  const LayerActivations act = layer_activations(nh, 1, shape, Recompute::none);
  EXPECT_DOUBLE_EQ(act.stored_bytes, t * 102400.0);
}

}  // namespace
}  // namespace gpuplan
