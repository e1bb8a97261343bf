// One test loads every data file (the embedded catalog and the data/ tree on disk).
#include <filesystem>

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
