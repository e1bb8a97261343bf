// The default data files (data/), compiled into the binary by cmake/embed_data.cmake.
#pragma once

#include <span>

namespace gpuplan {

struct EmbeddedFile {
  const char* path;     // relative to data/, e.g. "hardware/gpus/h100-sxm.toml"
  const char* content;  // the file's text
};

std::span<const EmbeddedFile> embedded_data_files();

}  // namespace gpuplan
