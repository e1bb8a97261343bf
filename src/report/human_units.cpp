#include "report/human_units.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan {

namespace {

// "72500" → "72,500"; the integer part only, a fraction after a '.' kept as it is.
std::string human_group_thousands(const std::string& digits) {
  const std::size_t dot = digits.find('.');
  const std::string whole = digits.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : digits.substr(dot);
  const bool negative = !whole.empty() && whole[0] == '-';
  const std::string body = negative ? whole.substr(1) : whole;
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (i > 0 && (body.size() - i) % 3 == 0) out += ',';
    out += body[i];
  }
  return (negative ? "-" : "") + out + frac;
}

// 3 significant figures in fixed notation, trailing zeros (and a bare '.') dropped.
std::string human_three_figures(double x) {
  if (x == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  const int decimals = std::max(0, 2 - magnitude);
  const double step = std::pow(10.0, magnitude - 2);
  const double rounded = magnitude >= 2 ? std::round(x / step) * step : x;
  std::string s = fmt::format("{:.{}f}", rounded, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::string human_number(double x) {
  if (!std::isfinite(x)) return "–";
  const double a = std::fabs(x);
  struct HumanWord {
    double scale;
    const char* name;
  };
  static constexpr std::array<HumanWord, 2> kHumanWords{{{1e12, "trillion"}, {1e9, "billion"}}};
  if (a >= 1e15) {
    const int power = static_cast<int>(std::floor(std::log10(a)));
    return fmt::format("{} × 10^{}", human_three_figures(x / std::pow(10.0, power)), power);
  }
  for (const HumanWord& w : kHumanWords) {
    if (a >= w.scale) return human_three_figures(x / w.scale) + " " + w.name;
  }
  if (a >= 1e6) return human_three_figures(x / 1e6) + " million";
  return human_group_thousands(human_three_figures(x));
}

std::string human_count(double x) {
  if (!std::isfinite(x)) return "–";
  if (std::fabs(x) < 1e9 && x == std::round(x)) return human_group_thousands(fmt::format("{:.0f}", x));
  return human_number(x);
}

std::string human_count(long long n) { return human_group_thousands(fmt::format("{}", n)); }

std::string human_seconds(double s) {
  if (!std::isfinite(s)) return "–";
  const double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1e-3) return human_three_figures(s * 1e6) + " µs";
  if (a < 1) return human_three_figures(s * 1e3) + " ms";
  if (a < 120) return human_three_figures(s) + " s";
  if (a < 7200) return human_three_figures(s / 60) + " min";
  if (a < 2 * 86400) return human_three_figures(s / 3600) + " h";
  return human_number(s / 86400) + " days";
}

std::string human_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "–";
  const double a = std::fabs(bytes);
  constexpr double kBytesStep = 1024.0;
  if (a >= kBytesStep * kBytesStep * kBytesStep * kBytesStep) return human_three_figures(bytes / (kBytesStep * kBytesStep * kBytesStep * kBytesStep)) + " TiB";
  if (a >= kBytesStep * kBytesStep * kBytesStep) return human_three_figures(bytes / (kBytesStep * kBytesStep * kBytesStep)) + " GiB";
  if (a >= kBytesStep * kBytesStep) return human_three_figures(bytes / (kBytesStep * kBytesStep)) + " MiB";
  if (a >= kBytesStep) return human_three_figures(bytes / kBytesStep) + " KiB";
  return human_three_figures(bytes) + " bytes";
}

std::string human_flops(double flops) {
  if (!std::isfinite(flops)) return "–";
  static constexpr std::array<const char*, 9> kPrefix{"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
  std::size_t i = 0;
  double v = flops;
  while (std::fabs(v) >= 1000 && i + 1 < kPrefix.size()) {
    v /= 1000;
    ++i;
  }
  return human_number(v) + " " + kPrefix[i] + "FLOP";
}

std::string human_percent(double fraction) {
  if (!std::isfinite(fraction)) return "–";
  return human_three_figures(fraction * 100) + "%";
}

std::string human_usd(double usd) {
  if (!std::isfinite(usd)) return "–";
  // fmt::format rather than "$" + std::string: GCC 12 raises a false -Wrestrict on
  // operator+(const char*, std::string&&) once inlined (GCC bug 105329).
  // Under a dollar, three figures (a cost per million tokens of $0.0869 is not "$0.09").
  if (usd != 0 && std::fabs(usd) < 1) return fmt::format("${}", human_number(usd));
  if (std::fabs(usd) < 1000) return fmt::format("${:.2f}", usd);
  return fmt::format("${}", human_number(usd));
}

}  // namespace gpuplan
