// `gpuplan serve`'s JSON API, the part that needs no sockets: a request body (a JSON object
// whose keys are the command's flags, seq_len for --seq-len) becomes the command's words, the
// ones the CLI parses into its request struct. The server never builds a request struct of its
// own: the CLI's flag parsing (cli/) is the one mapping, and the answer is the one `gpuplan
// COMMAND --json` prints, byte for byte. Safety lives here: only the commands below, only the
// keys each command lists (an allowlist), none that takes a file-system path (--calibration,
// --catalog, --from, --html), a model only as a zoo id or an uploaded config.json (parsed in
// memory by the same strict reader as `--model config.json`).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan {

// One API request as the CLI will run it: `gpuplan COMMAND ARGS... --json`.
struct ApiCall {
  std::string command;             // "train"
  std::vector<std::string> args;   // "--model=llama3.1-8b", "--tp=8", "--sp", ...
  // From "model_config" (a Hugging Face config.json object): the model the call names as
  // kUploadedModelId, checked, to be added to a copy of the catalog for this call only.
  std::shared_ptr<const ModelSpec> uploaded_model;
};

inline constexpr const char* kUploadedModelId = "uploaded-config";

struct ApiReply {
  int status = 200;   // 200, 400 (bad input: the CLI's message), 404, 413, 500
  std::string body;   // JSON
  std::string content_type = "application/json";
};

// Runs an ApiCall (cli/cmd_serve.cpp: the CLI on a shared catalog). Must be safe to call from
// several threads at once.
using ApiRunner = std::function<ApiReply(const ApiCall&)>;

// The endpoint → command table: "train" for /api/train, and for /api/report/train the same
// command with --report-data (the charts' data). Empty when the endpoint is not served.
struct ApiEndpoint {
  std::string command;
  bool report_data = false;
  bool takes_body = true;  // false: GET with no parameters (gpus, models)
};
ApiEndpoint api_endpoint(std::string_view path);

// The keys a body may set for `command` (the allowlist; empty for a command with no body).
std::vector<std::string> api_keys(std::string_view command);

// The endpoints, for the 404 message and the docs.
const std::vector<std::string>& api_paths();

// Body → call. Throws Error (HTTP 400) naming the key: not an object, a key that is not
// a-z, 0-9 and _, a key that names a file on the server (calibration, catalog, from, html: the
// message never depends on the value, so it tells nothing about the server's files), a key
// that is not one of the command's fields (an allowlist), a value that is not a string, number
// or boolean, a model that is not a zoo id, a model_config the config reader rejects, both
// model and model_config. Reads no file.
ApiCall api_call_from_json(const Catalog& catalog, const ApiEndpoint& endpoint, std::string_view body);

// A POST to `endpoint`: the call built from the body, run by `runner` (with --report-data for
// /api/report/...); a bad body is 400 with {"error": ...}, and `runner` is not called. A 400
// from the runner names the fields as the body does (api_error_in_keys).
ApiReply api_answer(const Catalog& catalog, const ApiEndpoint& endpoint, std::string_view body,
                    const ApiRunner& runner);

// The CLI's --json error object `body` with each "--flag" of one of `command`'s keys written
// as the key ("--seq-len 0: ..." → "seq_len 0: ..."; core/field_words.h); other flags, and a
// body that is no error object, unchanged.
std::string api_error_in_keys(std::string_view command, const std::string& body);

// {"error": {"message": ..., "exit_code": 2}}: the CLI's --json error object.
std::string api_error_body(const std::string& message, int exit_code);

}  // namespace gpuplan
