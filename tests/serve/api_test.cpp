// gpuplan serve's JSON API without sockets: body → CLI words, the safety rules, and the answer
// the CLI runner gives (the same bytes as `gpuplan COMMAND --json`). The HTTP layer itself is
// tested end to end by tests/serve/serve_http.sh and the browser tests (web/tests/).
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "core/error.h"
#include "serve/api.h"
#include "test_util.h"

namespace gpuplan {
namespace {

const Catalog& serve_catalog() {
  static const Catalog catalog = load_catalog(CatalogOptions{});
  return catalog;
}

std::string api_error_of(const std::string& path, const std::string& body) {
  try {
    api_call_from_json(serve_catalog(), api_endpoint(path), body);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ServeApi, BodyKeysBecomeTheCommandsFlags) {
  const ApiCall call = api_call_from_json(serve_catalog(), api_endpoint("/api/train"),
                                          R"({"model": "llama3.1-8b", "gpus": 8, "tp": 2, "sp": true,
                                              "no_tp_overlap": false, "seq_len": 4096, "moe_imbalance": 1.25,
                                              "recompute": "selective"})");
  EXPECT_EQ(call.command, "train");
  // JSON objects keep their keys sorted (nlohmann::json): the order does not change the parse.
  const std::vector<std::string> want{"--gpus=8",         "--model=llama3.1-8b", "--moe-imbalance=1.25",
                                      "--recompute=selective", "--seq-len=4096",  "--sp", "--tp=2"};
  EXPECT_EQ(call.args, want);
  EXPECT_EQ(api_endpoint("/api/report/train").command, "train");
  EXPECT_TRUE(api_endpoint("/api/report/train").report_data);
  // The serving pages of the web UI draw these (web/src/app.js).
  EXPECT_EQ(api_endpoint("/api/report/infer").command, "infer");
  EXPECT_TRUE(api_endpoint("/api/report/infer").report_data);
  EXPECT_EQ(api_endpoint("/api/report/infer-search").command, "infer-search");
  EXPECT_TRUE(api_endpoint("/api/report/infer-search").report_data);
  EXPECT_TRUE(api_endpoint("/api/nothing").command.empty());
}

TEST(ServeApi, RefusesPathsFilesAndStrangeKeys) {
  EXPECT_NE(api_error_of("/api/train", R"({"model": "/etc/passwd"})").find("not a model of the zoo"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"model": "../config.json"})").find("model_config"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"model": "llama3.1-8b", "calibration": "/tmp/p.json"})")
                .find("'calibration' names a file on the server"),
            std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"catalog": "/"})").find("'catalog' names a file"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"html": "/tmp/x.html"})").find("'html' names a file"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"json": true})").find("'json' is not a field of train"), std::string::npos);
  EXPECT_NE(api_error_of("/api/search", R"({"threads": 64})").find("'threads' is not a field of search"),
            std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"seq_lenn": 4096})").find("did you mean seq_len"), std::string::npos);
  EXPECT_NE(api_error_of("/api/collective", R"({"model_config": {}})").find("not a field of collective"),
            std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"--model": "x"})").find("keys are flag names"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"tp": [1, 2]})").find("'tp': expected a string"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"([1])").find("one JSON object"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"model": )").find("request body"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"tp": 2, "tp": 4})").find("tp"), std::string::npos);
  EXPECT_NE(api_error_of("/api/train", R"({"model": "llama3.1-8b", "model_config": {}})").find("not both"),
            std::string::npos);
  // A typo gets the CLI's kind of suggestion.
  EXPECT_NE(api_error_of("/api/train", R"({"model": "llama3.1-8"})").find("did you mean"), std::string::npos);
}

