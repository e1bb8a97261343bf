#include "report/compare_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/precision.h"
#include "core/verdict.h"
#include "plan/plan_json.h"
#include "report/answer_words.h"
#include "report/assumptions.h"
#include "report/gpu_report.h"
#include "report/human_units.h"

namespace gpuplan {

namespace {

// One figure of the comparison: its value on each GPU (the chart's and the table's rows).
struct CompareFigure {
  std::string figure;
  std::string unit;
  std::vector<double> values;  // per GPU; 0 = not known
  bool lower_is_better = false;
};

std::vector<CompareFigure> compare_figures(const CompareTrainingAnswer& a) {
  std::vector<CompareFigure> out;
  const std::vector<const Gpu*>& gpus = a.datasheets.gpus;
  auto datasheet = [&](std::string figure, std::string unit, auto get, bool lower_is_better = false) {
    CompareFigure f{std::move(figure), std::move(unit), {}, lower_is_better};
    for (const Gpu* g : gpus) f.values.push_back(get(*g));
    out.push_back(std::move(f));
  };
  if (a.training) {
    CompareFigure step{"step time (its fastest plan)", "s", {}, true};
    CompareFigure tput{"training throughput", "tokens/s", {}, false};
    CompareFigure cost{"cost per million tokens (on-demand)", "USD", {}, true};
    for (const CompareTrainingSide& s : a.sides) {
      step.values.push_back(s.step_time_s);
      tput.values.push_back(s.tokens_per_s);
      cost.values.push_back(s.usd_per_million_tokens);
    }
    out.push_back(std::move(step));
    out.push_back(std::move(tput));
    out.push_back(std::move(cost));
  }
  datasheet("dense bf16 compute", "TFLOP/s", [](const Gpu& g) { return g.dense(Precision::bf16) / 1e12; });
  datasheet("dense fp8 compute", "TFLOP/s", [](const Gpu& g) { return g.dense(Precision::fp8) / 1e12; });
  datasheet("memory", "GB", [](const Gpu& g) { return g.memory_bytes / 1e9; });
  datasheet("memory bandwidth", "TB/s", [](const Gpu& g) { return g.memory_bw_bytes_per_s / 1e12; });
  datasheet("power (TDP)", "W", [](const Gpu& g) { return g.tdp_w; }, true);
  datasheet("price", "USD", [](const Gpu& g) { return g.price_usd.value_or(0); }, true);
  return out;
}

double compare_ratio_of(const CompareFigure& f, std::size_t i) {
  return f.values[0] > 0 && f.values[i] > 0 ? f.values[i] / f.values[0] : 0;
}

std::string compare_times_words(double r) { return human_number(r) + "×"; }

// "1.76× the memory (141 GB against 80 GB)"
std::string datasheet_words(const CompareTrainingAnswer& a, std::size_t i) {
  const std::vector<CompareFigure> figures = compare_figures(a);
  std::vector<std::string> parts;
  for (const CompareFigure& f : figures) {
    if (f.figure != "memory" && f.figure != "memory bandwidth" && f.figure != "dense bf16 compute") continue;
    const double r = compare_ratio_of(f, i);
    if (r <= 0) continue;
    if (std::abs(r - 1) < 0.005) {
      parts.push_back(fmt::format("the same {} ({} {})", f.figure, human_number(f.values[i]), f.unit));
    } else {
      parts.push_back(fmt::format("{} the {} ({} against {} {})", compare_times_words(r), f.figure,
                                  human_number(f.values[i]), human_number(f.values[0]), f.unit));
    }
  }
  std::string out;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    out += (k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ") + parts[k];
  }
  return out;
}

std::string compare_cost_words(double c) {
  if (c <= 0) return "";
  if (std::abs(c - 1) < 0.005) return "costs the same per million tokens";
  return c < 1 ? fmt::format("{} cheaper per million tokens", human_percent(1 - c))
               : fmt::format("{} dearer per million tokens", human_percent(c - 1));
}

std::string compare_speed_words(double s, const std::string& first) {
  if (std::abs(s - 1) < 0.005) return "as fast per step as " + first;
  return s > 1 ? fmt::format("{} faster per step than {}", compare_times_words(s), first)
               : fmt::format("{} slower per step than {}", compare_times_words(1 / s), first);
}

}  // namespace

std::string answer_words(const CompareTrainingAnswer& a) {
  const std::vector<const Gpu*>& gpus = a.datasheets.gpus;
  const std::string first = short_gpu_name(*gpus.front());
  std::string out;
  if (!a.training) {
    for (std::size_t i = 1; i < gpus.size(); ++i) {
      out += fmt::format("{}{} has {} of {}.", i == 1 ? "" : " ", short_gpu_name(*gpus[i]), datasheet_words(a, i), first);
    }
    return out;
  }
  const SearchAnswer& s0 = *a.sides.front().search;
  out = fmt::format("Training {} on {} GPUs", s0.setup.ctx.model->name, human_count(a.question.gpus));
  const CompareTrainingSide& base = a.sides.front();
  if (!base.found) return out + fmt::format(", no plan fits on {}: nothing to compare with.", first);
  for (std::size_t i = 1; i < a.sides.size(); ++i) {
    const CompareTrainingSide& side = a.sides[i];
    const std::string name = short_gpu_name(*gpus[i]);
    out += i == 1 ? ", " : "; ";
    if (!side.found) {
      out += fmt::format("no plan fits on {}", name);
      continue;
    }
    out += fmt::format("{} is {} ({} against {} per step, each with its fastest plan)", name,
                       compare_speed_words(side.speed_vs_first, first), human_seconds(side.step_time_s),
                       human_seconds(base.step_time_s));
    const std::string cost = compare_cost_words(side.cost_vs_first);
    if (!cost.empty()) {
      out += fmt::format(" and {} ({} against {} at each GPU's cheapest on-demand price)", cost,
                         human_usd(side.usd_per_million_tokens), human_usd(base.usd_per_million_tokens));
    }
    out += fmt::format("; it has {}", datasheet_words(a, i));
  }
  return out + ".";
}

nlohmann::ordered_json to_json(const CompareTrainingAnswer& a) {
  nlohmann::ordered_json j = to_json(a.datasheets);
  if (!a.training) return j;
  nlohmann::ordered_json sides = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < a.sides.size(); ++i) {
    const CompareTrainingSide& s = a.sides[i];
    nlohmann::ordered_json side;
    side["gpu"] = a.datasheets.gpus[i]->id;
    side["found"] = s.found;
    if (s.found) {
      const Candidate& best = s.search->result.top.front();
      side["plan"] = plan_json(best.plan);
      side["plan_words"] = training_plan_words(best.plan);
      side["system"] = s.search->setup.ctx.system ? s.search->setup.ctx.system->id : "";
      side["step_time_s"] = s.step_time_s;
      side["tokens_per_s"] = s.tokens_per_s;
      side["mfu"] = best.estimate.mfu;
      side["memory_per_gpu_bytes"] = best.estimate.memory.total_bytes;
      side["bottleneck"] = bottleneck_name(best.estimate.bottleneck);
    }
    side["usd_per_gpu_hour"] = s.usd_per_gpu_hour;
    side["price_source"] = s.search->price_source;
    side["usd_per_million_tokens"] = s.usd_per_million_tokens;
    side["speed_vs_first"] = s.speed_vs_first;
    side["cost_vs_first"] = s.cost_vs_first;
    sides.push_back(std::move(side));
  }
  const SearchAnswer& s0 = *a.sides.front().search;
  j["training"] = {{"model", s0.setup.ctx.model->id},
                   {"gpus", a.question.gpus},
                   {"global_batch", a.question.global_batch},
                   {"seq_len", s0.setup.plan.seq_len},
                   {"sides", std::move(sides)}};
  return j;
}

