#include "validate/train_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>

#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/table.h"
#include "core/units.h"
#include "catalog/framework.h"
#include "catalog/source_date.h"
#include "plan/evaluate.h"
#include "plan/fit.h"
#include "plan/plan_json.h"
#include "plan/pp_layout.h"
#include "plan/resolve.h"
#include "validate/measured_quantity.h"

namespace gpuplan {
namespace {

struct TrainColumns {
  const CsvTable& csv;
  std::optional<std::size_t> get(std::string_view name) const { return csv.find_column(name); }
  std::string text(const CsvTable::Row& row, std::string_view name) const {
    const auto c = get(name);
    return c ? std::string(csv.cell(row, *c)) : std::string();
  }
  // A number; nullopt when the column is absent, blank or "unknown".
  std::optional<double> num(const CsvTable::Row& row, std::string_view name) const {
    const auto c = get(name);
    if (!c) return std::nullopt;
    const std::string_view cell = csv.cell(row, *c);
    if (cell.empty() || to_lower(cell) == "unknown") return std::nullopt;
    return csv.number(row, *c);
  }
  std::optional<int> integer(const CsvTable::Row& row, std::string_view name) const {
    const auto v = num(row, name);
    if (!v) return std::nullopt;
    if (*v != std::floor(*v) || *v < 0) {
      throw Error(fmt::format("{}: expected a whole number", csv.where(row, *get(name))));
    }
    return static_cast<int>(*v);
  }
};

// "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md, section ..." -> the part before
// the first comma or parenthesis, at most 40 characters.
std::string short_source(const std::string& source) {
  std::string s = source.substr(0, std::min(source.find(','), source.find(" (")));
  if (s.size() > 40) s = s.substr(0, 40);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? "(no source)" : s;
}

std::optional<bool> parse_flag(const std::string& text) {
  const std::string t = to_lower(text);
  if (t == "1" || t == "true" || t == "yes") return true;
  if (t == "0" || t == "false" || t == "no") return false;
  return std::nullopt;
}

// A model shape from the row's own columns, when the zoo has no matching entry.
ModelSpec model_from_row(const TrainColumns& c, const CsvTable::Row& row, std::string& assumptions) {
  ModelSpec m;
  m.id = "row shape";
  auto need = [&](std::string_view col) {
    const auto v = c.integer(row, col);
    if (!v || *v <= 0) throw Error(fmt::format("{}: column '{}' is needed to build the model", c.csv.file(), col));
    return static_cast<std::int64_t>(*v);
  };
  m.layers = need("layers");
  m.hidden = need("hidden");
  m.heads = need("heads");
  m.kv_heads = c.integer(row, "kv_heads").value_or(static_cast<int>(m.heads));
  m.head_dim = m.hidden / m.heads;
  m.ffn_hidden = c.integer(row, "ffn_hidden").value_or(0);
  const auto vocab = c.integer(row, "vocab");
  m.vocab = vocab.value_or(51200);
  if (!vocab) assumptions += "vocab 51,200 (blank); ";
  m.max_seq_len = c.integer(row, "seq_len").value_or(2048);
  m.norm = NormKind::layernorm;
  // GPT-style MLPs are 4h wide with one activation (GeLU, ReLU²); LLaMA-style SwiGLU ones are
  // not (8h/3 rounded, or any other width).
  if (m.ffn_hidden > 0 && m.ffn_hidden != 4 * m.hidden) {
    m.mlp = MlpKind::swiglu;
    assumptions += "SwiGLU (ffn != 4h); ";
  } else {
    m.mlp = MlpKind::gelu;
  }
  if (const auto experts = c.integer(row, "moe_experts"); experts && *experts > 0) {
    m.moe.experts = *experts;
    m.moe.shared_experts = c.integer(row, "moe_shared_experts").value_or(0);
    m.moe.top_k = c.integer(row, "moe_topk").value_or(2);
    m.moe.expert_ffn_hidden = c.integer(row, "moe_ffn_hidden").value_or(static_cast<int>(m.ffn_hidden));
    m.moe.dense_layers = c.integer(row, "moe_dense_layers").value_or(0);
    if (m.ffn_hidden == 0) m.ffn_hidden = m.moe.expert_ffn_hidden;
  }
  if (m.ffn_hidden <= 0) throw Error(fmt::format("{}:{}: no ffn_hidden", c.csv.file(), row.line));
  // MegaScale's parallel attention/MLP block (`parallel_block` 1).
  if (const auto parallel = parse_flag(c.text(row, "parallel_block"))) m.parallel_block = *parallel;
  // The norm: a LayerNorm unless the row says RMSNorm (LLaMA).
  if (const std::string norm = to_lower(c.text(row, "norm")); !norm.empty() && norm != "unknown") {
    if (norm != "rmsnorm" && norm != "layernorm") {
      throw Error(fmt::format("{}:{}: norm '{}': use rmsnorm or layernorm", c.csv.file(), row.line, norm));
    }
    m.norm = norm == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
  }
  // The position encoding: RoPE unless the row says otherwise (MPT's learned/ALiBi).
  if (const std::string position = to_lower(c.text(row, "position")); !position.empty() && position != "unknown") {
    if (position == "rope") {
      m.position = PositionKind::rope;
    } else if (position == "alibi") {
      m.position = PositionKind::alibi;
    } else if (position == "learned") {
      m.position = PositionKind::learned;
    } else {
      throw Error(fmt::format("{}:{}: position '{}': use rope, alibi or learned", c.csv.file(), row.line, position));
    }
  }
  return m;
}


// The framework's settings for fields a run's config leaves unset (data/fitted/frameworks/
// [defaults]); none for software the catalog has no entry for.
SettingDefaults defaults_of(const Framework* f) {
  SettingDefaults d;
  if (!f) return d;
  if (!f->default_sequence_parallel.empty()) d.sp_with_tp = f->default_sequence_parallel == "with_tp";
  if (!f->default_recompute.empty()) d.recompute = parse_recompute(f->default_recompute);
  if (!f->default_moe_overlap.empty()) d.moe_overlap = parse_moe_overlap(f->default_moe_overlap);
  return d;
}

std::string chosen_text(const Plan& p, const PlanUnknowns& u) {
  std::vector<std::string> parts;
  if (u.layout) parts.push_back(fmt::format("tp {} pp {} dp {}", p.tp, p.pp, p.dp));
  if (u.vp) parts.push_back(fmt::format("vp {}", p.vp));
  if (u.micro_batch) parts.push_back(fmt::format("mb {}", p.micro_batch));
  if (u.sp) parts.push_back(p.sp ? "sp" : "no sp");
  if (u.zero) parts.push_back(fmt::format("zero {}", p.zero));
  if (u.recompute) parts.push_back(fmt::format("{} recompute", recompute_name(p.recompute)));
  if (u.recompute && p.offload_activation_layers > 0) {
    parts.push_back(fmt::format("activation offload {} layers", p.offload_activation_layers));
  }
  if (u.moe_overlap) parts.push_back(fmt::format("moe overlap {}", moe_overlap_name(p.moe_overlap)));
  return join(parts, ", ");
}

double within(const std::vector<double>& errors, double bound) {
  if (errors.empty()) return 0;
  const auto n = std::count_if(errors.begin(), errors.end(), [&](double e) { return std::fabs(e) <= bound; });
  return static_cast<double>(n) / static_cast<double>(errors.size());
}

// The first of the row's figures that can be compared, in the order of MeasuredQuantity, with
// one step's work in that quantity's units; `value` 0 and `not_scored` set when none can.
struct Measured {
  MeasuredQuantity quantity = MeasuredQuantity::step_time;
  FlopsCounting counting = FlopsCounting::not_applicable;
  double value = 0;
  StepWork work;
  std::string not_scored;
};

Measured read_measured(const TrainColumns& c, const CsvTable::Row& row, const ModelSpec& model, const Gpu& gpu,
                       const Plan& p, int gpus) {
  Measured m;
  m.work.gpus = gpus;
  m.work.tokens = static_cast<double>(p.global_batch) * p.seq_len;
  m.work.peak_flops_per_s = gpu.dense(p.precision);
  auto positive = [&](std::string_view column) {
    const auto v = c.num(row, column);
    return v && *v > 0 ? *v : 0.0;
  };
  const std::string counting_text = c.text(row, "flops_counting");
  m.counting = parse_flops_counting(counting_text);
  if (m.counting != FlopsCounting::not_applicable) {
    m.work.flops = m.work.tokens * train_flops_per_token_as(model, p.seq_len, m.counting);
  }
  m.work.run_tokens = positive("measured_run_tokens");
  const bool has_flops = m.counting != FlopsCounting::not_applicable;
  if ((m.value = positive("measured_step_time_s")) > 0) {
    m.quantity = MeasuredQuantity::step_time;
  } else if ((m.value = positive("measured_tokens_per_s_per_gpu")) > 0) {
    m.quantity = MeasuredQuantity::tokens_per_s_per_gpu;
  } else if (has_flops && (m.value = positive("measured_tflops_per_gpu")) > 0) {
    m.quantity = MeasuredQuantity::tflops_per_gpu;
  } else if (has_flops && m.work.peak_flops_per_s > 0 && (m.value = positive("measured_mfu_pct")) > 0) {
    m.quantity = MeasuredQuantity::mfu;
  } else if (m.work.run_tokens > 0 && (m.value = positive("measured_gpu_hours")) > 0) {
    m.quantity = MeasuredQuantity::gpu_hours;
  } else {
    m.value = 0;
    m.not_scored = fmt::format(
        "no comparable figure (step time, tokens/s, TFLOP/s or MFU with a FLOP counting, "
        "or GPU-hours with the tokens they trained); flops_counting '{}'",
        counting_text);
  }
  // Only the FLOP-based quantities depend on how the source counted.
  if (m.quantity != MeasuredQuantity::tflops_per_gpu && m.quantity != MeasuredQuantity::mfu) {
    m.counting = FlopsCounting::not_applicable;
  }
  return m;
}

TrainValidationRow predict_row(const TrainColumns& c, const CsvTable::Row& row, const Catalog& catalog,
                               std::deque<ModelSpec>& models, std::vector<FitSample>& samples) {
  TrainValidationRow r;
  r.line = row.line;
  r.id = c.text(row, "id");
  const std::string full_source = c.text(row, "source");
  r.source = short_source(full_source);
  r.published = published_date(catalog.source_dates, full_source);
  r.gpu = c.text(row, "gpu");
  const Gpu* gpu = catalog.find_gpu(r.gpu);
  if (!gpu) {
    r.skipped = fmt::format("GPU '{}' is not in the catalog", r.gpu);
    return r;
  }
  r.gpu = gpu->id;
  r.gpus = c.integer(row, "num_gpus").value_or(0);
  if (r.gpus <= 0) {
    r.skipped = "no num_gpus";
    return r;
  }

  // The model: the zoo entry the row names when its shape agrees with the row, else the row's.
  const ModelSpec* model = nullptr;
  const std::string ref = c.text(row, "model_ref");
  if (!ref.empty()) {
    if (const ModelSpec* zoo = catalog.find_model(ref)) {
      const auto layers = c.integer(row, "layers");
      const auto hidden = c.integer(row, "hidden");
      if ((!layers || *layers == zoo->layers) && (!hidden || *hidden == zoo->hidden))
        model = zoo;
      else
        r.assumptions += fmt::format("zoo '{}' differs from the row: row shape used; ", ref);
    } else {
      r.assumptions += fmt::format("'{}' not in the zoo: row shape used; ", ref);
    }
  }
  if (!model) {
    models.push_back(model_from_row(c, row, r.assumptions));
    model = &models.back();
  }
  r.model = model->id;

  const int per_node = c.integer(row, "gpus_per_node").value_or(0);
  const System* system = r.gpus > 1 ? default_system_for(catalog, *gpu, per_node) : nullptr;
  if (r.gpus > 1 && !system) {
    r.skipped = fmt::format("no system in the catalog is built from {}", gpu->id);
    return r;
  }
  r.system = system ? system->id : "";

  Plan p;
  PlanUnknowns u;
  const auto tp = c.integer(row, "tp");
  const auto pp = c.integer(row, "pp");
  const auto dp = c.integer(row, "dp");
  p.cp = c.integer(row, "cp").value_or(1);
  p.ep = c.integer(row, "ep").value_or(1);
  const auto vp = c.integer(row, "vp");
  p.vp = vp.value_or(1);
  u.vp = !vp.has_value() && c.text(row, "vp") == "unknown";
  if (tp && pp) {
    p.tp = *tp;
    p.pp = *pp;
    p.dp = dp.value_or(r.gpus / std::max(1, p.tp * p.pp * p.cp));
  } else {
    u.layout = true;
  }
  // A source whose pipelined runs overlap P2P communication in a release that does so only
  // interleaved (Megatron-Core r0.8, data/validation/training-sources.toml): a stated vp of 1
  // contradicts the source's own settings, so the depth is resolved like an unknown one.
  // An entry narrowed to the row's model (and GPU), listed before its source's, wins.
  const SourceDate* source_rule = source_entry(catalog.source_dates, full_source, ref, r.gpu);
  const bool vp_from_source_rule =
      source_rule && source_rule->pp_overlap_needs_interleaving && !u.layout && p.pp > 1 && p.vp == 1;
  if (vp_from_source_rule) {
    u.vp = true;
    r.assumptions += "vp 1 contradicts the source's P2P overlap (interleaved only): vp resolved (the source's rule); ";
  }
  const auto sp = parse_flag(c.text(row, "sequence_parallel"));
  p.sp = sp.value_or(false);
  u.sp = !sp.has_value();
  const auto zero = c.integer(row, "zero_stage");
  p.zero = zero.value_or(0);
  u.zero = !zero.has_value();
  if (const auto shard = c.integer(row, "dp_shard"); shard && dp && *shard < *dp) p.dp_shard = *shard;
  const auto mb = c.integer(row, "micro_batch");
  p.micro_batch = mb.value_or(1);
  u.micro_batch = !mb.has_value();
  const auto gb = c.integer(row, "global_batch_seqs");
  if (!gb) {
    r.skipped = "no global batch: step time undefined";
    return r;
  }
  p.global_batch = *gb;
  p.seq_len = c.integer(row, "seq_len").value_or(static_cast<int>(model->max_seq_len));
  const auto recompute = parse_recompute(c.text(row, "recompute"));
  p.recompute = recompute.value_or(Recompute::none);
  u.recompute = !recompute.has_value();
  // A blank or unknown `recompute` cell of a source whose preset sets Megatron-Core's recompute
  // modules (data/validation/training-sources.toml `recompute_modules`): those modules, and no
  // other recompute (recompute_granularity "selective" reruns exactly the modules listed).
  if (!recompute && source_rule && !source_rule->recompute_modules.empty()) {
    for (const std::string& name : source_rule->recompute_modules) {
      p.recompute_modules |= parse_recompute_module(name).value_or(0);
    }
    u.recompute = false;
    r.assumptions += fmt::format("recompute modules {} (the source's rule); ", recompute_modules_name(p.recompute_modules));
  }
  // CUDA graphs: the data has no column for them; a source whose preset captures some
  // (data/validation/training-sources.toml `cuda_graph_scope`) runs every row of the entry so.
  if (source_rule && !source_rule->cuda_graph_scope.empty()) {
    for (const std::string& name : source_rule->cuda_graph_scope) {
      p.cuda_graph_scope |= parse_cuda_graph_scope(name).value_or(0);
    }
    r.assumptions += fmt::format("CUDA graphs {} (the source's rule); ", cuda_graph_scope_name(p.cuda_graph_scope));
  }
  // The run's data-parallel bucket size and its context-parallel communicator's NCCL channel cap
  // (plan/comm_config.h): no column for either; a source whose configurations set them
  // (data/validation/training-sources.toml `dp_bucket_params`, `cp_comm_channels`) runs every row
  // of the entry so.
  if (source_rule && source_rule->dp_bucket_params > 0) {
    p.dp_bucket_params = source_rule->dp_bucket_params;
    r.assumptions += fmt::format("DP buckets of {:.0f} M parameters (the source's rule); ", p.dp_bucket_params / 1e6);
  }
  if (source_rule && source_rule->cp_comm_channels > 0 && p.cp > 1) {
    p.cp_comm_channels = source_rule->cp_comm_channels;
    r.assumptions += fmt::format("CP communicator on {} NCCL channel(s) (the source's rule); ", p.cp_comm_channels);
  }
  // A MoE run's AllToAll overlap (`moe_overlap`) and dispatcher (`moe_dispatcher`: copies per
  // chosen expert or per destination rank). A blank cell takes the rule its source's entry in
  // data/validation/training-sources.toml gives every row of the source, where it has one;
  // else the overlap is resolved like the other unknowns and the dispatcher is alltoall.
  if (const auto overlap = parse_moe_overlap(to_lower(c.text(row, "moe_overlap")))) {
    p.moe_overlap = *overlap;
  } else if (source_rule && !source_rule->moe_overlap.empty()) {
    p.moe_overlap = parse_moe_overlap(source_rule->moe_overlap).value_or(MoeOverlap::none);
    if (model->is_moe() && p.ep > 1) r.assumptions += fmt::format("moe overlap {} (the source's rule); ", source_rule->moe_overlap);
  } else {
    u.moe_overlap = model->is_moe() && p.ep > 1;
  }
  std::string dispatcher = to_lower(c.text(row, "moe_dispatcher"));
  if ((dispatcher.empty() || dispatcher == "unknown") && source_rule && !source_rule->moe_dispatcher.empty()) {
    dispatcher = source_rule->moe_dispatcher;
    if (model->is_moe() && p.ep > 1) r.assumptions += fmt::format("moe dispatcher {} (the source's rule); ", dispatcher);
  }
  if (!dispatcher.empty() && dispatcher != "unknown") {
    const auto parsed = parse_moe_dispatcher(dispatcher);
    if (!parsed) {
      throw Error(fmt::format("{}:{}: moe_dispatcher '{}': use alltoall or flex", c.csv.file(), row.line, dispatcher));
    }
    p.moe_dispatcher = *parsed;
  }
  // Llama 3 405B's embedding and head pipeline slots; DeepSeek-V3's 16-bit Adam moments.
  // A blank cell takes the source's rule for the row's model (Megatron-Bridge's Llama 3.1 405B
  // recipe sets account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split;
  // data/validation/training-sources.toml); "*" is every model of the source (BigScience's
  // Megatron-DeepSpeed launch script partitions its pipeline by `type:transformer|embedding`).
  const bool slots_rule =
      source_rule && std::any_of(source_rule->pp_embedding_head_slots_models.begin(),
                                 source_rule->pp_embedding_head_slots_models.end(),
                                 [&](const std::string& id) { return id == "*" || id == model->id; });
  if (const auto slots = parse_flag(c.text(row, "pp_embedding_head_slots"))) {
    p.pp_embedding_head_slots = *slots;
  } else if (p.pp > 1 && slots_rule) {
    p.pp_embedding_head_slots = true;
    r.assumptions += "embedding and head as pipeline layers (the source's rule); ";
  }
  // DeepSeek-V3's multi-token-prediction block and the recipes' explicit pipeline layouts (the
  // source's rules: Megatron-Bridge's DeepSeek-V3 recipe trains mtp_num_layers = 1 and sets a
  // layout by (pp, vp), as its Kimi-K2 recipe does without MTP; data/validation/
  // training-sources.toml). A layout applies only where the row states its pp and vp.
  if (source_rule && std::find(source_rule->mtp_layers_models.begin(), source_rule->mtp_layers_models.end(),
                               model->id) != source_rule->mtp_layers_models.end()) {
    p.mtp_layers = static_cast<int>(model->mtp_layers);
    if (p.mtp_layers > 0) r.assumptions += fmt::format("{} MTP layer(s) (the source's rule); ", p.mtp_layers);
  }
  if (source_rule && !u.layout && !u.vp && !p.pp_embedding_head_slots) {
    for (const std::string& rule : source_rule->pp_layouts) {
      char rule_model[128] = {};
      int rule_pp = 0;
      int rule_vp = 0;
      char text[512] = {};
      if (std::sscanf(rule.c_str(), "%127s %d %d %511s", rule_model, &rule_pp, &rule_vp, text) != 4) continue;
      if (model->id != rule_model || rule_pp != p.pp || rule_vp != p.vp) continue;
      PpLayout layout;
      std::string error;
      if (!parse_pp_layout(text, layout, error) ||
          !(error = check_pp_layout(layout, p.pp, p.vp, model->layers, p.mtp_layers)).empty()) {
        throw Error(fmt::format("{}: pp_layouts '{}' for row {}: {}", source_rule->match, rule, r.id, error));
      }
      apply_pp_layout(layout, p);
      r.assumptions += fmt::format("pipeline layout {} (the source's rule); ", text);
      break;
    }
  }
  if (const auto bits = c.integer(row, "optimizer_state_bits")) p.optimizer_state_bits = *bits;
  const auto precision = parse_precision(c.text(row, "precision"));
  p.precision = precision.value_or(Precision::bf16);
  // The fp8 recipe (blank: the precision's default) and DeepSeek's fp8 activation cache.
  p.scaling = default_scaling_recipe(p.precision);
  if (const std::string recipe = c.text(row, "fp8_recipe"); !recipe.empty() && to_lower(recipe) != "unknown") {
    const auto parsed = parse_scaling_recipe(recipe);
    if (!parsed || !scaling_recipe_fits(*parsed, p.precision)) {
      throw Error(fmt::format("{}:{}: fp8_recipe '{}' with precision {}: use delayed, tensorwise, blockwise or mxfp8 "
                              "(fp8 rows only; fp4 rows are nvfp4)",
                              c.csv.file(), row.line, recipe, precision_name(p.precision)));
    }
    p.scaling = *parsed;
  }
  if (const auto cache = parse_flag(c.text(row, "fp8_activation_cache"))) p.low_precision_act_cache = *cache;
  // fp8 primary weights (no 16-bit copy of the fp8 GEMMs' weights): the row's `fp8_params`
  // cell, else its source's rule for fp8 rows (data/validation/training-sources.toml).
  // TP collectives overlapped with GEMMs (the plan's default): the row's `tp_comm_overlap` cell,
  // else, for an fp4 row, its source's rule for NVFP4 runs.
  if (const auto overlap = parse_flag(c.text(row, "tp_comm_overlap"))) {
    p.tp_comm_overlap = *overlap;
  } else if (source_rule && source_rule->tp_comm_overlap) {
    p.tp_comm_overlap = *source_rule->tp_comm_overlap;
    if (!p.tp_comm_overlap && p.tp > 1) r.assumptions += "TP communication not overlapped (the source's rule); ";
  } else if (p.precision == Precision::fp4 && source_rule && source_rule->nvfp4_tp_comm_overlap) {
    p.tp_comm_overlap = *source_rule->nvfp4_tp_comm_overlap;
    if (!p.tp_comm_overlap && p.tp > 1) r.assumptions += "TP communication not overlapped (the source's rule); ";
  }
  // NVFP4's Hadamard transforms (Transformer Engine's default recipe): the source's rule for its
  // fp4 rows, where it states that its runs turned them off.
  if (p.precision == Precision::fp4 && source_rule && source_rule->nvfp4_rht) {
    p.nvfp4_rht = *source_rule->nvfp4_rht;
    if (!p.nvfp4_rht) r.assumptions += "NVFP4 without Hadamard transforms (the source's rule); ";
  }
  if (p.precision == Precision::fp8) {
    if (const auto fp8_params = parse_flag(c.text(row, "fp8_params"))) {
      p.fp8_params = *fp8_params;
    } else if (source_rule && source_rule->fp8_params) {
      p.fp8_params = *source_rule->fp8_params;
      if (p.fp8_params) r.assumptions += "fp8 weights only (the source's rule); ";
    }
  }
  // Eager (op-by-op) or fused element-wise kernels (torchtitan's tables name torch.compile per
  // row; llm-foundry and LLaMA ran eager).
  if (const std::string ew = to_lower(c.text(row, "elementwise")); !ew.empty() && ew != "unknown") {
    const auto eager = parse_elementwise(ew);
    if (!eager) {
      throw Error(fmt::format("{}:{}: elementwise '{}': use fused or eager", c.csv.file(), row.line, ew));
    }
    p.eager_elementwise = *eager;
  }

  // What the source measured, as a step time (validate/measured_quantity.h).
  const Measured measured = read_measured(c, row, *model, *gpu, p, r.gpus);
  r.compared_on = measured.quantity;
  r.flops_counting = measured.counting;
  r.measured_value = measured.value;
  r.not_scored = measured.not_scored;
  if (measured.value > 0) {
    r.measured_step_s = step_time_at_quantity(measured.quantity, measured.work, measured.value);
    r.measured_derived = measured.quantity != MeasuredQuantity::step_time;
  }
  // A FLOP count that includes full recomputation says the run recomputed (BigScience's
  // factor 4, Narayanan et al. 2021's 96·B·s·l·h²): an `unknown` recompute is that, not the
  // fastest setting, or the prediction would be for less work than the rate measured.
  const bool recompute_from_counting =
      r.measured_derived && measured.counting == FlopsCounting::hardware_full_recompute && u.recompute;
  if (recompute_from_counting) {
    p.recompute = Recompute::full;
    u.recompute = false;
  }

  // The framework the source ran (`framework`): its entry in data/fitted/frameworks/. Software
  // the catalog has no figures for (meta-internal, deepseek-internal) or a blank cell runs
  // under the default entry's figures and fits no framework figure.
  TrainOptions options;
  const std::string framework_cell = c.text(row, "framework");
  options.framework = framework_cell.empty() ? nullptr : find_framework(catalog, framework_cell);
  const TrainContext ctx = make_train_context(catalog, *model, *gpu, system, nullptr, options);
  r.framework = options.framework ? options.framework->id : "";
  if (!options.framework && !framework_cell.empty()) {
    r.assumptions += fmt::format("framework '{}' not in the catalog: default figures; ", framework_cell);
  }
  const Resolved res = resolve_with_defaults(ctx, p, u, r.gpus, defaults_of(options.framework));
  r.plan = res.plan;
  r.estimate = res.estimate;
  if (u.any()) {
    r.chosen = chosen_text(res.plan, u);
    r.fastest_step_s = res.fastest_step_s;
    r.slowest_step_s = res.slowest_step_s;
  }
  // A depth the source's rule resolves (a stated vp of 1 it contradicts): the row's uncertainty
  // spans the interleaving depths above 1 that fit with the chosen plan's other settings (the
  // resolver's spread keeps the depth fixed, and vp 1 is the setting the source rules out).
  if (vp_from_source_rule && res.estimate.feasible()) {
    for (int depth = 2; depth <= 64 && depth * res.plan.pp <= model->layers + 2; depth *= 2) {
      Plan q = res.plan;
      q.vp = depth;
      const Estimate e = evaluate(ctx, q);
      if (!e.feasible()) continue;
      r.fastest_step_s = r.fastest_step_s > 0 ? std::min(r.fastest_step_s, e.step_time_s) : e.step_time_s;
      r.slowest_step_s = std::max(r.slowest_step_s, e.step_time_s);
    }
  }
  if (recompute_from_counting) r.chosen += std::string(r.chosen.empty() ? "" : ", ") + "full recompute (FLOP count)";
  if (!res.estimate.valid()) {
    r.skipped = fmt::format("infeasible: {}", res.estimate.reason_text());
    return r;
  }
  r.evaluated = true;
  r.predicted_step_s = res.estimate.step_time_s;
  if (r.measured_step_s > 0) {
    r.predicted_value = quantity_at_step_time(measured.quantity, measured.work, r.predicted_step_s);
    r.error = (r.predicted_step_s - r.measured_step_s) / r.measured_step_s;
    samples.push_back({ctx, res.plan, r.measured_step_s, r.source, ctx.efficiency->id, r.framework});
  }
  return r;
}

// Fits on the rows whose source was published before `date` and predicts the others.
void time_split(TrainValidation& v, std::vector<FitSample>& samples, const Catalog& catalog, const std::string& date) {
  v.time_split = date;
  auto published = [&](const FitSample& s) -> const std::string& {
    const TrainValidationRow& r = v.rows[static_cast<std::size_t>(s.row_index)];
    if (r.published.empty()) {
      throw Error(fmt::format("--time-split: row '{}' (line {}): no publication date for its source '{}'; add a "
                              "[[publication]] entry matching it to a kind = \"source_dates\" file (data/validation/)",
                              r.id, r.line, r.source));
    }
    return r.published;
  };
  for (const FitSample& s : samples) published(s);
  const FitResult fitted = fit_efficiencies_if(samples, catalog.efficiencies, catalog.frameworks,
                                               [&](const FitSample& s) { return published(s) < date; });
  std::vector<double> errors;
  for (FitSample& s : samples) {
    if (published(s) < date) {
      ++v.time_split_fit_rows;
      continue;
    }
    const double e = predict_with(s, fitted) / s.measured_step_s - 1;
    errors.push_back(e);
    v.time_split_by_source.add(s.source, e);
    v.rows[static_cast<std::size_t>(s.row_index)].time_split_error = e;
  }
  v.time_split_overall = summarize_errors(errors);
  v.time_split_within_15_share = within(errors, 0.15);
}

}  // namespace

TrainValidation validate_training(const CsvTable& csv, const Catalog& catalog, const TrainValidationOptions& options) {
  TrainValidation v;
  v.file = csv.file();
  if (!options.time_split.empty() && !is_iso_date(options.time_split)) {
    throw Error(fmt::format("time split '{}': use YYYY-MM-DD", options.time_split));
  }
  const TrainColumns c{csv};
  for (const char* required : {"id", "gpu", "num_gpus"}) csv.column(required);
  std::deque<ModelSpec> models;
  std::vector<double> errors;
  std::vector<FitSample> samples;
  for (const auto& row : csv.rows()) {
    const std::size_t samples_before = samples.size();
    TrainValidationRow r = predict_row(c, row, catalog, models, samples);
    if (samples.size() > samples_before) samples.back().row_index = static_cast<int>(v.rows.size());
    if (r.evaluated && r.measured_step_s > 0) {
      errors.push_back(r.error);
      v.by_source.add(r.source, r.error);
      v.by_quantity.add(measured_quantity_name(r.compared_on), r.error);
    }
    v.rows.push_back(std::move(r));
  }
  v.overall = summarize_errors(errors);
  v.within_15_share = within(errors, 0.15);
  v.within_20_share = within(errors, 0.20);

  // Progress in fits (the slow part: each one searches every family's constants): the in-sample
  // fit, one per held-out source, the time split's.
  std::int64_t fits = (options.fit ? 1 : 0) + (options.time_split.empty() ? 0 : 1);
  if (options.leave_one_source_out) {
    std::vector<std::string> seen;
    for (const FitSample& s : samples) {
      if (std::find(seen.begin(), seen.end(), s.source) == seen.end()) seen.push_back(s.source);
    }
    fits += static_cast<std::int64_t>(seen.size());
  }
  ProgressCounter progress(options.progress, fits);
  if (options.fit) {
    v.fit = true;
    const FitResult fitted = fit_efficiencies(samples, catalog.efficiencies, catalog.frameworks);
    progress.advance();
    v.fitted = fitted.efficiencies;
    v.fitted_frameworks = fitted.frameworks;
    std::vector<double> fitted_errors;
    for (FitSample& s : samples) {
      fitted_errors.push_back(predict_with(s, fitted) / s.measured_step_s - 1);
    }
    for (const Framework& f : v.fitted_frameworks) {
      v.fitted_framework_rows.push_back(static_cast<int>(
          std::count_if(samples.begin(), samples.end(), [&](const FitSample& s) { return s.framework_id == f.id; })));
    }
    for (const Efficiency& e : v.fitted) {
      v.fitted_rows.push_back(static_cast<int>(
          std::count_if(samples.begin(), samples.end(), [&](const FitSample& s) { return s.efficiency_id == e.id; })));
    }
    v.at_bounds = constants_at_bounds(fitted, samples);
    v.not_identified = constants_not_identified(fitted, samples);
    v.fitted_overall = summarize_errors(fitted_errors);
    v.fitted_within_15_share = within(fitted_errors, 0.15);
  }
  if (options.leave_one_source_out) {
    v.loso = true;
    std::vector<std::string> sources;
    for (const FitSample& s : samples) {
      if (std::find(sources.begin(), sources.end(), s.source) == sources.end()) sources.push_back(s.source);
    }
    // The folds are independent (a fit retargets every sample it evaluates, and leaves them on
    // the catalog's entries), so they run on the machine's cores, each worker on its own copy of
    // the samples; the errors are then taken in source order, the same numbers as one by one.
    std::vector<std::vector<double>> fold_errors(sources.size());
    std::atomic<std::size_t> next_fold{0};
    std::exception_ptr fold_failure;
    std::mutex fold_failure_mutex;
    auto fold_worker = [&] {
      try {
        std::vector<FitSample> mine = samples;
        for (std::size_t i = next_fold++; i < sources.size(); i = next_fold++) {
          const FitResult fitted = fit_efficiencies(mine, catalog.efficiencies, catalog.frameworks, sources[i]);
          for (FitSample& s : mine) {
            if (s.source == sources[i]) fold_errors[i].push_back(predict_with(s, fitted) / s.measured_step_s - 1);
          }
          progress.advance();
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(fold_failure_mutex);
        if (!fold_failure) fold_failure = std::current_exception();
        next_fold = sources.size();
      }
    };
    const std::size_t workers =
        std::min<std::size_t>(sources.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(fold_worker);
    fold_worker();
    for (std::thread& t : pool) t.join();
    if (fold_failure) std::rethrow_exception(fold_failure);
    std::vector<double> loso_errors;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      std::size_t k = 0;
      for (const FitSample& s : samples) {
        if (s.source != sources[i]) continue;
        const double e = fold_errors[i][k++];
        loso_errors.push_back(e);
        v.loso_by_source.add(sources[i], e);
        if (s.row_index >= 0) v.rows[static_cast<std::size_t>(s.row_index)].loso_error = e;
      }
    }
    v.loso_overall = summarize_errors(loso_errors);
    v.loso_within_15_share = within(loso_errors, 0.15);
  }
  if (!options.time_split.empty()) {
    time_split(v, samples, catalog, options.time_split);
    progress.advance();
  }
  return v;
}

}  // namespace gpuplan
