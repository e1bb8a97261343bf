#include "cli/progress_printer.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "report/human_units.h"

namespace gpuplan {
namespace {

constexpr double kTerminalEveryS = 0.1;  // a terminal's line is redrawn at most this often

std::string duration_words(double s) {
  if (s < 60) return fmt::format("{:.0f} s", std::max(0.0, s));
  if (s < 3600) return fmt::format("{:.0f} min {:.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:.0f} min", std::floor(s / 3600), std::floor(std::fmod(s, 3600) / 60));
}

}  // namespace

ProgressPrinter::ProgressPrinter(std::ostream& err, std::string what, std::string unit, double quiet_s,
                                 double log_every_s)
    : err_(err),
      what_(std::move(what)),
      unit_(std::move(unit)),
      quiet_s_(quiet_s),
      log_every_s_(log_every_s),
      start_(Clock::now()) {
  // Only the process's own stderr on a terminal is redrawn in place; a stream a test or an
  // embedding program passes is written to as a log.
  terminal_ = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  sink_ = [this](std::int64_t done, std::int64_t total) { report(done, total); };
}

void ProgressPrinter::finish() {
  const std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (drawn_ && terminal_) err_ << "\r\033[K" << std::flush;
}

std::string ProgressPrinter::line(const std::string& what, const std::string& unit, std::int64_t done,
                                  std::int64_t total, double elapsed_s, bool bar) {
  const double fraction = total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0) : 0;
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  std::string s = what + ": ";
  if (bar) {
    const int cells = static_cast<int>(std::lround(fraction * 20));
    s += "[" + std::string(static_cast<std::size_t>(cells), '#') + std::string(static_cast<std::size_t>(20 - cells), ' ') + "] ";
  }
  s += fmt::format("{:.0f}% ({} of {} {}), {} {}/s", fraction * 100, human_count(static_cast<long long>(done)),
                   human_count(static_cast<long long>(total)), unit, human_number(rate), unit);
  if (rate > 0 && done < total) s += ", about " + duration_words(static_cast<double>(total - done) / rate) + " left";
  return s;
}

void ProgressPrinter::report(std::int64_t done, std::int64_t total) {
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < quiet_s_) return;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;  // another worker is drawing; this report adds nothing
  const double since = std::chrono::duration<double>(now - last_).count();
  if (drawn_ && since < (terminal_ ? kTerminalEveryS : log_every_s_) && done < total) return;
  last_ = now;
  drawn_ = true;
  if (terminal_) {
    err_ << "\r\033[K" << line(what_, unit_, done, total, elapsed, true) << std::flush;
  } else {
    err_ << line(what_, unit_, done, total, elapsed, false) << "\n" << std::flush;
  }
}

}  // namespace gpuplan
