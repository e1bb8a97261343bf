// Unit constants, parsing of sizes typed by people ("1GiB", "32MB", "512"), and
// human-friendly formatting. Everything inside gpuplan is SI: bytes, seconds, FLOP/s.
#pragma once

#include <string>
#include <string_view>

namespace gpuplan {

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kPeta = 1e15;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kTiB = kGiB * 1024.0;

// Parses a byte size: a number with an optional unit B, KB, MB, GB, TB (decimal) or
// KiB, MiB, GiB, TiB (binary), case-insensitive. Throws Error naming `what` on bad input
// (empty, negative, zero, non-finite or an unknown unit).
double parse_bytes(std::string_view text, std::string_view what);

// Parses a plain count with an optional SI/binary suffix (k, M, G, T, B for billions), e.g.
// "100B" tokens or "1.5T". Throws Error naming `what` on bad input.
double parse_count(std::string_view text, std::string_view what);

// "80 GB", "32 MiB": decimal by default, binary when `binary` is set.
std::string format_bytes(double bytes, bool binary = false);
// "989.4 T" + unit, choosing the SI prefix so the mantissa is in [1, 1000).
std::string format_si(double value, std::string_view unit, int precision = 1);
// "65.2 us", "1.20 s", "3.4 h".
std::string format_seconds(double seconds);

}  // namespace gpuplan
