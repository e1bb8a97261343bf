// A short message built without printf: literal pieces, integers, and fixed-point numbers via
// std::to_chars, which is specified to give exactly printf's text in the C locale ("%.1f" →
// fixed(x, 1), "%d" → integer(n)) but skips printf's format parsing and locale machinery. The
// training evaluator builds an out-of-memory reason for every plan that does not fit, most of
// the plans a search evaluates; with snprintf that was ~4,000 instructions per plan, a fifth of
// an evaluation. No allocation; text beyond the buffer is dropped.
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <string_view>

namespace gpuplan {

class ReasonText {
 public:
  ReasonText& text(std::string_view s) {
    const std::size_t n = s.size() < room() ? s.size() : room();
    for (std::size_t i = 0; i < n; ++i) buf_[size_ + i] = s[i];
    size_ += n;
    return *this;
  }
  ReasonText& fixed(double value, int decimals) {
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
  std::array<char, 512> buf_{};
  std::size_t size_ = 0;
};

}  // namespace gpuplan
