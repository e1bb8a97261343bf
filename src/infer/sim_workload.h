// The requests a serving benchmark sends, as the scheduler simulation (sim_engine.h) replays
// them: when each arrives (offline: all at t = 0; Poisson at a rate; a closed loop of C
// clients, each sending its next request when the last one finishes) and how long its prompt
// and output are (fixed, drawn uniformly within ± a spread as vLLM's RandomDataset does since
// 0.9, or in [⌊L·r⌋, L] as benchmark_serving did before it and InferenceMAX's client still does;
// both are --random-range-ratio). Deterministic: the same seed gives the same requests on every platform
// (the draws use mt19937_64 and their own inverse transforms, not the library distributions,
// whose algorithms the C++ standard leaves to the implementation). docs/model/simulation.md §2.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

enum class SimArrivals { offline, poisson, closed_loop };

// Prompt and output length of every request, in the order they are sent.
struct SimLengths {
  std::vector<std::int32_t> input, output;
};

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
  // Lengths as benchmark_serving's `--random-range-ratio r` drew them before vLLM 0.9 (and as
  // InferenceMAX/InferenceX's bench_serving, which NVIDIA AIConfigurator's silicon samples come
  // from, still does): integers uniform in [⌊L·r⌋, L], so the mean is about L(1 + r)/2.
  // 1 = fixed; below 1 it replaces the spread of that length (0 < r <= 1).
  double input_range_ratio = 1;
  double output_range_ratio = 1;
  // Lengths given one per request (parse_sim_lengths_csv), sent in order and from the first row
  // again when more requests are sent than there are rows; null = drawn by the rules above.
  std::shared_ptr<const SimLengths> lengths;
};

// The request count `w` resolves to (its default when 0).
int sim_request_count(const SimWorkload& w);

SimLengths draw_lengths(const SimWorkload& w);

// Request lengths from a CSV (issue 30: lengths "from a distribution the user gives ... or a CSV
// of lengths"): a header with the columns `input_len` and `output_len` (others are ignored, so a
// trace's export can be given as it is), one row per request. Strict: a missing column, no row,
// more than kSimMaxLengthRows rows, or a cell that is not a whole number of tokens in
// 1..kSimMaxLengthTokens throws Error naming the file, the line, the column and the value.
// `text` is the file's contents; `file` names it in messages.
inline constexpr long long kSimMaxLengthTokens = 10'000'000;  // beyond any model's context
inline constexpr std::size_t kSimMaxLengthRows = 1'000'000;   // the simulation's request cap
SimLengths parse_sim_lengths_csv(std::string_view text, const std::string& file);

// Open-loop send times (offline: all 0; Poisson: cumulative exponential gaps from t = 0).
// Empty for a closed loop, whose send times depend on when requests finish.
std::vector<double> open_loop_arrivals(const SimWorkload& w);

// The p-th percentile (0..100) of `values` by linear interpolation between order statistics
// (numpy.percentile's default, which benchmark_serving reports); 0 when empty. Reorders `values`.
double percentile(std::vector<double>& values, double p);

// sum + value + value + … (`count` additions), each rounded as that loop rounds it, bit for bit.
// Within one binade of the sum (where its ulp U is fixed) adding a positive value that is not
// halfway between multiples of U adds the same multiple of U every time, so those additions are
// taken at once; the rest (a tie, the step across a power of two, a zero or negative operand)
// one by one. A run of 100 equal gaps costs a few operations instead of 100 dependent additions.
double add_repeatedly(double sum, double value, std::int64_t count);

// Values recorded as runs of equal values: a step gives every sequence it decodes the same
// inter-token gap, so a 10,000-request run's millions of gaps are tens of thousands of runs.
// mean() and percentile() return exactly what the same calls on the expanded list return (the
// sum is taken in recording order, the order statistics are the same values).
class ValueRuns {
 public:
  void add(double value) { add(value, 1); }
  // As `count` calls of add(value): the sum still takes each value in turn.
  void add(double value, std::int64_t count) {
    sum_ = add_repeatedly(sum_, value, count);
    count_ += count;
    expanded_.clear();
    if (!runs_.empty() && runs_.back().value == value) {
      runs_.back().count += count;
    } else {
      runs_.push_back({value, count});
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
