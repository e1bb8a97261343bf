#include "infer/sim_workload.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/csv.h"
#include "core/error.h"

namespace gpuplan {
namespace {

// A uniform draw in [0, 1) from the top 53 bits (the same on every platform).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::int32_t spread_length(std::mt19937_64& rng, std::int64_t mean, double spread) {
  if (spread <= 0) return static_cast<std::int32_t>(mean);
  // vLLM's RandomDataset draws integers in [⌊L(1 − r)⌋, ⌈L(1 + r)⌉]; at least one token.
  const auto lo = static_cast<std::int64_t>(std::floor(static_cast<double>(mean) * (1 - spread)));
  const auto hi = static_cast<std::int64_t>(std::ceil(static_cast<double>(mean) * (1 + spread)));
  const auto v = lo + static_cast<std::int64_t>(std::floor(unit(rng) * static_cast<double>(hi - lo + 1)));
  return static_cast<std::int32_t>(std::max<std::int64_t>(1, std::min(v, hi)));
}

// benchmark_serving before vLLM 0.9 (and InferenceMAX's bench_serving, sample_random_requests):
// np.random.randint(int(L * ratio), L + 1), integers uniform in [⌊L·r⌋, L]; at least one token.
std::int32_t floor_ratio_length(std::mt19937_64& rng, std::int64_t len, double ratio) {
  const auto lo = static_cast<std::int64_t>(std::floor(static_cast<double>(len) * ratio));
  const auto v = lo + static_cast<std::int64_t>(std::floor(unit(rng) * static_cast<double>(len - lo + 1)));
  return static_cast<std::int32_t>(std::max<std::int64_t>(1, std::min(v, len)));
}

std::int32_t draw_length(std::mt19937_64& rng, std::int64_t len, double spread, double ratio) {
  return ratio < 1 ? floor_ratio_length(rng, len, ratio) : spread_length(rng, len, spread);
}

std::int32_t sim_length_cell(const CsvTable& csv, const CsvTable::Row& row, std::size_t column) {
  const std::string_view cell = csv.cell(row, column);
  // Digits only: a sign, a decimal point, an exponent or a blank is not a token count.
  bool digits = !cell.empty() && cell.size() <= 9;
  for (char ch : cell) digits = digits && ch >= '0' && ch <= '9';
  const long long v = digits ? std::stoll(std::string(cell)) : 0;
  if (!digits || v < 1 || v > kSimMaxLengthTokens) {
    throw Error(fmt::format("{}: '{}' is not a length; give a whole number of tokens from 1 to {}", csv.where(row, column),
                            cell, kSimMaxLengthTokens));
  }
  return static_cast<std::int32_t>(v);
}

}  // namespace

int sim_request_count(const SimWorkload& w) {
  if (w.requests > 0) return w.requests;
  return w.arrivals == SimArrivals::closed_loop ? 10 * std::max(1, w.clients) : 1000;
}

SimLengths draw_lengths(const SimWorkload& w) {
  const int n = sim_request_count(w);
  SimLengths l;
  l.input.resize(n);
  l.output.resize(n);
  if (w.lengths && !w.lengths->input.empty()) {
    const std::size_t rows = w.lengths->input.size();
    for (int i = 0; i < n; ++i) {
      l.input[i] = w.lengths->input[static_cast<std::size_t>(i) % rows];
      l.output[i] = w.lengths->output[static_cast<std::size_t>(i) % rows];
    }
    return l;
  }
  std::mt19937_64 rng(w.seed ^ 0x9e3779b97f4a7c15ULL);
  for (int i = 0; i < n; ++i) {
    l.input[i] = draw_length(rng, w.input_len, w.input_spread, w.input_range_ratio);
    l.output[i] = draw_length(rng, w.output_len, w.output_spread, w.output_range_ratio);
  }
  return l;
}