// The hole of issue 33: a key that names a file on the server answered 200 ("from") or told
// whether the path exists. Every path-taking key of every endpoint is now 400 before anything
// runs; the answer is the same for an existing file, a missing one and a FIFO (which would
// block this test forever if anything opened it for reading).
TEST(ServeApi, PathKeysAre400AndReadNothing) {
  const auto dir = testing::scratch_dir("serve-paths");
  const std::string fifo = (dir / "fifo").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string existing = testing::write_file(dir / "exists.json", "{}").string();
  int runs = 0;
  const ApiRunner runner = [&runs](const ApiCall&) {
    ++runs;
    return ApiReply{200, "{}"};
  };
  const auto answer = [&runner](const std::string& endpoint, const std::string& key, const std::string& path) {
    // One valid key beside the one tried (keys are checked in sorted order, and each of these
    // sorts before the path keys, or is valid for the command).
    nlohmann::json body{{"model", "llama3.1-8b"}};
    if (api_endpoint(endpoint).command == "collective") body = {{"op", "allreduce"}};
    body[key] = path;
    return api_answer(serve_catalog(), api_endpoint(endpoint), body.dump(), runner);
  };
  for (const std::string& endpoint : api_paths()) {
    if (!api_endpoint(endpoint).takes_body) continue;
    for (const std::string key : {"from", "catalog", "calibration", "html", "no_builtin"}) {
      const ApiReply a = answer(endpoint, key, existing);
      SCOPED_TRACE(endpoint + " " + key);
      EXPECT_EQ(a.status, 400);
      const auto j = nlohmann::json::parse(a.body);
      EXPECT_NE(j["error"]["message"].get<std::string>().find("'" + key + "' names a file on the server"),
                std::string::npos)
          << a.body;
      EXPECT_EQ(j["error"]["exit_code"], 2);
      EXPECT_EQ(answer(endpoint, key, "/etc/hostname").body, a.body);
      EXPECT_EQ(answer(endpoint, key, "/nonexistent").body, a.body);
      EXPECT_EQ(answer(endpoint, key, fifo).body, a.body);
    }
    // Model fields take zoo ids only: a path is refused in words that do not depend on
    // whether it exists (the name is echoed, nothing else).
    for (const std::string key : {"model", "spec_draft"}) {
      const auto keys = api_keys(api_endpoint(endpoint).command);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      SCOPED_TRACE(endpoint + " " + key);
      const ApiReply a = answer(endpoint, key, existing);
      EXPECT_EQ(a.status, 400);
      for (const std::string& other : {std::string("/etc/hostname"), std::string("/nonexistent"), fifo}) {
        std::string want = a.body;
        want.replace(want.find(existing), existing.size(), other);
        EXPECT_EQ(answer(endpoint, key, other).body, want);
      }
    }
  }
  EXPECT_EQ(runs, 0);
  // Unknown keys and a bad model never reach the CLI either, and a good body does.
  EXPECT_EQ(answer("/api/train", "no_such_key", "x").status, 400);
  EXPECT_EQ(answer("/api/infer", "spec_draft", "mtp").status, 200);
  EXPECT_EQ(runs, 1);
}

// Each key the API lets through is a flag of the command (no stale entry in the allowlist),
// and none of them takes a path.
TEST(ServeApi, AllowlistNamesTheCommandsFlags) {
  for (const std::string& endpoint : api_paths()) {
    const ApiEndpoint e = api_endpoint(endpoint);
    if (!e.takes_body || e.report_data) continue;
    const auto help = testing::run({e.command, "--help"});
    ASSERT_EQ(help.code, 0) << e.command;
    for (const std::string& key : api_keys(e.command)) {
      std::string flag = "--";
      for (char c : key) flag += c == '_' ? '-' : c;
      // "  --seq-len INT", "--budget,--budget-usd", "--no-tp-overlap{false}"
      bool listed = false;
      for (std::size_t at = help.out.find(flag); at != std::string::npos && !listed; at = help.out.find(flag, at + 1)) {
        const char next = at + flag.size() < help.out.size() ? help.out[at + flag.size()] : '\n';
        listed = next == ' ' || next == ',' || next == '{' || next == '\n';
      }
      EXPECT_TRUE(listed) << e.command << " has no flag " << flag;
      for (const std::string path_key : {"from", "catalog", "calibration", "html", "no_builtin"}) {
        EXPECT_NE(key, path_key) << e.command;
      }
    }
  }
}

TEST(ServeApi, UploadedConfigIsReadByTheStrictConfigReader) {
  // hidden_size missing: the config reader's message, naming the field.
  const std::string bad = api_error_of("/api/train", R"({"model_config": {"model_type": "llama", "num_hidden_layers": 2}})");
  EXPECT_NE(bad.find("hidden_size"), std::string::npos) << bad;
  EXPECT_NE(api_error_of("/api/train", R"({"model_config": "llama"})").find("model_config"), std::string::npos);
}

TEST(ServeApi, TrainAnswersTheSameBytesAsTheCli) {
  const std::string body = R"({"model": "llama3.1-70b", "gpu": "h100-sxm", "gpus": 64, "tp": 8, "pp": 2, "sp": true,
                               "zero": 1, "global_batch": 256, "seq_len": 8192, "recompute": "selective"})";
  const ApiReply reply = run_api_call(serve_catalog(), api_call_from_json(serve_catalog(), api_endpoint("/api/train"), body));
  const auto cli = testing::run({"train", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8",
                                 "--pp", "2", "--sp", "--zero", "1", "--global-batch", "256", "--seq-len", "8192",
                                 "--recompute", "selective", "--json"});
  ASSERT_EQ(cli.code, 0);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, cli.out);
}

