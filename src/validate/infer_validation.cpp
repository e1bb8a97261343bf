#include <nlohmann/json.hpp>
#include "validate/infer_validation.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/strings.h"
#include "infer/evaluate.h"
#include "core/table.h"

namespace gpuplan {
namespace {

Precision row_precision(const std::string& text, const std::string& where) {
  const auto p = parse_precision(to_lower(text));
  if (!p) throw Error(fmt::format("{}: unknown precision '{}'", where, text));
  return *p;
}

// "tensorrt-llm 0.17" → "tensorrt-llm": the engine id is the first word.
std::string engine_id(const std::string& text) {
  const auto space = text.find(' ');
  return space == std::string::npos ? text : text.substr(0, space);
}

}  // namespace

InferValidation validate_inference(const CsvTable& csv, const Catalog& catalog) {
  InferValidation v;
  const auto col = [&](const char* name) { return csv.column(name); };
  const std::size_t c_model = col("model_ref"), c_gpu = col("gpu"), c_gpus = col("num_gpus"), c_tp = col("tp"),
                    c_pp = col("pp"), c_ep = col("ep"), c_w = col("weight_precision"), c_kv = col("kv_precision"),
                    c_in = col("input_len"), c_out = col("output_len"), c_mode = col("mode"),
                    c_conc = col("concurrency"), c_engine = col("engine"), c_metric = col("metric"),
                    c_value = col("value");
  const auto c_id = csv.find_column("id");
  std::map<std::tuple<const ModelSpec*, const Gpu*, const Engine*>, std::unique_ptr<InferContext>> contexts;
  for (const auto& r : csv.rows()) {
    InferValidationRow row;
    row.id = c_id ? std::string(csv.cell(r, *c_id)) : fmt::format("line {}", r.line);
    row.model = csv.text(r, c_model);
    row.gpu = csv.text(r, c_gpu);
    row.engine = csv.text(r, c_engine);
    row.mode = csv.text(r, c_mode);
    row.metric = csv.text(r, c_metric);
    row.gpus = static_cast<int>(csv.integer(r, c_gpus));
    row.tp = static_cast<int>(csv.integer(r, c_tp));
    row.input_len = csv.integer(r, c_in);
    row.output_len = csv.integer(r, c_out);
    row.concurrency = csv.opt_number(r, c_conc).value_or(0);
    row.measured = csv.number(r, c_value);

    const ModelSpec& model = catalog.model(row.model);
    const Gpu& gpu = catalog.gpu(row.gpu);
    const Engine* engine = catalog.find_engine(engine_id(row.engine));
    if (!engine) throw Error(fmt::format("{}: unknown engine '{}'", csv.where(r, c_engine), row.engine));
    auto& slot = contexts[{&model, &gpu, engine}];
    if (!slot) slot = std::make_unique<InferContext>(make_infer_context(catalog, model, gpu, *engine));

    InferPlan plan;
    plan.tp = row.tp;
    plan.pp = static_cast<int>(csv.integer(r, c_pp));
    plan.ep = static_cast<int>(csv.integer(r, c_ep));
    plan.replicas = std::max(1, row.gpus / plan.gpus_per_replica());
    plan.weights = row_precision(csv.text(r, c_w), csv.where(r, c_w));
    plan.kv = row_precision(csv.text(r, c_kv), csv.where(r, c_kv));
    plan.input_len = row.input_len;
    plan.output_len = row.output_len;
    if (row.mode == "offline_max_throughput") {
      plan.mode = InferMode::max_throughput;
    } else if (row.mode == "fixed_concurrency") {
      plan.mode = InferMode::concurrency;
      plan.load = row.concurrency > 0 ? row.concurrency : 1;
    } else if (row.mode == "light_load") {
      plan.mode = InferMode::concurrency;
      plan.load = row.concurrency > 0 ? row.concurrency : 1;
    } else {
      throw Error(fmt::format("{}: unknown mode '{}'; use offline_max_throughput, fixed_concurrency or light_load",
                              csv.where(r, c_mode), row.mode));
    }
    const InferEstimate e = evaluate_inference(*slot, plan);
    if (!e.feasible) {
      row.note = e.reason_text();
    } else if (row.metric == "output_tokens_per_s_total") {
      row.predicted = e.output_tokens_per_s;
    } else if (row.metric == "ttft_ms") {
      row.predicted = e.point.ttft_s * 1e3;
    } else if (row.metric == "tpot_ms") {
      row.predicted = e.point.tpot_s * 1e3;
    } else {
      row.note = "unknown metric";
    }
    if (row.predicted > 0) {
      const double err = row.error();
      v.by_metric.add(row.metric, err);
      v.by_engine.add(row.engine + " " + row.metric, err);
      v.by_gpu.add(row.gpu + " " + row.metric, err);
      v.by_model.add(row.model + " " + row.metric, err);
    } else {
      ++v.skipped;
    }
    v.rows.push_back(std::move(row));
  }
  return v;
}

}  // namespace gpuplan
