// One test loads every data file (the embedded catalog and the data/ tree on disk).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"
#include "catalog/toml_fields.h"
#include "test_util.h"

namespace gpuplan {
namespace {

TEST(Catalog, EmbeddedCatalogLoadsAndValidates) {
  // A command parses only the files it reads (catalog/catalog_table.h) and checks no
  // cross-references: this is where every built-in file is parsed and checked.
  const Catalog& c = default_catalog();
  EXPECT_FALSE(c.gpus.empty());
  EXPECT_EQ(embedded_data_files().size() > 0, true);
  EXPECT_NO_THROW(validate_catalog(c));
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

// A line of a data file as cmake/embed_data.cmake embeds it: a whole-line comment empty, a
// comment after a value dropped where no quote comes before the '#' (so it cannot be in a
// string), other lines as written.
std::string embedded_form_of(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first != std::string::npos && line[first] == '#') return "";
  const std::size_t hash = line.find('#');
  if (hash == std::string::npos || line.find_first_of("\"'") < hash) return line;
  const std::string before = line.substr(0, hash);  // not blank: the line is no whole-line comment
  return before.substr(0, before.find_last_not_of(" \t") + 1);
}

TEST(Catalog, EmbeddedFilesAreTheDataFilesLessTheirComments) {
  // cmake/embed_data.cmake drops comments (a quarter of the bytes the parser reads) and keeps
  // their newlines, so an error in an embedded file names the line of the file in data/; the
  // values are as written (the same TOML tables, compared by toml++).
  for (const auto& f : embedded_data_files()) {
    const std::string path = testing::source_dir() + "/data/" + f.path;
    std::ifstream in(path);
    ASSERT_TRUE(in) << f.path;
    std::stringstream whole;
    whole << in.rdbuf();
    const std::string on_disk = whole.str();
    const bool multiline = on_disk.find("\"\"\"") != std::string::npos || on_disk.find("'''") != std::string::npos;
    std::istringstream disk{on_disk};
    std::istringstream embedded{std::string(f.content)};
    std::string on_disk_line;
    std::string embedded_line;
    int line = 0;
    while (std::getline(disk, on_disk_line)) {
      ++line;
      ASSERT_TRUE(std::getline(embedded, embedded_line)) << f.path << " ends early, before line " << line;
      EXPECT_EQ(embedded_line, multiline ? on_disk_line : embedded_form_of(on_disk_line)) << f.path << ":" << line;
    }
    EXPECT_FALSE(std::getline(embedded, embedded_line)) << f.path << " has more lines embedded than on disk";
    EXPECT_EQ(toml::parse(std::string_view(f.content), std::string_view(f.path)), toml::parse(on_disk, path)) << f.path;
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
