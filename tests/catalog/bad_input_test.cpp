// Malformed data files: every error names the file, the line and the key.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_test_util.h"
#include "core/error.h"
#include "test_util.h"

#include <fstream>
#include <sstream>

namespace gpuplan {
namespace {

const char* kMinimalGpu = R"(kind = "gpu"
id = "test-gpu"
name = "Test GPU"
vendor = "Test"
architecture = "T"
release_year = 2024
source = "unit test"
retrieved = "2026-11-22"
[compute]
sm_count = 10
[dense_tflops]
bf16 = 100
[memory]
capacity_gb = 10
type = "HBM3"
bandwidth_tb_per_s = 1
[power]
tdp_w = 100
[interconnect]
)";

using testing::catalog_error;

// A maximum-achievable-matmul reference above the dense peak is a sparse figure or a unit slip.
TEST(BadInput, AchievableMatmulAboveDensePeak) {
  const std::string err = catalog_error(std::string(kMinimalGpu) + "[achievable_tflops]\nbf16 = 150\n");
  EXPECT_NE(err.find("achievable_tflops"), std::string::npos) << err;
  EXPECT_NE(err.find("above the dense peak"), std::string::npos) << err;
}

// [achievable_memory_bw]: the HBM reference a --calibration profile is compared with.
const char* kMemoryRef = "[achievable_memory_bw]\nsource = \"a measurement\"\nretrieved = \"2026-11-22\"\n";

TEST(CatalogBadInput, AchievableMemoryBandwidthLoads) {
  Catalog c;
  load_catalog_text(c, std::string(kMinimalGpu) + kMemoryRef + "tb_per_s = 0.9\nop = \"copy\"\n", "test.toml", false);
  ASSERT_EQ(c.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(c.gpus[0].achievable_memory_bw_bytes_per_s, 0.9e12);
  EXPECT_EQ(c.gpus[0].achievable_memory_bw_op, "copy");
  // Its own source, kept apart from the datasheet's.
  ASSERT_EQ(c.gpus[0].section_provenance.size(), 1u);
  EXPECT_EQ(c.gpus[0].section_provenance[0].first, "achievable_memory_bw");
  EXPECT_EQ(c.gpus[0].section_provenance[0].second.source, "a measurement");
}

TEST(CatalogBadInput, AchievableMemoryBandwidthErrorsNameTheKey) {
  const std::string base = std::string(kMinimalGpu) + kMemoryRef;
  std::string err = catalog_error(base + "tb_per_s = -0.5\nop = \"read\"\n");
  EXPECT_NE(err.find("achievable_memory_bw.tb_per_s"), std::string::npos) << err;
  EXPECT_NE(err.find("must be positive"), std::string::npos) << err;
  err = catalog_error(base + "tb_per_s = 0.9\nop = \"triad\"\n");
  EXPECT_NE(err.find("achievable_memory_bw.op"), std::string::npos) << err;
  EXPECT_NE(err.find("'triad'"), std::string::npos) << err;
  err = catalog_error(base + "tb_per_s = 0.9\n");  // no op: a figure whose convention is unknown
  EXPECT_NE(err.find("achievable_memory_bw.op"), std::string::npos) << err;
  // Above the datasheet's 1 TB/s: GB/s typed as TB/s, or a sparse-style slip.
  err = catalog_error(base + "tb_per_s = 1.2\nop = \"read\"\n");
  EXPECT_NE(err.find("achievable_memory_bw.tb_per_s"), std::string::npos) << err;
  EXPECT_NE(err.find("above the datasheet"), std::string::npos) << err;
  // A measured reference must say where it was measured.
  err = catalog_error(std::string(kMinimalGpu) + "[achievable_memory_bw]\ntb_per_s = 0.9\nop = \"read\"\n");
  EXPECT_NE(err.find("achievable_memory_bw.source"), std::string::npos) << err;
  err = catalog_error(base + "tb_per_s = 0.9\nop = \"read\"\nbuffer_gib = 1\n");
  EXPECT_NE(err.find("buffer_gib"), std::string::npos) << err;
  EXPECT_NE(err.find("unknown key"), std::string::npos) << err;
}

TEST(CatalogBadInput, MinimalGpuLoads) {
  Catalog c;
  load_catalog_text(c, kMinimalGpu, "test.toml", false);
  ASSERT_EQ(c.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(c.gpus[0].dense(Precision::bf16), 100e12);
}

TEST(CatalogBadInput, UnknownKeyNamesFileLineAndKey) {
  const std::string text = std::string(kMinimalGpu) + "\n[power2]\nx = 1\n";
  const std::string msg = catalog_error(text, "my.toml");
  EXPECT_NE(msg.find("my.toml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("power2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key"), std::string::npos) << msg;
}

TEST(CatalogBadInput, MisspelledKeySuggestsTheRightOne) {
  std::string text = kMinimalGpu;
  text.replace(text.find("tdp_w"), 5, "tdp_ww");
  const std::string msg = catalog_error(text);
  EXPECT_NE(msg.find("tdp_ww"), std::string::npos) << msg;
  EXPECT_NE(msg.find(":18"), std::string::npos) << msg;  // the line of the typo
  EXPECT_NE(msg.find("misspelled"), std::string::npos) << msg;
}

TEST(CatalogBadInput, DuplicateKeyIsASyntaxErrorWithLine) {
  const std::string text = std::string(kMinimalGpu) + "tdp_w = 5\n[power]\n";
  const std::string msg = catalog_error(text);
  EXPECT_NE(msg.find("test.toml:"), std::string::npos) << msg;
}

TEST(CatalogBadInput, DuplicateIdAcrossFilesIsAnError) {
  Catalog c;
  load_catalog_text(c, kMinimalGpu, "a.toml", false);
  try {
    load_catalog_text(c, kMinimalGpu, "b.toml", false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a.toml"), std::string::npos);
  }
  // A user file with the same id replaces the entry instead.
  std::string changed = kMinimalGpu;
  changed.replace(changed.find("tdp_w = 100"), 11, "tdp_w = 250");
  load_catalog_text(c, changed, "user.toml", true);
  ASSERT_EQ(c.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(c.gpus[0].tdp_w, 250);
}

TEST(CatalogBadInput, WrongTypesAndSignsAreRejected) {
  std::string text = kMinimalGpu;
  text.replace(text.find("tdp_w = 100"), 11, "tdp_w = \"100\"");
  EXPECT_NE(catalog_error(text).find("expected a number"), std::string::npos);
  text = kMinimalGpu;
  text.replace(text.find("tdp_w = 100"), 11, "tdp_w = -5");
  EXPECT_NE(catalog_error(text).find("positive"), std::string::npos);
  text = kMinimalGpu;
  text.replace(text.find("tdp_w = 100"), 11, "tdp_w = nan");
  EXPECT_NE(catalog_error(text).find("finite"), std::string::npos);
}

TEST(CatalogBadInput, MissingRequiredKeyIsNamed) {
  std::string text = kMinimalGpu;
  text.erase(text.find("vendor = \"Test\"\n"), 16);
  EXPECT_NE(catalog_error(text).find("'vendor'"), std::string::npos);
}

TEST(CatalogBadInput, UnknownKindListsTheKinds) {
  const std::string msg = catalog_error("kind = \"gpuu\"\n");
  EXPECT_NE(msg.find("unknown kind 'gpuu'"), std::string::npos) << msg;
}

TEST(CatalogBadInput, SparseBelowDenseIsCaught) {
  const std::string text = std::string(kMinimalGpu) + "[sparse_tflops]\nbf16 = 50\n";
  EXPECT_NE(catalog_error(text).find("swapped"), std::string::npos);
}

TEST(CatalogBadInput, RandomBytesNeverCrash) {
  // Bounded random-input test of the data-file parser (the libFuzzer target is fuzz/).
  std::uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>(state >> 33);
  };
  const std::string base = kMinimalGpu;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(next() % 6);
    for (int e = 0; e < edits; ++e) {
      const std::size_t pos = next() % text.size();
      switch (next() % 3) {
        case 0: text[pos] = static_cast<char>(next() % 128); break;
        case 1: text.erase(pos, 1 + next() % 8); break;
        default: text.insert(pos, 1, "=[]\"\n.#0-e"[next() % 11]); break;
      }
      if (text.empty()) text = "x";
    }
    Catalog c;
    try {
      load_catalog_text(c, text, "fuzz.toml", false);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// An engine's AllReduce rule (one-shot thresholds, NCCL hand-over) describes its custom kernel,
// whose barrier latency it needs; the vLLM file with the rule switched on loads.
TEST(CatalogBadInput, EngineAllReduceRuleNeedsTheKernelLatency) {
  std::ifstream in(testing::source_dir() + "/data/engines/vllm.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string rule = "\nallreduce_custom_max_bytes = 8388608\nallreduce_custom_max_gpus = 8\n";
  Catalog ok;
  load_catalog_text(ok, text + rule, "vllm.toml", false);
  ASSERT_EQ(ok.engines.size(), 1u);
  EXPECT_DOUBLE_EQ(ok.engines[0].allreduce_custom_max_bytes, 8388608);
  EXPECT_EQ(ok.engines[0].allreduce_custom_max_gpus, 8);
  const auto at = text.find("allreduce_latency_us = 8");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at);
  const std::string err = catalog_error(text + rule, "vllm.toml");
  EXPECT_NE(err.find("allreduce_custom_max_bytes"), std::string::npos) << err;
  EXPECT_NE(err.find("allreduce_latency_us"), std::string::npos) << err;
}

// The benchmark client's range ratio is a fraction in (0, 1]: 0.8 loads (vllm.toml's own), a
// ratio above 1 or a key nobody reads in [benchmark] exits naming the key.
TEST(CatalogBadInput, EngineBenchmarkRangeRatioIsAFraction) {
  std::ifstream in(testing::source_dir() + "/data/engines/vllm.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Catalog ok;
  load_catalog_text(ok, text, "vllm.toml", false);
  ASSERT_EQ(ok.engines.size(), 1u);
  EXPECT_DOUBLE_EQ(ok.engines[0].benchmark_range_ratio, 0.8);
  const auto at = text.find("random_range_ratio = 0.8");
  ASSERT_NE(at, std::string::npos);
  std::string bad = text;
  bad.replace(at, 24, "random_range_ratio = 1.5");
  std::string err = catalog_error(bad, "vllm.toml");
  EXPECT_NE(err.find("random_range_ratio"), std::string::npos) << err;
  bad = text;
  bad.replace(at, 24, "random_range_ratoi = 0.8");
  err = catalog_error(bad, "vllm.toml");
  EXPECT_NE(err.find("random_range_ratoi"), std::string::npos) << err;
}

// Batch waiting: trtllm.toml's launch rule loads (20 steps, 0.9, at 1,024/1,024 below TP 8) and
// leaves the engine's own scheduler off; a fractional step count, a ratio above 1, or a launch
// rule without the lengths it applies to exits naming the key.
TEST(CatalogBadInput, EngineBatchWaitIsStrict) {
  std::ifstream in(testing::source_dir() + "/data/engines/trtllm.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Catalog ok;
  load_catalog_text(ok, text, "trtllm.toml", false);
  ASSERT_EQ(ok.engines.size(), 1u);
  const Engine& e = ok.engines[0];
  EXPECT_FALSE(e.batch_wait.on());
  EXPECT_EQ(e.benchmark_batch_wait.wait.timeout_iters, 20);
  EXPECT_DOUBLE_EQ(e.benchmark_batch_wait.wait.max_tokens_ratio, 0.9);
  EXPECT_TRUE(e.benchmark_batch_wait.applies(1024, 1024, 4));
  EXPECT_FALSE(e.benchmark_batch_wait.applies(1024, 1024, 8));
  EXPECT_FALSE(e.benchmark_batch_wait.applies(8192, 1024, 1));
  EXPECT_DOUBLE_EQ(e.max_num_batched_tokens, 16384);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    return catalog_error(t, "trtllm.toml");
  };
  std::string err = replaced("batch_wait_timeout_iters = 20", "batch_wait_timeout_iters = 2.5");
  EXPECT_NE(err.find("batch_wait_timeout_iters"), std::string::npos) << err;
  err = replaced("batch_wait_max_tokens_ratio = 0.9", "batch_wait_max_tokens_ratio = 1.5");
  EXPECT_NE(err.find("batch_wait_max_tokens_ratio"), std::string::npos) << err;
  err = replaced("batch_wait_input_len = 1024\n", "");
  EXPECT_NE(err.find("batch_wait_input_len"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// The MoE routing kernels are named from a closed list and need the kernel floor: vllm.toml's
// four load; an unknown name or a list without kernel_floor_us exits naming the key.
TEST(CatalogBadInput, EngineMoeRoutingKernelsNamedAndFloored) {
  std::ifstream in(testing::source_dir() + "/data/engines/vllm.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Catalog ok;
  load_catalog_text(ok, text, "vllm.toml", false);
  ASSERT_EQ(ok.engines.size(), 1u);
  EXPECT_EQ(ok.engines[0].moe_routing_kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(ok.engines[0].moe_kernel_floor_s, 3.0e-6);
  const auto list = text.find("\"combine\"]");
  ASSERT_NE(list, std::string::npos);
  std::string bad = text;
  bad.replace(list, 9, "\"moe_sum\"");
  std::string err = catalog_error(bad, "vllm.toml");
  EXPECT_NE(err.find("routing_kernels"), std::string::npos) << err;
  EXPECT_NE(err.find("moe_sum"), std::string::npos) << err;
  bad = text;
  const auto floor = bad.find("kernel_floor_us = 3.0");
  ASSERT_NE(floor, std::string::npos);
  bad.erase(floor, bad.find('\n', floor) - floor);
  err = catalog_error(bad, "vllm.toml");
  EXPECT_NE(err.find("kernel_floor_us"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// A serving source's request count (data/validation/inference-sources.toml): a whole positive
// number with its evidence; an entry that gives only a rule may leave its date out, one that
// gives none may not.
TEST(BadInput, SourceBenchmarkRequestsStrict) {
  const std::string head = "kind = \"source_dates\"\nid = \"t-runs\"\nsource = \"t\"\nretrieved = \"2026-11-27\"\n"
                           "[[publication]]\nmatch = \"Some Source\"\n";
  Catalog ok;
  load_catalog_text(ok, head + "benchmark_requests = 1000\nunknowns_evidence = \"its page\"\n", "s.toml", false);
  const SourceDate* s = source_entry(ok.source_dates, "rows of Some Source, table 2");
  ASSERT_NE(s, nullptr);
  EXPECT_DOUBLE_EQ(s->benchmark_requests, 1000);
  EXPECT_TRUE(s->published.empty());

  std::string err = testing::catalog_error(head + "benchmark_requests = 2.5\nunknowns_evidence = \"p\"\n");
  EXPECT_NE(err.find("benchmark_requests"), std::string::npos) << err;
  EXPECT_NE(err.find("whole number"), std::string::npos) << err;
  err = testing::catalog_error(head + "benchmark_requests = -3\nunknowns_evidence = \"p\"\n");
  EXPECT_NE(err.find("benchmark_requests"), std::string::npos) << err;
  err = testing::catalog_error(head + "benchmark_requests = 1000\n");
  EXPECT_NE(err.find("unknowns_evidence"), std::string::npos) << err;
  err = testing::catalog_error(head + "evidence = \"x\"\n");  // no rule, no date
  EXPECT_NE(err.find("published"), std::string::npos) << err;
}

// A source's padded CUDA-graph sizes (docs/data-format.md): whole, increasing, with evidence.
TEST(BadInput, SourceCudaGraphBatchSizesStrict) {
  const std::string head = "kind = \"source_dates\"\nid = \"t-runs\"\nsource = \"t\"\nretrieved = \"2026-11-27\"\n"
                           "[[publication]]\nmatch = \"Some Source\"\n";
  Catalog ok;
  load_catalog_text(ok, head + "cuda_graph_batch_sizes = [1, 2, 4, 384, 512]\nunknowns_evidence = \"its yml\"\n", "s.toml",
                    false);
  const SourceDate* s = source_entry(ok.source_dates, "rows of Some Source, table 2");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->cuda_graph_batch_sizes, (std::vector<double>{1, 2, 4, 384, 512}));

  std::string err = testing::catalog_error(head + "cuda_graph_batch_sizes = [1, 4, 2]\nunknowns_evidence = \"p\"\n");
  EXPECT_NE(err.find("cuda_graph_batch_sizes"), std::string::npos) << err;
  EXPECT_NE(err.find("increasing"), std::string::npos) << err;
  err = testing::catalog_error(head + "cuda_graph_batch_sizes = [0.5, 4]\nunknowns_evidence = \"p\"\n");
  EXPECT_NE(err.find("cuda_graph_batch_sizes"), std::string::npos) << err;
  err = testing::catalog_error(head + "cuda_graph_batch_sizes = [1, 2]\n");
  EXPECT_NE(err.find("unknowns_evidence"), std::string::npos) << err;
}

// An entry narrowed to a model (and GPUs) matches only that model's rows on those GPUs, and wins
// over its source's entry listed after it; a lookup without a model sees only the source's.
TEST(SourceDates, ANarrowedEntryMatchesOnlyItsModelAndGpus) {
  const std::string head = "kind = \"source_dates\"\nid = \"t-runs\"\nsource = \"t\"\nretrieved = \"2026-11-27\"\n";
  const std::string narrowed = "[[publication]]\nmatch = \"Src\"\nmodel_ref = \"m1\"\ngpus = [\"gb200\"]\n"
                               "moe_dispatcher = \"alltoall\"\nunknowns_evidence = \"its preset\"\n";
  const std::string whole = "[[publication]]\nmatch = \"Src\"\npublished = \"2026-01-02\"\nevidence = \"e\"\n"
                            "moe_dispatcher = \"flex\"\nunknowns_evidence = \"its presets\"\n";
  Catalog c;
  load_catalog_text(c, head + narrowed + whole, "s.toml", false);
  const SourceDate* a = source_entry(c.source_dates, "rows of Src", "m1", "gb200");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->moe_dispatcher, "alltoall");
  EXPECT_EQ(source_entry(c.source_dates, "rows of Src", "m1", "b200")->moe_dispatcher, "flex");
  EXPECT_EQ(source_entry(c.source_dates, "rows of Src", "m2", "gb200")->moe_dispatcher, "flex");
  EXPECT_EQ(source_entry(c.source_dates, "rows of Src")->moe_dispatcher, "flex");
  EXPECT_EQ(published_date(c.source_dates, "rows of Src"), "2026-01-02");

  std::string err = testing::catalog_error(head + "[[publication]]\nmatch = \"Src\"\ngpus = [\"gb200\"]\n"
                                                  "moe_dispatcher = \"flex\"\nunknowns_evidence = \"p\"\n");
  EXPECT_NE(err.find("gpus"), std::string::npos) << err;
  EXPECT_NE(err.find("model_ref"), std::string::npos) << err;
  err = testing::catalog_error(head + "[[publication]]\nmatch = \"Src\"\nmodel_ref = \"m1\"\npublished = \"2026-01-02\"\n"
                                      "evidence = \"e\"\n");
  EXPECT_NE(err.find("model_ref"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpuplan
