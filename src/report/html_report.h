// The offline HTML report (`--html FILE` on train, search and recommend): one self-contained
// file holding the answer's JSON (the same object `--json` prints), the op roofline where there
// is a training plan, and the bundled chart script and style sheet (report/web_assets.h) inline.
// It makes no network request: no external script, style, font or image.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "econ/recommend_request.h"
#include "infer/infer_curve.h"
#include "plan/train_request.h"
#include "search/search_request.h"

namespace gpuplan {

// What the report's script draws: {"kind": "train", "answer": to_json(answer), "roofline": ...}.
// `gpuplan serve` answers /api/report/<command> with the same object.
nlohmann::ordered_json report_data(const TrainAnswer& answer);
nlohmann::ordered_json report_data(const SearchAnswer& answer);
nlohmann::ordered_json report_data(const RecommendAnswer& answer);

// `infer --html`: the answer and its plan's throughput–latency curve (infer/infer_curve.h).
// Printed like the answer itself (to_text, to_json forward to it).
struct InferReport {
  const InferAnswer& answer;
  std::vector<InferCurvePoint> curve;
};
nlohmann::ordered_json report_data(const InferReport& report);
nlohmann::ordered_json to_json(const InferReport& report);
std::string to_text(const InferReport& report);

// `infer-search --html`: the answer and the chosen plan's curve (one replica), with the
// search's TTFT/TPOT targets as the SLO lines.
struct InferSearchReport {
  const InferSearchAnswer& answer;
  std::vector<InferCurvePoint> curve;
};
nlohmann::ordered_json report_data(const InferSearchReport& report);
nlohmann::ordered_json to_json(const InferSearchReport& report);
std::string to_text(const InferSearchReport& report);

nlohmann::ordered_json to_json(const OpRoofline& roofline);

// "llama3.1-70b on 64 × h100-sxm: one training step", from `data`'s kind and answer.
std::string report_title(const nlohmann::ordered_json& data);

// The page for `data` (one of report_data's objects), titled `title`. Throws Error (exit 2)
// when the binary was built without the front-end assets (web_assets_missing_message()).
std::string html_page(const nlohmann::ordered_json& data, const std::string& title);

// Writes html_page(...) to `path`; throws Error naming the path when it cannot be written.
void write_html_report(const std::string& path, const nlohmann::ordered_json& data, const std::string& title);

}  // namespace gpuplan
