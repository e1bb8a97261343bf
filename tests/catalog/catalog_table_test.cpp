// The built-in catalog parses what a command reads (catalog/catalog_table.h): a lookup by name
// parses one file, a walk over a table the whole table, and what the tables hold is what a
// load of every file would hold.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/embedded_data.h"
#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

// The embedded files of one kind, in file order.
std::vector<EmbeddedFile> lazy_test_files_of(std::string_view kind) {
  std::vector<EmbeddedFile> out;
  for (const EmbeddedFile& f : embedded_data_files()) {
    if (f.kind == kind) out.push_back(f);
  }
  return out;
}

std::vector<const EmbeddedFile*> lazy_test_pointers(const std::vector<EmbeddedFile>& files) {
  std::vector<const EmbeddedFile*> out;
  for (const EmbeddedFile& f : files) out.push_back(&f);
  return out;
}

// The same table, loaded one file after the other as a --catalog directory would be.
std::vector<Link> lazy_test_links_loaded_whole(const std::vector<EmbeddedFile>& files) {
  Catalog c;
  for (const EmbeddedFile& f : files) load_catalog_text(c, f.content, std::string("<embedded>/") + f.path, false);
  return c.links.all();
}

TEST(CatalogTable, ALookupParsesOnlyTheFileItNames) {
  std::vector<EmbeddedFile> files = lazy_test_files_of("link");
  ASSERT_GE(files.size(), 3u);
  // The second file is broken: a lookup of the first or the third never reads it...
  files[1].content = "kind = \"link\"\nid = \"broken\"\nthis is not TOML\n";
  files[1].id = "broken";
  files[1].aliases = "";
  files[1].path = "hardware/links/broken.toml";
  CatalogTable<Link> table;
  table.make_lazy(lazy_test_pointers(files));
  const Link* first = table.find_normalized(normalize_name(files[0].id));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->id, files[0].id);
  const Link* third = table.find_normalized(normalize_name(files[2].id));
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->id, files[2].id);
  EXPECT_EQ(table.find_normalized("no-such-link"), nullptr);
  // ...and a walk over the table does, and fails as loading the file alone fails.
  try {
    (void)table.size();
    FAIL() << "the broken file was not parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("<embedded>/hardware/links/broken.toml:3"), std::string::npos) << e.what();
  }
}

TEST(CatalogTable, AnEntryFoundByNameKeepsItsAddressWhenTheTableIsFilled) {
  const std::vector<EmbeddedFile> files = lazy_test_files_of("link");
  ASSERT_GE(files.size(), 2u);
  CatalogTable<Link> table;
  table.make_lazy(lazy_test_pointers(files));
  const std::size_t last = files.size() - 1;
  const Link* found = table.find_normalized(normalize_name(files[last].id));
  ASSERT_NE(found, nullptr);
  ASSERT_EQ(table.size(), files.size());
  EXPECT_EQ(&table[last], found);
  EXPECT_EQ(table.find_normalized(normalize_name(files[last].id)), found);
}

TEST(CatalogTable, AFilledLazyTableHoldsWhatLoadingEveryFileHolds) {
  const std::vector<EmbeddedFile> files = lazy_test_files_of("link");
  CatalogTable<Link> table;
  table.make_lazy(lazy_test_pointers(files));
  (void)table.find_normalized(normalize_name(files[1].id));  // one slot parsed first
  const CatalogTable<Link> copy = table;                      // a copy stays lazy
  const std::vector<Link> whole = lazy_test_links_loaded_whole(files);
  for (const CatalogTable<Link>* t : {static_cast<const CatalogTable<Link>*>(&table), &copy}) {
    ASSERT_EQ(t->size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ((*t)[i].id, whole[i].id);
      EXPECT_EQ((*t)[i].aliases, whole[i].aliases);
      EXPECT_EQ((*t)[i].device_bw_uni_bytes_per_s, whole[i].device_bw_uni_bytes_per_s);
      EXPECT_EQ((*t)[i].provenance.file, whole[i].provenance.file);
    }
  }
}

TEST(CatalogTable, ADuplicateIdFailsWhenTheTableIsFilledAsLoadingDoes) {
  std::vector<EmbeddedFile> files = lazy_test_files_of("link");
  ASSERT_GE(files.size(), 2u);
  files[1] = files[0];
  files[1].path = "hardware/links/copy.toml";
  CatalogTable<Link> table;
  table.make_lazy(lazy_test_pointers(files));
  std::string loading_error;
  try {
    (void)lazy_test_links_loaded_whole(files);
  } catch (const Error& e) {
    loading_error = e.what();
  }
  ASSERT_NE(loading_error.find("duplicate link id or alias"), std::string::npos) << loading_error;
  try {
    (void)table.begin();
    FAIL() << "the duplicate was not found";
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), loading_error);
  }
}

TEST(CatalogTable, NamesAndSelectAnswerAsALookupWould) {
  const std::vector<EmbeddedFile> files = lazy_test_files_of("system");
  ASSERT_GE(files.size(), 2u);
  CatalogTable<System> lazy;
  lazy.make_lazy(lazy_test_pointers(files));
  const CatalogTable<System> filled = lazy;
  (void)filled.size();
  const std::string gpu = files[0].gpu;
  for (const CatalogTable<System>* t : {static_cast<const CatalogTable<System>*>(&lazy), &filled}) {
    const System* first = t->find_normalized(normalize_name(files[0].id));
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(t->names(normalize_name(files[0].id), *first));
    EXPECT_FALSE(t->names(normalize_name(files[1].id), *first));
    EXPECT_FALSE(t->names("no-such-system", *first));
    const std::vector<const System*> picked =
        t->select([&](const EmbeddedFile& f) { return f.gpu == gpu; }, [&](const System& s) { return s.gpu == gpu; });
    std::vector<std::string> expected;
    for (const EmbeddedFile& f : files) {
      if (f.gpu == gpu) expected.push_back(f.id);
    }
    std::vector<std::string> got;
    for (const System* s : picked) got.push_back(s->id);
    EXPECT_EQ(got, expected);
  }
}

