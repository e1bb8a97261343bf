// Progress of a long library call, for an interface to show (issue 34: the CLI draws it on
// stderr once the work passes a second). The library counts units of its work (layouts of a
// plan search, plans of a serving search, folds of a validation); the sink sees (done, total)
// after each unit, from whichever thread did it, so a sink must be thread-safe. The library
// never prints: an empty sink costs one branch per unit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace gpuplan {

using ProgressSink = std::function<void(std::int64_t done, std::int64_t total)>;

// Counts units done towards `total` for one call and tells the sink; shared by worker threads.
class ProgressCounter {
 public:
  ProgressCounter(const ProgressSink* sink, std::int64_t total)
      : sink_(sink != nullptr && *sink ? sink : nullptr), total_(total) {}

  void advance(std::int64_t units = 1) {
    if (sink_ == nullptr) return;
    const std::int64_t done = done_.fetch_add(units, std::memory_order_relaxed) + units;
    (*sink_)(done, total_);
  }

 private:
  const ProgressSink* sink_;
  std::int64_t total_;
  std::atomic<std::int64_t> done_{0};
};

}  // namespace gpuplan
