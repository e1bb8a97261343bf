// The one translation unit that includes CLI11: the parser's face for the commands
// (cli/args.h) and the top-level parse.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/strings.h"
#include "monitor/nvml_sampler.h"

namespace gpuplan {

CliOption* CliOption::required(bool value) {
  impl_->required(value);
  return this;
}
CliOption* CliOption::capture_default_str() {
  impl_->capture_default_str();
  return this;
}
CliOption* CliOption::delimiter(char separator) {
  impl_->delimiter(separator);
  return this;
}
CliOption* CliOption::excludes(CliOption* other) {
  impl_->excludes(other->impl_);
  return this;
}
std::size_t CliOption::count() const { return impl_->count(); }

template <class T>
CliOption* CliCommand::add_option(const std::string& name, T& target, const std::string& help) {
  return &options_.emplace_back(impl_->add_option(name, target, help));
}
#define GPUPLAN_CLI_TARGET(T) template CliOption* CliCommand::add_option<T>(const std::string&, T&, const std::string&);
GPUPLAN_CLI_TARGET(int)
GPUPLAN_CLI_TARGET(double)
GPUPLAN_CLI_TARGET(std::string)
GPUPLAN_CLI_TARGET(std::vector<std::string>)
GPUPLAN_CLI_TARGET(std::vector<int>)
GPUPLAN_CLI_TARGET(std::vector<double>)
GPUPLAN_CLI_TARGET(std::int64_t)
GPUPLAN_CLI_TARGET(std::optional<double>)
GPUPLAN_CLI_TARGET(std::optional<int>)
GPUPLAN_CLI_TARGET(long long)
#undef GPUPLAN_CLI_TARGET

CliOption* CliCommand::add_flag(const std::string& name, bool& target, const std::string& help) {
  return &options_.emplace_back(impl_->add_flag(name, target, help));
}
CliCommand* CliCommand::add_subcommand(const std::string& name, const std::string& help) {
  return &commands_.emplace_back(impl_->add_subcommand(name, help));
}
void CliCommand::callback(std::function<void()> fn) { impl_->callback(std::move(fn)); }
CliOption* CliCommand::get_option(const std::string& name) {
  return &options_.emplace_back(impl_->get_option(name));
}
void CliCommand::require_subcommand(int exact) { impl_->require_subcommand(exact); }
void CliCommand::require_subcommand(int min_count, int max_count) {
  impl_->require_subcommand(min_count, max_count);
}
std::size_t CliCommand::count(const std::string& name) const { return impl_->count(name); }

namespace {

// The main job on the built-in defaults ("gpuplan" with no command, what `make run` shows):
// a worked question answered end to end with the built-in catalog. See docs/cli.md.
int run_default_job(CliContext& ctx) {
  static const char* const kArgs[] = {"gpuplan",    "train", "--model",  "llama3.1-70b", "--gpu",     "h100-sxm",
                                      "--gpus",     "64",    "--tp",     "8",            "--pp",      "2",
                                      "--sp",       "--zero", "1",       "--global-batch", "256",    "--seq-len",
                                      "8192",       "--recompute", "selective"};
  ctx.out << "gpuplan: the default question: how fast does Llama 3.1 70B train on 64 H100s (8 DGX H100),\n"
             "with 8,192-token sequences and 256 sequences per step, and does it fit?\n"
             "(try 'gpuplan --help' for every command)\n\n";
  const int argc = static_cast<int>(sizeof(kArgs) / sizeof(kArgs[0]));
  return run_cli(argc, kArgs, ctx.out, ctx.err);
}

bool is_command(std::string_view word) {
  for (const CommandRow& row : command_table()) {
    if (word == row.name) return true;
  }
  return false;
}

// Where the command word is in argv (-1: none): the first word that is neither an option nor
// the value of the one global option that takes values (--catalog PATH...).
int command_index(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--catalog") {
      // CLI11 lets --catalog take several paths: skip the first value, then every existing path.
      std::error_code ec;
      for (++i; i + 1 < args.size() && !is_command(args[i + 1]) && !args[i + 1].starts_with("-") &&
                std::filesystem::exists(args[i + 1], ec);) {
        ++i;
      }
      continue;
    }
    if (!args[i].starts_with("-")) return static_cast<int>(i);
  }
  return -1;
}

