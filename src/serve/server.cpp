// The one translation unit that includes cpp-httplib.
#include "serve/server.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "report/web_assets.h"

#if GPUPLAN_WITH_HTTPLIB
#include <httplib.h>
#endif

namespace gpuplan {

void check_serve_options(const ServeOptions& o) {
  if (o.port < 0 || o.port > 65535) throw Error(fmt::format("--port {}: expected 0 to 65535 (0: any free port)", o.port));
  if (o.threads < 1 || o.threads > 256) throw Error(fmt::format("--threads {}: expected 1 to 256", o.threads));
  if (o.host.empty()) throw Error("--host: expected an address, e.g. 127.0.0.1 (the default) or 0.0.0.0 (every interface)");
}

#if GPUPLAN_WITH_HTTPLIB

bool serve_available() { return true; }

namespace {

std::atomic<bool> g_serve_signalled{false};
extern "C" void gpuplan_serve_on_signal(int) { g_serve_signalled = true; }

void reply(httplib::Response& res, const ApiReply& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type.c_str());
}

void add_static(httplib::Server& server, const char* path, std::string_view body, const char* type) {
  server.Get(path, [body, type](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_content(body.data(), body.size(), type);
  });
}

}  // namespace

void run_server(const ServeOptions& options, const ApiRunner& runner, const Catalog& catalog, std::ostream& log,
                const std::function<void(int port)>& on_listening, const std::function<bool()>& stop) {
  check_serve_options(options);
  const WebAssets& assets = web_assets();
  if (!assets.built) throw Error(web_assets_missing_message());

  httplib::Server server;
  const int threads = options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  server.set_payload_max_length(options.max_body_bytes);
  server.set_read_timeout(options.io_timeout_s, 0);
  server.set_write_timeout(options.io_timeout_s, 0);
  server.set_keep_alive_max_count(100);
  server.set_keep_alive_timeout(options.keep_alive_timeout_s);
  server.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                              {"Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'"}});

  add_static(server, "/", assets.index_html, "text/html; charset=utf-8");
  add_static(server, "/index.html", assets.index_html, "text/html; charset=utf-8");
  add_static(server, "/app.js", assets.app_js, "text/javascript; charset=utf-8");
  add_static(server, "/style.css", assets.style_css, "text/css; charset=utf-8");

  auto handle = [&runner, &catalog](const httplib::Request& req, httplib::Response& res) {
    const ApiEndpoint endpoint = api_endpoint(req.path);
    if (endpoint.command.empty()) {
      reply(res, {404, api_error_body(fmt::format("no endpoint {}; the API is {}", req.path.substr(0, 100),
                                                  join(api_paths(), ", ")),
                                      2)});
      return;
    }
    if (endpoint.takes_body != (req.method == "POST")) {
      reply(res, {405, api_error_body(fmt::format("{} takes {}", req.path, endpoint.takes_body ? "POST with a JSON body" : "GET"), 2)});
      return;
    }
    reply(res, api_answer(catalog, endpoint, req.body, runner));
  };
  server.Get(R"(/api/.*)", handle);
  server.Post(R"(/api/.*)", handle);
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 413) {
      res.set_content(api_error_body("request body too large (the limit is 1 MiB)", 2), "application/json");
    } else if (res.status == 404) {
      res.set_content(api_error_body(fmt::format("not found: {}", req.path.substr(0, 100)), 2), "application/json");
    }
  });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host.c_str());
    if (port < 0) throw Error(fmt::format("--host {}: cannot bind to any port", options.host));
  } else if (!server.bind_to_port(options.host.c_str(), port)) {
    throw Error(fmt::format("--host {} --port {}: cannot bind (in use, or not an address of this machine); "
                            "try another --port",
                            options.host, port));
  }
  log << fmt::format("gpuplan serve: http://{}:{}/ ({} worker threads; Ctrl-C stops)\n",
                     options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host, port,
                     threads)
      << std::flush;
  if (on_listening) on_listening(port);

  g_serve_signalled = false;
  auto old_int = std::signal(SIGINT, gpuplan_serve_on_signal);
  auto old_term = std::signal(SIGTERM, gpuplan_serve_on_signal);
  std::thread watcher([&server, &stop] {
    while (!g_serve_signalled && !(stop && stop())) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    server.stop();
  });
  server.listen_after_bind();
  g_serve_signalled = true;
  watcher.join();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
}

#else

bool serve_available() { return false; }

void run_server(const ServeOptions&, const ApiRunner&, const Catalog&, std::ostream&, const std::function<void(int)>&,
                const std::function<bool()>&) {
  throw Error("this gpuplan was built without cpp-httplib, which `gpuplan serve` needs: install libcpp-httplib-dev "
              "(scripts/install-deps.sh) and rebuild");
}

#endif

}  // namespace gpuplan
