// The entry points of gpuplan-serve.so (serve/server_plugin_entry.h): the plugin is linked with
// -Bsymbolic, so the functions called here are the plugin's own (server.cpp, over cpp-httplib),
// not the binary's loaders of the same names (server_plugin.cpp).
#include "serve/server_plugin_entry.h"

extern "C" __attribute__((visibility("default"))) void gpuplan_serve_plugin_check(const gpuplan::ServeOptions& o) {
  gpuplan::check_serve_options(o);
}

extern "C" __attribute__((visibility("default"))) void gpuplan_serve_plugin_run(
    const gpuplan::ServeOptions& options, const gpuplan::ApiRunner& runner, const gpuplan::Catalog& catalog,
    std::ostream& log, const std::function<void(int port)>& on_listening, const std::function<bool()>& stop) {
  gpuplan::run_server(options, runner, catalog, log, on_listening, stop);
}
