// `gpuplan serve`: the web UI and the JSON API over HTTP (cpp-httplib, from Debian's
// libcpp-httplib-dev). Loopback by default; a request body of at most max_body_bytes; read,
// write and per-call time limits; a fixed pool of worker threads; no state shared between
// requests except the read-only catalog inside the runner. The page and its script are the
// embedded front-end assets (report/web_assets.h).
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

#include "serve/api.h"

namespace gpuplan {

struct ServeOptions {
  std::string host = "127.0.0.1";  // --host: anything else must be asked for
  int port = 8080;                 // 0: any free port (printed at start)
  // Worker threads. cpp-httplib gives a kept-alive connection its worker until the connection
  // idles out (keep_alive_timeout_s), and a browser opens up to 6 connections per host: fewer
  // workers than connections leaves some waiting.
  // 32: slow clients (a header line a second) hold a worker each until request_deadline_s cuts
  // them off; the others keep answering (tests/serve/serve_load.py).
  int threads = 32;
  int keep_alive_timeout_s = 2;
  std::size_t max_body_bytes = 1 << 20;  // 1 MiB: a config.json is a few kB
  int io_timeout_s = 10;           // one read or write of the request or the answer
  // Reading one request, headers and body, in all: not reset by each read (cpp-httplib's own
  // read timeout is), so a client trickling bytes cannot hold a worker for longer. The answer's
  // computing time is not counted. Past it the client gets 408 with a JSON body.
  double request_deadline_s = 5;
  int listen_backlog = 1024;       // cpp-httplib's is 5: bursts of connections wait, not fail
};

// True when the server was built (cpp-httplib found at configure time).
bool serve_available();

// Binds, prints "gpuplan serve: http://HOST:PORT/" to `log` and answers until `stop` returns
// true (polled twice a second; an empty function: until the process ends) or the process gets
// SIGINT/SIGTERM. Throws Error when the address cannot be bound or the server was built without
// cpp-httplib. `on_listening(port)` runs once the socket is bound (the tests use it).
void run_server(const ServeOptions& options, const ApiRunner& runner, const Catalog& catalog, std::ostream& log,
                const std::function<void(int port)>& on_listening = {},
                const std::function<bool()>& stop = {});

// Checks --port, --threads and --host; throws Error naming the flag.
void check_serve_options(const ServeOptions& options);

}  // namespace gpuplan
