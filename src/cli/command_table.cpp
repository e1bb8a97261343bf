#include "cli/commands.h"

namespace gpuplan {

std::span<const CommandRow> command_table() {
  static const CommandRow rows[] = {
      {"gpus", "List the GPU catalog as a comparison table", setup_gpus},
      {"gpu", "One GPU with the figures derived from its datasheet", setup_gpu},
      {"compare", "Compare GPUs side by side, with ratios to the first", setup_compare},
  };
  return rows;
}

}  // namespace gpuplan
