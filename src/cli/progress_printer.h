// How the CLI shows a long library call's progress (core/progress.h) on stderr, never on stdout:
// nothing during the first second (most answers take milliseconds); then, on a terminal, one
// line redrawn in place — a bar, the count, the rate and the time left — and otherwise (a pipe,
// a log, a test's stream) one plain line every five seconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

#include "core/progress.h"

namespace gpuplan {

class ProgressPrinter {
 public:
  // `what` names the work ("search"), `unit` its units ("layouts"). Nothing is shown before
  // `quiet_s`; off a terminal one line every `log_every_s` (tests pass 0 for both).
  ProgressPrinter(std::ostream& err, std::string what, std::string unit, double quiet_s = 1.0,
                  double log_every_s = 5.0);
  ~ProgressPrinter() { finish(); }
  // Ends the terminal's line if one was drawn, so the answer starts on a clean line; reports
  // after it are not shown. Idempotent.
  void finish();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // The sink to hand to the library; valid while this printer lives.
  const ProgressSink& sink() const { return sink_; }

  // What one report shows (exposed for tests): done of total, the rate since the start and the
  // time left at that rate; `bar` adds a 20-cell bar.
  static std::string line(const std::string& what, const std::string& unit, std::int64_t done, std::int64_t total,
                          double elapsed_s, bool bar);

 private:
  using Clock = std::chrono::steady_clock;
  void report(std::int64_t done, std::int64_t total);

  std::ostream& err_;
  std::string what_;
  std::string unit_;
  double quiet_s_;
  double log_every_s_;
  bool terminal_ = false;
  Clock::time_point start_;
  Clock::time_point last_{};
  bool drawn_ = false;
  bool finished_ = false;
  std::mutex mutex_;
  ProgressSink sink_;
};

}  // namespace gpuplan
