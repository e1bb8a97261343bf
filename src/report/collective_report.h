// Text and JSON for `gpuplan collective`: one estimate with its per-level breakdown and the
// candidates it beat, or an nccl-tests-style sweep over message sizes.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "cost/collective.h"

namespace gpuplan {

// What the user asked, for the header lines (the request itself carries the numbers).
struct CollectiveQuery {
  CollectiveRequest request;
  std::string dtype = "bf16";
  double dtype_bytes = 2;
  bool ideal = false;
};

// Why the chosen algorithm and protocol won, in one or two sentences.
std::string collective_why(const CollectiveQuery& query, const CollectiveTopology& topology,
                           const CollectiveEstimate& chosen, const std::vector<CollectiveEstimate>& candidates);

std::string collective_text(const CollectiveQuery& query, const CollectiveTopology& topology);
nlohmann::ordered_json collective_json(const CollectiveQuery& query, const CollectiveTopology& topology);

// 512 B ... 16 GiB, doubling (nccl-tests -b 512 -e 16G -f 2).
std::vector<double> collective_sweep_sizes();
std::string collective_sweep_text(const CollectiveQuery& query, const CollectiveTopology& topology);
nlohmann::ordered_json collective_sweep_json(const CollectiveQuery& query, const CollectiveTopology& topology);

}  // namespace gpuplan
