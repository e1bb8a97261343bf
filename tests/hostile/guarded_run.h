// The hostile-input suite's runner: CLI calls in a forked child, so that a signal (a crash, an
// abort) or a hang is a result to check, not the end of the test binary. The child runs the CLI
// in-process (testing::run) and sends back each call's exit code and output; the parent waits at
// most `limit_s` per call and kills the child past it.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "test_util.h"

namespace gpuplan::testing {

struct GuardedResult {
  int code = -1;      // the exit code; -1 when the child died of a signal or was killed
  int signal = 0;     // the signal that ended the child, 0 if none
  bool hung = false;  // still running at the time limit
  std::string out;
  std::string err;
};

namespace guarded_detail {
inline void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}
inline std::string frame(const std::string& s) { return std::to_string(s.size()) + "\n" + s; }

// One result frame, "code\nlen\nOUTlen\nERR", taken off the front of `blob` once all of it
// has arrived; false while it is incomplete.
inline bool take_result(std::string& blob, GuardedResult& r) {
  std::size_t at = 0;
  const auto line = [&](std::string& into) {
    const std::size_t nl = blob.find('\n', at);
    if (nl == std::string::npos) return false;
    into = blob.substr(at, nl - at);
    at = nl + 1;
    return true;
  };
  const auto text = [&](std::string& into) {
    std::string len;
    if (!line(len)) return false;
    const std::size_t n = std::stoul(len);
    if (blob.size() - at < n) return false;
    into = blob.substr(at, n);
    at += n;
    return true;
  };
  std::string code;
  GuardedResult got;
  if (!line(code) || !text(got.out) || !text(got.err)) return false;
  got.code = std::stoi(code);
  r = std::move(got);
  blob.erase(0, at);
  return true;
}
}  // namespace guarded_detail

// Several CLI calls, each with the guard of run_guarded, one after another in one forked child:
// under the sanitizers a fork costs tens of milliseconds of CPU (AddressSanitizer locks and then
// writes its whole stack depot around every fork, copy-on-write faults in both processes), which
// one child per call paid hundreds of times per test. The time limit is per call, from the end
// of the one before. A call that dies of a signal or hangs ends its child, and the calls after
// it go on in a new one, so every call still has its own result.
inline std::vector<GuardedResult> run_guarded_each(const std::vector<std::vector<std::string>>& calls,
                                                   double limit_s = 5.0) {
  // Parsed here once, the built-in catalog is the children's by inheritance: without it every
  // child parsed it again (most of the suite's time under the sanitizers).
  (void)default_catalog();
  std::vector<GuardedResult> results(calls.size());
  std::size_t next = 0;  // the first call without a result
  while (next < calls.size()) {
    int fds[2];
    if (::pipe(fds) != 0) return results;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      for (std::size_t i = next; i < calls.size(); ++i) {
        const CliResult r = run(calls[i]);
        guarded_detail::write_all(fds[1], std::to_string(r.code) + "\n" + guarded_detail::frame(r.out) +
                                              guarded_detail::frame(r.err));
      }
      ::close(fds[1]);
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string blob;
    bool hung = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    char buf[65536];
    while (next < calls.size()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        hung = true;
        ::kill(pid, SIGKILL);
        break;
      }
      pollfd p{fds[0], POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // the child ended
      blob.append(buf, static_cast<std::size_t>(n));
      while (next < calls.size() && guarded_detail::take_result(blob, results[next])) {
        ++next;
        deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
      }
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (next == calls.size()) break;
    // The call under way when the child stopped answering: hung, or killed by a signal (or, should
    // the child exit without a word, exit code -1, which no check accepts).
    if (hung) {
      results[next].hung = true;
    } else if (WIFSIGNALED(status)) {
      results[next].signal = WTERMSIG(status);
    }
    ++next;
  }
  return results;
}

// One CLI call in a forked child (run_guarded_each of one).
inline GuardedResult run_guarded(const std::vector<std::string>& args, double limit_s = 5.0) {
  return run_guarded_each({args}, limit_s).front();
}

// What no answer may print: a NaN or an infinity, or a number of more than 30 digits.
inline std::string bad_number_in(const std::string& text) {
  static const std::regex kBad(R"((^|[^A-Za-z_])-?(nan|inf|infinity)($|[^A-Za-z_])|[0-9]{31,})", std::regex::icase);
  std::smatch m;
  if (std::regex_search(text, m, kBad)) return m.str(0);
  return "";
}

// Empty when `out` is exactly one JSON object; else what is wrong.
inline std::string not_one_json_object(const std::string& out) {
  try {
    const nlohmann::json j = nlohmann::json::parse(out);
    return j.is_object() ? "" : "not an object";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace gpuplan::testing
