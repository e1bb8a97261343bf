// Catalog strictness (issue 12): an id defined twice within one --catalog argument is an
// error naming both files; a usable memory above the capacity is an error naming the file,
// the key, the value and the capacity. Overriding across arguments stays allowed.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::string link_toml(const std::string& name, double gb_per_s) {
  return "kind = \"link\"\nid = \"nvlink4\"\nname = \"" + name +
         "\"\nfamily = \"nvlink\"\nper_link_bw_uni_gb_per_s = " + std::to_string(gb_per_s) +
         "\nsource = \"test\"\nretrieved = \"2026-11-23\"\n";
}

std::string options_error(const CatalogOptions& options) {
  try {
    load_catalog(options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StrictCatalog, SameIdTwiceInOneFolderNamesBothFiles) {
  const auto dir = testing::scratch_dir("dup-in-folder");
  testing::write_file(dir / "a.toml", link_toml("A", 20));
  testing::write_file(dir / "b.toml", link_toml("B", 21));
  CatalogOptions options;
  options.user_paths = {dir.string()};
  const std::string err = options_error(options);
  EXPECT_NE(err.find("duplicate link id 'nvlink4'"), std::string::npos) << err;
  EXPECT_NE(err.find("a.toml"), std::string::npos) << err;
  EXPECT_NE(err.find("b.toml"), std::string::npos) << err;
  // Through the CLI: exit 2, the message names both files.
  const auto r = testing::run({"--catalog", dir.string(), "gpus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a.toml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("b.toml"), std::string::npos) << r.err;
}

TEST(StrictCatalog, LaterArgumentStillOverridesAnEarlierOneAndTheBuiltIn) {
  const auto first = testing::scratch_dir("override-first");
  const auto second = testing::scratch_dir("override-second");
  testing::write_file(first / "a.toml", link_toml("First", 20));
  testing::write_file(second / "a.toml", link_toml("Second", 21));
  CatalogOptions options;
  options.user_paths = {first.string(), second.string()};
  const Catalog c = load_catalog(options);  // overrides the built-in nvlink4, then the first file
  EXPECT_EQ(c.link("nvlink4").name, "Second");
  EXPECT_EQ(c.link("nvlink4").provenance.file, (second / "a.toml").string());
}

const char* kGpu = R"(kind = "gpu"
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
capacity_gb = 80
type = "HBM3"
bandwidth_tb_per_s = 1
)";

std::string gpu_error(const std::string& usable_line) {
  Catalog c;
  try {
    load_catalog_text(c, std::string(kGpu) + usable_line + "[power]\ntdp_w = 100\n[interconnect]\n", "gpu.toml", false);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StrictCatalog, UsableMemoryAboveCapacity) {
  // The shipped H100 figure: 79.6 GiB of an "80 GB" (80 GiB) part loads.
  EXPECT_EQ(gpu_error("usable_gib = 79.6\n"), "");
  EXPECT_EQ(gpu_error("usable_gib = 80\n"), "");  // exactly the capacity read as GiB (A100 80GB)
  const std::string gib = gpu_error("usable_gib = 96\n");
  EXPECT_NE(gib.find("gpu.toml"), std::string::npos) << gib;
  EXPECT_NE(gib.find("memory.usable_gib"), std::string::npos) << gib;
  EXPECT_NE(gib.find("96"), std::string::npos) << gib;
  EXPECT_NE(gib.find("capacity_gb = 80"), std::string::npos) << gib;
  const std::string gb = gpu_error("usable_gb = 90\n");  // 90 GB > 80 GiB = 85.9 GB
  EXPECT_NE(gb.find("memory.usable_gb"), std::string::npos) << gb;
  EXPECT_NE(gb.find("90"), std::string::npos) << gb;
  EXPECT_EQ(gpu_error("usable_gb = 85\n"), "");
}

}  // namespace
}  // namespace gpuplan
