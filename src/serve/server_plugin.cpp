// The binary's side of `gpuplan serve`: the server itself (server.cpp, over cpp-httplib, which
// Debian builds with OpenSSL, zlib and Brotli) is the plugin gpuplan-serve.so beside the binary
// (src/CMakeLists.txt), so the other commands start without loading those libraries
// (docs/performance.md, "Start-up"). These are server.h's functions, forwarded to the plugin.
#include <fmt/format.h>

#include "core/error.h"
#include "core/plugin.h"
#include "serve/server.h"
#include "serve/server_plugin_entry.h"

namespace gpuplan {

bool serve_available() { return GPUPLAN_WITH_HTTPLIB && plugin_present(kServePluginFile); }

void check_serve_options(const ServeOptions& options) {
  if (!serve_available()) {
    throw Error(fmt::format("`gpuplan serve` needs {} beside the binary, built where cpp-httplib is found: install "
                            "libcpp-httplib-dev (scripts/install-deps.sh) and rebuild",
                            plugin_path(kServePluginFile)));
  }
  reinterpret_cast<ServePluginCheckFn>(plugin_symbol(kServePluginFile, kServePluginCheckSymbol))(options);
}

void run_server(const ServeOptions& options, const ApiRunner& runner, const Catalog& catalog, std::ostream& log,
                const std::function<void(int port)>& on_listening, const std::function<bool()>& stop) {
  check_serve_options(options);
  reinterpret_cast<ServePluginRunFn>(plugin_symbol(kServePluginFile, kServePluginRunSymbol))(
      options, runner, catalog, log, on_listening, stop);
}

}  // namespace gpuplan
