// Parser for `kind = "source_dates"` files (data/validation/). Schema: docs/data-format.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "catalog/parsers.h"
#include "catalog/source_date.h"

namespace gpuplan {

bool is_iso_date(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  const int month = (t[5] - '0') * 10 + (t[6] - '0');
  const int day = (t[8] - '0') * 10 + (t[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

SourceDates parse_source_dates(Fields& top) {
  SourceDates d;
  d.id = top.str("id");
  d.provenance = top.file_provenance();
  for (Fields& entry : top.table_array("publication")) {
    SourceDate s;
    s.match = entry.str("match");
    // An entry that only gives a rule (a serving source, which no time split reads) may leave
    // the date out; a training row matched by it then has no date, which --time-split refuses.
    s.published = entry.opt_str("published").value_or("");
    s.evidence = entry.opt_str("evidence").value_or("");
    s.model_ref = entry.opt_str("model_ref").value_or("");
    s.gpus = entry.str_list("gpus");
    s.moe_overlap = entry.opt_str("moe_overlap").value_or("");
    s.moe_dispatcher = entry.opt_str("moe_dispatcher").value_or("");
    s.fp8_params = entry.opt_boolean("fp8_params");
    s.nvfp4_tp_comm_overlap = entry.opt_boolean("nvfp4_tp_comm_overlap");
    s.tp_comm_overlap = entry.opt_boolean("tp_comm_overlap");
    s.nvfp4_rht = entry.opt_boolean("nvfp4_rht");
    s.pp_embedding_head_slots_models = entry.str_list("pp_embedding_head_slots_models");
    s.mtp_layers_models = entry.str_list("mtp_layers_models");
    s.pp_layouts = entry.str_list("pp_layouts");
    for (const std::string& rule : s.pp_layouts) {
      // "MODEL PP VP LAYOUT": the layout itself is parsed where a row takes it (plan/pp_layout.h).
      char model[128] = {};
      int pp = 0;
      int vp = 0;
      char layout[512] = {};
      if (std::sscanf(rule.c_str(), "%127s %d %d %511s", model, &pp, &vp, layout) != 4 || pp < 1 || vp < 1) {
        entry.fail("pp_layouts", fmt::format("'{}': write \"MODEL PP VP LAYOUT\", e.g. \"deepseek-v3 16 1 "
                                             "Et*4|(t*4|)*14tmL\"",
                                             rule));
      }
    }
    s.pp_overlap_needs_interleaving = entry.opt_boolean("pp_overlap_needs_interleaving").value_or(false);
    s.recompute_modules = entry.str_list("recompute_modules");
    for (const std::string& module : s.recompute_modules) {
      static constexpr std::array<std::string_view, 6> kModules = {"layernorm", "moe_act",     "moe",
                                                                    "core_attn", "mla_up_proj", "mlp"};
      if (std::find(kModules.begin(), kModules.end(), module) == kModules.end()) {
        entry.fail("recompute_modules",
                   fmt::format("'{}': use layernorm, moe_act, moe, core_attn, mla_up_proj or mlp", module));
      }
    }
    s.cuda_graph_scope = entry.str_list("cuda_graph_scope");
    for (const std::string& scope : s.cuda_graph_scope) {
      static constexpr std::array<std::string_view, 6> kScopes = {"attn",           "mlp",   "moe_router",
                                                                   "moe_preprocess", "mamba", "full_iteration"};
      if (std::find(kScopes.begin(), kScopes.end(), scope) == kScopes.end()) {
        entry.fail("cuda_graph_scope",
                   fmt::format("'{}': use attn, mlp, moe_router, moe_preprocess, mamba or full_iteration", scope));
      }
    }
    s.dp_bucket_params = entry.opt_pos("dp_bucket_params").value_or(0);
    s.cp_comm_channels = static_cast<int>(entry.opt_pos("cp_comm_channels").value_or(0));
    if (s.cp_comm_channels != entry.opt_pos("cp_comm_channels").value_or(0)) {
      entry.fail("cp_comm_channels", "give a whole number of channels (1 or more)");
    }
    s.benchmark_requests = entry.opt_pos("benchmark_requests").value_or(0);
    s.cuda_graph_batch_sizes = entry.num_list("cuda_graph_batch_sizes");
    s.unknowns_evidence = entry.opt_str("unknowns_evidence").value_or("");
    for (std::size_t i = 0; i < s.cuda_graph_batch_sizes.size(); ++i) {
      const double b = s.cuda_graph_batch_sizes[i];
      if (!(b >= 1 && b == std::floor(b)) || (i > 0 && b <= s.cuda_graph_batch_sizes[i - 1])) {
        entry.fail("cuda_graph_batch_sizes", "give whole batch sizes >= 1 in increasing order");
      }
    }
    if (s.benchmark_requests != std::floor(s.benchmark_requests)) {
      entry.fail("benchmark_requests", fmt::format("{}: give a whole number of requests", s.benchmark_requests));
    }
    if (!s.moe_overlap.empty() && s.moe_overlap != "none" && s.moe_overlap != "1f1b") {
      entry.fail("moe_overlap", fmt::format("'{}': use none or 1f1b", s.moe_overlap));
    }
    if (!s.moe_dispatcher.empty() && s.moe_dispatcher != "alltoall" && s.moe_dispatcher != "flex") {
      entry.fail("moe_dispatcher", fmt::format("'{}': use alltoall or flex", s.moe_dispatcher));
    }
    const bool has_rule = !s.moe_overlap.empty() || !s.moe_dispatcher.empty() || s.fp8_params.has_value() ||
                          s.nvfp4_tp_comm_overlap.has_value() || s.tp_comm_overlap.has_value() || s.nvfp4_rht.has_value() || s.benchmark_requests > 0 ||
                          !s.cuda_graph_batch_sizes.empty() || !s.pp_embedding_head_slots_models.empty() ||
                          !s.mtp_layers_models.empty() || !s.pp_layouts.empty() ||
                          s.pp_overlap_needs_interleaving || !s.recompute_modules.empty() ||
                          !s.cuda_graph_scope.empty() || s.dp_bucket_params > 0 || s.cp_comm_channels > 0;
    if (has_rule && s.unknowns_evidence.empty()) {
      entry.fail("unknowns_evidence", "empty: say where the rule for the source's blank cells comes from");
    }
    if (s.match.empty()) entry.fail("match", "empty: give a part of the rows' source cell");
    if (!s.gpus.empty() && s.model_ref.empty()) {
      entry.fail("gpus", "given without model_ref: a GPU filter narrows one model's preset; give its model_ref");
    }
    if ((!s.model_ref.empty() || !s.gpus.empty()) && !has_rule) {
      entry.fail("model_ref", "a narrowed entry without a rule: give the rule it narrows (moe_dispatcher, ...)");
    }
    if (s.published.empty() && !has_rule) {
      entry.fail("published", "missing: give the date the source was published (YYYY-MM-DD)");
    }
    if (!s.published.empty() && !is_iso_date(s.published)) {
      entry.fail("published", fmt::format("'{}': use YYYY-MM-DD", s.published));
    }
    if (!s.published.empty() && s.evidence.empty()) entry.fail("evidence", "missing: say where the date comes from");
    entry.finish();
    d.sources.push_back(std::move(s));
  }
  return d;
}

const SourceDate* source_entry(const std::vector<SourceDates>& tables, std::string_view source,
                               std::string_view model_ref, std::string_view gpu) {
  for (const SourceDates& t : tables) {
    for (const SourceDate& s : t.sources) {
      if (source.find(s.match) == std::string_view::npos) continue;
      if (!s.model_ref.empty() && s.model_ref != model_ref) continue;
      if (!s.gpus.empty() && std::find(s.gpus.begin(), s.gpus.end(), gpu) == s.gpus.end()) continue;
      return &s;
    }
  }
  return nullptr;
}

std::string published_date(const std::vector<SourceDates>& tables, std::string_view source) {
  const SourceDate* s = source_entry(tables, source);
  return s ? s->published : "";
}

}  // namespace gpuplan
