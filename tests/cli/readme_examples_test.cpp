// Every `build/gpuplan ...` line of README.md's tour and of docs/cli.md's examples runs as
// written (issue 34): exit 0, and a training plan it prints fits. Lines that need a file of the
// reader's own (my-box.toml, path/to/config.json), another program (mpirun, nvidia-smi) or run
// a server are left out by the rule in readme_runnable(), not one by one.
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace gpuplan {
namespace {

// The words of one shell command line (no quoting in these examples), without "build/gpuplan".
std::vector<std::string> readme_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  if (!words.empty()) words.erase(words.begin());
  return words;
}

// A line a test can run as written: it starts with build/gpuplan, names no file of the reader's
// own, pipes to nothing and starts no server.
bool readme_runnable(const std::string& line) {
  static const std::regex kOwnFile(R"(my-|path/to|topo\.|\.\.\.|\||&&|\bserve\b|\bmonitor\b|\$)");
  return line.starts_with("build/gpuplan ") && !std::regex_search(line, kOwnFile);
}

// The `build/gpuplan` lines of a markdown file's ```sh blocks, comments cut.
std::vector<std::string> readme_commands(const std::string& file) {
  std::ifstream in(testing::source_dir() + "/" + file);
  std::vector<std::string> lines;
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.starts_with("```")) {
      in_block = line == "```sh";
      continue;
    }
    if (!in_block) continue;
    if (const auto hash = line.find(" #"); hash != std::string::npos) line = line.substr(0, hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (readme_runnable(line)) lines.push_back(line);
  }
  return lines;
}

void expect_example_runs(const std::string& line) {
  std::vector<std::string> args = readme_words(line);
  // ../shared is beside the repository in this workspace, not in a clean clone. The README's
  // paths are relative to the repository's root; ctest runs in the build folder.
  for (std::string& a : args) {
    if (!a.starts_with("../shared/")) continue;
    a = testing::source_dir() + "/" + a;
    if (!std::ifstream(a)) return;
  }
  const bool json_ok = std::find(args.begin(), args.end(), "--emit") == args.end();
  if (json_ok) args.emplace_back("--json");
  const testing::CliResult r = testing::run(args);
  ASSERT_EQ(r.code, 0) << line << "\n" << r.out << r.err;
  if (!json_ok || (args[0] != "train" && args[0] != "memory")) return;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& estimate = j.contains("estimate") ? j["estimate"] : j;
  if (estimate.contains("fits")) {
    EXPECT_TRUE(estimate["fits"].get<bool>()) << line << "\n" << r.out.substr(0, 2000);
  }
}

TEST(ReadmeExamples, TourLinesRunAndFit) {
  const std::vector<std::string> lines = readme_commands("README.md");
  ASSERT_GE(lines.size(), 15u) << "README.md's tour lost its examples";
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    expect_example_runs(line);
  }
}

}  // namespace
}  // namespace gpuplan
