// A Hugging Face model id or hub-cache folder resolves to the cached config.json, with no
// network: $HF_HUB_CACHE/models--org--name/snapshots/<refs/main>/config.json.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/hf_hub_cache.h"
#include "catalog/resolve_model.h"
#include "core/error.h"
#include "test_util.h"

namespace gpuplan {
namespace {
namespace fs = std::filesystem;

class HfHubCache : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuplan-hub-" + std::to_string(::getpid()));
    const fs::path model = root_ / "models--acme--Llama-Test";
    fs::create_directories(model / "snapshots" / "abc123");
    fs::create_directories(model / "refs");
    fs::copy_file(testing::source_dir() + "/tests/workload/fixtures/llama-3.1-8b.json",
                  model / "snapshots" / "abc123" / "config.json", fs::copy_options::overwrite_existing);
    std::ofstream(model / "refs" / "main") << "abc123";
    const char* old = std::getenv("HF_HUB_CACHE");
    old_ = old ? old : "";
    had_old_ = old != nullptr;
    ::setenv("HF_HUB_CACHE", root_.c_str(), 1);
  }
  void TearDown() override {
    if (had_old_) ::setenv("HF_HUB_CACHE", old_.c_str(), 1);
    else ::unsetenv("HF_HUB_CACHE");
    fs::remove_all(root_);
  }
  fs::path root_;
  std::string old_;
  bool had_old_ = false;
};

TEST_F(HfHubCache, ModelIdResolvesThroughTheCache) {
  EXPECT_EQ(hf_hub_cache_dir(), root_.string());
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& m = resolve_model(default_catalog(), "acme/Llama-Test", owned);
  EXPECT_EQ(m.id, "acme/Llama-Test");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.max_seq_len, 131072);
}

TEST_F(HfHubCache, CacheFolderResolvesToItsSnapshot) {
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& m = resolve_model(default_catalog(), (root_ / "models--acme--Llama-Test").string(), owned);
  EXPECT_EQ(m.id, "acme/Llama-Test");
  EXPECT_EQ(m.kv_heads, 8);
}

TEST_F(HfHubCache, UncachedIdSaysWhereItLooked) {
  std::shared_ptr<ModelSpec> owned;
  try {
    resolve_model(default_catalog(), "acme/Not-Cached", owned);
    FAIL() << "resolved an uncached id";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Hugging Face cache"), std::string::npos) << what;
    EXPECT_NE(what.find(root_.string()), std::string::npos) << what;
  }
  // Zoo ids still resolve first.
  EXPECT_EQ(resolve_model(default_catalog(), "llama3-8b", owned).id, "llama3-8b");
}

}  // namespace
}  // namespace gpuplan