// How an error leaves the program. With --json anywhere on the command line, every error is one
// JSON object on stdout, {"error": {"message": ..., "exit_code": N}}, and nothing goes to
// stderr, so a tool reading stdout always gets JSON (docs/cli.md, "Errors"). Without it: one
// line on stderr, as before.
class ErrorPrinter {
 public:
  ErrorPrinter(bool json, std::ostream& out, std::ostream& err) : json_(json), out_(out), err_(err) {}
  // `prefix` and `hint` are for the text form only ("gpuplan: error: ", a usage line).
  int fail(int exit_code, const std::string& prefix, const std::string& message, const std::string& hint = "") {
    if (json_) {
      nlohmann::ordered_json j;
      j["error"] = {{"message", message}, {"exit_code", exit_code}};
      // replace: a last guard; arguments and files are checked for UTF-8 before this.
      out_ << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    } else {
      err_ << prefix << message << "\n" << hint;
    }
    return exit_code;
  }

 private:
  bool json_;
  std::ostream& out_;
  std::ostream& err_;
};

// "unknown command 'trian'; did you mean train?", or the list of commands when nothing is close.
std::string unknown_command_message(const std::string& word, const std::vector<std::string>& names) {
  const std::vector<std::string> near = close_names(word, names);
  if (!near.empty()) return fmt::format("unknown command '{}'; did you mean {}?", word, join(near, ", "));
  return fmt::format("unknown command '{}'; the commands are: {}", word, join(names, ", "));
}

constexpr const char* kUsageHint = "run 'gpuplan --help' (or 'gpuplan COMMAND --help') for usage\n";

}  // namespace

