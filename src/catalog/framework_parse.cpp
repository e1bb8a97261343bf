// Parser for `kind = "framework"` files (data/fitted/frameworks/), and lookups by the names
// users type for --framework. Schema: docs/data-format.md.
#include <algorithm>

#include <fmt/format.h>

#include "catalog/catalog.h"
#include "catalog/framework.h"
#include "catalog/parsers.h"
#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {

Framework parse_framework(Fields& top) {
  Framework f;
  f.id = top.str("id");
  f.aliases = top.str_list("aliases");
  f.name = top.str("name");
  f.is_default = top.opt_boolean("default").value_or(false);
  f.notes = top.opt_str("notes").value_or("");
  f.provenance = top.file_provenance();
  Fields kernel = top.sub("kernel");
  f.kernel_launch_s = kernel.pos("launch_us") * 1e-6;
  kernel.finish();
  if (auto a = top.opt_sub("attention")) {
    if (auto kind = a->opt_str("kernel")) {
      if (*kind != "materialized" && *kind != "fused")
        a->fail("kernel", "\"fused\" (one attention kernel) or \"materialized\" (Q·Kᵀ, softmax and ·V as separate kernels)");
      f.attention_materialized = *kind == "materialized";
    }
    f.attention_probs_dropout = a->opt_boolean("probs_dropout").value_or(false);
    if (f.attention_probs_dropout && !f.attention_materialized)
      a->fail("probs_dropout", "applies to kernel = \"materialized\" only (a fused kernel's dropout is inside it)");
    // A materialised attention runs at the GEMM and HBM rates: no factor on the fused kernel's.
    const std::optional<double> scale = a->opt_pos("kernel_scale");
    if (scale && f.attention_materialized)
      a->fail("kernel_scale", "not with kernel = \"materialized\" (its GEMMs run at the GEMM rate; remove it)");
    f.attention_scale = scale.value_or(1);
    if (auto mask = a->opt_str("compiled_mask")) {
      if (*mask != "materialized" && *mask != "causal")
        a->fail("compiled_mask", "\"materialized\" or \"causal\" (what the compiled element-wise mode hands the attention kernel)");
      f.compiled_mask_materialized = *mask == "materialized";
    }
    if (auto measured = a->opt_sub("measured")) {
      for (const std::string& family : measured->keys()) {
        Fields m = measured->sub(family);
        Framework::MeasuredAttention k;
        k.family = family;
        k.fwd_fraction = m.pos("fwd_peak_fraction");
        k.bwd_fraction = m.pos("bwd_peak_fraction");
        k.kv_half = m.opt_nonneg("kv_half").value_or(0);
        k.masked_rate_fraction = m.opt_pos("masked_rate_fraction").value_or(1);
        if (k.fwd_fraction > 1 || k.bwd_fraction > 1 || k.masked_rate_fraction > 1)
          m.fail("fwd_peak_fraction", "fractions of the dense peak are at most 1");
        m.finish();
        f.measured_attention.push_back(k);
      }
      measured->finish();
    }
    a->finish();
  }
  if (auto r = top.opt_sub("rope")) {
    f.scaled_rope_unfused = r->opt_boolean("scaled_unfused").value_or(false);
    r->finish();
  }
  if (auto act = top.opt_sub("activation")) {
    f.glu_clamp_unfused = act->opt_boolean("clamp_unfused").value_or(false);
    act->finish();
  }
  if (auto m = top.opt_sub("memory")) {
    f.memory_scale = m->pos("fusion_scale");
    m->finish();
  }
  if (auto e = top.opt_sub("eager_kernels")) {
    EagerKernels& k = f.eager_kernels;
    k.host_s_per_kernel = e->pos("host_us") * 1e-6;
    auto pair = [&](const char* key, KernelCount& out) {
      const std::vector<double> v = e->num_list(key);
      if (v.size() != 2 || v[0] < 0 || v[1] < 0) {
        e->fail(key, "needs [forward, backward]: two kernel counts, each 0 or more");
      }
      out = {v[0], v[1]};
    };
    pair("rmsnorm", k.rmsnorm);
    pair("qkv_proj", k.qkv_proj);
    pair("rope", k.rope);
    pair("attention", k.attention);
    pair("out_proj", k.out_proj);
    pair("residual", k.residual);
    pair("mlp_up", k.mlp_up);
    pair("mlp_act", k.mlp_act);
    pair("mlp_down", k.mlp_down);
    e->finish();
  }
  if (auto o = top.opt_sub("overlap")) {
    f.tp_comm_overlap_fraction = o->fraction("tp_comm_fraction");
    o->finish();
  }
  if (auto dp = top.opt_sub("data_parallel")) {
    f.dp_bucket_params = dp->opt_nonneg("bucket_params").value_or(0);
    dp->finish();
  }
  if (auto r = top.opt_sub("recompute")) {
    f.recompute_early_stop = r->opt_boolean("early_stop").value_or(false);
    r->finish();
  }
  if (auto d = top.opt_sub("defaults")) {
    auto one_of = [&](const char* key, std::initializer_list<const char*> allowed) {
      const std::string v = d->opt_str(key).value_or("");
      if (v.empty()) return v;
      for (const char* a : allowed) {
        if (v == a) return v;
      }
      std::vector<std::string> names(allowed.begin(), allowed.end());
      d->fail(key, fmt::format("'{}': use one of {}", v, join(names, ", ")));
      return v;
    };
    f.default_sequence_parallel = one_of("sequence_parallel", {"with_tp", "off"});
    f.default_recompute = one_of("recompute", {"none", "selective", "full"});
    f.default_moe_overlap = one_of("moe_overlap", {"none", "1f1b"});
    d->finish();
  }
  if (auto m = top.opt_sub("memory_terms")) {
    FrameworkMemory& fm = f.memory;
    fm.fp32_model = m->opt_boolean("fp32_model").value_or(false);
    fm.autocast_copy_bytes = m->opt_nonneg("autocast_copy_bytes").value_or(0);
    fm.grads_freed_between_steps = m->opt_boolean("grads_freed_between_steps").value_or(false);
    fm.loss_bytes_per_logit_eager = m->opt_nonneg("loss_bytes_per_logit_eager").value_or(0);
    fm.loss_bytes_per_logit_fused = m->opt_nonneg("loss_bytes_per_logit_fused").value_or(0);
    fm.eager_norm_bytes = m->opt_nonneg("eager_norm_bytes").value_or(0);
    fm.eager_rope_copies = m->opt_nonneg("eager_rope_copies").value_or(0);
    fm.eager_attention_output_copies = m->opt_nonneg("eager_attention_output_copies").value_or(0);
    fm.eager_swiglu_copies = m->opt_nonneg("eager_swiglu_copies").value_or(0);
    fm.optimizer_temp_bytes = m->opt_nonneg("optimizer_temp_bytes").value_or(0);
    fm.memory_error_fraction = m->opt_nonneg("memory_error_fraction").value_or(0);
    if (fm.memory_error_fraction >= 1) m->fail("memory_error_fraction", "must be below 1 (a fraction of the peak)");
    m->finish();
  }
  // A factor above 1 would claim kernels faster than the family's reference figures, and
  // the product with the family's fraction must stay a fraction.
  if (f.attention_scale > 1.5) top.fail("attention.kernel_scale", "at most 1.5 (a factor on the family's fraction)");
  if (f.memory_scale > 1.5) top.fail("memory.fusion_scale", "at most 1.5 (a factor on the family's fraction)");
  return f;
}

