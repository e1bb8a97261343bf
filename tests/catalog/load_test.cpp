// One test loads every data file (the embedded catalog and the data/ tree on disk).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(Catalog, EmbeddedCatalogLoadsAndValidates) {
  const Catalog& c = default_catalog();
  EXPECT_FALSE(c.gpus.empty());
  EXPECT_EQ(embedded_data_files().size() > 0, true);
}

TEST(Catalog, EveryFileUnderDataIsEmbedded) {
  // A file added to data/ but not to its folder's files.cmake would silently be left out.
  namespace fs = std::filesystem;
  std::set<std::string> embedded;
  for (const auto& f : embedded_data_files()) embedded.insert(f.path);
  const fs::path root = fs::path(testing::source_dir()) / "data";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".toml") continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    if (rel.rfind("calibration/", 0) == 0) continue;  // measured profiles are loaded on request
    EXPECT_TRUE(embedded.contains(rel)) << rel << " is not listed in its folder's files.cmake";
  }
}

TEST(Catalog, EmbeddedFilesAreTheDataFilesLessTheirCommentLines) {
  // cmake/embed_data.cmake drops whole-line comments (a sixth of the bytes the parser reads at
  // each start) and keeps their newlines, so an error in an embedded file names the line of
  // the file in data/; every other line is embedded as written.
  for (const auto& f : embedded_data_files()) {
    std::ifstream in(testing::source_dir() + "/data/" + f.path);
    ASSERT_TRUE(in) << f.path;
    std::istringstream embedded{std::string(f.content)};
    std::string on_disk_line;
    std::string embedded_line;
    int line = 0;
    while (std::getline(in, on_disk_line)) {
      ++line;
      ASSERT_TRUE(std::getline(embedded, embedded_line)) << f.path << " ends early, before line " << line;
      const std::size_t first = on_disk_line.find_first_not_of(" \t");
      const bool comment = first != std::string::npos && on_disk_line[first] == '#';
      EXPECT_EQ(embedded_line, comment ? "" : on_disk_line) << f.path << ":" << line;
    }
    EXPECT_FALSE(std::getline(embedded, embedded_line)) << f.path << " has more lines embedded than on disk";
  }
}

TEST(Catalog, LoadingWithUserFilesLeavesTheBuiltInCatalogAlone) {
  // load_catalog starts from a copy of the process's parsed built-in catalog: what a --catalog
  // file adds goes into the copy only.
  const std::size_t built_in_gpus = default_catalog().gpus.size();
  CatalogOptions options;
  options.user_paths = {testing::source_dir() + "/tests/fixtures/catalog"};
  const Catalog with_user = load_catalog(options);
  EXPECT_NE(with_user.find_gpu("fixture-gpu"), nullptr);
  EXPECT_EQ(with_user.gpus.size(), built_in_gpus + 1);
  EXPECT_EQ(default_catalog().find_gpu("fixture-gpu"), nullptr);
  EXPECT_EQ(default_catalog().gpus.size(), built_in_gpus);
  EXPECT_EQ(load_catalog().find_gpu("fixture-gpu"), nullptr);
}

TEST(Catalog, LoadsTheDataTreeFromDiskToo) {
  CatalogOptions options;
  options.embedded = false;
  options.user_paths = {testing::source_dir() + "/data"};
  const Catalog c = load_catalog(options);
  EXPECT_EQ(c.gpus.size(), default_catalog().gpus.size());
}

TEST(Catalog, EveryEntryCarriesSourceAndDate) {
  const Catalog& c = default_catalog();
  auto check = [](const Provenance& p, const std::string& id) {
    EXPECT_FALSE(p.source.empty()) << id;
    EXPECT_EQ(p.retrieved.size(), 10u) << id << ": retrieved must be an ISO date";
  };
  for (const auto& g : c.gpus) check(g.provenance, g.id);
  for (const auto& l : c.links) check(l.provenance, l.id);
  for (const auto& s : c.switches) check(s.provenance, s.id);
  for (const auto& n : c.nics) check(n.provenance, n.id);
  for (const auto& s : c.systems) check(s.provenance, s.id);
  for (const auto& f : c.fabrics) check(f.provenance, f.id);
  for (const auto& m : c.models) check(m.provenance, m.id);
  for (const auto& o : c.offers) {
    check(o.provenance, o.instance);
    EXPECT_EQ(o.price_date.size(), 10u) << o.instance << ": every price needs its ISO date";
  }
}

TEST(Catalog, LookupIsCaseInsensitiveAndUsesAliases) {
  const Catalog& c = default_catalog();
  EXPECT_EQ(c.gpu("H100-SXM").id, "h100-sxm");
  EXPECT_EQ(c.gpu("H100 SXM").id, "h100-sxm");
  EXPECT_EQ(c.gpu("h100").id, "h100-sxm");
}

}  // namespace
}  // namespace gpuplan