std::vector<double> open_loop_arrivals(const SimWorkload& w) {
  if (w.arrivals == SimArrivals::closed_loop) return {};
  const int n = sim_request_count(w);
  std::vector<double> t(n, 0.0);
  if (w.arrivals == SimArrivals::offline) return t;
  // Poisson process: exponential gaps −ln(1 − u) / λ, the first request at t = 0 as
  // benchmark_serving sends it before its first sleep.
  std::mt19937_64 rng(w.seed);
  double now = 0;
  for (int i = 1; i < n; ++i) {
    now += -std::log1p(-unit(rng)) / w.rate_per_s;
    t[i] = now;
  }
  return t;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

double add_repeatedly(double sum, double value, std::int64_t count) {
  while (count > 0) {
    // At once only for a positive normal sum and value well inside the range (a gap, a latency)
    // and more than a few additions.
    if (count < 4 || !(sum >= 0x1p-900 && sum < 0x1p900 && value > 0)) {
      sum += value;
      --count;
      continue;
    }
    // sum in [2^e, 2^(e+1)), e = biased − 1023: every double there is a multiple of its ulp
    // 2^(e−52). Powers of two are built from their exponent bits (no rounding anywhere below).
    const auto biased = static_cast<std::uint64_t>(std::bit_cast<std::uint64_t>(sum) >> 52);
    const double ulp = std::bit_cast<double>((biased - 52) << 52);
    const double per_ulp = std::bit_cast<double>((2098 - biased) << 52);  // 1 / ulp
    const double top = std::bit_cast<double>((biased + 1) << 52);         // 2^(e+1)
    const double q = value * per_ulp;                                     // exact: a power-of-two scale
    if (!(q < 0x1p52)) {
      sum += value;  // a value as large as the sum: one by one
      --count;
      continue;
    }
    const auto whole = static_cast<std::int64_t>(q);
    const double frac = q - static_cast<double>(whole);  // exact
    if (frac == 0.5) {
      sum += value;  // halfway between multiples of the ulp: ties go to even, which alternates
      --count;
      continue;
    }
    // sum + value rounds to sum + step·ulp while that stays below 2^(e+1) (the representable
    // numbers there are the multiples of ulp); after t additions the sum is sum + t·step·ulp.
    const std::int64_t step = whole + (frac > 0.5 ? 1 : 0);
    if (step == 0) return sum;  // below half an ulp: every addition leaves the sum as it is
    const auto room = static_cast<std::int64_t>((top - sum) * per_ulp);  // exact, 1..2^52
    const std::int64_t t = std::min(count, (room - 1) / step);          // sum + t·step·ulp <= 2^(e+1) − ulp
    if (t == 0) {
      sum += value;  // crosses 2^(e+1): the ulp doubles
      --count;
      continue;
    }
    sum += static_cast<double>(t * step) * ulp;  // exact: a multiple of ulp below 2^(e+1)
    count -= t;
  }
  return sum;
}

double ValueRuns::value_at_rank(std::size_t rank) const {
  std::size_t seen = 0;
  for (const Run& r : runs_) {
    seen += static_cast<std::size_t>(r.count);
    if (rank < seen) return r.value;
  }
  return runs_.back().value;
}

double ValueRuns::percentile(double p) {
  if (count_ == 0) return 0;
  if (!sorted_ && runs_.size() * 8 > static_cast<std::size_t>(count_)) {
    if (expanded_.empty()) {
      expanded_.reserve(static_cast<std::size_t>(count_));
      for (const Run& r : runs_) expanded_.insert(expanded_.end(), static_cast<std::size_t>(r.count), r.value);
    }
    return gpuplan::percentile(expanded_, p);
  }
  if (!sorted_) {
    // Sorted by value, equal values merged: the order statistics of the expanded list.
    std::sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) { return a.value < b.value; });
    std::size_t out = 0;
    for (std::size_t i = 1; i < runs_.size(); ++i) {
      if (runs_[i].value == runs_[out].value) {
        runs_[out].count += runs_[i].count;
      } else {
        runs_[++out] = runs_[i];
      }
    }
    runs_.resize(out + 1);
    sorted_ = true;
  }
  const auto n = static_cast<std::size_t>(count_);
  const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double a = value_at_rank(lo);
  if (lo + 1 >= n) return a;
  const double b = value_at_rank(lo + 1);
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

SimLengths parse_sim_lengths_csv(std::string_view text, const std::string& file) {
  const CsvTable csv = CsvTable::parse(text, file);
  const std::size_t in = csv.column("input_len");
  const std::size_t out = csv.column("output_len");
  if (csv.rows().empty()) {
    throw Error(fmt::format("{}: no request lengths; give one row of input_len,output_len per request", file));
  }
  if (csv.rows().size() > kSimMaxLengthRows) {
    throw Error(fmt::format("{}: {} rows of lengths; give at most {} (the requests one simulation sends)", file,
                            csv.rows().size(), kSimMaxLengthRows));
  }
  SimLengths l;
  l.input.reserve(csv.rows().size());
  l.output.reserve(csv.rows().size());
  for (const CsvTable::Row& row : csv.rows()) {
    l.input.push_back(sim_length_cell(csv, row, in));
    l.output.push_back(sim_length_cell(csv, row, out));
  }
  return l;
}

}  // namespace gpuplan
