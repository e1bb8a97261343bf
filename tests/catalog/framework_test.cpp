// Training-framework entries (catalog/framework.h): parsing, the names --framework accepts, the
// mapping of published runs to frameworks, and the generic efficiency entry's promise never to
// be above a fitted family.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "cost/roofline.h"

namespace gpuplan {
namespace {

const char* kFramework = R"toml(kind = "framework"
id = "fw"
aliases = ["other-name"]
name = "A framework"
source = "test"
retrieved = "2026-11-23"
[kernel]
launch_us = 12.5
[attention]
kernel_scale = 0.5
[memory]
fusion_scale = 0.8
[defaults]
sequence_parallel = "with_tp"
recompute = "none"
)toml";

TEST(Framework, ParsesTheSoftwareFigures) {
  Catalog c;
  load_catalog_text(c, kFramework, "fw.toml", false);
  ASSERT_EQ(c.frameworks.size(), 1u);
  const Framework& f = c.frameworks.front();
  EXPECT_DOUBLE_EQ(f.kernel_launch_s, 12.5e-6);
  EXPECT_DOUBLE_EQ(f.attention_scale, 0.5);
  EXPECT_DOUBLE_EQ(f.memory_scale, 0.8);
  EXPECT_EQ(f.default_sequence_parallel, "with_tp");
  EXPECT_EQ(f.default_recompute, "none");
  EXPECT_EQ(f.default_moe_overlap, "");
  // A default outside the settings the planner knows is an error naming the key and the choices.
  std::string bad = kFramework;
  bad.replace(bad.find("recompute = \"none\""), 18, "recompute = \"some\"");
  Catalog c2;
  try {
    load_catalog_text(c2, bad, "fw.toml", false);
    ADD_FAILURE() << "recompute = some accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'some': use one of none, selective, full"), std::string::npos) << e.what();
  }
  // The only entry is the default one; aliases resolve case-insensitively.
  EXPECT_EQ(&resolve_framework(c, ""), &f);
  EXPECT_EQ(&resolve_framework(c, "Other-Name"), &f);
}

TEST(Framework, BadFilesAreErrors) {
  Catalog c;
  std::string missing_launch = kFramework;
  missing_launch.replace(missing_launch.find("launch_us"), 9, "launch_ms");
  EXPECT_THROW(load_catalog_text(c, missing_launch, "fw.toml", false), Error);
  std::string too_fast = kFramework;
  too_fast.replace(too_fast.find("kernel_scale = 0.5"), 18, "kernel_scale = 3.0");
  EXPECT_THROW(load_catalog_text(c, too_fast, "fw.toml", false), Error);
}

