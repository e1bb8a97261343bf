// The hostile-input suite's runner: one CLI call in a forked child, so that a signal (a crash,
// an abort) or a hang is a result to check, not the end of the test binary. The child runs the
// CLI in-process (testing::run) and sends back its exit code and output; the parent waits at
// most `limit_s` and kills the child past it.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <regex>
#include <string>
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
}  // namespace guarded_detail

inline GuardedResult run_guarded(const std::vector<std::string>& args, double limit_s = 5.0) {
  // Parsed here once, the built-in catalog is the children's by inheritance: without it every
  // forked case parsed it again (most of the suite's time under the sanitizers).
  (void)default_catalog();
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const CliResult r = run(args);
    guarded_detail::write_all(fds[1], std::to_string(r.code) + "\n" + guarded_detail::frame(r.out) +
                                          guarded_detail::frame(r.err));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  GuardedResult result;
  std::string blob;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.hung = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    blob.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (result.hung) return result;
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    return result;
  }
  // code \n len \n out len \n err
  std::size_t at = blob.find('\n');
  if (at == std::string::npos) return result;
  result.code = std::stoi(blob.substr(0, at));
  auto take = [&](std::string& into) {
    const std::size_t nl = blob.find('\n', at + 1);
    const std::size_t len = std::stoul(blob.substr(at + 1, nl - at - 1));
    into = blob.substr(nl + 1, len);
    at = nl + len;
  };
  take(result.out);
  take(result.err);
  return result;
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