// The cost, collectives and compare pages' endpoints answer `COMMAND --report-data`, byte for
// byte; compare's "names" is the GPUs as one list.
TEST(ServeApi, NewPagesAnswerTheCliReportData) {
  struct Case {
    const char* path;
    const char* body;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases{
      {"/api/report/cost", R"({"model": "llama3.1-8b", "gpu": "h100-sxm", "gpus": 8, "tokens": 10000000000})",
       {"cost", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "10000000000"}},
      {"/api/report/collective", R"({"op": "allreduce", "gpus": 16, "system": "dgx-h100", "sweep": true})",
       {"collective", "--op", "allreduce", "--gpus", "16", "--system", "dgx-h100", "--sweep"}},
      {"/api/report/compare",
       R"({"names": "h100-sxm,h200-sxm", "model": "llama3.1-8b", "gpus": 8, "global_batch": 64, "seq_len": 4096})",
       {"compare", "h100-sxm", "h200-sxm", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "64", "--seq-len",
        "4096"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const ApiReply reply = api_answer(serve_catalog(), api_endpoint(c.path), c.body,
                                      [](const ApiCall& call) { return run_api_call(serve_catalog(), call); });
    std::vector<std::string> args = c.args;
    args.emplace_back("--report-data");
    const auto cli = testing::run(args);
    ASSERT_EQ(cli.code, 0) << cli.err;
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.body, cli.out);
  }
}

TEST(ServeApi, BadPlanIs400WithTheCliMessage) {
  const ApiReply reply = run_api_call(
      serve_catalog(), api_call_from_json(serve_catalog(), api_endpoint("/api/train"),
                                          R"({"model": "llama3.1-8b", "gpus": 8, "tp": 3})"));
  const auto cli = testing::run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--tp", "3", "--json"});
  EXPECT_EQ(cli.code, 2);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body, cli.out);
  EXPECT_NE(reply.body.find("\"exit_code\": 2"), std::string::npos);
}

TEST(ServeApi, UploadedConfigRunsLikeTheSameFileOnTheCli) {
  const std::string config = R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
    "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 8192})";
  const auto dir = testing::scratch_dir("serve-upload");
  const auto path = testing::write_file(dir / "config.json", config);
  const ApiReply reply = run_api_call(
      serve_catalog(), api_call_from_json(serve_catalog(), api_endpoint("/api/train"),
                                          R"({"gpu": "h100-sxm", "gpus": 8, "global_batch": 8, "seq_len": 4096, "model_config": )" + config + "}"));
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto cli = testing::run({"train", "--model", path.string(), "--gpu", "h100-sxm", "--gpus", "8",
                                 "--global-batch", "8", "--seq-len", "4096", "--json"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  auto a = nlohmann::json::parse(reply.body);
  auto b = nlohmann::json::parse(cli.out);
  EXPECT_EQ(a["model"], kUploadedModelId);
  a.erase("model");
  b.erase("model");
  EXPECT_EQ(a, b);
}


// Issue 33: a 400 from the command names each field as the body's key, not as the CLI's flag
// (core/field_words.h); the rest of the message is the CLI's.
TEST(ServeApi, ErrorsNameTheBodysKeys) {
  const ApiRunner runner = [](const ApiCall& call) { return run_api_call(serve_catalog(), call); };
  const auto message_of = [&](const std::string& path, const std::string& body) {
    const ApiReply reply = api_answer(serve_catalog(), api_endpoint(path), body, runner);
    EXPECT_EQ(reply.status, 400) << body;
    const nlohmann::json j = nlohmann::json::parse(reply.body);
    EXPECT_EQ(j["error"]["exit_code"], 2);
    return j["error"]["message"].get<std::string>();
  };
  EXPECT_EQ(message_of("/api/train", R"({"model": "llama3.1-8b", "gpus": 8, "global_batch": 7})"),
            "global_batch 7: not a multiple of dp 8 × micro_batch 1 = 8; use global_batch 8");
  EXPECT_EQ(message_of("/api/search", R"({"model": "llama3.1-8b", "gpus": 8, "global_batch": 8, "seq_len": 0})"),
            "seq_len 0: must be at least 1; omit seq_len for the model's pretraining length");
  EXPECT_EQ(message_of("/api/infer", R"({"model": "llama3.1-8b", "gpu": "h100-sxm", "input_len": 0})"),
            "input_len 0: a request needs at least 1 prompt token; use input_len 1 or more");
  EXPECT_EQ(message_of("/api/infer-search", R"({"model": "llama3.1-8b", "gpu": "h100-sxm", "gpus_max": 0})"),
            "gpus_max 0: must be at least 1; a replica needs at least one GPU (default 8)");
  // The CLI itself keeps its flags.
  const auto cli = testing::run({"train", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "7", "--json"});
  EXPECT_NE(cli.out.find("--global-batch 7"), std::string::npos);
}

TEST(ServeApi, ErrorInKeysChangesOnlyTheCommandsKeys) {
  // --calibration takes a path: no key of train, so it stays a flag; --json is no field.
  EXPECT_EQ(api_error_in_keys("train", api_error_body("--tp 3 with --calibration and --json", 2)),
            api_error_body("tp 3 with --calibration and --json", 2));
  EXPECT_EQ(api_error_in_keys("train", "not json"), "not json");
  EXPECT_EQ(api_error_in_keys("no-such-command", api_error_body("--tp 3", 2)), api_error_body("--tp 3", 2));
}

}  // namespace
}  // namespace gpuplan
