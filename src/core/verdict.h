// What limits a plan and why a plan cannot run, one representation for training and serving:
// a Bottleneck (the largest exposed term, or the resource that caps the batch) and an
// Infeasibility (a value with a reason that names the fix, never an exception). The reason has
// a fixed capacity so that estimates stay trivially copyable in the search's hot loops.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuplan {

enum class Bottleneck : std::uint8_t {
  // training: the largest exposed term of a step
  compute,
  pipeline_bubble,
  tp_comm,
  cp_comm,
  ep_comm,
  pp_comm,
  dp_comm,
  optimizer,
  memory,  // the plan does not fit
  // serving: what bounds a decode step or the running batch
  weights_bandwidth,
  kv_bandwidth,
  communication,
  engine_overhead,
  activation_bandwidth,  // elementwise passes (norms, residuals, activation) streamed from HBM
  capacity,
};

// The name shown in text and JSON ("compute", "pipeline bubble", "weights bandwidth", ...).
const char* bottleneck_name(Bottleneck b);

class Infeasibility {
 public:
  enum class Kind : std::uint8_t {
    none,          // the plan runs
    invalid_plan,  // structurally impossible (degrees that do not divide, too many stages, ...)
    out_of_memory, // valid but does not fit
  };

  static constexpr std::size_t kCapacity = 192;

  bool ok() const { return kind_ == Kind::none; }
  Kind kind() const { return kind_; }
  // The reason; longer texts are cut at kCapacity - 1 bytes (on a UTF-8 boundary).
  const char* text() const { return text_.data(); }
  void set(Kind kind, std::string_view reason);
  void clear() {
    kind_ = Kind::none;
    text_[0] = '\0';
  }

 private:
  Kind kind_ = Kind::none;
  std::array<char, kCapacity> text_{};
};

}  // namespace gpuplan
