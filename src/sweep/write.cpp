#include <nlohmann/json.hpp>
#include "sweep/write.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

// clang-format off
constexpr const char* kColumns[] = {
    "cell", "model", "gpu", "system", "gpus", "global_batch", "seq_len", "precision", "objective", "status", "rank",
    "tp", "pp", "vp", "dp", "cp", "ep", "sp", "zero", "dp_shard", "micro_batch", "recompute",
    "step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "memory_bytes", "memory_capacity_bytes",
    "bottleneck", "score",
    "usd_per_gpu_hour", "usd_per_step", "plans_in_space", "complete", "price_source", "reason"};
// clang-format on

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

// Shortest representation that reads back to the same double.
std::string num(double value) { return fmt::format("{}", value); }

std::string csv_row(const SweepSpec& spec, const SweepCellResult& c, const SweepPlanRow* row, bool ranked) {
  std::vector<std::string> f;
  f.push_back(std::to_string(c.cell));
  f.push_back(c.model);
  f.push_back(c.gpu);
  f.push_back(c.system);
  f.push_back(std::to_string(c.gpus));
  f.push_back(std::to_string(spec.global_batch));
  f.push_back(std::to_string(spec.seq_len));
  f.push_back(std::string(precision_name(spec.precision)));
  f.push_back(std::string(objective_name(spec.objective)));
  f.push_back(c.feasible() ? "ok" : "infeasible");
  f.push_back(ranked ? std::to_string(row->rank) : "");
  if (row) {
    const Plan& p = row->plan;
    for (int v : {p.tp, p.pp, p.vp, p.dp, p.cp, p.ep}) f.push_back(std::to_string(v));
    f.push_back(p.sp ? "true" : "false");
    for (int v : {p.zero, p.shard_group(), p.micro_batch}) f.push_back(std::to_string(v));
    f.push_back(std::string(recompute_name(p.recompute)));
  } else {
    f.insert(f.end(), 11, "");
  }
  if (ranked) {
    for (double v : {row->step_time_s, row->tokens_per_s, row->tokens_per_s_per_gpu, row->mfu, row->memory_bytes,
                     row->memory_capacity_bytes}) {
      f.push_back(num(v));
    }
    f.push_back(row->bottleneck);
    f.push_back(num(row->score));
  } else {
    // An infeasible cell's closest plan: only its memory means something.
    f.insert(f.end(), 4, "");
    f.push_back(row ? num(row->memory_bytes) : "");
    f.push_back(row ? num(row->memory_capacity_bytes) : "");
    f.insert(f.end(), 2, "");
  }
  f.push_back(c.usd_per_gpu_hour > 0 ? num(c.usd_per_gpu_hour) : "");
  f.push_back(ranked && c.usd_per_gpu_hour > 0 ? num(row->usd_per_step) : "");
  f.push_back(std::to_string(c.plans_in_space));
  f.push_back(c.complete ? "true" : "false");
  f.push_back(c.price_source);
  f.push_back(c.reason);
  GP_ASSERT(f.size() == std::size(kColumns), "one field per CSV column");
  std::string line;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i) line += ',';
    line += csv_field(f[i]);
  }
  line += '\n';
  return line;
}

}  // namespace

std::string sweep_csv(const SweepSpec& spec, const std::vector<SweepCellResult>& cells) {
  std::string out = join(std::vector<std::string>(std::begin(kColumns), std::end(kColumns)), ",") + "\n";
  for (const SweepCellResult& c : cells) {
    if (c.feasible()) {
      for (const SweepPlanRow& r : c.top) out += csv_row(spec, c, &r, true);
    } else {
      out += csv_row(spec, c, c.closest ? &*c.closest : nullptr, false);
    }
  }
  return out;
}

std::string sweep_json(const SweepSpec& spec, const std::vector<SweepCellResult>& cells) {
  nlohmann::ordered_json j;
  j["schema"] = kSweepSchema;
  nlohmann::ordered_json s;
  s["description"] = spec.description;
  s["models"] = spec.models;
  s["gpus"] = spec.gpus;
  s["gpu_counts"] = spec.gpu_counts;
  s["global_batch"] = spec.global_batch;
  s["seq_len"] = spec.seq_len;
  s["precision"] = precision_name(spec.precision);
  s["objective"] = objective_name(spec.objective);
  s["top_k"] = spec.top_k;
  s["search"]["threads"] = spec.search.threads;
  s["search"]["time_limit_s"] = spec.search.time_limit_s;
  s["search"]["no_prune"] = !spec.search.prune;
  s["search"]["usd_per_gpu_hour"] = spec.search.usd_per_gpu_hour;
  j["spec"] = s;
  j["cells"] = cells.size();
  j["results"] = nlohmann::ordered_json::array();
  for (const SweepCellResult& c : cells) j["results"].push_back(cell_result_json(c));
  return j.dump(2) + "\n";
}

namespace {
void create_parent(const std::string& path) {
  std::error_code ec;  // a failure shows when the file is opened
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
}
}  // namespace

void check_writable(const std::string& path) {
  create_parent(path);
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
}

void write_text_file(const std::string& path, const std::string& text) {
  create_parent(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
}

}  // namespace gpuplan
