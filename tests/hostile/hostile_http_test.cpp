// The hostile-input suite over the web API (issue 34), without sockets: api_answer() with the
// server's own runner (the CLI, as `gpuplan serve` runs it). Every bad body is HTTP 400 with
// exactly one JSON object {"error": {...}} naming the key; none is 500 or an empty body. The
// sockets themselves (slow clients, limits) are tests/serve/serve_load.py's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "hostile/guarded_run.h"
#include "serve/api.h"

namespace gpuplan {
namespace {

const Catalog& hostile_catalog() {
  static const Catalog catalog = load_catalog(CatalogOptions{});
  return catalog;
}

ApiReply hostile_post(const std::string& path, const std::string& body) {
  const Catalog& catalog = hostile_catalog();
  return api_answer(catalog, api_endpoint(path), body,
                    [&catalog](const ApiCall& call) { return run_api_call(catalog, call); });
}

struct HostileBody {
  std::string path;
  std::string body;
  std::string says;  // in the error message
  std::string not_says = "";  // not in it: the CLI's flag of a key (the API names the key; issue 33)
};

// Bodies that name a field with a bad value: the key, the value's kind, every endpoint.
std::vector<HostileBody> hostile_bodies() {
  std::vector<HostileBody> cases;
  const std::string train = R"("model": "llama3.1-8b", "gpu": "h100-sxm", "gpus": 8)";
  const std::string infer = R"("model": "llama3.1-8b", "gpu": "h100-sxm")";
  for (const std::string key : {"moe_imbalance", "overhead_gib", "memory_headroom_gib"}) {
    std::string flag = "--";
    for (char c : key) flag += c == '_' ? '-' : c;
    for (const std::string value : {"-5", "1e308", "\"nan\"", "\"inf\"", "\"-inf\"", "\"\""}) {
      cases.push_back({"/api/train", "{" + train + ", \"" + key + "\": " + value + "}", key, flag});
    }
  }
  for (const std::string key : {"tp", "pp", "vp", "cp", "ep", "dp_shard", "micro_batch", "global_batch", "seq_len"}) {
    std::string flag = "--";
    for (char c : key) flag += c == '_' ? '-' : c;
    for (const std::string value : {"-5", "0.5", "\"lots\"", "\"\"", "true"}) {
      cases.push_back({"/api/train", "{" + train + ", \"" + key + "\": " + value + "}",
                       value == "true" ? "'" + key + "'" : key, flag});
    }
  }
  for (const std::string key : {"batch", "concurrency", "slo_ttft_ms", "slo_tpot_ms", "request_rate"}) {
    std::string flag = "--";
    for (char c : key) flag += c == '_' ? '-' : c;
    for (const std::string value : {"-5", "\"nan\"", "\"inf\"", "\"\""}) {
      cases.push_back({"/api/infer", "{" + infer + ", \"" + key + "\": " + value + "}", key, flag});
    }
  }
  for (const std::string key : {"ttft_ms", "tpot_ms", "rate"}) {
    std::string flag = "--";
    for (char c : key) flag += c == '_' ? '-' : c;
    for (const std::string value : {"-5", "\"nan\"", "\"inf\""}) {
      cases.push_back({"/api/infer-search", "{" + infer + ", \"" + key + "\": " + value + "}", key, flag});
    }
  }
  // Switches take true or false, never a word the CLI would read as one.
  for (const std::string value : {"\"yes\"", "\"true\"", "1", "\"on\""}) {
    cases.push_back({"/api/train", "{" + train + ", \"sp\": " + value + "}", "'sp'"});
  }
  // Bytes that are not UTF-8, deep nesting, not an object, structural rules.
  cases.push_back({"/api/train", "{\"model\": \"llama\xFF\"}", "byte offset 16 (0xFF) is not UTF-8"});
  cases.push_back({"/api/train", "{\"model\xC0\x80\": 1}", "is not UTF-8"});
  cases.push_back({"/api/train", std::string(100000, '[') + std::string(100000, ']'), "nest deeper than 64"});
  cases.push_back({"/api/train", "[1, 2]", "one JSON object"});
  const std::string train64 = R"("model": "llama3.1-8b", "gpu": "h100-sxm", "gpus": 64)";
  cases.push_back({"/api/train", "{" + train64 + ", \"pp\": 64}", "use pp 32 or fewer", "--pp"});
  cases.push_back({"/api/train", "{" + train64 + ", \"ep\": 8}", "dense model"});
  cases.push_back({"/api/train", "{" + train + ", \"vp\": 2}", "vp 2 without a pipeline", "--vp"});
  cases.push_back({"/api/train", "{" + train + ", \"zero\": 1, \"dp_shard\": 3}", "dp_shard 3", "--dp-shard"});
  cases.push_back({"/api/infer", "{" + infer + ", \"tp\": 3}", "tp 3", "--tp"});
  cases.push_back({"/api/collective", R"({"op": "allreduce", "bytes": "1GiB", "gpus": 8, "system": "dgx-h100", "nodes": 0})", "nodes 0", "--nodes"});
  // recommend's rules between its training and serving halves live in the library (its field
  // table, econ/recommend_question.h): said with the body's keys.
  cases.push_back({"/api/recommend", R"({"model": "llama3-8b", "tokens": "100B", "ttft_ms": 500})",
                   "ttft_ms needs serve", "--ttft-ms"});
  cases.push_back({"/api/recommend", R"({"model": "llama3-8b", "serve": true, "tokens": "100B"})",
                   "tokens is for training", "--tokens"});
  cases.push_back({"/api/recommend", R"({"model": "llama3-8b", "tokens": "100B", "gpus_list": "8,0"})",
                   "gpus_list 0", "--gpus-list"});
  cases.push_back({"/api/recommend", R"({"model": "llama3-8b", "tokens": "100B", "deadline_days": -1})",
                   "deadline -1", "--deadline"});
  return cases;
}

TEST(HostileHttp, EveryBadBodyIs400WithOneJsonError) {
  int n = 0;
  for (const HostileBody& c : hostile_bodies()) {
    const ApiReply reply = hostile_post(c.path, c.body);
    const std::string shown = c.path + " " + c.body.substr(0, 120);
    EXPECT_EQ(reply.status, 400) << shown << "\n" << reply.body;
    ASSERT_EQ(testing::not_one_json_object(reply.body), "") << shown << "\n" << reply.body;
    const nlohmann::json j = nlohmann::json::parse(reply.body);
    ASSERT_TRUE(j.contains("error")) << shown << "\n" << reply.body;
    const std::string message = j["error"]["message"];
    if (!c.says.empty()) {
      EXPECT_NE(message.find(c.says), std::string::npos) << shown << "\n" << message;
    }
    if (!c.not_says.empty()) {
      EXPECT_EQ(message.find(c.not_says), std::string::npos) << shown << "\n" << message;
    }
    ++n;
  }
  EXPECT_GE(n, 100);
}

}  // namespace
}  // namespace gpuplan
