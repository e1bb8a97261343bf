// The table of subcommands: one row per command, each set up by a function in its own file.
#pragma once

#include <iosfwd>
#include <span>

namespace CLI {
class App;
}

namespace gpuplan {

class CliContext;

using CommandSetup = void (*)(CLI::App& command, CliContext& ctx);

struct CommandRow {
  const char* name;
  const char* help;
  CommandSetup setup;
};

std::span<const CommandRow> command_table();

// Runs the CLI as `main` would; returns the exit code (0 ok, 2 bad input, 1 internal error).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// One setup function per command (defined in cmd_*.cpp).
void setup_gpus(CLI::App& command, CliContext& ctx);
void setup_gpu(CLI::App& command, CliContext& ctx);
void setup_compare(CLI::App& command, CliContext& ctx);
void setup_collective(CLI::App& command, CliContext& ctx);
void setup_validate(CLI::App& command, CliContext& ctx);
void setup_systems(CLI::App& command, CliContext& ctx);
void setup_system(CLI::App& command, CliContext& ctx);
void setup_clouds(CLI::App& command, CliContext& ctx);
void setup_models(CLI::App& command, CliContext& ctx);
void setup_model(CLI::App& command, CliContext& ctx);
void setup_train(CLI::App& command, CliContext& ctx);
void setup_memory(CLI::App& command, CliContext& ctx);
void setup_rooflines(CLI::App& command, CliContext& ctx);
void setup_infer(CLI::App& command, CliContext& ctx);
void setup_infer_search(CLI::App& command, CliContext& ctx);
void setup_cost(CLI::App& command, CliContext& ctx);
void setup_tco(CLI::App& command, CliContext& ctx);
void setup_energy(CLI::App& command, CliContext& ctx);
void setup_search(CLI::App& command, CliContext& ctx);
void setup_recommend(CLI::App& command, CliContext& ctx);
void setup_sweep(CLI::App& command, CliContext& ctx);
void setup_monitor(CLI::App& command, CliContext& ctx);
// `validate training` (cmd_validate_training.cpp), added to `validate` by cmd_validate.cpp.
void add_validate_training(CLI::App& validate, CliContext& ctx);
// `validate inference` (cmd_validate_inference.cpp).
void add_validate_inference(CLI::App& validate, CliContext& ctx);
void add_validate_calibration(CLI::App& validate, CliContext& ctx);

}  // namespace gpuplan
