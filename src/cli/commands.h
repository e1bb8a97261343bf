// The table of subcommands: one row per command, each set up by a function in its own file.
#pragma once

#include "cli/args.h"

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace gpuplan {

class CliContext;
struct Catalog;

using CommandSetup = void (*)(CliCommand& command, CliContext& ctx);

struct CommandRow {
  const char* name;
  const char* help;
  CommandSetup setup;
};

std::span<const CommandRow> command_table();

// Runs the CLI as `main` would; returns the exit code (0 ok, 2 bad input, 1 internal error).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The same on words (args[0] is the program name) with a catalog loaded once by the caller and
// shared read-only (`gpuplan serve` runs one of these per API request, on several threads;
// each call has its own parser and context, so nothing mutable is shared).
// `gpuplan serve`'s runner (cmd_serve.cpp): one API call through the CLI; 200/400/500.
struct ApiCall;
struct ApiReply;
ApiReply run_api_call(const Catalog& catalog, const ApiCall& call);

int run_cli_with_catalog(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                         const Catalog& catalog);

// One setup function per command (defined in cmd_*.cpp).
void setup_gpus(CliCommand& command, CliContext& ctx);
void setup_gpu(CliCommand& command, CliContext& ctx);
void setup_compare(CliCommand& command, CliContext& ctx);
void setup_collective(CliCommand& command, CliContext& ctx);
void setup_validate(CliCommand& command, CliContext& ctx);
void setup_systems(CliCommand& command, CliContext& ctx);
void setup_system(CliCommand& command, CliContext& ctx);
void setup_import_topology(CliCommand& command, CliContext& ctx);
void setup_clouds(CliCommand& command, CliContext& ctx);
void setup_models(CliCommand& command, CliContext& ctx);
void setup_model(CliCommand& command, CliContext& ctx);
void setup_train(CliCommand& command, CliContext& ctx);
void setup_memory(CliCommand& command, CliContext& ctx);
void setup_rooflines(CliCommand& command, CliContext& ctx);
void setup_serve(CliCommand& command, CliContext& ctx);
void setup_infer(CliCommand& command, CliContext& ctx);
void setup_infer_search(CliCommand& command, CliContext& ctx);
void setup_cost(CliCommand& command, CliContext& ctx);
void setup_tco(CliCommand& command, CliContext& ctx);
void setup_energy(CliCommand& command, CliContext& ctx);
void setup_search(CliCommand& command, CliContext& ctx);
void setup_recommend(CliCommand& command, CliContext& ctx);
void setup_sweep(CliCommand& command, CliContext& ctx);
void setup_monitor(CliCommand& command, CliContext& ctx);
void setup_calibrate(CliCommand& command, CliContext& ctx);
// The `validate` sub-commands, each added to `validate` by cmd_validate.cpp.
void add_validate_collectives(CliCommand& validate, CliContext& ctx);
void add_validate_training(CliCommand& validate, CliContext& ctx);
void add_validate_inference(CliCommand& validate, CliContext& ctx);
void add_validate_calibration(CliCommand& validate, CliContext& ctx);

}  // namespace gpuplan
