#include "report/assumptions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/human_units.h"

namespace gpuplan {

namespace {

// How a field's number reads. `from_suffix` guesses it from the key's unit suffix (_s, _bytes,
// _usd, _fraction, ...) for a field the table does not list.
enum class FieldKind {
  number,         // 3 significant figures
  count,          // whole number, grouped
  fraction,       // 0.43 → 43%
  seconds,        // human_seconds
  target_seconds, // 0 = no target: "none"
  bytes,
  flops,
  tflops_per_s,
  tokens_per_s,
  usd,
  usd_per_gpu_hour,
  usd_per_million,
  hours,          // human_seconds of hours
  flops_per_s,    // "989 TFLOP/s"
  rate_rps,       // 0 = "none"
  kwh,
  days,
  multiple,       // 1.2 → "1.2×"
};

struct FieldLabel {
  std::string_view key;
  std::string_view label;
  FieldKind kind;
};

// Keyed by the field's own name (the last part of its path): the same name means the same thing
// wherever it sits (plan.tp in train, search and recommend answers alike).
constexpr FieldLabel kFieldLabels[] = {
    // what was asked
    {"model", "model", FieldKind::number},
    {"gpu", "GPU", FieldKind::number},
    {"gpus", "GPUs", FieldKind::count},
    {"system", "system", FieldKind::number},
    {"fabric", "fabric", FieldKind::number},
    {"engine", "serving engine", FieldKind::number},
    {"objective", "ranked by", FieldKind::number},
    {"gpus_max", "GPUs per replica at most", FieldKind::count},
    {"ttft_target_s", "time-to-first-token target", FieldKind::target_seconds},
    {"tpot_target_s", "time-per-output-token target", FieldKind::target_seconds},
    {"rate_rps", "request rate to serve", FieldKind::rate_rps},
    {"tokens", "training tokens", FieldKind::count},
    {"cost_tolerance", "cost tolerance over the cheapest", FieldKind::fraction},
    {"time_limit_per_point_s", "search time limit per GPU count", FieldKind::seconds},
    {"id", "id", FieldKind::number},
    {"name", "name", FieldKind::number},
    {"why", "why this one", FieldKind::number},
    // a training plan
    {"tp", "tensor parallel", FieldKind::count},
    {"pp", "pipeline stages", FieldKind::count},
    {"vp", "virtual stages per pipeline rank", FieldKind::count},
    {"dp", "data parallel", FieldKind::count},
    {"dp_shard", "sharding group (ZeRO/FSDP)", FieldKind::count},
    {"cp", "context parallel", FieldKind::count},
    {"ep", "expert parallel", FieldKind::count},
    {"attention_dp", "attention data parallel", FieldKind::count},
    {"sp", "sequence parallel", FieldKind::number},
    {"zero", "ZeRO stage", FieldKind::count},
    {"micro_batch", "micro-batch (sequences)", FieldKind::count},
    {"global_batch", "global batch (sequences)", FieldKind::count},
    {"seq_len", "sequence length (tokens)", FieldKind::count},
    {"recompute", "activation recompute", FieldKind::number},
    {"precision", "precision of the linear layers", FieldKind::number},
    {"framework", "training framework", FieldKind::number},
    {"moe_imbalance", "router load imbalance", FieldKind::multiple},
    {"moe_overlap", "MoE communication overlap", FieldKind::number},
    {"moe_dispatcher", "MoE token dispatcher", FieldKind::number},
    {"tp_comm_overlap", "TP communication overlapped with GEMMs", FieldKind::number},
    {"fp8_recipe", "fp8 scaling recipe", FieldKind::number},
    {"elementwise", "elementwise kernels", FieldKind::number},
    // a serving plan
    {"replicas", "replicas", FieldKind::count},
    {"weights", "weights precision", FieldKind::number},
    {"kv", "KV cache precision", FieldKind::number},
    {"input_len", "prompt (tokens)", FieldKind::count},
    {"output_len", "output (tokens)", FieldKind::count},
    {"mode", "load given as", FieldKind::number},
    {"load", "load (requests)", FieldKind::count},
    // training results
    {"feasible", "runs", FieldKind::number},
    {"fits", "fits in memory", FieldKind::number},
    {"reason", "why not", FieldKind::number},
    {"bottleneck", "bottleneck", FieldKind::number},
    {"step_time_s", "step time", FieldKind::seconds},
    {"tokens_per_step", "tokens per step", FieldKind::count},
    {"micro_batches", "micro-batches per step", FieldKind::count},
    {"tokens_per_s", "throughput (tokens/s)", FieldKind::tokens_per_s},
    {"tokens_per_s_per_gpu", "throughput per GPU (tokens/s)", FieldKind::tokens_per_s},
    {"mfu", "model FLOPs utilisation", FieldKind::fraction},
    {"hfu", "hardware FLOPs utilisation", FieldKind::fraction},
    {"tflops_per_gpu", "model FLOP rate per GPU", FieldKind::tflops_per_s},
    {"model_flops_per_step", "model FLOPs per step", FieldKind::flops},
    {"hardware_flops_per_step", "hardware FLOPs per step (with recompute)", FieldKind::flops},
    {"bubble_fraction", "pipeline bubble", FieldKind::fraction},
    {"tensor_clock_factor", "tensor clock at the power limit (x the reference part's)", FieldKind::number},
    {"gemm_clock_factor", "the plan's GEMM precision's clock at the power limit (x the reference part's)", FieldKind::number},
    {"memory_per_gpu_bytes", "memory per GPU", FieldKind::bytes},
    {"memory_capacity_bytes", "usable memory per GPU", FieldKind::bytes},
    {"driver_reserved_bytes", "reserved by the driver", FieldKind::bytes},
    {"memory_margin_bytes", "memory margin", FieldKind::bytes},
    {"memory_error_fraction", "memory model error", FieldKind::fraction},
    {"memory_verdict", "memory verdict", FieldKind::number},
    {"host_memory_bytes", "host memory used", FieldKind::bytes},
    {"host_memory_capacity_bytes", "host memory available", FieldKind::bytes},
    // serving results
    {"ttft_s", "time to first token", FieldKind::seconds},
    {"queue_s", "queueing in the first token", FieldKind::seconds},
    {"steady_ttft_s", "first token in steady state", FieldKind::seconds},
    {"first_wave_ttft_s", "first token of the first wave", FieldKind::seconds},
    {"batch_wait_s", "first token held by batch waiting", FieldKind::seconds},
    {"tpot_s", "time per output token", FieldKind::seconds},
    {"output_tokens_per_s", "output tokens/s", FieldKind::tokens_per_s},
    {"output_tokens_per_s_per_gpu", "output tokens/s per GPU", FieldKind::tokens_per_s},
    {"requests_per_s", "requests/s", FieldKind::tokens_per_s},
    {"running", "sequences running at once", FieldKind::count},
    {"batch_limit", "what limits the batch", FieldKind::number},
    {"ridge_batch", "batch where decode turns compute-bound", FieldKind::count},
    {"usd_per_million_output_tokens", "cost per million output tokens", FieldKind::usd_per_million},
    {"score", "score of the objective", FieldKind::number},
    // searches
    {"space", "plans in the space", FieldKind::count},
    {"evaluated", "plans evaluated", FieldKind::count},
    {"pruned", "plans pruned (provably worse)", FieldKind::count},
    {"meeting_targets", "plans meeting the targets", FieldKind::count},
    {"found", "a plan found", FieldKind::number},
    {"complete", "search complete", FieldKind::number},
    {"search_complete", "search complete", FieldKind::number},
    {"elapsed_s", "search time", FieldKind::seconds},
    {"threads", "search threads", FieldKind::count},
    // money and the recommendation
    {"price_source", "price from", FieldKind::number},
    {"price_date", "price dated", FieldKind::number},
    {"provider", "cloud provider", FieldKind::number},
    {"instance", "instance", FieldKind::number},
    {"usd_per_gpu_hour", "price per GPU-hour", FieldKind::usd_per_gpu_hour},
    {"cost_usd", "cost of the run", FieldKind::usd},
    {"energy_kwh", "energy", FieldKind::kwh},
    {"time_s", "time to train", FieldKind::seconds},
    {"time_days", "time to train (days)", FieldKind::days},
    {"pick_rule", "how the pick was chosen", FieldKind::number},
    {"points", "priced options", FieldKind::count},
    {"searched", "plan searches run", FieldKind::count},
    {"cut_short", "searches stopped by the time limit", FieldKind::count},
    {"filtered_out", "options over the deadline or budget", FieldKind::count},
    {"over_capacity", "options the provider cannot supply", FieldKind::count},
    {"notes", "notes", FieldKind::number},
    // what a run costs (`cost`)
    {"wall_hours", "wall-clock time", FieldKind::hours},
    {"gpu_hours", "GPU-hours", FieldKind::count},
    {"params", "parameters per token", FieldKind::count},
    {"flops", "training FLOPs (6·N·D)", FieldKind::flops},
    {"peak_flops_per_s_per_gpu", "peak dense BF16 rate per GPU", FieldKind::flops_per_s},
    {"hours_at_full_mfu", "time at 100% MFU", FieldKind::hours},
    {"hours_at_mfu", "time at this MFU (the run's length)", FieldKind::hours},
    {"hours_at_half_mfu", "time at 50% MFU", FieldKind::hours},
    {"method", "duration from", FieldKind::number},
    {"interruptions_per_instance_per_day", "spot interruptions per instance per day", FieldKind::number},
    {"restart_hours", "time to restart after an interruption", FieldKind::hours},
    {"checkpoint_interval_hours", "checkpoint interval", FieldKind::hours},
    {"overhead_fixed", "restart overhead given on the command line", FieldKind::number},
    {"overhead_fraction", "restart overhead", FieldKind::fraction},
    {"from", "source", FieldKind::number},
};

const FieldLabel* find_field_label(std::string_view key) {
  for (const FieldLabel& f : kFieldLabels) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

struct LabelSuffix {
  std::string_view suffix;
  FieldKind kind;
};
constexpr std::array<LabelSuffix, 9> kLabelSuffixes{{
    {"_target_s", FieldKind::target_seconds},
    {"_per_gpu_hour", FieldKind::usd_per_gpu_hour},
    {"_per_s", FieldKind::tokens_per_s},
    {"_bytes", FieldKind::bytes},
    {"_flops", FieldKind::flops},
    {"_fraction", FieldKind::fraction},
    {"_usd", FieldKind::usd},
    {"_kwh", FieldKind::kwh},
    {"_s", FieldKind::seconds},
}};

bool label_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

FieldKind field_kind_of(const std::string& key) {
  if (const FieldLabel* f = find_field_label(key)) return f->kind;
  for (const LabelSuffix& s : kLabelSuffixes) {
    if (label_ends_with(key, s.suffix)) return s.kind;
  }
  return FieldKind::number;
}

std::string field_number_value(double v, FieldKind kind) {
  switch (kind) {
    case FieldKind::count: return human_count(v);
    case FieldKind::fraction: return human_percent(v);
    case FieldKind::seconds: return human_seconds(v);
    case FieldKind::target_seconds: return v > 0 ? human_seconds(v) : "none";
    case FieldKind::bytes: return human_bytes(v);
    case FieldKind::flops: return human_flops(v);
    case FieldKind::tflops_per_s: return human_number(v) + " TFLOP/s";
    case FieldKind::tokens_per_s: return human_number(v) + " /s";
    case FieldKind::usd: return human_usd(v);
    case FieldKind::usd_per_gpu_hour: return v > 0 ? human_usd(v) + " per GPU-hour" : "no price";
    case FieldKind::usd_per_million: return v > 0 ? human_usd(v) : "no price";
    case FieldKind::hours: return human_seconds(v * 3600);
    case FieldKind::flops_per_s: return human_flops(v) + "/s";
    case FieldKind::rate_rps: return v > 0 ? human_number(v) + " requests/s" : "none (one replica)";
    case FieldKind::kwh: return human_number(v) + " kWh";
    case FieldKind::days: return human_number(v) + " days";
    case FieldKind::multiple: return human_number(v) + "×";
    case FieldKind::number: break;
  }
  return human_number(v);
}

// An enumeration's value as words: "total_fraction" → "total fraction".
std::string field_text_value(const std::string& s) {
  if (s.empty()) return "none";
  if (s.find(' ') != std::string::npos) return s;  // already a sentence
  std::string out = s;
  // Identifiers (ids of the catalog, instance names) keep their spelling; words joined by '_'
  // with no digit read better spaced.
  bool has_digit = false;
  for (char c : out) has_digit = has_digit || (c >= '0' && c <= '9');
  if (!has_digit) {
    for (char& c : out) {
      if (c == '_') c = ' ';
    }
  }
  return out;
}

std::string field_value_text(const std::string& key, const nlohmann::ordered_json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return field_number_value(v.get<double>(), field_kind_of(key));
  if (v.is_string()) return field_text_value(v.get<std::string>());
  if (v.is_null()) return "none";
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : "; ") + field_value_text(key, x);
    return out.empty() ? "none" : out;
  }
  return v.dump();
}

// The parts the charts or other tables show, at any depth; `knee` repeats a point of the front;
// `why` (of default_system) explains the CLI's choice by the code that made it, for the text.
bool left_to_the_charts(std::string_view key) {
  static constexpr std::array<std::string_view, 17> kSkip{
      "breakdown", "memory", "placement", "front", "top", "closest", "roofline", "best_unvalidated", "decode_step",
      "prefill_step", "memory_per_gpu", "knee", "knee_index", "nearest", "curve", "simulation", "why"};
  for (std::string_view s : kSkip) {
    if (s == key) return true;
  }
  return false;
}

std::string assumption_group_name(const std::string& path) {
  if (path.empty()) return "answer";
  std::string out = path;
  for (char& c : out) {
    if (c == '_') c = ' ';
    if (c == '.') c = ' ';
  }
  if (out == "default system") return "system";
  if (out == "best") return "best plan";
  if (out == "best plan" || out == "pick plan" || out == "knee plan") return out.substr(0, out.size() - 5) + " (its layout)";
  if (out == "pick") return "the pick";
  return out;
}

// Lower-case words joined by '_' (a config or field name quoted in a sentence) read spaced;
// identifiers with digits or capitals keep their spelling.
std::string spaced_names(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && ((text[j] >= 'a' && text[j] <= 'z') || text[j] == '_' || (text[j] >= '0' && text[j] <= '9') ||
                               (text[j] >= 'A' && text[j] <= 'Z'))) {
      ++j;
    }
    if (j == i) {
      out += text[i++];
      continue;
    }
    std::string word = text.substr(i, j - i);
    const bool plain = std::all_of(word.begin(), word.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
    if (plain) std::replace(word.begin(), word.end(), '_', ' ');
    out += word;
    i = j;
  }
  return out;
}