// [attention] kernel = "materialized" (Megatron-LM 2021-22's separate attention kernels) and
// probs_dropout; a kernel_scale beside it, dropout without it or another kernel name are errors
// naming the key.
TEST(Framework, ParsesAMaterializedAttention) {
  std::string text = kFramework;
  text.replace(text.find("kernel_scale = 0.5"), 18, "kernel = \"materialized\"\nprobs_dropout = true");
  Catalog c;
  load_catalog_text(c, text, "fw.toml", false);
  const Framework& f = c.frameworks.front();
  EXPECT_TRUE(f.attention_materialized);
  EXPECT_TRUE(f.attention_probs_dropout);
  EXPECT_DOUBLE_EQ(f.attention_scale, 1);
  Catalog fused;
  load_catalog_text(fused, kFramework, "fw.toml", false);
  EXPECT_FALSE(fused.frameworks.front().attention_materialized);
  EXPECT_FALSE(fused.frameworks.front().attention_probs_dropout);
  auto rejects = [&](const std::string& bad_text, const std::string& says) {
    Catalog cb;
    try {
      load_catalog_text(cb, bad_text, "fw.toml", false);
      ADD_FAILURE() << bad_text << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  std::string scaled = kFramework;
  scaled.replace(scaled.find("kernel_scale = 0.5"), 18, "kernel_scale = 0.5\nkernel = \"materialized\"");
  rejects(scaled, "kernel_scale");
  std::string dropout_fused = kFramework;
  dropout_fused.replace(dropout_fused.find("kernel_scale = 0.5"), 18, "kernel_scale = 0.5\nprobs_dropout = true");
  rejects(dropout_fused, "probs_dropout");
  std::string other = kFramework;
  other.replace(other.find("kernel_scale = 0.5"), 18, "kernel = \"flash\"");
  rejects(other, "kernel");
}

// [attention.measured.<family>] and compiled_mask: the measured kernel per GPU family, what the
// compiled mode hands the kernel; bad values name the key.
TEST(Framework, ParsesTheMeasuredAttentionKernel) {
  std::string text = kFramework;
  text.replace(text.find("kernel_scale = 0.5"), 18,
               "kernel_scale = 0.5\ncompiled_mask = \"materialized\"\n[attention.measured.hopper]\n"
               "fwd_peak_fraction = 0.99\nbwd_peak_fraction = 0.6\nkv_half = 1024\nmasked_rate_fraction = 0.6");
  Catalog c;
  load_catalog_text(c, text, "fw.toml", false);
  const Framework& f = c.frameworks.front();
  EXPECT_TRUE(f.compiled_mask_materialized);
  ASSERT_NE(f.measured_attention_for("hopper"), nullptr);
  EXPECT_EQ(f.measured_attention_for("blackwell"), nullptr);
  EXPECT_DOUBLE_EQ(f.measured_attention_for("hopper")->fwd_fraction, 0.99);
  EXPECT_DOUBLE_EQ(f.measured_attention_for("hopper")->bwd_fraction, 0.6);
  EXPECT_DOUBLE_EQ(f.measured_attention_for("hopper")->kv_half, 1024);
  EXPECT_DOUBLE_EQ(f.measured_attention_for("hopper")->masked_rate_fraction, 0.6);
  auto rejects = [&](const std::string& from, const std::string& to, const std::string& says) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    Catalog cb;
    try {
      load_catalog_text(cb, bad, "fw.toml", false);
      ADD_FAILURE() << to << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  rejects("compiled_mask = \"materialized\"", "compiled_mask = \"sometimes\"", "compiled_mask");
  rejects("fwd_peak_fraction = 0.99", "fwd_peak_fraction = 1.2", "at most 1");
  rejects("kv_half = 1024", "kv_halves = 1024", "kv_halves");
  // Without the table, no measurement and the causal flag.
  Catalog plain;
  load_catalog_text(plain, kFramework, "fw.toml", false);
  EXPECT_FALSE(plain.frameworks.front().compiled_mask_materialized);
  EXPECT_TRUE(plain.frameworks.front().measured_attention.empty());
}

// [rope] scaled_unfused (the fused RoPE takes no YaRN attention factor) and [activation]
// clamp_unfused (a clamped GLU's clamps run eagerly): Megatron-Core's embedded entry says both;
// absent, false.
TEST(Framework, ParsesTheScaledRopeRule) {
  Catalog plain;
  load_catalog_text(plain, kFramework, "fw.toml", false);
  EXPECT_FALSE(plain.frameworks.front().scaled_rope_unfused);
  Catalog c;
  load_catalog_text(c, std::string(kFramework) + "[rope]\nscaled_unfused = true\n", "fw.toml", false);
  EXPECT_TRUE(c.frameworks.front().scaled_rope_unfused);
  Catalog bad;
  EXPECT_THROW(load_catalog_text(bad, std::string(kFramework) + "[rope]\nscaled = true\n", "fw.toml", false), Error);
  EXPECT_TRUE(resolve_framework(default_catalog(), "megatron-core").scaled_rope_unfused);
  EXPECT_FALSE(resolve_framework(default_catalog(), "torchtitan").scaled_rope_unfused);
  // [activation] clamp_unfused likewise.
  EXPECT_FALSE(plain.frameworks.front().glu_clamp_unfused);
  Catalog clamp;
  load_catalog_text(clamp, std::string(kFramework) + "[activation]\nclamp_unfused = true\n", "fw.toml", false);
  EXPECT_TRUE(clamp.frameworks.front().glu_clamp_unfused);
  EXPECT_TRUE(resolve_framework(default_catalog(), "megatron-core").glu_clamp_unfused);
  EXPECT_FALSE(resolve_framework(default_catalog(), "torchtitan").glu_clamp_unfused);
}

TEST(Framework, UnknownNameNamesTheFlagAndEveryValidName) {
  const Catalog& c = default_catalog();
  try {
    resolve_framework(c, "megatorn", "--framework");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--framework 'megatorn'"), std::string::npos) << msg;
    for (const char* name : {"megatron-core", "nemo", "torchtitan", "llm-foundry", "deepspeed", "megatron-lm"}) {
      EXPECT_NE(msg.find(name), std::string::npos) << name << " missing from: " << msg;
    }
  }
}

TEST(Framework, EmbeddedEntriesAndTheirNames) {
  const Catalog& c = default_catalog();
  EXPECT_EQ(resolve_framework(c, "").id, "megatron-core");
  EXPECT_EQ(resolve_framework(c, "nemo").id, "megatron-core");
  EXPECT_EQ(resolve_framework(c, "torchtitan").id, "pytorch-fsdp");
  EXPECT_EQ(resolve_framework(c, "llm-foundry").id, "pytorch-fsdp");
  EXPECT_EQ(resolve_framework(c, "megatron-deepspeed").id, "deepspeed");
}

// training-runs.csv's `framework` cells: ids and aliases name an entry; software the catalog has
// no figures for names none (the row then runs under the default entry's figures).
TEST(Framework, FindByTheNamesRowsUse) {
  const Catalog& c = default_catalog();
  auto id_of = [&](const char* name) {
    const Framework* f = find_framework(c, name);
    return f ? f->id : std::string("(none)");
  };
  EXPECT_EQ(id_of("megatron-core"), "megatron-core");
  EXPECT_EQ(id_of("Megatron-LM"), "megatron-lm");
  EXPECT_EQ(id_of("deepspeed"), "deepspeed");
  EXPECT_EQ(id_of("pytorch-fsdp"), "pytorch-fsdp");
  EXPECT_EQ(id_of("torchtitan"), "pytorch-fsdp");
  EXPECT_EQ(id_of("meta-internal"), "(none)");
  EXPECT_EQ(id_of("deepseek-internal"), "(none)");
}

TEST(Framework, TwoDefaultsAreAnError) {
  Catalog c;
  std::string a = kFramework;
  a.insert(a.find("source"), "default = true\n");
  std::string b = a;
  b.replace(b.find("id = \"fw\""), 9, "id = \"fw2\"");
  b.replace(b.find("\"other-name\""), 12, "\"third-name\"");
  load_catalog_text(c, a, "a.toml", false);
  load_catalog_text(c, b, "b.toml", false);
  EXPECT_THROW(validate_catalog(c), Error);
}

// data/fitted/efficiency/generic.toml promises never to be above a fitted family: on every GPU
// a fitted family serves (with its measured MAMF where the catalog has one), the generic entry
// gives GEMMs, attention and memory-bound kernels no faster rate, hides no more TP
// communication and charges no less MoE synchronisation.
TEST(Framework, GenericEfficiencyIsNeverAboveAFittedFamily) {
  const Catalog& c = default_catalog();
  const Efficiency* generic = nullptr;
  for (const Efficiency& e : c.efficiencies) {
    if (e.fallback) generic = &e;
  }
  ASSERT_NE(generic, nullptr);
  const Framework* fw = default_framework(c);
  Op attention;
  attention.kind = OpKind::attention;
  attention.m = 4096;  // keys per query: causal 8K
  attention.n = 32;
  attention.k = 128;
  attention.fwd_flops = 2.0 * 8192 * 4096 * 32 * 256;
  attention.bwd_flops = 2.5 * attention.fwd_flops;
  attention.exps = 8192.0 * 4096 * 32;
  int checked = 0;
  for (const Gpu& g : c.gpus) {
    const Efficiency* family = efficiency_for(c.efficiencies, g);
    if (family == nullptr || family->fallback || g.dense(Precision::bf16) <= 0) continue;
    const RooflineDevice fitted = make_roofline_device(g, *family, fw);
    const RooflineDevice fallback = make_roofline_device(g, *generic, fw);
    // A family whose GEMMs follow the measured-MAMF rule itself (cdna4: achievable_share) is no
    // fitted GEMM figure to stay under: on a part without a MAMF (the MI350X) its peak fraction is
    // its sibling's measured one (the MI355X's), which may sit below the generic guess.
    for (Precision p : {Precision::bf16, Precision::fp8}) {
      if (g.dense(p) <= 0 || family->achievable_gemm_share > 0) continue;
      EXPECT_LE(fallback.gemm_flops_per_s[index_of(p)], fitted.gemm_flops_per_s[index_of(p)] * (1 + 1e-9))
          << g.id << " " << precision_name(p);
    }
    const OpTime a = op_time(fitted, attention, Precision::bf16, Precision::bf16);
    const OpTime b = op_time(fallback, attention, Precision::bf16, Precision::bf16);
    EXPECT_GE(b.fwd_s, a.fwd_s) << g.id;
    EXPECT_GE(b.bwd_s, a.bwd_s) << g.id;
    EXPECT_LE(fallback.memory_bw_bytes_per_s, fitted.memory_bw_bytes_per_s) << g.id;
    ++checked;
  }
  EXPECT_GT(checked, 5);
  for (const Efficiency& e : c.efficiencies) {
    if (e.fallback) continue;
    EXPECT_LE(generic->tp_comm_overlap_fraction, e.tp_comm_overlap_fraction) << e.id;
  }
}

}  // namespace
}  // namespace gpuplan
