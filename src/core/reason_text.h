// A short message built without printf: literal pieces, integers, and fixed-point numbers via
// std::to_chars, which is specified to give exactly printf's text in the C locale ("%.1f" →
// fixed(x, 1), "%d" → integer(n)) but skips printf's format parsing and locale machinery. The
// training evaluator builds an out-of-memory reason for every plan that does not fit, most of
// the plans a search evaluates; with snprintf that was ~4,000 instructions per plan, a fifth of
// an evaluation. No allocation; text beyond the buffer is dropped.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace gpuplan {

class ReasonText {
 public:
  ReasonText& text(std::string_view s) {
    // One memcpy of the whole piece where it fits: inlined with a literal, its length is a
    // constant and the copy a few moves (a byte loop was ~200 instructions per reason).
    const std::size_t n = s.size() <= room() ? s.size() : room();
    if (n == s.size()) {
      std::memcpy(buf_.data() + size_, s.data(), s.size());
    } else {
      std::memcpy(buf_.data() + size_, s.data(), n);
    }
    size_ += n;
    return *this;
  }
  ReasonText& fixed(double value, int decimals) {
    // "%.1f" of a GiB figure, the evaluator's case, without to_chars' exact-decimal machinery:
    // value × 10 is within 2^-52 × 1e10 ≈ 1e-6 of the exact product, so unless its fraction
    // is within 1e-3 of a half it rounds to the same integer as the exact binary value does
    // (printf's rounding); near a half, and for anything else, to_chars decides.
    if (decimals == 1 && value >= 0 && value < 1e9 && !std::signbit(value)) {
      const double tenths = value * 10;
      const double whole = std::floor(tenths);
      const double frac = tenths - whole;  // exact: whole and tenths are within a factor of 2
      if (frac < 0.499 || frac > 0.501) {
        const auto n = static_cast<unsigned long long>(whole) + (frac > 0.5 ? 1U : 0U);
        const auto r = std::to_chars(buf_.data() + size_, buf_.data() + buf_.size(), n / 10);
        if (r.ec == std::errc() && r.ptr + 2 <= buf_.data() + buf_.size()) {
          r.ptr[0] = '.';
          r.ptr[1] = static_cast<char>('0' + n % 10);
          size_ = static_cast<std::size_t>(r.ptr + 2 - buf_.data());
        }
        return *this;
      }
    }
    const auto r = std::to_chars(buf_.data() + size_, buf_.data() + buf_.size(), value, std::chars_format::fixed,
                                 decimals);
    if (r.ec == std::errc()) size_ = static_cast<std::size_t>(r.ptr - buf_.data());
    return *this;
  }
  ReasonText& integer(long long value) {
    const auto r = std::to_chars(buf_.data() + size_, buf_.data() + buf_.size(), value);
    if (r.ec == std::errc()) size_ = static_cast<std::size_t>(r.ptr - buf_.data());
    return *this;
  }
  std::string_view view() const { return {buf_.data(), size_}; }

 private:
  std::size_t room() const { return buf_.size() - size_; }
  // Room for any double in fixed notation (up to 309 integer digits) besides the message.
  // Only [0, size_) is ever read: not cleared on construction (a ReasonText per infeasible plan).
  std::array<char, 512> buf_;
  std::size_t size_ = 0;
};

}  // namespace gpuplan
