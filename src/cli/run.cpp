#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "monitor/nvml_sampler.h"

namespace gpuplan {
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
  for (const CommandRow& row : command_table()) {
    CLI::App* sub = app.add_subcommand(row.name, row.help);
    row.setup(*sub, ctx);
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
