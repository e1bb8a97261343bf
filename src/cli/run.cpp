// The one translation unit that includes CLI11: the parser's face for the commands
// (cli/args.h) and the top-level parse.
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
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
GPUPLAN_CLI_TARGET(long long)
GPUPLAN_CLI_TARGET(std::optional<int>)
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

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CliContext ctx(out, err);
  CLI::App app{"gpuplan: which GPU, how many, how to split the model, how fast, will it fit, what it costs"};
  app.set_version_flag("--version", "gpuplan 0.1.0");
  app.add_option("--catalog", ctx.catalog_paths,
                 "Extra catalog file or directory of *.toml (repeatable); entries with an existing id replace it")
      ->check(CLI::ExistingPath);
  app.add_flag("--no-builtin", ctx.no_embedded, "Start from an empty catalog instead of the built-in data");
  app.require_subcommand(0, 1);
  std::deque<CliCommand> commands;  // the commands' parsers, alive until the parse has run
  for (const CommandRow& row : command_table()) {
    CliCommand& sub = commands.emplace_back(app.add_subcommand(row.name, row.help));
    row.setup(sub, ctx);
  }
  try {
    try {
      app.parse(argc, argv);
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
      err << "gpuplan: error: " << e.what() << "\n"
          << "run 'gpuplan --help' (or 'gpuplan COMMAND --help') for usage\n";
      return 2;
    }
    if (app.get_subcommands().empty()) return run_default_job(ctx);
  } catch (const NvmlUnavailable& e) {
    // No NVIDIA driver: a distinct exit code so scripts can tell "no GPU" from bad input.
    err << "gpuplan: " << e.what() << "\n";
    return NvmlUnavailable::kExitCode;
  } catch (const Error& e) {
    err << "gpuplan: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "gpuplan: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace gpuplan
