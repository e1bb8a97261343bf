#include "validate/infer_validation.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {
namespace {

InferValidationRow row_of(const InferCase& c) {
  InferValidationRow row;
  row.id = c.id;
  row.source = c.source;
  row.model = c.model_name;
  row.gpu = c.gpu_name;
  row.engine = c.engine_name;
  row.mode = c.mode;
  row.metric = c.metric;
  row.precision = c.precision;
  row.band = concurrency_band(c.concurrency);
  row.gpus = c.plan.gpus();
  row.tp = c.plan.tp;
  row.input_len = c.plan.input_len;
  row.output_len = c.plan.output_len;
  row.concurrency = c.concurrency;
  row.measured = c.measured;
  row.num_requests = c.num_requests;
  return row;
}

// The fold key of a row: its GPU or its source.
const std::string& fold_key(const InferCase& c, InferHoldout h) { return h == InferHoldout::gpu ? c.gpu_name : c.source; }

}  // namespace

std::string_view holdout_name(InferHoldout h) {
  switch (h) {
    case InferHoldout::none: return "in-sample";
    case InferHoldout::gpu: return "leave-one-GPU-out";
    case InferHoldout::source: return "leave-one-source-out";
  }
  return "in-sample";
}

InferValidation validate_inference(const CsvTable& csv, const Catalog& catalog, const InferValidationOptions& options) {
  InferValidation v;
  v.holdout = options.holdout;
  const std::vector<InferCase> cases = read_inference_cases(csv, catalog);
  v.simulate = options.simulate;
  InferPredictor predictor(catalog, options.simulate);
  for (const InferCase& c : cases) v.rows.push_back(row_of(c));

  // Folds in the order their key first appears.
  std::vector<std::string> keys;
  if (options.holdout != InferHoldout::none) {
    for (const InferCase& c : cases) {
      const std::string& k = fold_key(c, options.holdout);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  // Progress in fits (the slow part): one per fold, the in-sample one.
  ProgressCounter progress(options.progress, std::ssize(keys) + (options.fit ? 1 : 0));
  if (options.holdout == InferHoldout::none) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      v.rows[i].predicted = predictor.predict(cases[i], nullptr, &v.rows[i].note, &v.rows[i].finite_run_factor);
    }
  } else {
    for (const std::string& key : keys) {
      std::vector<const InferCase*> train;
      for (const InferCase& c : cases) {
        if (fold_key(c, options.holdout) != key) train.push_back(&c);
      }
      InferFold fold;
      fold.held_out = key;
      fold.fitted = fit_inference_constants(train, predictor);
      const InferOverrides o = overrides_of(fold.fitted, cases);
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (fold_key(cases[i], options.holdout) != key) continue;
        v.rows[i].predicted = predictor.predict(cases[i], &o, &v.rows[i].note, &v.rows[i].finite_run_factor);
        ++fold.rows;
      }
      v.folds.push_back(std::move(fold));
      progress.advance();
    }
  }
  if (options.fit) {
    std::vector<const InferCase*> all;
    for (const InferCase& c : cases) all.push_back(&c);
    v.fitted_all = fit_inference_constants(all, predictor);
    progress.advance();
    v.has_fit = true;
  }

  for (const InferValidationRow& row : v.rows) {
    if (row.predicted > 0) {
      const double err = row.error();
      v.by_metric.add(row.metric, err);
      v.by_engine.add(row.engine + " " + row.metric, err);
      v.by_gpu.add(row.gpu + " " + row.metric, err);
      v.by_model.add(row.model + " " + row.metric, err);
      v.by_group.add(fmt::format("{} | {} | {} | {} | {}", row.engine, row.gpu, row.precision, row.band, row.metric),
                     err);
    } else {
      ++v.skipped;
    }
  }
  return v;
}

}  // namespace gpuplan
