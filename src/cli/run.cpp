#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"

namespace gpuplan {

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
    if (app.get_subcommands().empty()) {
      // The main job on the built-in defaults: see docs/cli.md ("gpuplan" with no command).
      out << app.help();
    }
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