std::vector<std::string> framework_names(const Catalog& catalog) {
  std::vector<std::string> names;
  for (const Framework& f : catalog.frameworks) names.push_back(f.id);
  for (const Framework& f : catalog.frameworks) {
    for (const std::string& a : f.aliases) names.push_back(a);
  }
  return names;
}

const Framework* default_framework(const Catalog& catalog) {
  for (const Framework& f : catalog.frameworks) {
    if (f.is_default) return &f;
  }
  return catalog.frameworks.empty() ? nullptr : &catalog.frameworks.front();
}

const Framework& resolve_framework(const Catalog& catalog, std::string_view name, std::string_view flag) {
  if (name.empty()) {
    if (const Framework* f = default_framework(catalog)) return *f;
    throw Error("no framework entries in the catalog: add a kind = \"framework\" file (data/fitted/frameworks/)");
  }
  if (const Framework* f = find_framework(catalog, name)) return *f;
  throw Error(fmt::format("{} '{}': unknown framework; use one of {}", flag, name, join(framework_names(catalog), ", ")));
}

const Framework* find_framework(const Catalog& catalog, std::string_view name) {
  const std::string key = normalize_name(name);
  for (const Framework& f : catalog.frameworks) {
    if (normalize_name(f.id) == key) return &f;
    for (const std::string& a : f.aliases) {
      if (normalize_name(a) == key) return &f;
    }
  }
  return nullptr;
}

}  // namespace gpuplan
