// Why a plan space is empty, in the user's terms. A space is empty when no layout passes the
// divisibility rules of search/enumerate.h; the usual cause is a global batch that no
// data-parallel degree the GPU count allows divides (5,128 GPUs = 8 × 641: every dp is a
// multiple of 641 unless a model-parallel degree absorbs the 641, which TP, CP and PP rarely
// can). More GPUs is then the wrong advice; the nearest batches that do divide are the fix.
#pragma once

#include <string>
#include <vector>

#include "search/enumerate.h"
#include "workload/model.h"

namespace gpuplan {

struct EmptySpaceReason {
  bool empty = false;           // no layout passes the divisibility rules
  bool batch_is_cause = false;  // some layout passes with another global batch
  std::vector<int> dp_degrees;  // data-parallel degrees the GPU count allows (ignoring the batch)
  int batch_below = 0;          // nearest global batch below that gives a non-empty space (0 = none)
  int batch_above = 0;          // nearest above (0 = none within the search range)
  std::string text;             // one line naming the cause and the fix; "" when not empty
};

// Looks up to `search_range` batches either side of space.global_batch for the nearest that
// divide. Cheap: enumerate_layouts only, no evaluation.
EmptySpaceReason explain_empty_space(const ModelSpec& model, const SearchSpace& space, int search_range = 100000);

}  // namespace gpuplan