std::string to_text(const CompareTrainingAnswer& a) {
  std::string out = to_text(a.datasheets);
  if (!a.training) return out;
  out += "\n" + answer_words(a) + "\n";
  for (std::size_t i = 0; i < a.sides.size(); ++i) {
    const CompareTrainingSide& s = a.sides[i];
    out += fmt::format("  {}: ", a.datasheets.gpus[i]->id);
    if (!s.found) {
      out += "no plan fits\n";
      continue;
    }
    out += fmt::format("{} · step {} · {} tokens/s · {} per million tokens\n",
                       training_plan_words(s.search->result.top.front().plan), human_seconds(s.step_time_s),
                       human_number(s.tokens_per_s),
                       s.usd_per_million_tokens > 0 ? human_usd(s.usd_per_million_tokens) : std::string("no price"));
  }
  return out;
}

nlohmann::ordered_json report_data(const CompareTrainingAnswer& a) {
  nlohmann::ordered_json j;
  j["kind"] = "compare";
  j["headline"] = answer_words(a);
  j["answer"] = to_json(a);
  std::vector<AssumptionRow> rows;
  const std::vector<const Gpu*>& gpus = a.datasheets.gpus;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string group = short_gpu_name(*gpus[i]);
    rows.push_back({group, "catalog id", gpus[i]->id});
    if (!gpus[i]->architecture.empty()) rows.push_back({group, "architecture", gpus[i]->architecture});
    rows.push_back({group, "memory", fmt::format("{} GB{}", human_number(gpus[i]->memory_bytes / 1e9),
                                                 gpus[i]->memory_type.empty() ? "" : " " + gpus[i]->memory_type)});
    if (gpus[i]->price_usd) {
      rows.push_back({group, "list price", fmt::format("{}{}", human_usd(*gpus[i]->price_usd),
                                                       gpus[i]->price_date.empty() ? "" : ", dated " + gpus[i]->price_date)});
    }
    if (!a.training) continue;
    const CompareTrainingSide& s = a.sides[i];
    if (s.found) {
      rows.push_back({group, "fastest plan", training_plan_words(s.search->result.top.front().plan)});
      if (s.search->setup.ctx.system) rows.push_back({group, "system", s.search->setup.ctx.system->id});
    }
    rows.push_back({group, "price per GPU-hour", s.usd_per_gpu_hour > 0 ? human_usd(s.usd_per_gpu_hour) : "no price"});
    rows.push_back({group, "price from", s.search->price_source.empty() ? "none" : s.search->price_source});
  }
  if (a.training) {
    const Plan& p = a.sides.front().search->setup.plan;
    rows.push_back({"question", "model", a.sides.front().search->setup.ctx.model->name});
    rows.push_back({"question", "GPUs", human_count(a.question.gpus)});
    rows.push_back({"question", "global batch (sequences)", human_count(a.question.global_batch)});
    rows.push_back({"question", "sequence length (tokens)", human_count(p.seq_len)});
    rows.push_back({"question", "precision", a.question.precision});
  }
  j["assumptions"] = to_json(rows);
  nlohmann::ordered_json figures = nlohmann::ordered_json::array();
  for (const CompareFigure& f : compare_figures(a)) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    nlohmann::ordered_json ratios = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < f.values.size(); ++i) {
      values.push_back(f.values[i]);
      ratios.push_back(compare_ratio_of(f, i));
    }
    figures.push_back({{"figure", f.figure}, {"unit", f.unit}, {"lower_is_better", f.lower_is_better},
                       {"values", std::move(values)}, {"ratios", std::move(ratios)}});
  }
  j["figures"] = std::move(figures);
  return j;
}

std::string report_title(const CompareTrainingAnswer& a) {
  std::string names;
  for (const Gpu* g : a.datasheets.gpus) names += (names.empty() ? "" : " against ") + g->id;
  if (!a.training) return names + ": datasheets side by side";
  return fmt::format("{}: training {} on {} GPUs", names, a.sides.front().search->setup.ctx.model->id, a.question.gpus);
}

}  // namespace gpuplan