namespace {

int run_cli_on(std::vector<std::string> args, std::ostream& out, std::ostream& err, const Catalog* shared_catalog) {
  const int argc = static_cast<int>(args.size());
  const bool json = std::find(args.begin() + std::min<std::ptrdiff_t>(1, argc), args.end(), "--json") != args.end();
  ErrorPrinter errors(json, out, err);

  // Every argument must be UTF-8 before anything echoes it (a JSON answer or error cannot hold
  // other bytes): name the argument, the option it belongs to and the byte offset.
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto at = first_invalid_utf8(args[i]);
    if (!at) continue;
    const std::string option =
        args[i].starts_with("-") ? " (an option name)"
        : i > 1 && args[i - 1].starts_with("-") && !first_invalid_utf8(args[i - 1])
            ? fmt::format(" (the value of {})", args[i - 1])
            : "";
    return errors.fail(2, "gpuplan: error: ",
                       fmt::format("argument {}{}: byte offset {} (0x{:02X}) is not UTF-8; give UTF-8 text", i, option,
                                   *at, static_cast<unsigned>(static_cast<unsigned char>(args[i][*at]))));
  }
  // An empty value ("--gpus ''", "--gpus=") is never a value: CLI11 would read it as the
  // option's default or as 0. Leaving the option out is how to ask for the default.
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool empty_after_flag = a.empty() && i > 1 && args[i - 1].starts_with("--") &&
                                  args[i - 1].find('=') == std::string::npos;
    const bool empty_after_equals = a.starts_with("--") && a.size() > 3 && a.back() == '=';
    if (!empty_after_flag && !empty_after_equals) continue;
    const std::string flag = empty_after_flag ? args[i - 1] : a.substr(0, a.size() - 1);
    return errors.fail(2, "gpuplan: error: ",
                       fmt::format("{} '': an empty value; give a value, or leave {} out for its default", flag, flag));
  }

  // The command word is checked before CLI11 sees it, so a typo gets a suggestion ("unknown
  // command 'trian'; did you mean train?") instead of "arguments were not expected".
  // `gpuplan help [COMMAND...]` is `gpuplan [COMMAND...] --help`.
  if (const int at = command_index(args); at > 0) {
    if (args[at] == "help") {
      args.erase(args.begin() + at);
      args.emplace_back("--help");
      const int next = command_index(args);
      if (next > 0 && !is_command(args[next])) {
        std::vector<std::string> names;
        for (const CommandRow& row : command_table()) names.emplace_back(row.name);
        return errors.fail(2, "gpuplan: error: ",
                           unknown_command_message(args[next], names), kUsageHint);
      }
    } else if (!is_command(args[at])) {
      std::vector<std::string> names{"help"};
      for (const CommandRow& row : command_table()) names.emplace_back(row.name);
      return errors.fail(2, "gpuplan: error: ", unknown_command_message(args[at], names), kUsageHint);
    }
  }
  // --json before the command word ("gpuplan --json gpus") belongs to the command: move it there.
  if (const int at = command_index(args); json && at > 0) {
    const auto before = std::remove(args.begin() + 1, args.begin() + at, std::string("--json"));
    if (before != args.begin() + at) {
      args.erase(before, args.begin() + at);
      args.emplace_back("--json");
    }
  }
  std::vector<const char*> arg_ptrs;
  for (const std::string& a : args) arg_ptrs.push_back(a.c_str());

  // Under --json the answer is held back until the command has finished, so a step that fails
  // after the answer was printed (a report that cannot be written) leaves exactly one JSON
  // object on stdout: the error. monitor and serve stream, and keep writing as they go.
  const int command_at = command_index(args);
  const bool streams = command_at > 0 && (args[command_at] == "monitor" || args[command_at] == "serve");
  std::ostringstream held;
  const bool hold = json && !streams;
  CliContext ctx(hold ? held : out, err);
  ctx.shared_catalog = shared_catalog;
  CLI::App app{"gpuplan: which GPU, how many, how to split the model, how fast, will it fit, what it costs"};
  app.set_version_flag("--version", "gpuplan 0.1.0");
  app.add_option("--catalog", ctx.catalog_paths,
                 "Extra catalog file or directory of *.toml (repeatable); entries with an existing id replace it")
      ->check(CLI::ExistingPath);
  app.add_flag("--no-builtin", ctx.no_embedded, "Start from an empty catalog instead of the built-in data");
  app.require_subcommand(0, 1);
  app.footer("'gpuplan help COMMAND' (or 'gpuplan COMMAND --help') shows one command's options.\n"
             "With --json, errors too are one JSON object on stdout: {\"error\": {\"message\", \"exit_code\"}}.");
  // Every command is there by name and help line (what `gpuplan --help` lists); only the one
  // named on the command line sets up its options: all of them cost ~6 M instructions, most of
  // a simple answer's start.
  const std::string_view named = command_at > 0 ? std::string_view(args[static_cast<std::size_t>(command_at)]) : "";
  std::deque<CliCommand> commands;  // the commands' parsers, alive until the parse has run
  for (const CommandRow& row : command_table()) {
    CliCommand& sub = commands.emplace_back(app.add_subcommand(row.name, row.help));
    if (row.name == named) row.setup(sub, ctx);
  }
  try {
    try {
      app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion&) {
      out << app.version() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      return errors.fail(2, "gpuplan: error: ", e.what(), kUsageHint);
    }
    if (app.get_subcommands().empty()) {
      const int code = run_default_job(ctx);
      if (hold) out << held.str();
      return code;
    }
  } catch (const NvmlUnavailable& e) {
    // No NVIDIA driver: a distinct exit code so scripts can tell "no GPU" from bad input.
    return errors.fail(NvmlUnavailable::kExitCode, "gpuplan: ", e.what());
  } catch (const Error& e) {
    return errors.fail(2, "gpuplan: error: ", e.what());
  } catch (const std::exception& e) {
    return errors.fail(1, "gpuplan: internal error: ", e.what());
  }
  if (hold) out << held.str();
  return 0;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return run_cli_on(std::vector<std::string>(argv, argv + argc), out, err, nullptr);
}

int run_cli_with_catalog(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                         const Catalog& catalog) {
  return run_cli_on(args, out, err, &catalog);
}

}  // namespace gpuplan
