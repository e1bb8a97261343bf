#include "core/plugin.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "core/error.h"

namespace gpuplan {

std::string plugin_path(const char* file) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return file;  // no /proc: the loader's own search (LD_LIBRARY_PATH)
  return (exe.parent_path() / file).string();
}

bool plugin_present(const char* file) {
  std::error_code ec;
  return std::filesystem::is_regular_file(plugin_path(file), ec);
}

void* plugin_symbol(const char* file, const char* symbol) {
  // dlopen counts references and returns the same handle for the same file; the mutex only
  // keeps dlerror() paired with its own call.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string path = plugin_path(file);
  // RTLD_GLOBAL: Open MPI's own components (dlopened by libmpi) look for libmpi's symbols in
  // the global scope. RTLD_NOW: a missing symbol is an error here, not a crash mid-command.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(fmt::format("cannot load the plugin {}: {} (it is built beside the gpuplan binary; rebuild, or "
                            "keep the two files together)",
                            path, why ? why : "unknown error"));
  }
  void* fn = dlsym(handle, symbol);
  if (!fn) throw Error(fmt::format("the plugin {} lacks {}: it is from another gpuplan build; rebuild", path, symbol));
  return fn;
}

}  // namespace gpuplan
