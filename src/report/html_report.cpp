#include "report/html_report.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/precision.h"
#include "report/answer_words.h"
#include "report/assumptions.h"
#include "report/infer_report.h"
#include "report/recommend_report.h"
#include "report/search_report.h"
#include "report/train_report.h"
#include "report/web_assets.h"

namespace gpuplan {

nlohmann::ordered_json to_json(const OpRoofline& r) {
  nlohmann::ordered_json j;
  j["gpu"] = r.gpu;
  j["precision"] = r.precision;
  j["peak_flops_per_s"] = r.peak_flops_per_s;
  j["achievable_flops_per_s"] = r.achievable_flops_per_s;
  j["peak_memory_bw_bytes_per_s"] = r.peak_memory_bw_bytes_per_s;
  j["achievable_memory_bw_bytes_per_s"] = r.achievable_memory_bw_bytes_per_s;
  j["layer"] = r.layer;
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const OpRooflinePoint& op : r.ops) {
    ops.push_back({{"name", op.name},
                   {"kind", op.kind},
                   {"flops", op.flops},
                   {"bytes", op.bytes},
                   {"time_s", op.time_s},
                   {"kernels", op.kernels},
                   {"intensity_flops_per_byte", op.intensity_flops_per_byte()},
                   {"achieved_flops_per_s", op.achieved_flops_per_s()}});
  }
  j["ops"] = std::move(ops);
  return j;
}

nlohmann::ordered_json report_data(const TrainAnswer& answer) {
  nlohmann::ordered_json j;
  j["kind"] = "train";
  j["headline"] = answer_words(answer);
  j["answer"] = to_json(answer);
  j["assumptions"] = to_json(assumption_rows(j["answer"]));
  j["roofline"] = to_json(answer.roofline);
  return j;
}

nlohmann::ordered_json report_data(const SearchAnswer& answer) {
  nlohmann::ordered_json j;
  j["kind"] = "search";
  j["headline"] = answer_words(answer);
  j["answer"] = to_json(answer);
  j["assumptions"] = to_json(assumption_rows(j["answer"]));
  if (answer.roofline) j["roofline"] = to_json(*answer.roofline);
  return j;
}

nlohmann::ordered_json report_data(const RecommendAnswer& answer) {
  nlohmann::ordered_json j;
  j["kind"] = "recommend";
  j["headline"] = answer_words(answer);
  j["answer"] = to_json(answer);
  j["assumptions"] = to_json(assumption_rows(j["answer"]));
  return j;
}

nlohmann::ordered_json to_json(const InferReport& report) { return to_json(report.answer); }
std::string to_text(const InferReport& report) { return to_text(report.answer); }

