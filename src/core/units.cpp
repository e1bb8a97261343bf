#include "core/units.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

struct NumberAndSuffix {
  double value = 0;
  std::string suffix;
};

NumberAndSuffix split_number(std::string_view text, std::string_view what) {
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  std::size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  const std::string_view body = text.substr(begin, end - begin);
  if (body.empty()) throw Error(fmt::format("{}: empty value; give a number such as 1GiB", what));
  double value = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ec != std::errc() || ptr == body.data()) {
    throw Error(fmt::format("{}: '{}' is not a number; give a value such as 1GiB or 4096", what, body));
  }
  std::string_view rest(ptr, static_cast<std::size_t>(body.data() + body.size() - ptr));
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  if (!std::isfinite(value)) throw Error(fmt::format("{}: '{}' is not finite", what, body));
  return {value, std::string(rest)};
}

}  // namespace

double parse_bytes(std::string_view text, std::string_view what) {
  const auto [value, suffix] = split_number(text, what);
  const std::string unit = to_lower(suffix);
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kb") scale = kKilo;
  else if (unit == "m" || unit == "mb") scale = kMega;
  else if (unit == "g" || unit == "gb") scale = kGiga;
  else if (unit == "t" || unit == "tb") scale = kTera;
  else if (unit == "kib") scale = kKiB;
  else if (unit == "mib") scale = kMiB;
  else if (unit == "gib") scale = kGiB;
  else if (unit == "tib") scale = kTiB;
  else {
    throw Error(fmt::format("{}: unknown unit '{}'; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB", what,
                            suffix));
  }
  if (value <= 0) throw Error(fmt::format("{}: must be positive, got '{}'", what, text));
  return value * scale;
}

double parse_count(std::string_view text, std::string_view what) {
  const auto [value, suffix] = split_number(text, what);
  double scale = 0;
  if (suffix.empty()) scale = 1;
  else if (suffix == "k" || suffix == "K") scale = kKilo;
  else if (suffix == "M") scale = kMega;
  else if (suffix == "B" || suffix == "G") scale = kGiga;
  else if (suffix == "T") scale = kTera;
  else {
    throw Error(fmt::format("{}: unknown suffix '{}'; use k, M, B (billion) or T", what, suffix));
  }
  if (value <= 0) throw Error(fmt::format("{}: must be positive, got '{}'", what, text));
  return value * scale;
}

std::string format_bytes(double bytes, bool binary) {
  static const char* const kDecimal[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  static const char* const kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const double base = binary ? 1024.0 : 1000.0;
  int idx = 0;
  double v = bytes;
  while (std::fabs(v) >= base && idx < 5) {
    v /= base;
    ++idx;
  }
  const char* unit = binary ? kBinary[idx] : kDecimal[idx];
  if (idx == 0) return fmt::format("{:.0f} {}", v, unit);
  return fmt::format("{:.{}f} {}", v, std::fabs(v) >= 100 ? 0 : (std::fabs(v) >= 10 ? 1 : 2), unit);
}

std::string format_si(double value, std::string_view unit, int precision) {
  static const char* const kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int idx = 0;
  double v = value;
  while (std::fabs(v) >= 1000.0 && idx < 6) {
    v /= 1000.0;
    ++idx;
  }
  return fmt::format("{:.{}f} {}{}", v, precision, kPrefix[idx], unit);
}

std::string format_seconds(double seconds) {
  const double s = std::fabs(seconds);
  if (s < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (s < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  if (s < 120.0) return fmt::format("{:.2f} s", seconds);
  if (s < 7200.0) return fmt::format("{:.1f} min", seconds / 60.0);
  if (s < 3 * 86400.0) return fmt::format("{:.1f} h", seconds / 3600.0);
  return fmt::format("{:.1f} days", seconds / 86400.0);
}

}  // namespace gpuplan