TEST(CatalogTable, ReadsAsTheVectorItWas) {
  CatalogTable<Link> table;
  EXPECT_TRUE(table.empty());
  Link a;
  a.id = "a";
  table.push_back(a);
  table.emplace_back().id = "b";
  const std::vector<Link>& v = table;
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].id, "b");
  table = std::vector<Link>{a};
  EXPECT_EQ(table.size(), 1u);
  table.clear();
  EXPECT_TRUE(table.empty());
}

// The build reads each embedded file's kind, id, aliases and (a system's) gpu
// (cmake/embed_data.cmake) for the lookups; they must be what the parser reads, or a lookup
// would miss or find another entry.
template <typename T>
void expect_lazy_index(const CatalogTable<T>& table, const EmbeddedFile& f, std::string_view kind, int& tables) {
  if (table.empty()) return;
  ++tables;
  EXPECT_EQ(std::string_view(f.kind), kind) << f.path;
  if constexpr (std::is_same_v<T, CloudOffer>) {
    EXPECT_EQ(std::string_view(f.id), "") << f.path;
  } else {
    ASSERT_EQ(table.size(), 1u) << f.path;
    EXPECT_EQ(f.id, table[0].id) << f.path;
    std::string aliases;
    for (const auto& a : table[0].aliases) aliases += a + "\n";
    EXPECT_EQ(f.aliases, aliases) << f.path;
    if constexpr (std::is_same_v<T, System>) {
      EXPECT_EQ(std::string_view(f.gpu), table[0].gpu) << f.path;
    }
  }
}

TEST(CatalogTable, TheBuildsIndexIsWhatTheParserReads) {
  for (const EmbeddedFile& f : embedded_data_files()) {
    Catalog c;
    load_catalog_text(c, f.content, f.path, false);
    int tables = 0;
    expect_lazy_index(c.gpus, f, "gpu", tables);
    expect_lazy_index(c.links, f, "link", tables);
    expect_lazy_index(c.switches, f, "switch", tables);
    expect_lazy_index(c.nics, f, "nic", tables);
    expect_lazy_index(c.systems, f, "system", tables);
    expect_lazy_index(c.fabrics, f, "fabric", tables);
    expect_lazy_index(c.offers, f, "offers", tables);
    expect_lazy_index(c.models, f, "model", tables);
    expect_lazy_index(c.collective_params, f, "collective_params", tables);
    expect_lazy_index(c.efficiencies, f, "efficiency", tables);
    expect_lazy_index(c.frameworks, f, "framework", tables);
    expect_lazy_index(c.tco_inputs, f, "tco_inputs", tables);
    expect_lazy_index(c.engines, f, "engine", tables);
    expect_lazy_index(c.source_dates, f, "source_dates", tables);
    EXPECT_EQ(tables, 1) << f.path;
  }
}

TEST(CatalogTable, TheBuiltInCatalogIsEveryEmbeddedFileInFileOrder) {
  // What a command sees through the lazy tables is what the one-by-one load of every file,
  // which the catalog was before, holds: the same entries in the same order.
  Catalog whole;
  for (const EmbeddedFile& f : embedded_data_files()) {
    load_catalog_text(whole, f.content, std::string("<embedded>/") + f.path, false);
  }
  validate_catalog(whole);
  const Catalog& lazy = default_catalog();
  auto same_ids = [](const auto& a, const auto& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id) << what << " " << i;
  };
  same_ids(lazy.gpus, whole.gpus, "gpus");
  same_ids(lazy.links, whole.links, "links");
  same_ids(lazy.switches, whole.switches, "switches");
  same_ids(lazy.nics, whole.nics, "nics");
  same_ids(lazy.systems, whole.systems, "systems");
  same_ids(lazy.fabrics, whole.fabrics, "fabrics");
  same_ids(lazy.models, whole.models, "models");
  same_ids(lazy.collective_params, whole.collective_params, "collective_params");
  same_ids(lazy.efficiencies, whole.efficiencies, "efficiencies");
  same_ids(lazy.frameworks, whole.frameworks, "frameworks");
  same_ids(lazy.tco_inputs, whole.tco_inputs, "tco_inputs");
  same_ids(lazy.engines, whole.engines, "engines");
  same_ids(lazy.source_dates, whole.source_dates, "source_dates");
  ASSERT_EQ(lazy.offers.size(), whole.offers.size());
  for (std::size_t i = 0; i < whole.offers.size(); ++i) {
    EXPECT_EQ(lazy.offers[i].instance, whole.offers[i].instance) << i;
    EXPECT_EQ(lazy.offers[i].provider, whole.offers[i].provider) << i;
  }
  // Every id and alias finds the same entry by the build's index as by the parsed table.
  for (const Gpu& g : whole.gpus) {
    for (const std::string& name : g.aliases) EXPECT_EQ(lazy.gpu(name).id, g.id) << name;
  }
  for (const ModelSpec& m : whole.models) {
    for (const std::string& name : m.aliases) EXPECT_EQ(lazy.model(name).id, m.id) << name;
  }
}

}  // namespace
}  // namespace gpuplan
