#include "search/empty_space.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpuplan {

EmptySpaceReason explain_empty_space(const ModelSpec& model, const SearchSpace& space, int search_range) {
  EmptySpaceReason r;
  if (!enumerate_layouts(model, space).empty()) return r;
  r.empty = true;
  // The dp degrees the layouts would have with a batch every dp divides: gpus! is not
  // practical, so use a batch of gpus itself (every dp divides the GPU count).
  SearchSpace any_batch = space;
  any_batch.global_batch = space.gpus;
  for (const Layout& l : enumerate_layouts(model, any_batch)) r.dp_degrees.push_back(l.dp);
  std::sort(r.dp_degrees.begin(), r.dp_degrees.end());
  r.dp_degrees.erase(std::unique(r.dp_degrees.begin(), r.dp_degrees.end()), r.dp_degrees.end());
  if (r.dp_degrees.empty()) {
    r.text = fmt::format(
        "no layout of {} GPUs suits {}: no tensor-, context- and pipeline-parallel split of {} GPUs divides its "
        "{} heads, {}-token sequences and {} layers; pick a GPU count with small prime factors",
        space.gpus, model.id, space.gpus, model.heads, space.seq_len, model.layers);
    return r;
  }
  r.batch_is_cause = true;
  // A batch gives a non-empty space exactly when some allowed dp divides it.
  const auto fits = [&](int b) {
    return std::any_of(r.dp_degrees.begin(), r.dp_degrees.end(), [&](int dp) { return b % dp == 0; });
  };
  for (int b = space.global_batch - 1; b >= 1 && b >= space.global_batch - search_range; --b) {
    if (fits(b)) {
      r.batch_below = b;
      break;
    }
  }
  for (int b = space.global_batch + 1; b <= space.global_batch + search_range; ++b) {
    if (fits(b)) {
      r.batch_above = b;
      break;
    }
  }
  std::vector<int> shown(r.dp_degrees.begin(), r.dp_degrees.begin() + std::min<std::size_t>(r.dp_degrees.size(), 8));
  std::string fix;
  if (r.batch_below > 0 && r.batch_above > 0) {
    fix = fmt::format("--global-batch {} or {}", r.batch_below, r.batch_above);
  } else if (r.batch_below > 0 || r.batch_above > 0) {
    fix = fmt::format("--global-batch {}", std::max(r.batch_below, r.batch_above));
  }
  r.text = fmt::format(
      "divisibility, not memory: --global-batch {} is not a multiple of any data-parallel degree that {} GPUs "
      "allow for {} (dp = GPUs / (tp × cp × pp): {}{}){}",
      space.global_batch, space.gpus, model.id, fmt::join(shown, ", "), r.dp_degrees.size() > shown.size() ? ", ..." : "",
      fix.empty() ? "" : "; use " + fix + ", or a GPU count that shares factors with the batch");
  return r;
}

}  // namespace gpuplan
