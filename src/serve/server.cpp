// The one translation unit that includes cpp-httplib.
#include "serve/server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
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

// A total deadline per request (issue 34). cpp-httplib 0.11 times each read on its own, so a
// client sending a header line a second keeps its worker for as long as it likes. This
// watchdog finds the server's accepted sockets (in /proc/self/fd: sockets whose local port is
// the server's), times each from the moment it is seen or its last answer was written, stops
// the clock while a handler runs (the request has been read by then), and past the deadline
// writes 408 with a JSON body and shuts the socket down, which ends the worker's read.
class RequestDeadlines {
 public:
  explicit RequestDeadlines(double deadline_s) : deadline_(deadline_s) {}

  // The server's port, once bound (0 asks for any free one): until then nothing is swept.
  void set_port(int port) { port_ = port; }

  // The request has been read and a handler runs: its time is not the client's.
  void handling(const httplib::Request& req) { mark(req, true); }
  // The answer was written: the connection's next request starts its clock now.
  void answered(const httplib::Request& req) { mark(req, false); }

  // One look at every accepted connection; called every 50 ms by the watchdog thread.
  void sweep() {
    if (port_ <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    std::map<std::string, Conn> seen;
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    while (const dirent* e = ::readdir(dir)) {
      char* end = nullptr;
      const long fd = std::strtol(e->d_name, &end, 10);
      if (end == e->d_name || *end != '\0' || fd == ::dirfd(dir)) continue;
      const auto peer = accepted_peer(static_cast<int>(fd));
      if (!peer) continue;
      struct stat st {};
      if (::fstat(static_cast<int>(fd), &st) != 0) continue;
      const auto it = conns_.find(*peer);
      Conn c = it != conns_.end() && it->second.ino == st.st_ino ? it->second : Conn{st.st_ino, now, false, false};
      if (!c.handling && !c.cut && now - c.since > deadline_) {
        cut(static_cast<int>(fd));
        c.cut = true;
      }
      seen[*peer] = c;
    }
    ::closedir(dir);
    conns_ = std::move(seen);
  }

 private:
  struct Conn {
    ino_t ino = 0;
    std::chrono::steady_clock::time_point since;
    bool handling = false;
    bool cut = false;
  };

  static std::string peer_key(const std::string& addr, int port) { return addr + "|" + std::to_string(port); }

  void mark(const httplib::Request& req, bool handling) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = conns_.find(peer_key(req.remote_addr, req.remote_port));
    if (it == conns_.end()) return;  // not seen by a sweep yet: its clock starts then
    it->second.handling = handling;
    it->second.since = std::chrono::steady_clock::now();
  }

  // "addr|port" of the client when `fd` is a connection accepted on the server's port.
  std::optional<std::string> accepted_peer(int fd) const {
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return std::nullopt;
    if (local_port(local) != port_) return std::nullopt;
    int listening = 0;
    socklen_t olen = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &olen) != 0 || listening != 0) return std::nullopt;
    sockaddr_storage peer{};
    len = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return std::nullopt;
    char text[INET6_ADDRSTRLEN] = {};
    int port = 0;
    if (peer.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&peer);
      ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
      port = ntohs(a->sin_port);
    } else if (peer.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&peer);
      ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
      port = ntohs(a->sin6_port);
    } else {
      return std::nullopt;
    }
    return peer_key(text, port);
  }

  static int local_port(const sockaddr_storage& s) {
    if (s.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&s)->sin_port);
    if (s.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&s)->sin6_port);
    return -1;
  }

  void cut(int fd) const {
    const std::string body = api_error_body(
        fmt::format("request not received within {:g} s (headers and body together); send it at once", deadline_.count()),
        2);
    const std::string head = fmt::format(
        "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: "
        "close\r\n\r\n",
        body.size());
    const std::string reply = head + body;
    // Non-blocking: a client that reads nothing gets what fits in the socket buffer, no more.
    (void)!::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_RDWR);
  }

  std::atomic<int> port_{0};
  std::chrono::duration<double> deadline_;
  std::mutex mu_;
  std::map<std::string, Conn> conns_;
};

}  // namespace