namespace {

nlohmann::ordered_json curve_json(const std::vector<InferCurvePoint>& points) {
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const InferCurvePoint& p : points) {
    curve.push_back({{"concurrency", p.concurrency},
                     {"feasible", p.feasible},
                     {"tpot_s", p.tpot_s},
                     {"ttft_s", p.ttft_s},
                     {"output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu}});
  }
  return curve;
}

// The search's Pareto front, each point with its plan in words (the chart's labels and tips).
nlohmann::ordered_json infer_front_json(const InferSearchResult& r) {
  nlohmann::ordered_json front = nlohmann::ordered_json::array();
  for (const InferFrontPoint& p : r.front) {
    const bool chosen = r.found && p.plan.tp == r.plan.tp && p.plan.pp == r.plan.pp && p.plan.ep == r.plan.ep &&
                        p.plan.attention_dp == r.plan.attention_dp && p.plan.weights == r.plan.weights &&
                        p.plan.kv == r.plan.kv && p.plan.load == r.plan.load;
    front.push_back({{"tp", p.plan.tp},
                     {"pp", p.plan.pp},
                     {"ep", p.plan.ep},
                     {"attention_dp", p.plan.attention_dp},
                     {"weights", precision_name(p.plan.weights)},
                     {"kv", precision_name(p.plan.kv)},
                     {"concurrency", p.plan.load},
                     {"output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu},
                     {"output_tokens_per_s_per_user", p.tokens_per_s_per_user()},
                     {"tpot_s", p.tpot_s},
                     {"ttft_s", p.ttft_s},
                     {"meets_targets", p.meets_targets},
                     {"chosen", chosen},
                     {"words", serving_plan_words(p.plan)}});
  }
  return front;
}

}  // namespace

nlohmann::ordered_json report_data(const InferReport& report) {
  nlohmann::ordered_json j;
  j["kind"] = "infer";
  j["headline"] = answer_words(report.answer);
  j["answer"] = to_json(report.answer);
  j["assumptions"] = to_json(assumption_rows(j["answer"]));
  j["curve"] = curve_json(report.curve);
  return j;
}

nlohmann::ordered_json to_json(const InferSearchReport& report) { return to_json(report.answer); }
std::string to_text(const InferSearchReport& report) { return to_text(report.answer); }

nlohmann::ordered_json report_data(const InferSearchReport& report) {
  nlohmann::ordered_json j;
  j["kind"] = "infer-search";
  j["headline"] = answer_words(report.answer);
  j["answer"] = to_json(report.answer);
  j["assumptions"] = to_json(assumption_rows(j["answer"]));
  j["curve"] = curve_json(report.curve);
  j["front"] = infer_front_json(report.answer.result);
  nlohmann::ordered_json slo = nlohmann::ordered_json::object();
  if (report.answer.spec.tpot_s > 0) slo["tpot_ms"] = report.answer.spec.tpot_s * 1e3;
  if (report.answer.spec.ttft_s > 0) slo["ttft_ms"] = report.answer.spec.ttft_s * 1e3;
  j["slo"] = std::move(slo);
  return j;
}

std::string report_title(const nlohmann::ordered_json& data) {
  const std::string kind = data.value("kind", "");
  const nlohmann::ordered_json& a = data.at("answer");
  if (kind == "train") {
    return fmt::format("{} on {} × {}: one training step", a.value("model", ""), a.value("gpus", 0), a.value("gpu", ""));
  }
  if (kind == "search") {
    return fmt::format("{} on {} × {}: the best training plans", a.value("model", ""), a.value("gpus", 0), a.value("gpu", ""));
  }
  if (kind == "infer") {
    return fmt::format("serving {} on {} × {} ({})", a.value("model", ""), a.at("plan").value("gpus", 0),
                       a.value("gpu", ""), a.value("engine", ""));
  }
  if (kind == "infer-search") {
    return fmt::format("serving {} on {}: the best plan and its curve", a.value("model", ""), a.value("gpu", ""));
  }
  if (kind == "recommend") return fmt::format("{}: which GPUs, how many, at what cost", a.value("model", ""));
  return "gpuplan report";
}

namespace {

// Text that goes inside <script> or <style>: "</script" or "</style" would end the element
// early, so they are written "<\/script", "<\/style" (the same text in the JavaScript strings
// and regular expressions where a bundle can hold them; CSS has none).
std::string html_script_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto closes_element = [&](std::size_t i) {
    for (std::string_view tag : {"script", "style"}) {
      if (i + 2 + tag.size() > text.size()) continue;
      bool same = true;
      for (std::size_t k = 0; k < tag.size() && same; ++k) {
        same = (text[i + 2 + k] | 0x20) == tag[k];
      }
      if (same) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/' && closes_element(i)) {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string html_json_text(const nlohmann::ordered_json& data) {
  const std::string dumped = data.dump();
  std::string out;
  out.reserve(dumped.size());
  for (char c : dumped) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string html_page(const nlohmann::ordered_json& data, const std::string& title) {
  const WebAssets& assets = web_assets();
  if (!assets.built) throw Error(web_assets_missing_message());
  std::string page;
  page.reserve(assets.report_js.size() + assets.style_css.size() + 64 * 1024);
  page += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += fmt::format("<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n", html_escape(title),
                      html_script_text(assets.style_css));
  page += fmt::format("<header><h1>{}</h1><p class=\"meta\">gpuplan 0.1.0 · every figure below is the answer of "
                      "<code>--json</code>, embedded in this file; the page makes no network request.</p></header>\n",
                      html_escape(title));
  page += "<main id=\"report\"></main>\n";
  page += "<script id=\"gpuplan-data\" type=\"application/json\">" + html_json_text(data) + "</script>\n";
  page += "<script>\n" + html_script_text(assets.report_js) + "\n</script>\n</body>\n</html>\n";
  return page;
}

void write_html_report(const std::string& path, const nlohmann::ordered_json& data, const std::string& title) {
  const std::string page = html_page(data, title);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(fmt::format("--html {}: cannot open the file for writing; pass a path in a folder that exists", path));
  file << page;
  if (!file.flush()) throw Error(fmt::format("--html {}: writing the file failed", path));
}

}  // namespace gpuplan
