// gpuplan serve [--port N] [--host ADDR] [--threads N]: the web UI and JSON API
// (serve/server.h). Each API call runs the CLI itself on the words serve/api.h built from the
// request body, with --json, on the catalog loaded once here: the same flag parsing, the same
// library call, the same report, so /api/train answers exactly what `gpuplan train --json`
// prints and a bad request gets the CLI's message (HTTP 400).
#include <sstream>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "report/web_assets.h"
#include "serve/server.h"

namespace gpuplan {

namespace {

// Exit code → HTTP status: 0 → 200, 2 (bad input) → 400, anything else → 500.
int http_status_of(int exit_code) { return exit_code == 0 ? 200 : exit_code == 2 ? 400 : 500; }

}  // namespace

ApiReply run_api_call(const Catalog& catalog, const ApiCall& call) {
  std::vector<std::string> args{"gpuplan", call.command};
  args.insert(args.end(), call.args.begin(), call.args.end());
  args.emplace_back("--json");
  std::ostringstream out;
  std::ostringstream err;
  int code = 0;
  if (call.uploaded_model) {
    // This call's own copy of the catalog with the uploaded model in it; the shared one stays
    // untouched (no state shared between requests).
    Catalog with_upload = catalog;
    with_upload.models.push_back(*call.uploaded_model);
    code = run_cli_with_catalog(args, out, err, with_upload);
  } else {
    code = run_cli_with_catalog(args, out, err, catalog);
  }
  return {http_status_of(code), out.str()};
}

void setup_serve(CliCommand& cmd, CliContext& ctx) {
  auto options = std::make_shared<ServeOptions>();
  cmd.add_option("--port", options->port, "TCP port (0: any free port)")->capture_default_str();
  cmd.add_option("--host", options->host,
                 "Address to listen on: 127.0.0.1 (default, this machine only); 0.0.0.0 opens it to the network")
      ->capture_default_str();
  cmd.add_option("--threads", options->threads, "Worker threads answering requests")->capture_default_str();
  cmd.callback([options, &ctx] {
    // What is missing from this build first, so a probe with a bad --port tells it apart.
    if (!serve_available()) {
      throw Error("this gpuplan was built without cpp-httplib, which `gpuplan serve` needs: install "
                  "libcpp-httplib-dev (scripts/install-deps.sh) and rebuild");
    }
    if (!web_assets().built) throw Error(web_assets_missing_message());
    check_serve_options(*options);
    const Catalog& catalog = ctx.catalog();
    ApiRunner runner = [&catalog](const ApiCall& call) { return run_api_call(catalog, call); };
    if (options->host != "127.0.0.1" && options->host != "localhost" && options->host != "::1") {
      ctx.err << fmt::format("gpuplan serve: listening on {}, not loopback: anyone who can reach this machine "
                             "can use the UI (no authentication)\n",
                             options->host);
    }
    run_server(*options, runner, catalog, ctx.out);
  });
}

}  // namespace gpuplan