void run_server(const ServeOptions& options, const ApiRunner& runner, const Catalog& catalog, std::ostream& log,
                const std::function<void(int port)>& on_listening, const std::function<bool()>& stop) {
  check_serve_options(options);
  const WebAssets& assets = web_assets();
  if (!assets.built) throw Error(web_assets_missing_message());

  httplib::Server server;
  const int threads = options.threads;
  // The listening socket, to raise its backlog once bound (cpp-httplib's is 5).
  std::atomic<int> listen_fd{-1};
  server.set_socket_options([&listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd = sock;
  });
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  server.set_payload_max_length(options.max_body_bytes);
  server.set_read_timeout(options.io_timeout_s, 0);
  server.set_write_timeout(options.io_timeout_s, 0);
  server.set_keep_alive_max_count(100);
  server.set_keep_alive_timeout(options.keep_alive_timeout_s);
  server.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                              {"Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'"}});

  RequestDeadlines deadlines(options.request_deadline_s);
  auto add_page = [&server, &deadlines](const char* path, std::string_view body, const char* type) {
    server.Get(path, [body, type, &deadlines](const httplib::Request& req, httplib::Response& res) {
      deadlines.handling(req);
      res.set_header("Cache-Control", "no-cache");
      res.set_content(body.data(), body.size(), type);
    });
  };
  add_page("/", assets.index_html, "text/html; charset=utf-8");
  add_page("/index.html", assets.index_html, "text/html; charset=utf-8");
  add_page("/app.js", assets.app_js, "text/javascript; charset=utf-8");
  add_page("/style.css", assets.style_css, "text/css; charset=utf-8");

  auto handle = [&runner, &catalog, &deadlines](const httplib::Request& req, httplib::Response& res) {
    deadlines.handling(req);
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
  // Every error a JSON body: cpp-httplib's own (413 over the body limit, whatever the content
  // type; 400 for a malformed request; 414 for a long URI) as well as the API's.
  const std::size_t limit_bytes = options.max_body_bytes;
  server.set_error_handler([limit_bytes](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // the API's own JSON error
    std::string message;
    if (res.status == 413) {
      message = fmt::format("request body too large (the limit is {} bytes, {:g} MiB)", limit_bytes,
                            static_cast<double>(limit_bytes) / (1 << 20));
    } else if (res.status == 404) {
      message = fmt::format("not found: {}", req.path.substr(0, 100));
    } else {
      message = fmt::format("HTTP {}: the request could not be read (malformed, or a header or URI too long)",
                            res.status);
    }
    res.set_content(api_error_body(message, 2), "application/json");
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(api_error_body("internal error", 1), "application/json");
  });
  // The API reads JSON. A form-encoded body (curl -d's default type) over 8 KiB would meet
  // cpp-httplib's own limit for that content type, compiled into Debian's library and refused as
  // if over the 1 MiB limit: say what to send instead, before the body is read.
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    constexpr std::size_t kFormLimitBytes = 8192;  // CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH
    if (req.method == "POST" && req.get_header_value("Content-Type").starts_with("application/x-www-form-urlencoded") &&
        std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) > kFormLimitBytes) {
      res.status = 415;
      res.set_header("Connection", "close");  // the unread body must not be parsed as a next request
      res.set_content(api_error_body("a form-encoded body is limited to 8 KiB by the HTTP library; the API reads "
                                     "JSON: send Content-Type: application/json (up to 1 MiB)",
                                     2),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_logger([&deadlines](const httplib::Request& req, const httplib::Response&) { deadlines.answered(req); });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host.c_str());
    if (port < 0) throw Error(fmt::format("--host {}: cannot bind to any port", options.host));
  } else if (!server.bind_to_port(options.host.c_str(), port)) {
    throw Error(fmt::format("--host {} --port {}: cannot bind (in use, or not an address of this machine); "
                            "try another --port",
                            options.host, port));
  }
  if (listen_fd >= 0) ::listen(listen_fd, options.listen_backlog);  // Linux: a second listen() resizes the queue
  deadlines.set_port(port);
  log << fmt::format("gpuplan serve: http://{}:{}/ ({} worker threads; Ctrl-C stops)\n",
                     options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host, port,
                     threads)
      << std::flush;
  if (on_listening) on_listening(port);

  g_serve_signalled = false;
  auto old_int = std::signal(SIGINT, gpuplan_serve_on_signal);
  auto old_term = std::signal(SIGTERM, gpuplan_serve_on_signal);
  std::thread watcher([&server, &stop, &deadlines] {
    while (!g_serve_signalled && !(stop && stop())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      deadlines.sweep();
    }
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
