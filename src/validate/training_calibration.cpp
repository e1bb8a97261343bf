// Calibration on a user's own runs: read the runs strictly, predict each with the catalog's
// constants, fit with plan/fit.h on all of them (the file) and on all but each one (its
// leave-one-row-out error), and fit the allocator's reserve on the measured peaks.
#include "validate/training_calibration.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include <fmt/format.h>

#include "catalog/framework.h"
#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "plan/evaluate.h"
#include "plan/fit.h"
#include "workload/activations.h"

namespace gpuplan {
namespace {

// A run moves by less than this (|Δ ln t|) when a constant changes by 10%: the runs cannot see it.
constexpr double kVisible = 0.002;
// The allocator's reserve is searched in [0, 0.5] of the tensors.
constexpr double kMaxReserve = 0.5;

// Strict cells: a message names the file, line, row and column, the value and the fix.
struct Cells {
  const CsvTable& csv;
  const CsvTable::Row& row;
  std::string id;

  std::string where(std::string_view column) const {
    return fmt::format("{}:{}: row '{}', column '{}'", csv.file(), row.line, id, column);
  }
  std::string text(std::string_view column) const {
    const auto c = csv.find_column(column);
    return c ? std::string(csv.cell(row, *c)) : std::string();
  }
  std::optional<double> number(std::string_view column) const {
    const std::string t = text(column);
    if (t.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !std::isfinite(v)) {
      throw Error(fmt::format("{}: '{}' is not a number; write a plain number (e.g. 1.5)", where(column), t));
    }
    return v;
  }
  std::optional<int> whole(std::string_view column, int min = 1) const {
    const auto v = number(column);
    if (!v) return std::nullopt;
    if (*v != std::floor(*v) || *v < min) {
      throw Error(fmt::format("{}: '{}' must be a whole number of at least {}", where(column), text(column), min));
    }
    return static_cast<int>(*v);
  }
  int need_whole(std::string_view column, int min = 1) const {
    const auto v = whole(column, min);
    if (!v) throw Error(fmt::format("{}: empty; the run's {} is needed", where(column), column));
    return *v;
  }
  std::optional<double> positive(std::string_view column) const {
    const auto v = number(column);
    if (v && !(*v > 0)) throw Error(fmt::format("{}: '{}' must be greater than 0", where(column), text(column)));
    return v;
  }
  std::optional<bool> flag(std::string_view column) const {
    const std::string t = to_lower(text(column));
    if (t.empty()) return std::nullopt;
    if (t == "1" || t == "true" || t == "yes") return true;
    if (t == "0" || t == "false" || t == "no") return false;
    throw Error(fmt::format("{}: '{}': use true or false", where(column), text(column)));
  }
};

ModelSpec model_from_cells(const Cells& c) {
  ModelSpec m;
  m.id = "row " + c.id;
  m.layers = c.need_whole("layers");
  m.hidden = c.need_whole("hidden");
  m.heads = c.need_whole("heads");
  m.kv_heads = c.whole("kv_heads").value_or(static_cast<int>(m.heads));
  if (m.hidden % m.heads != 0) {
    throw Error(fmt::format("{}: hidden {} is not a multiple of heads {}", c.where("heads"), m.hidden, m.heads));
  }
  if (m.heads % m.kv_heads != 0) {
    throw Error(fmt::format("{}: heads {} is not a multiple of kv_heads {}", c.where("kv_heads"), m.heads, m.kv_heads));
  }
  m.head_dim = m.hidden / m.heads;
  m.ffn_hidden = c.need_whole("ffn_hidden");
  m.vocab = c.need_whole("vocab");
  m.max_seq_len = c.need_whole("seq_len");
  // The Llama/Qwen2 family a user trains with transformers: RMSNorm, RoPE, SwiGLU unless the
  // row says otherwise.
  // (Llama-3.2-1B's FFN is exactly 4h and still SwiGLU: the width says nothing.)
  m.mlp = MlpKind::swiglu;
  if (const std::string mlp = to_lower(c.text("mlp")); !mlp.empty()) {
    if (mlp != "swiglu" && mlp != "gelu") throw Error(fmt::format("{}: '{}': use swiglu or gelu", c.where("mlp"), c.text("mlp")));
    m.mlp = mlp == "swiglu" ? MlpKind::swiglu : MlpKind::gelu;
  }
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  if (const std::string norm = to_lower(c.text("norm")); !norm.empty()) {
    if (norm != "rmsnorm" && norm != "layernorm") {
      throw Error(fmt::format("{}: '{}': use rmsnorm or layernorm", c.where("norm"), c.text("norm")));
    }
    m.norm = norm == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
  }
  m.tied_embeddings = c.flag("tied_embeddings").value_or(c.flag("tie_word_embeddings").value_or(false));
  return m;
}

struct RunSetup {
  CalibrationRun run;
  FitSample sample;
};

RunSetup read_run(const Catalog& catalog, const CsvTable& csv, const CsvTable::Row& row, std::deque<ModelSpec>& models) {
  Cells c{csv, row, ""};
  c.id = c.text("id");
  if (c.id.empty()) c.id = fmt::format("line {}", row.line);
  RunSetup out;
  CalibrationRun& r = out.run;
  r.line = row.line;
  r.id = c.id;

  const std::string gpu_name = c.text("gpu");
  const Gpu* gpu = catalog.find_gpu(gpu_name);
  if (!gpu) throw Error(fmt::format("{}: '{}' is not a GPU in the catalog; `gpuplan gpus` lists them", c.where("gpu"), gpu_name));
  r.gpu = gpu->id;
  const std::string ref = c.text("model_ref");
  const ModelSpec* model = ref.empty() ? nullptr : catalog.find_model(ref);
  if (!model) {
    models.push_back(model_from_cells(c));
    model = &models.back();
  }

  Plan p;
  const int gpus = c.need_whole("num_gpus");
  p.tp = c.whole("tp").value_or(1);
  p.pp = c.whole("pp").value_or(1);
  p.cp = c.whole("cp").value_or(1);
  p.dp = c.whole("dp").value_or(gpus / std::max(1, p.tp * p.pp * p.cp));
  if (p.gpus() != gpus) {
    throw Error(fmt::format("{}: {} GPUs, but tp {} × pp {} × cp {} × dp {} = {}; give tp, pp, cp and dp that multiply "
                            "to num_gpus",
                            c.where("num_gpus"), gpus, p.tp, p.pp, p.cp, p.dp, p.gpus()));
  }
  p.sp = c.flag("sequence_parallel").value_or(false);
  p.zero = c.whole("zero_stage", 0).value_or(0);
  if (p.zero > 3) throw Error(fmt::format("{}: '{}': use 0, 1, 2 or 3", c.where("zero_stage"), c.text("zero_stage")));
  p.micro_batch = c.need_whole("micro_batch");
  p.global_batch = c.need_whole("global_batch_seqs");
  if (p.global_batch % (p.dp * p.micro_batch) != 0) {
    throw Error(fmt::format("{}: {} sequences is not a multiple of dp {} × micro_batch {}", c.where("global_batch_seqs"),
                            p.global_batch, p.dp, p.micro_batch));
  }
  p.seq_len = c.need_whole("seq_len");
  if (const std::string rc = c.text("recompute"); !rc.empty()) {
    const auto parsed = parse_recompute(rc);
    if (!parsed) throw Error(fmt::format("{}: '{}': use none, selective or full", c.where("recompute"), rc));
    p.recompute = *parsed;
  }
  if (const std::string pr = c.text("precision"); !pr.empty()) {
    const auto parsed = parse_precision(pr);
    if (!parsed) throw Error(fmt::format("{}: '{}': use bf16, fp16 or fp8", c.where("precision"), pr));
    p.precision = *parsed;
    p.scaling = default_scaling_recipe(p.precision);
  }
  if (const std::string ew = to_lower(c.text("elementwise")); !ew.empty()) {
    const auto eager = parse_elementwise(ew);
    if (!eager) throw Error(fmt::format("{}: '{}': use eager (no torch.compile) or fused", c.where("elementwise"), ew));
    p.eager_elementwise = *eager;
  }
  if (const auto bits = c.whole("optimizer_state_bits")) p.optimizer_state_bits = *bits;

  const std::string fw_name = c.text("framework");
  if (fw_name.empty()) {
    throw Error(fmt::format("{}: empty; name the framework the run used ({})", c.where("framework"),
                            join(framework_names(catalog), ", ")));
  }
  TrainOptions options;
  options.framework = &resolve_framework(catalog, fw_name, c.where("framework"));
  r.framework = options.framework->id;
  const System* system = gpus > 1 ? default_system_for(catalog, *gpu, c.whole("gpus_per_node").value_or(0)) : nullptr;
  if (gpus > 1 && !system) {
    throw Error(fmt::format("{}: no system in the catalog is built from {}; add one with --catalog", c.where("num_gpus"), gpu->id));
  }
  const TrainContext ctx = make_train_context(catalog, *model, *gpu, system, nullptr, options);

  // The measurement: a step time, else tokens per second per GPU.
  const auto step = c.positive("measured_step_time_s");
  const auto rate = c.positive("measured_tokens_per_s_per_gpu");
  if (step) {
    r.measured_step_s = *step;
  } else if (rate) {
    r.measured_step_s = static_cast<double>(p.global_batch) * p.seq_len / (*rate * gpus);
  } else {
    throw Error(fmt::format("{}: empty (and measured_tokens_per_s_per_gpu too); give the measured step time in seconds",
                            c.where("measured_step_time_s")));
  }
  if (const auto peak = c.positive("measured_peak_memory_gib")) r.measured_allocated_bytes = *peak * kGiB;
  if (const auto peak = c.positive("measured_peak_reserved_gib")) r.measured_peak_bytes = *peak * kGiB;
  if (r.measured_allocated_bytes && r.measured_peak_bytes && *r.measured_peak_bytes < *r.measured_allocated_bytes) {
    throw Error(fmt::format("{}: {:.2f} GiB reserved is less than the {:.2f} GiB allocated (measured_peak_memory_gib); "
                            "the caching allocator reserves at least what it allocates",
                            c.where("measured_peak_reserved_gib"), *r.measured_peak_bytes / kGiB,
                            *r.measured_allocated_bytes / kGiB));
  }
  r.plan = p;
  const Estimate est = evaluate(ctx, p);
  if (!est.valid()) {
    throw Error(fmt::format("{}:{}: row '{}': the plan cannot run as written: {}", csv.file(), row.line, r.id, est.reason_text()));
  }
  r.before_step_s = est.step_time_s;
  r.before_peak_bytes = est.memory.total_bytes - est.memory.runtime_bytes;
  r.predicted_tensor_bytes = std::max(est.memory.backward_start_bytes, est.memory.optimizer_step_bytes);
  out.sample = FitSample{ctx, p, r.measured_step_s, r.id, ctx.efficiency->id, r.framework};
  return out;
}

// The allocator's reserve that puts a run's predicted tensors on its measured reserved peak
// (torch.cuda.max_memory_reserved()): it takes up the caching allocator's slack and whatever
// the tensor count misses for this user's setup.
double reserve_for(const MemoryBreakdown& m, double measured_reserved_bytes) {
  const double tensors = std::max(m.backward_start_bytes, m.optimizer_step_bytes);
  return tensors > 0 ? measured_reserved_bytes / tensors - 1 : 0;
}

double peak_with_reserve(const MemoryBreakdown& m, double reserve) {
  return std::max(m.backward_start_bytes, m.optimizer_step_bytes) * (1 + reserve);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double clamp_reserve(double f) { return std::clamp(f, 0.0, kMaxReserve); }

template <typename T>
T* find_id(std::vector<T>& v, const std::string& id) {
  for (T& e : v) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

// How far the runs move, at most, when one constant of one entry changes by 10%.
double sensitivity(std::vector<FitSample>& samples, const FitResult& base, bool family, const std::string& id,
                   const std::string& constant) {
  FitResult moved = base;
  if (family) {
    Efficiency* e = find_id(moved.efficiencies, id);
    for (const CalibratedConstant& k : efficiency_constants(*e)) {
      if (k.name == constant) set_efficiency_constant(*e, constant, k.catalog * 1.1 + (k.catalog == 0 ? 0.1 : 0));
    }
  } else {
    Framework* f = find_id(moved.frameworks, id);
    for (const CalibratedConstant& k : framework_constants(*f)) {
      if (k.name == constant) set_framework_constant(*f, constant, k.catalog * 1.1 + (k.catalog == 0 ? 0.1 : 0));
    }
  }
  double most = 0;
  for (FitSample& s : samples) {
    const double a = predict_with(s, base);
    const double b = predict_with(s, moved);
    if (a > 0 && b > 0) most = std::max(most, std::fabs(std::log(b / a)));
  }
  return most;
}

// predict_with leaves each sample pointing at the entries it was given (often a local copy):
// point every sample back at the catalog's before it is evaluated again.
void restore(std::vector<FitSample>& samples, const Catalog& catalog) {
  for (FitSample& s : samples) {
    const Efficiency* e = nullptr;
    for (const Efficiency& x : catalog.efficiencies) {
      if (x.id == s.efficiency_id) e = &x;
    }
    retarget(s.ctx, *e, &resolve_framework(catalog, s.framework_id));
  }
}

}  // namespace

TrainingCalibrationAnswer calibrate_training(const Catalog& catalog, const CsvTable& runs) {
  for (const char* required : {"gpu", "num_gpus", "framework", "micro_batch", "global_batch_seqs", "seq_len"}) {
    if (!runs.find_column(required)) {
      throw Error(fmt::format("{}: no column '{}'; RUNS.csv has the columns of ../shared/data/training-runs.csv "
                              "(docs/cli.md, calibrate)",
                              runs.file(), required));
    }
  }
  TrainingCalibrationAnswer a;
  std::deque<ModelSpec> models;
  std::vector<FitSample> samples;
  const auto oom_column = runs.find_column("oom");
  for (const auto& row : runs.rows()) {
    // A run that ran out of memory has no step time: it tells the planner where "fits" ends
    // (docs/validation.md), not what a constant is.
    if (oom_column) {
      const std::string oom = to_lower(std::string(runs.cell(row, *oom_column)));
      if (oom == "1" || oom == "true" || oom == "yes") {
        ++a.skipped_oom;
        continue;
      }
    }
    RunSetup s = read_run(catalog, runs, row, models);
    a.runs.push_back(s.run);
    samples.push_back(std::move(s.sample));
  }
  if (a.runs.empty()) throw Error(fmt::format("{}: no runs to calibrate on", runs.file()));
  TrainingCalibration& cal = a.calibration;
  cal.runs = runs.file();
  cal.rows = static_cast<int>(a.runs.size());
  for (const CalibrationRun& r : a.runs) {
    if (std::find(cal.gpus.begin(), cal.gpus.end(), r.gpu) == cal.gpus.end()) cal.gpus.push_back(r.gpu);
    if (r.measured_peak_bytes) ++cal.memory_rows;
    if (r.measured_allocated_bytes) {
      a.allocated_errors.push_back(relative_error(r.predicted_tensor_bytes, *r.measured_allocated_bytes));
    }
  }

  // Step time: every run, and all but each run.
  const FitResult all = fit_efficiencies(samples, catalog.efficiencies, catalog.frameworks);
  std::vector<double> before, loro, mem_before, mem_loro;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    CalibrationRun& r = a.runs[i];
    r.fitted_step_s = predict_with(samples[i], all);
    before.push_back(relative_error(r.before_step_s, r.measured_step_s));
    if (samples.size() > 1) {
      const FitResult without = fit_efficiencies(samples, catalog.efficiencies, catalog.frameworks, r.id);
      r.loro_step_s = predict_with(samples[i], without);
      loro.push_back(relative_error(r.loro_step_s, r.measured_step_s));
    }
  }
  restore(samples, catalog);
  a.step_before = summarize_errors(before);
  a.step_loro = summarize_errors(loro);

  // Which constants the runs can see; only those go in the file.
  FitResult catalog_entries{catalog.efficiencies, catalog.frameworks};
  std::vector<std::string> families, frameworks;
  for (const FitSample& s : samples) {
    if (std::find(families.begin(), families.end(), s.efficiency_id) == families.end()) families.push_back(s.efficiency_id);
    if (std::find(frameworks.begin(), frameworks.end(), s.framework_id) == frameworks.end()) frameworks.push_back(s.framework_id);
  }
  for (const std::string& id : families) {
    CalibratedEfficiency out{id, {}};
    const Efficiency* fitted = nullptr;
    for (const Efficiency& e : all.efficiencies) {
      if (e.id == id) fitted = &e;
    }
    const Efficiency* base = nullptr;
    for (const Efficiency& e : catalog.efficiencies) {
      if (e.id == id) base = &e;
    }
    const auto fitted_values = efficiency_constants(*fitted);
    const auto base_values = efficiency_constants(*base);
    for (std::size_t k = 0; k < base_values.size(); ++k) {
      const std::string& name = base_values[k].name;
      if (name == "runtime_memory.fragmentation_fraction") continue;  // fitted on the peaks below
      const double moved = sensitivity(samples, catalog_entries, true, id, name);
      restore(samples, catalog);
      if (moved < kVisible) {
        cal.refused.push_back(fmt::format("{} {}: a 10% change moves no run's step time by {:.1f}% (no run exercises it)",
                                          id, name, 100 * kVisible));
        continue;
      }
      out.constants.push_back({name, base_values[k].catalog, fitted_values[k].catalog});
    }
    cal.efficiencies.push_back(std::move(out));
  }
  for (const std::string& id : frameworks) {
    CalibratedFramework out{id, {}};
    const Framework* fitted = nullptr;
    for (const Framework& f : all.frameworks) {
      if (f.id == id) fitted = &f;
    }
    const Framework& base = resolve_framework(catalog, id);
    const auto fitted_values = framework_constants(*fitted);
    const auto base_values = framework_constants(base);
    for (std::size_t k = 0; k < base_values.size(); ++k) {
      const std::string& name = base_values[k].name;
      if (name == "memory_terms.memory_error_fraction") continue;  // from the peaks below
      if (base.is_default && name != "kernel.launch_us") {
        cal.refused.push_back(fmt::format("{} {}: the reference framework's factor is 1 by definition", id, name));
        continue;
      }
      const double moved = sensitivity(samples, catalog_entries, false, id, name);
      restore(samples, catalog);
      if (moved < kVisible) {
        cal.refused.push_back(fmt::format("{} {}: a 10% change moves no run's step time by {:.1f}% (no run exercises it)",
                                          id, name, 100 * kVisible));
        continue;
      }
      out.constants.push_back({name, base_values[k].catalog, fitted_values[k].catalog});
    }
    cal.frameworks.push_back(std::move(out));
  }

  // Peak memory: the allocator's reserve (a fraction of the tensors) per GPU family, the median
  // of what each run implies; each run's own error with the reserve of the others.
  restore(samples, catalog);
  std::vector<MemoryBreakdown> breakdowns(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) breakdowns[i] = evaluate(samples[i].ctx, samples[i].plan).memory;
  for (const std::string& family : families) {
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (samples[i].efficiency_id == family && a.runs[i].measured_peak_bytes) mine.push_back(i);
    }
    if (mine.empty()) {
      cal.refused.push_back(fmt::format("{} runtime_memory.fragmentation_fraction: no run of this family has "
                                        "measured_peak_reserved_gib",
                                        family));
      continue;
    }
    std::vector<double> implied;
    for (std::size_t i : mine) implied.push_back(reserve_for(breakdowns[i], *a.runs[i].measured_peak_bytes));
    const double reserve = clamp_reserve(median(implied));
    const Efficiency* base = nullptr;
    for (const Efficiency& e : catalog.efficiencies) {
      if (e.id == family) base = &e;
    }
    for (CalibratedEfficiency& ce : cal.efficiencies) {
      if (ce.id == family) ce.constants.push_back({"runtime_memory.fragmentation_fraction", base->fragmentation_fraction, reserve});
    }
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t i = mine[j];
      CalibrationRun& r = a.runs[i];
      r.fitted_peak_bytes = peak_with_reserve(breakdowns[i], reserve);
      mem_before.push_back(relative_error(r.before_peak_bytes, *r.measured_peak_bytes));
      if (mine.size() > 1) {
        std::vector<double> others;
        for (std::size_t k = 0; k < mine.size(); ++k) {
          if (k != j) others.push_back(implied[k]);
        }
        r.loro_peak_bytes = peak_with_reserve(breakdowns[i], clamp_reserve(median(others)));
        mem_loro.push_back(relative_error(r.loro_peak_bytes, *r.measured_peak_bytes));
      }
    }
  }
  a.memory_before = summarize_errors(mem_before);
  a.allocated = summarize_errors(a.allocated_errors);
  a.memory_loro = summarize_errors(mem_loro);
  // The model's own memory error after calibrating: what "tight" is judged against.
  if (mem_loro.size() >= 2) {
    for (CalibratedFramework& cf : cal.frameworks) {
      const Framework& base = resolve_framework(catalog, cf.id);
      cf.constants.push_back({"memory_terms.memory_error_fraction", base.memory.memory_error_fraction,
                              std::min(0.5, a.memory_loro.median_abs_pct / 100)});
    }
  } else {
    cal.refused.push_back("memory_terms.memory_error_fraction: needs at least two runs with measured_peak_reserved_gib");
  }
  return a;
}

}  // namespace gpuplan
