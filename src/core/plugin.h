// Plugins: the parts of gpuplan whose shared libraries only one command needs (Open MPI for
// `sweep` under mpirun, cpp-httplib with OpenSSL for `serve`) are shared objects beside the
// binary, opened when that command runs, so every other command starts without loading them
// (docs/performance.md, "Start-up"). A plugin resolves the gpuplan functions it calls against
// the binary, which exports its gpuplan:: symbols for them (src/plugin_exports.list).
#pragma once

#include <string>

namespace gpuplan {

// The path a plugin file has: beside the running binary (/proc/self/exe).
std::string plugin_path(const char* file);

// Whether the plugin file exists beside the binary.
bool plugin_present(const char* file);

// Opens the plugin `file` (once per process) and returns its extern "C" `symbol`; throws Error
// naming the path and the loader's message when either is missing.
void* plugin_symbol(const char* file, const char* symbol);

}  // namespace gpuplan
