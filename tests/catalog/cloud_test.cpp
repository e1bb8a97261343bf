// Cloud price offers: parsing, derived per-GPU prices, dates, and the shipped price list.
#include <gtest/gtest.h>

#include <set>

#include "catalog/catalog.h"
#include "catalog/catalog_test_util.h"
#include "core/error.h"

namespace gpuplan {
namespace {

const char* kOffers = R"(kind = "offers"
provider = "aws"
source = "file source"
retrieved = "2026-11-22"

[[offer]]
instance = "p5.48xlarge"
gpu = "h100-sxm"
gpu_count = 8
region = "us-east-1"
pricing = "on-demand"
usd_per_hour = 55.04
price_date = "2026-01-21"

[[offer]]
instance = "one gpu"
gpu = "h100-sxm"
gpu_count = 1
pricing = "spot"
usd_per_gpu_hour = 2.5
price_date = "2024-02-29"
historical = true
source = "offer source"
)";

using testing::catalog_error;

using testing::replaced;

TEST(CloudOffers, ParseDeriveAndInherit) {
  Catalog c;
  load_catalog_text(c, kOffers, "prices.toml", false);
  ASSERT_EQ(c.offers.size(), 2u);
  const CloudOffer& p5 = c.offers[0];
  EXPECT_EQ(p5.provider, "aws");
  EXPECT_DOUBLE_EQ(p5.usd_per_gpu_hour, 6.88);  // 55.04 / 8
  EXPECT_EQ(p5.provenance.source, "file source");
  EXPECT_FALSE(p5.historical);
  const CloudOffer& one = c.offers[1];
  EXPECT_DOUBLE_EQ(one.usd_per_hour, 2.5);  // 2.5 x 1
  EXPECT_EQ(one.provenance.source, "offer source");
  EXPECT_EQ(one.provenance.retrieved, "2026-11-22");
  EXPECT_TRUE(one.historical);
}

TEST(CloudOffers, BadInput) {
  EXPECT_NE(catalog_error(replaced(kOffers, "pricing = \"spot\"", "pricing = \"preemptible\"")).find("unknown pricing"),
            std::string::npos);
  for (const char* bad : {"2026-02-30", "2026-13-01", "2026-01", "21/01/2026", "2025-02-29"}) {
    const std::string msg = catalog_error(replaced(kOffers, "2026-01-21", bad));
    EXPECT_NE(msg.find("ISO date"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find("test.toml:"), std::string::npos) << msg;
  }
  EXPECT_NE(catalog_error(replaced(kOffers, "gpu_count = 8\n", "")).find("gpu_count"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kOffers, "region = \"us-east-1\"", "zone = \"us-east-1\"")).find("unknown key"),
            std::string::npos);
  // Both prices given must agree: 55.04 / 8 = 6.88, not 7.5.
  EXPECT_NE(catalog_error(replaced(kOffers, "usd_per_hour = 55.04", "usd_per_hour = 55.04\nusd_per_gpu_hour = 7.5"))
                .find("disagrees"),
            std::string::npos);
  EXPECT_EQ(catalog_error(replaced(kOffers, "usd_per_hour = 55.04", "usd_per_hour = 55.04\nusd_per_gpu_hour = 6.88")),
            "");
  EXPECT_NE(catalog_error(replaced(kOffers, "usd_per_hour = 55.04\n", "")).find("usd_per_hour"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kOffers, "usd_per_hour = 55.04", "usd_per_hour = 0")).find("positive"),
            std::string::npos);
  // An estimated date must say why.
  EXPECT_NE(catalog_error(replaced(kOffers, "price_date = \"2026-01-21\"",
                                   "price_date = \"2026-01-21\"\nprice_date_estimated = true"))
                .find("notes"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kOffers, "provider = \"aws\"\n", "")).find("provider"), std::string::npos);
  EXPECT_NE(catalog_error("kind = \"offers\"\nsource = \"s\"\nretrieved = \"2026-11-22\"\n").find("offer"),
            std::string::npos);
}

TEST(CloudOffers, SystemMustHoldTheOfferedGpu) {
  Catalog c = default_catalog();
  Catalog extra;
  load_catalog_text(
      extra, replaced(kOffers, "price_date = \"2026-01-21\"", "price_date = \"2026-01-21\"\nsystem = \"dgx-b200\""),
      "prices.toml", false);
  c.offers.push_back(extra.offers[0]);
  try {
    validate_catalog(c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dgx-b200"), std::string::npos) << e.what();
  }
}

TEST(CloudOffers, ShippedPriceList) {
  const Catalog& c = default_catalog();
  const std::set<std::string> pricing{"on-demand", "spot",           "reserved-1y", "reserved-3y",
                                      "reserved",  "capacity-block", "index"};
  std::set<std::string> providers;
  int p5_current = 0;
  int p5_stale = 0;
  for (const CloudOffer& o : c.offers) {
    providers.insert(o.provider);
    EXPECT_TRUE(pricing.contains(o.pricing)) << o.instance;
    EXPECT_EQ(o.price_date.size(), 10u) << o.instance;
    EXPECT_NEAR(o.usd_per_gpu_hour * o.gpu_count, o.usd_per_hour, 0.01 * o.usd_per_hour) << o.instance;
    EXPECT_NE(c.find_gpu(o.gpu), nullptr) << o.instance;
    if (o.instance == "p5.48xlarge" && o.pricing == "on-demand") {
      if (o.historical) {
        ++p5_stale;
        EXPECT_DOUBLE_EQ(o.usd_per_hour, 98.32);  // pre-June-2025 list price
      } else {
        ++p5_current;
        EXPECT_DOUBLE_EQ(o.usd_per_hour, 55.04);
        EXPECT_EQ(o.price_date, "2026-01-21");
      }
    }
  }
  // Seed errata T10: a3-highgpu-8g is ~88 USD/h on demand, not "~$19-25/h".
  bool a3 = false;
  for (const CloudOffer& o : c.offers) {
    if (o.instance == "a3-highgpu-8g" && o.pricing == "on-demand") {
      a3 = true;
      EXPECT_DOUBLE_EQ(o.usd_per_hour, 87.8325);
    }
  }
  EXPECT_TRUE(a3);
  EXPECT_EQ(p5_current, 1);
  EXPECT_EQ(p5_stale, 1);
  for (const char* p : {"aws", "gcp", "azure", "lambda", "coreweave", "runpod", "vast"}) {
    EXPECT_TRUE(providers.contains(p)) << p;
  }
}

}  // namespace
}  // namespace gpuplan
