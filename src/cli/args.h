// The command-line parser the commands see: a thin face over CLI11, so that CLI11 (header-only,
// 6–15 s of compile time per file that includes it) is compiled in one translation unit,
// cli/run.cpp. The method names are CLI11's, with the same meaning.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpuplan {

class CliOption {
 public:
  explicit CliOption(CLI::Option* impl) : impl_(impl) {}
  CliOption* required(bool value = true);
  // Show the target's value at parse setup as the default in --help.
  CliOption* capture_default_str();
  // A list option's items may also be given as one word split at `separator` ("8,16,64").
  CliOption* delimiter(char separator);
  // Giving both this option and `other` is a usage error (exit 2).
  CliOption* excludes(CliOption* other);
  // How many times the option was given on the command line.
  std::size_t count() const;

 private:
  CLI::Option* impl_;
};

class CliCommand {
 public:
  explicit CliCommand(CLI::App* impl) : impl_(impl) {}
  CliCommand(const CliCommand&) = delete;
  CliCommand& operator=(const CliCommand&) = delete;

  // A positional argument ("file") or an option ("--gpus"), storing into `target`.
  // Defined in run.cpp for the target types the commands use.
  template <class T>
  CliOption* add_option(const std::string& name, T& target, const std::string& help = "");
  CliOption* add_flag(const std::string& name, bool& target, const std::string& help = "");
  CliCommand* add_subcommand(const std::string& name, const std::string& help);
  void callback(std::function<void()> fn);
  // The option named `name` ("--model"); throws if there is none (a programming error).
  CliOption* get_option(const std::string& name);
  // CLI11's meaning: require_subcommand(n) is exactly n; (min, max) a range, max 0 = any.
  void require_subcommand(int exact);
  void require_subcommand(int min_count, int max_count);
  // How many times the option `name` was given on the command line.
  std::size_t count(const std::string& name) const;

  CLI::App* impl() { return impl_; }

 private:
  CLI::App* impl_;
  std::deque<CliOption> options_;     // stable addresses for the pointers handed out
  std::deque<CliCommand> commands_;
};

}  // namespace gpuplan
