#include <nlohmann/json.hpp>
#include "sweep/spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/json_fields.h"

namespace gpuplan {
namespace {

// A list entry written twice would make two identical cells (or rows) in the result.
template <typename T>
void reject_repeats(const JsonObjectReader& r, const char* key, const std::vector<T>& values) {
  for (std::size_t idx = 0; idx < values.size(); ++idx) {
    const auto first = std::find(values.begin(), values.end(), values[idx]);
    if (first != values.begin() + static_cast<std::ptrdiff_t>(idx)) {
      r.fail(fmt::format("{}[{}]", key, idx),
             fmt::format("repeats {}[{}]; list each entry once", key, first - values.begin()));
    }
  }
}

// The linear-layer precisions the training evaluator models (as `gpuplan search --precision`).
Precision training_precision(const JsonObjectReader& r) {
  const std::string name = r.text("precision");
  const auto p = parse_precision(name);
  if (!p || (*p != Precision::bf16 && *p != Precision::fp16 && *p != Precision::fp8 && *p != Precision::fp32 &&
             *p != Precision::tf32)) {
    r.fail("precision", fmt::format("'{}' is not one of bf16, fp16, fp8, tf32, fp32", name));
  }
  return *p;
}

}  // namespace

SweepSpec parse_sweep_spec(std::string_view text, const std::string& file) {
  const nlohmann::json doc = parse_json_strict(text, file);
  const JsonObjectReader top(doc, file, "",
                             {"description", "models", "gpus", "gpu_counts", "global_batch", "seq_len", "precision",
                              "objective", "top_k", "output", "search"});
  SweepSpec s;
  s.file = file;
  if (top.has("description")) s.description = top.text("description");
  s.models = top.text_list("models");
  reject_repeats(top, "models", s.models);
  s.gpus = top.text_list("gpus");
  reject_repeats(top, "gpus", s.gpus);
  s.gpu_counts = top.positive_int_list("gpu_counts");
  reject_repeats(top, "gpu_counts", s.gpu_counts);
  s.global_batch = top.positive_int("global_batch");
  s.seq_len = top.positive_int("seq_len");
  if (top.has("precision")) s.precision = training_precision(top);
  if (top.has("objective")) {
    const std::string name = top.text("objective");
    const auto o = parse_objective(name);
    if (!o) top.fail("objective", fmt::format("'{}' is not one of time, cost, mfu", name));
    s.objective = *o;
  }
  if (top.has("top_k")) s.top_k = top.positive_int("top_k");
  if (top.has("output")) {
    const JsonObjectReader out = top.object("output", {"csv", "json"});
    if (out.has("csv")) s.out_csv = spec_relative_path(s, out.text("csv"));
    if (out.has("json")) s.out_json = spec_relative_path(s, out.text("json"));
  }
  if (top.has("search")) {
    const JsonObjectReader search = top.object("search", {"threads", "time_limit_s", "no_prune", "usd_per_gpu_hour"});
    if (search.has("threads")) s.search.threads = search.positive_int("threads");
    if (search.has("time_limit_s")) s.search.time_limit_s = search.non_negative("time_limit_s");
    if (search.has("no_prune")) s.search.prune = !search.boolean("no_prune");
    if (search.has("usd_per_gpu_hour")) s.search.usd_per_gpu_hour = search.non_negative("usd_per_gpu_hour");
  }
  return s;
}

SweepSpec load_sweep_spec(const std::string& path) {
  return parse_sweep_spec(read_input_file(path, "the sweep spec"), path);
}

std::string spec_relative_path(const SweepSpec& spec, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.is_absolute()) return path;
  return (fs::path(spec.file).parent_path() / p).lexically_normal().string();
}

bool is_model_path(std::string_view entry) {
  return entry.ends_with(".json") || entry.find('/') != std::string_view::npos;
}

}  // namespace gpuplan
