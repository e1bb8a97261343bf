// The default data files (data/), compiled into the binary by cmake/embed_data.cmake.
#pragma once

#include <span>

namespace gpuplan {

struct EmbeddedFile {
  const char* path;     // relative to data/, e.g. "hardware/gpus/h100-sxm.toml"
  const char* content;  // the file's text
  // The file's top-level kind, id, aliases (each followed by '\n') and gpu (a system's GPU), as
  // the build read them: the index a lookup uses before parsing (catalog/catalog_table.h).
  const char* kind;
  const char* id;
  const char* aliases;
  const char* gpu;
};

std::span<const EmbeddedFile> embedded_data_files();

}  // namespace gpuplan
