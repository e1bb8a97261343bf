// The collectives page and `gpuplan collective --html` / `--report-data`: the answer in words
// first ("AllReduce over 16 GPUs (2 dgx-h100 nodes × 8, bf16): 504 GB/s bus bandwidth at
// 16 GiB with NVLS/Simple, bound by scale-up (nvlink4); the smallest message (512 bytes) takes
// 23.7 µs (tree/LL); the cheapest algorithm: tree/LL up to 2 MiB, ..."), then the bus bandwidth against message size with the
// algorithm/protocol regions, then the inputs with their units. Written from the `--json`
// object of the answer (report/collective_report.h), so the page shows what the CLI prints.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "calibration/collective_question.h"
#include "report/assumptions.h"

namespace gpuplan {

// One run of consecutive sweep sizes that the same algorithm and protocol answer: the chart's
// shaded regions and the sentence's "tree/LL up to 2 MiB, ..." (sizes in bytes, inclusive).
struct CollectiveRegion {
  std::string algorithm;
  std::string protocol;
  double from_bytes = 0;
  double to_bytes = 0;
};
std::vector<CollectiveRegion> collective_regions(const nlohmann::ordered_json& sweep_rows);

// The sentence, from `collective --json`'s object (a sweep or one size).
std::string collective_words(const nlohmann::ordered_json& answer);

// What was asked and the transport, as labelled rows with units.
std::vector<AssumptionRow> collective_assumption_rows(const nlohmann::ordered_json& answer);

// {"kind": "collective", "headline", "answer" (= `collective --json`), "assumptions",
// "regions" (sweeps only)}.
nlohmann::ordered_json report_data(const CollectiveAnswer& answer);

// "AllReduce over 16 GPUs on dgx-h100: bus bandwidth against message size"
std::string report_title(const CollectiveAnswer& answer);

}  // namespace gpuplan
