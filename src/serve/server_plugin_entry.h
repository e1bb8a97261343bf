// The entry points of the server plugin (gpuplan-serve.so): server_plugin.cpp in the binary
// finds them by name, server_plugin_entry.cpp in the plugin defines them.
#pragma once

#include <functional>
#include <ostream>

#include "serve/server.h"

namespace gpuplan {

inline constexpr const char* kServePluginFile = "gpuplan-serve.so";
inline constexpr const char* kServePluginCheckSymbol = "gpuplan_serve_plugin_check";
inline constexpr const char* kServePluginRunSymbol = "gpuplan_serve_plugin_run";

// check_serve_options() and run_server() of the plugin.
using ServePluginCheckFn = void (*)(const ServeOptions&);
using ServePluginRunFn = void (*)(const ServeOptions&, const ApiRunner&, const Catalog&, std::ostream&,
                                  const std::function<void(int port)>&, const std::function<bool()>&);

}  // namespace gpuplan