// One default the answer rests on (TrainSetup::assumptions: "seq_len 8192: why; --seq-len sets
// another") as a row: the field's label, its value with its unit, then why.
AssumptionRow default_assumption_row(const std::string& line) {
  const std::size_t colon = line.find(": ");
  const std::string head = colon == std::string::npos ? line : line.substr(0, colon);
  const std::string why = colon == std::string::npos ? "" : spaced_names(line.substr(colon + 2));
  const std::size_t space = head.find(' ');
  const std::string key = space == std::string::npos ? head : head.substr(0, space);
  if (space == std::string::npos || !field_has_label(key)) return {"defaults (not asked)", spaced_names(head), why.empty() ? "yes" : why};
  const std::string raw = head.substr(space + 1);
  char* end = nullptr;
  const double number = std::strtod(raw.c_str(), &end);
  const std::string value =
      end != nullptr && *end == '\0' && !raw.empty() ? field_number_value(number, field_kind_of(key)) : field_text_value(raw);
  return {"defaults (not asked)", field_label(key), why.empty() ? value : value + " — " + why};
}

void walk_answer(const nlohmann::ordered_json& obj, const std::string& path, std::vector<AssumptionRow>& rows) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::ordered_json& v = it.value();
    if (left_to_the_charts(key)) continue;
    if (key == "assumptions" && v.is_array()) {
      for (const auto& line : v) {
        if (line.is_string()) rows.push_back(default_assumption_row(line.get<std::string>()));
      }
      continue;
    }
    if (v.is_object()) {
      walk_answer(v, path.empty() ? key : path + "." + key, rows);
      continue;
    }
    if (v.is_array() && !std::all_of(v.begin(), v.end(), [](const auto& x) { return x.is_primitive(); })) continue;
    if (key == "reason" && v.is_string() && v.get<std::string>().empty()) continue;
    rows.push_back({assumption_group_name(path), field_label(key), field_value_text(key, v)});
  }
}

}  // namespace

bool field_has_label(const std::string& key) { return find_field_label(key) != nullptr; }

std::string field_label(const std::string& key) {
  if (const FieldLabel* f = find_field_label(key)) return std::string(f->label);
  std::string out = key;
  for (const LabelSuffix& s : kLabelSuffixes) {
    if (label_ends_with(out, s.suffix)) {
      out = out.substr(0, out.size() - s.suffix.size());
      break;
    }
  }
  for (char& c : out) {
    if (c == '_') c = ' ';
  }
  return out;
}

std::vector<AssumptionRow> assumption_rows(const nlohmann::ordered_json& answer) {
  std::vector<AssumptionRow> rows;
  walk_answer(answer, "", rows);
  return rows;
}

nlohmann::ordered_json to_json(const std::vector<AssumptionRow>& rows) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const AssumptionRow& r : rows) j.push_back({{"group", r.group}, {"label", r.label}, {"value", r.value}});
  return j;
}

}  // namespace gpuplan
