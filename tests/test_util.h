// Helpers shared by the tests: run the CLI in-process, write temporary files.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace gpuplan::testing {

struct CliResult {
  int code = 0;
  std::string out;
  std::string err;
};

inline CliResult run(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"gpuplan"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

// A scratch directory unique to the test, removed by the caller if it cares. The process id is
// part of the name: ctest runs each test case in its own process, in parallel, and the cases of
// one parameterized test share `name` (a shared FIFO path made one case fail in CI when another
// removed the directory under it).
// The directories are removed when the test process exits (not when a forked child does).
struct ScratchDirs {
  pid_t owner = ::getpid();
  std::vector<std::filesystem::path> dirs;
  ~ScratchDirs() {
    if (::getpid() != owner) return;
    std::error_code ignored;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ignored);
  }
};

inline std::filesystem::path scratch_dir(const std::string& name) {
  static ScratchDirs made;
  auto dir = std::filesystem::temp_directory_path() /
             ("gpuplan-test-" + std::to_string(static_cast<long>(::getpid())) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  made.dirs.push_back(dir);
  return dir;
}

inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

inline std::string source_dir() { return GPUPLAN_SOURCE_DIR; }

// A command line the CLI must refuse: exit 2 with a message that holds each of `says` (the flag,
// the value, the fix). The strict-input tests keep tables of these.
struct BadInput {
  std::vector<std::string> args;
  std::vector<std::string> says;
};

// Printed as the command line, so a failing parameterized case names itself in ctest's output.
inline void PrintTo(const BadInput& c, std::ostream* os) {
  for (const std::string& a : c.args) *os << a << ' ';
}

}  // namespace gpuplan::testing
