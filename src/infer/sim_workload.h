// The requests a serving benchmark sends, as the scheduler simulation (sim_engine.h) replays
// them: when each arrives (offline: all at t = 0; Poisson at a rate; a closed loop of C
// clients, each sending its next request when the last one finishes) and how long its prompt
// and output are (fixed, or drawn uniformly within ± a spread, vLLM benchmark_serving's
// --random-range-ratio). Deterministic: the same seed gives the same requests on every platform
// (the draws use mt19937_64 and their own inverse transforms, not the library distributions,
// whose algorithms the C++ standard leaves to the implementation). docs/model/simulation.md §2.
#pragma once

#include <cstdint>
#include <vector>

namespace gpuplan {

enum class SimArrivals { offline, poisson, closed_loop };

struct SimWorkload {
  SimArrivals arrivals = SimArrivals::closed_loop;
  // Requests sent in all; 0 = the tools' defaults: 10 per client in a closed loop (genai-perf
  // and AIConfigurator's request-count = 10 × concurrency), 1,000 otherwise (benchmark_serving
  // --num-prompts).
  int requests = 0;
  int clients = 1;           // closed loop: requests in flight (--max-concurrency / --concurrency)
  double rate_per_s = 0;     // Poisson: requests/s (--request-rate)
  int warmup_requests = 0;   // the first W requests sent are run but not measured (trtllm-bench --warmup)
  double ramp_s = 0;         // closed loop: client k starts at k × ramp_s / C (0 = all at t = 0)
  std::uint64_t seed = 0;
  std::int64_t input_len = 1024;
  std::int64_t output_len = 256;
  double input_spread = 0;   // lengths uniform in [L(1 − s), L(1 + s)], 0 <= s < 1
  double output_spread = 0;
};

// The request count `w` resolves to (its default when 0).
int sim_request_count(const SimWorkload& w);

// Prompt and output length of every request, in the order they are sent.
struct SimLengths {
  std::vector<std::int32_t> input, output;
};
SimLengths draw_lengths(const SimWorkload& w);

// Open-loop send times (offline: all 0; Poisson: cumulative exponential gaps from t = 0).
// Empty for a closed loop, whose send times depend on when requests finish.
std::vector<double> open_loop_arrivals(const SimWorkload& w);

// The p-th percentile (0..100) of `values` by linear interpolation between order statistics
// (numpy.percentile's default, which benchmark_serving reports); 0 when empty. Reorders `values`.
double percentile(std::vector<double>& values, double p);

// Values recorded as runs of equal values: a step gives every sequence it decodes the same
// inter-token gap, so a 10,000-request run's millions of gaps are tens of thousands of runs.
// mean() and percentile() return exactly what the same calls on the expanded list return (the
// sum is taken in recording order, the order statistics are the same values).
class ValueRuns {
 public:
  void add(double value) {
    sum_ += value;
    ++count_;
    expanded_.clear();
    if (!runs_.empty() && runs_.back().value == value) {
      ++runs_.back().count;
    } else {
      runs_.push_back({value, 1});
      sorted_ = false;
    }
  }
  std::size_t size() const { return static_cast<std::size_t>(count_); }
  double mean() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0; }
  // As percentile() on the expanded values; 0 when empty.
  double percentile(double p);

 private:
  struct Run {
    double value;
    std::int64_t count;
  };
  double value_at_rank(std::size_t rank) const;  // the rank-th smallest (0-based), runs sorted
  std::vector<Run> runs_;
  // Where the runs are short (a light load decodes few sequences per step), the list itself,
  // selected in linear time as percentile() does, is faster than sorting the runs.
  std::vector<double> expanded_;
  double sum_ = 0;
  std::int64_t count_ = 0;
  bool sorted_ = true;
};

}  // namespace gpuplan
