// The compare page and `gpuplan compare --html` / `--report-data`: GPUs side by side, the
// difference named in words first ("Training Llama 3.1 8B on 8 GPUs ..., H200 SXM 141GB is
// 1.12× faster per step than H100 SXM5 80GB ... and 9% cheaper per million tokens ..."), then
// the ratios as a chart, the figures as a table, and the inputs. Formats only: the figures are
// answer_compare_training's (search/compare_training.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "search/compare_training.h"

namespace gpuplan {

std::string answer_words(const CompareTrainingAnswer& answer);

// `compare --json`: the datasheet comparison (unchanged without a training question), with
// "training" (each GPU's best plan, its step time, throughput and cost per million tokens, and
// the ratios to the first) where one is given.
nlohmann::ordered_json to_json(const CompareTrainingAnswer& answer);
std::string to_text(const CompareTrainingAnswer& answer);

// {"kind": "compare", "headline", "answer" (= --json), "assumptions", "figures" (the chart's
// rows: figure, unit, one value per GPU, ratio to the first)}.
nlohmann::ordered_json report_data(const CompareTrainingAnswer& answer);
std::string report_title(const CompareTrainingAnswer& answer);

}  // namespace gpuplan
