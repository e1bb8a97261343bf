#include "report/model_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "core/table.h"
#include "report/report_json.h"

namespace gpuplan {
namespace {

using json = nlohmann::ordered_json;

const char* mlp_name(MlpKind k) {
  switch (k) {
    case MlpKind::gelu:
      return "gelu";
    case MlpKind::swiglu:
      return "swiglu";
    case MlpKind::relu2:
      return "relu2";
  }
  return "?";
}
const char* norm_name(NormKind k) { return k == NormKind::layernorm ? "layernorm" : "rmsnorm"; }
const char* position_name(PositionKind k) {
  switch (k) {
    case PositionKind::learned:
      return "learned";
    case PositionKind::rope:
      return "rope";
    case PositionKind::alibi:
      return "alibi";
  }
  return "?";
}

json layer_json(const LayerParams& p, std::int64_t count) {
  json j;
  j["count"] = count;
  j["attention_params"] = p.attention;
  j["mamba_params"] = p.mamba + p.mamba_other;
  j["mlp_params"] = p.mlp;
  j["routed_experts_params"] = p.experts;
  j["routed_experts_active_params"] = p.experts_active;
  j["shared_experts_params"] = p.shared_experts;
  j["router_params"] = p.router;
  j["norm_params"] = p.norms;
  j["bias_params"] = p.biases;
  j["total_params"] = p.total();
  j["active_params"] = p.active();
  return j;
}

// "+0.4%" of computed against published.
std::string deviation(double computed, double published) {
  return fmt::format("{:+.1f}%", 100.0 * (computed / published - 1.0));
}

std::string flops(double v) { return format_si(v, "FLOP", 2); }

}  // namespace

nlohmann::ordered_json to_json(const ModelsAnswer& answer) {
  nlohmann::ordered_json j;
  j["count"] = answer.models.size();
  j["models"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < answer.models.size(); ++i) {
    j["models"].push_back(model_json(*answer.models[i], answer.figures[i]));
  }
  return j;
}

std::string to_text(const ModelsAnswer& answer) { return models_table_text(answer.models, answer.figures); }

nlohmann::ordered_json to_json(const ModelAnswer& answer) { return model_json(*answer.model, answer.figures); }

std::string to_text(const ModelAnswer& answer) { return model_detail_text(*answer.model, answer.figures); }

std::string format_params(double count) {
  if (count >= 1e12) return fmt::format("{:.2f}T", count / 1e12);
  if (count >= 1e9) return fmt::format("{:.{}f}B", count / 1e9, count >= 100e9 ? 1 : 2);
  if (count >= 1e6) return fmt::format("{:.1f}M", count / 1e6);
  if (count >= 1e3) return fmt::format("{:.1f}k", count / 1e3);
  return fmt::format("{:.0f}", count);
}

json model_json(const ModelSpec& m, const ModelFigures& f) {
  const ParamCounts& c = f.params;
  json j;
  j["id"] = m.id;
  j["name"] = m.name;
  j["aliases"] = m.aliases;
  j["family"] = m.family;
  j["model_type"] = m.model_type;
  j["layers"] = m.layers;
  j["hidden"] = m.hidden;
  j["heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  j["head_dim"] = m.head_dim;
  j["ffn_hidden"] = m.ffn_hidden;
  j["vocab"] = m.vocab;
  j["max_seq_len"] = m.max_seq_len;
  j["mlp"] = mlp_name(m.mlp);
  j["norm"] = norm_name(m.norm);
  j["position"] = position_name(m.position);
  j["tied_embeddings"] = m.tied_embeddings;
  if (m.mla) {
    j["mla"] = json{{"q_lora_rank", m.mla_shape.q_lora_rank},
                    {"kv_lora_rank", m.mla_shape.kv_lora_rank},
                    {"qk_nope_head_dim", m.mla_shape.qk_nope_head_dim},
                    {"qk_rope_head_dim", m.mla_shape.qk_rope_head_dim},
                    {"v_head_dim", m.mla_shape.v_head_dim}};
  } else {
    j["mla"] = nullptr;
  }
  if (m.is_moe()) {
    j["moe"] = json{{"experts", m.moe.experts},
                    {"top_k", m.moe.top_k},
                    {"shared_experts", m.moe.shared_experts},
                    {"expert_ffn_hidden", m.moe.expert_ffn_hidden},
                    {"dense_layers", c.dense_layers},
                    {"moe_layers", c.moe_layers}};
  } else {
    j["moe"] = nullptr;
  }
  j["sliding_window"] = positive_or_null(static_cast<double>(m.sliding_window));
  j["sliding_layers"] = f.sliding_layers;
  j["mtp_layers"] = m.mtp_layers;

  j["total_params"] = c.total;
  j["active_params"] = c.active;
  j["active_params_without_input_embedding"] = c.active_without_input_embedding();
  j["embedding_params"] = c.embedding;
  j["input_embedding_params"] = c.input_embedding;
  j["output_head_params"] = c.output_head;
  j["position_embedding_params"] = c.position_embedding;
  j["non_embedding_params"] = c.non_embedding;
  j["matmul_active_params"] = c.matmul_active;
  j["mtp_params"] = c.mtp;
  j["published_params"] = positive_or_null(m.published_params);
  j["published_active_params"] = positive_or_null(m.published_active_params);
  j["published_active_excludes_input_embedding"] = m.published_active_excludes_input_embedding;
  json layers = json::object();
  if (c.dense_layers > 0) layers["dense"] = layer_json(c.dense_layer, c.dense_layers);
  if (c.moe_layers > 0) layers["moe"] = layer_json(c.moe_layer, c.moe_layers);
  // Hybrids: dense and moe show the first layer of each; "all" sums every layer.
  if (m.is_hybrid()) layers["all"] = layer_json(c.layers, 1);
  j["layer_params"] = layers;
  j["mamba_scan_flops_per_token"] = f.mamba_scan_flops_per_token;

  j["seq_len"] = f.seq_len;
  j["attention_flops_per_token"] = f.attention_flops_per_token;
  j["forward_flops_per_token"] = f.forward_flops_per_token;
  j["train_flops_per_token"] = f.train_flops_per_token;
  j["decode_flops_per_token"] = f.decode_flops_per_token;
  json weights;
  for (const auto& [p, bytes] : f.weight_bytes) weights[precision_name(p)] = bytes;
  j["weight_bytes"] = weights;
  json kv_token;
  json kv_seq;
  for (const auto& [p, bytes] : f.kv_cache_bytes_per_token) kv_token[precision_name(p)] = bytes;
  for (const auto& [p, bytes] : f.kv_cache_bytes_per_sequence) kv_seq[precision_name(p)] = bytes;
  j["kv_cache_bytes_per_token"] = kv_token;
  j["kv_cache_bytes_per_sequence"] = kv_seq;
  j["notes"] = m.notes;
  j["provenance"] = provenance_json(m.provenance);
  return j;
}

std::string models_table_text(const std::vector<const ModelSpec*>& models, const std::vector<ModelFigures>& figures) {
  using A = TextTable::Align;
  TextTable table({"id", "family", "layers", "hidden", "heads/kv", "experts/top-k", "total", "active", "context"},
                  {A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right});
  for (std::size_t i = 0; i < models.size(); ++i) {
    const ModelSpec* m = models[i];
    const ParamCounts& c = figures[i].params;
    const std::string experts =
        m->is_moe() ? fmt::format("{}/{}{}", m->moe.experts, m->moe.top_k,
                                  m->moe.shared_experts ? fmt::format("+{}", m->moe.shared_experts) : "")
                    : "-";
    table.add_row({m->id, m->family, fmt_number(static_cast<double>(m->layers)),
                   fmt_number(static_cast<double>(m->hidden)),
                   m->mla ? fmt::format("{}/MLA", m->heads) : fmt::format("{}/{}", m->heads, m->kv_heads), experts,
                   format_params(c.total), format_params(c.active),
                   m->max_seq_len > 0 ? fmt_number(static_cast<double>(m->max_seq_len)) : "-"});
  }
  return table.render() +
         "Active = parameters one token uses (MoE: top-k + shared experts), embedding tables included.\n"
         "Details, FLOPs and KV cache: gpuplan model ID.\n";
}

std::string model_detail_text(const ModelSpec& m, const ModelFigures& f) {
  const ParamCounts& c = f.params;
  const std::int64_t seq_len = f.seq_len;
  std::string out = fmt::format("{} ({})\n", m.name.empty() ? m.id : m.name, m.id);
  out += fmt::format("  family {}, model_type {}", m.family, m.model_type);
  if (!m.aliases.empty()) {
    std::string aliases;
    for (const auto& a : m.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
    out += "; aliases: " + aliases;
  }
  out += "\n\nShape\n";
  out += fmt::format("  {} layers, hidden {}, {} heads / {} KV heads x {}, {} MLP {}, vocab {}, context {}\n", m.layers,
                     fmt_number(static_cast<double>(m.hidden)), m.heads, m.kv_heads, m.head_dim, mlp_name(m.mlp),
                     fmt_number(static_cast<double>(m.ffn_hidden)), fmt_number(static_cast<double>(m.vocab)),
                     m.max_seq_len > 0 ? fmt_number(static_cast<double>(m.max_seq_len)) : "-");
  out += fmt::format("  {}, {} positions{}{}\n", norm_name(m.norm), position_name(m.position),
                     m.rotary_fraction < 1 ? fmt::format(" on {:g}% of each head", 100 * m.rotary_fraction) : "",
                     m.tied_embeddings ? ", output head tied to the embedding" : "");
  if (m.mla) {
    out += fmt::format("  MLA: q latent {}, kv latent {}, q/k head {} + {} rope, v head {}\n", m.mla_shape.q_lora_rank,
                       m.mla_shape.kv_lora_rank, m.mla_shape.qk_nope_head_dim, m.mla_shape.qk_rope_head_dim,
                       m.mla_shape.v_head_dim);
  }
  if (m.is_moe()) {
    out += fmt::format("  MoE: {} routed experts, top-{}, {} shared, expert FFN {}; {} MoE and {} dense layers\n",
                       m.moe.experts, m.moe.top_k, m.moe.shared_experts,
                       fmt_number(static_cast<double>(m.moe.expert_ffn_hidden)), c.moe_layers, c.dense_layers);
  }
  if (const std::int64_t n = f.sliding_layers; n > 0) {
    out += fmt::format("  {} attention ({} tokens) in {} of {} layers\n",
                       m.attention_chunked ? "chunked" : "sliding-window",
                       fmt_number(static_cast<double>(m.sliding_window)), n, m.layers);
  }
  if (m.mamba.version > 0) {
    const std::int64_t mamba = f.mamba_layers;
    const std::int64_t attention = f.attention_layers;
    out += fmt::format("  Mamba-{}: {} of {} layers ({} attention), d_inner {}, state {}, conv {}; a fixed {} "
                       "recurrent state per sequence\n",
                       m.mamba.version, mamba, m.layers, attention, fmt_number(static_cast<double>(m.mamba.d_inner)),
                       m.mamba.d_state, m.mamba.d_conv,
                       format_bytes(f.recurrent_state_bytes_per_seq));
  }

  out += "\nParameters\n";
  auto published = [](double computed, double value) {
    return value > 0 ? fmt::format(" (published {}, computed {})", format_params(value), deviation(computed, value))
                     : "";
  };
  out += fmt::format("  total  {}{}\n", format_params(c.total), published(c.total, m.published_params));
  if (m.is_moe()) {
    const double active_cmp =
        m.published_active_excludes_input_embedding ? c.active_without_input_embedding() : c.active;
    out += fmt::format("  active {} per token, {} without the input embedding{}\n", format_params(c.active),
                       format_params(c.active_without_input_embedding()),
                       published(active_cmp, m.published_active_params));
  }
  std::string parts = "input " + format_params(c.input_embedding);
  if (c.output_head > 0) parts += " + output head " + format_params(c.output_head);
  if (c.position_embedding > 0) parts += " + positions " + format_params(c.position_embedding);
  if (m.tied_embeddings) parts += "; output head tied";
  out += fmt::format("  embedding {} ({}), non-embedding {}\n", format_params(c.embedding), parts,
                     format_params(c.non_embedding));
  if (c.mtp > 0) out += fmt::format("  multi-token prediction module {} (not in the total)\n", format_params(c.mtp));

  using A = TextTable::Align;
  std::vector<std::string> header{"per layer"};
  std::vector<const LayerParams*> kinds;
  if (m.is_hybrid()) {
    // Jamba, Nemotron-H: layers of several shapes; the table shows their sum.
    header.push_back(fmt::format("all {} layers", m.layers));
    kinds.push_back(&c.layers);
  } else if (c.dense_layers > 0) {
    header.push_back(fmt::format("dense (x{})", c.dense_layers));
    kinds.push_back(&c.dense_layer);
  }
  if (c.moe_layers > 0 && !m.is_hybrid()) {
    header.push_back(fmt::format("MoE (x{})", c.moe_layers));
    kinds.push_back(&c.moe_layer);
  }
  std::vector<A> align(header.size(), A::right);
  align.front() = A::left;
  TextTable table(header, align);
  auto row = [&](const char* label, double LayerParams::*field) {
    std::vector<std::string> cells{label};
    bool any = false;
    for (const LayerParams* p : kinds) {
      cells.push_back((p->*field) > 0 ? format_params(p->*field) : "-");
      any = any || (p->*field) > 0;
    }
    if (any) table.add_row(cells);
  };
  row("attention", &LayerParams::attention);
  row("Mamba projections", &LayerParams::mamba);
  row("Mamba conv, A, D", &LayerParams::mamba_other);
  row("MLP", &LayerParams::mlp);
  row("routed experts", &LayerParams::experts);
  row("  of which active", &LayerParams::experts_active);
  row("shared experts", &LayerParams::shared_experts);
  row("router", &LayerParams::router);
  row("norms", &LayerParams::norms);
  row("biases, sinks", &LayerParams::biases);
  std::vector<std::string> total{"total"};
  std::vector<std::string> active{"active"};
  for (const LayerParams* p : kinds) {
    total.push_back(format_params(p->total()));
    active.push_back(format_params(p->active()));
  }
  table.add_row(total);
  if (m.is_moe()) table.add_row(active);
  out += '\n';
  out += table.render();

  const double attention = f.attention_flops_per_token;
  const double forward = f.forward_flops_per_token;
  out += fmt::format("\nFLOPs per token, sequence {} (causal attention){}\n", fmt_number(static_cast<double>(seq_len)),
                     m.max_seq_len > 0 && seq_len > m.max_seq_len ? ", beyond the model's context" : "");
  const double scans = f.mamba_scan_flops_per_token;
  out += fmt::format("  forward  {} = 2 x {} matmul weights + {} attention{}\n", flops(forward),
                     format_params(c.matmul_active), flops(attention),
                     scans > 0 ? fmt::format(" + {} Mamba scans", flops(scans)) : "");
  out += fmt::format("  training {} per token per step (3 x forward: 6N + 3 x attention)\n",
                     flops(f.train_flops_per_token));
  out += fmt::format("  decode   {} per generated token at context {}\n", flops(f.decode_flops_per_token),
                     fmt_number(static_cast<double>(seq_len)));

  out += "\nWeights (every parameter at the precision)\n";
  out += fmt::format("  bf16 {}, fp8 {}, int4 {}\n", format_bytes(f.weight_bytes[0].second),
                     format_bytes(f.weight_bytes[1].second), format_bytes(f.weight_bytes[2].second));
  out +=
      fmt::format("\nKV cache ({})\n", m.mla ? "MLA latent + rope key per layer"
                                             : fmt::format("2 x {} KV heads x {} per layer", m.kv_heads, m.head_dim));
  out += fmt::format("  per token: bf16 {} B, fp8 {} B\n", fmt_number(f.kv_cache_bytes_per_token[0].second),
                     fmt_number(f.kv_cache_bytes_per_token[1].second));
  out += fmt::format("  one sequence of {} tokens: bf16 {}, fp8 {}{}\n", fmt_number(static_cast<double>(seq_len)),
                     format_bytes(f.kv_cache_bytes_per_sequence[0].second),
                     format_bytes(f.kv_cache_bytes_per_sequence[1].second),
                     f.sliding_layers > 0 ? " (sliding-window layers keep only the window)" : "");
  if (!m.notes.empty()) out += "\nNotes: " + m.notes + "\n";
  if (!m.provenance.source.empty()) {
    out += fmt::format("\nSource{}: {}\n", m.provenance.retrieved.empty() ? "" : " (" + m.provenance.retrieved + ")",
                       m.provenance.source);
  }
  return out;
}

}  // namespace gpuplan
