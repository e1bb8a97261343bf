// The collective_params catalog kind: the shipped file loads, and bad files fail with the file,
// line and key.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_test_util.h"
#include "core/error.h"
#include "cost/collective.h"

namespace gpuplan {
namespace {

constexpr const char* kGoodParams = R"toml(kind = "collective_params"
id = "mine"
name = "test"
source = "test"
retrieved = "2026-11-22"
[latency]
ring_base_us = [6.6, 14.0, 8.4]
tree_base_us = [6.8, 14.0, 8.4]
[protocols]
ll_bw_fraction = 0.4
ll128_bw_fraction = 0.9
alltoall_bw_fraction = 0.8
[[link]]
link = "default"
bw_efficiency = 0.8
ring_hop_us = [0.6, 1.9, 3.4]
tree_hop_us = [0.6, 1.25, 4.0]
)toml";

using testing::catalog_error;
using testing::replaced;

TEST(CollectiveParams, ShippedFileLoadsWithSources) {
  const CollectiveParams& p = default_collective_params(default_catalog());
  EXPECT_EQ(p.id, "nccl");
  EXPECT_DOUBLE_EQ(p.ring_base_latency_s[0], 6.6e-6);
  ASSERT_NE(p.find_link("nvlink4", "nvlink"), nullptr);
  EXPECT_EQ(p.find_link("nvlink4", "nvlink")->link, "nvlink4");
  EXPECT_EQ(p.find_link("nvlink2", "nvlink")->link, "nvlink");     // family fallback
  EXPECT_EQ(p.find_link("xgmi-mi300x", "xgmi")->link, "xgmi");     // RCCL over xGMI: its own entry
  EXPECT_EQ(p.find_link("ici-v5p", "ici")->link, "default");         // default fallback
  for (const auto& l : p.links) {
    EXPECT_FALSE(l.provenance.source.empty()) << l.link;
    EXPECT_EQ(l.provenance.retrieved.size(), 10u) << l.link;
    EXPECT_LE(l.bw_efficiency, 1.0);
  }
}

TEST(CollectiveParams, GoodFileParses) {
  Catalog c;
  load_catalog_text(c, kGoodParams, "good.toml", false);
  ASSERT_EQ(c.collective_params.size(), 1u);
  EXPECT_DOUBLE_EQ(c.collective_params[0].links[0].ring_hop_latency_s[2], 3.4e-6);
}

TEST(CollectiveParams, BadFilesNameFileLineAndKey) {
  const std::string three =
      catalog_error(replaced(kGoodParams, "ring_base_us = [6.6, 14.0, 8.4]", "ring_base_us = [6.6, 14.0]"));
  EXPECT_NE(three.find("test.toml:7"), std::string::npos) << three;
  EXPECT_NE(three.find("ring_base_us"), std::string::npos) << three;
  const std::string over = catalog_error(replaced(kGoodParams, "bw_efficiency = 0.8", "bw_efficiency = 1.3"));
  EXPECT_NE(over.find("bw_efficiency"), std::string::npos) << over;
  const std::string no_default = catalog_error(replaced(kGoodParams, "link = \"default\"", "link = \"nvlink4\""));
  EXPECT_NE(no_default.find("default"), std::string::npos) << no_default;
  const std::string typo = catalog_error(replaced(kGoodParams, "ll128_bw_fraction", "ll128_bw_fractoin"));
  EXPECT_NE(typo.find("ll128_bw_fraction"), std::string::npos) << typo;
  const std::string negative = catalog_error(replaced(kGoodParams, "[0.6, 1.9, 3.4]", "[0.6, -1.9, 3.4]"));
  EXPECT_NE(negative.find("ring_hop_us"), std::string::npos) << negative;
  const std::string channels =
      catalog_error(replaced(kGoodParams, "alltoall_bw_fraction = 0.8", "alltoall_bw_fraction = 0.8\nll_channels = -1"));
  EXPECT_NE(channels.find("ll_channels"), std::string::npos) << channels;
  const std::string no_fill =
      catalog_error(replaced(kGoodParams, "alltoall_bw_fraction = 0.8", "alltoall_bw_fraction = 0.8\nll_channels = 16"));
  EXPECT_NE(no_fill.find("ll_channel_fill_bytes_per_rank"), std::string::npos) << no_fill;
  // NCCL's ceilings take [one node, two nodes, more], each positive; Tree's fractions three in (0, 1].
  const std::string two_scales = catalog_error(
      replaced(kGoodParams, "bw_efficiency = 0.8", "bw_efficiency = 0.8\nll_max_gb_per_s = [141.0, 39.0]"));
  EXPECT_NE(two_scales.find("ll_max_gb_per_s"), std::string::npos) << two_scales;
  const std::string zero_cap = catalog_error(replaced(
      kGoodParams, "bw_efficiency = 0.8", "bw_efficiency = 0.8\nring_ll128_channel_max_gb_per_s = [36.7, 0, 36.7]"));
  EXPECT_NE(zero_cap.find("ring_ll128_channel_max_gb_per_s"), std::string::npos) << zero_cap;
  // llMaxBws takes 0 for "no ceiling at that scale" (RCCL inside one xGMI node), not a negative.
  const std::string negative_ll = catalog_error(
      replaced(kGoodParams, "bw_efficiency = 0.8", "bw_efficiency = 0.8\nll_max_gb_per_s = [0.0, -22.5, 19.0]"));
  EXPECT_NE(negative_ll.find("0 for none"), std::string::npos) << negative_ll;
  const std::string tree = catalog_error(
      replaced(kGoodParams, "alltoall_bw_fraction = 0.8", "alltoall_bw_fraction = 0.8\ntree_bw_fraction = [0.2, 1.5, 0.9]"));
  EXPECT_NE(tree.find("tree_bw_fraction"), std::string::npos) << tree;
}

// [priors]: the values a validation fold falls back to (validate/collective_constants_fit.h). The shipped
// file has them with a source: NCCL's 4 MiB Simple step, NCCL's NVLink hops. The protocol
// fractions are NCCL's own in [protocols] (not fitted), so they have no prior.
// Optional (a file without it parses, present = false); a bad value or an unknown link fails
// naming the key.
constexpr const char* kPriors = R"toml([priors]
source = "test"
simple_step_mb = 4.194304
alltoall_bw_fraction = 1.0
p2p_us = 8.4
nvls_us = 25
nvls_hop_us = 0
nvlink_hop_scale = 1.0
nccl_nvlink_ring_hop_us = [0.6, 1.9, 3.4]
nccl_nvlink_tree_hop_us = [0.6, 1.25, 4.0]
hop_scale_links = ["default"]
nvlink_bw_efficiency = 0.79
bw_efficiency_links = ["default"]
)toml";

TEST(CollectiveParams, PriorsParseWithTheirSource) {
  const CollectiveParams& shipped = default_collective_params(default_catalog());
  ASSERT_TRUE(shipped.priors.present);
  // github.com/NVIDIA/nccl/issues/2169: 4 x H100 alltoall_perf at 500 MiB (issue 32, fourteenth session)
  EXPECT_EQ(shipped.priors.alltoall_bw_fraction, 0.926);
  EXPECT_NEAR(shipped.priors.simple_step_bytes, 4.0 * 1024 * 1024, 1e-6);  // 4.194304 MB = 4 MiB
  EXPECT_NEAR(shipped.priors.nccl_nvlink_ring_hop_s[2], 3.4e-6, 1e-15);
  EXPECT_EQ(shipped.priors.hop_scale_links.size(), 3u);
  EXPECT_FALSE(shipped.priors.provenance.source.empty());

  Catalog none;
  load_catalog_text(none, kGoodParams, "good.toml", false);
  EXPECT_FALSE(none.collective_params[0].priors.present);
  Catalog with;
  load_catalog_text(with, std::string(kGoodParams) + kPriors, "good.toml", false);
  EXPECT_TRUE(with.collective_params[0].priors.present);
  EXPECT_NEAR(with.collective_params[0].priors.p2p_latency_s, 8.4e-6, 1e-15);

  const std::string over = catalog_error(std::string(kGoodParams) +
                                         replaced(kPriors, "alltoall_bw_fraction = 1.0", "alltoall_bw_fraction = 1.5"));
  EXPECT_NE(over.find("alltoall_bw_fraction"), std::string::npos) << over;
  const std::string missing =
      catalog_error(std::string(kGoodParams) + replaced(kPriors, "nvls_hop_us = 0\n", ""));
  EXPECT_NE(missing.find("nvls_hop_us"), std::string::npos) << missing;
  const std::string unknown = catalog_error(
      std::string(kGoodParams) + replaced(kPriors, "hop_scale_links = [\"default\"]", "hop_scale_links = [\"nvlink9\"]"));
  EXPECT_NE(unknown.find("nvlink9"), std::string::npos) << unknown;
}

// The serving model's PCIe fallback, moved from code into nccl.toml [host_pcie_ring] with its
// values unchanged: gen ≤ 3 (and unknown, 0) 12 GB/s, gen 4 25, gen 5 50, gen 6 and newer
// 100; 10 µs per hop (the double 10e-6 exactly, as the code had it).
TEST(CollectiveParams, HostPcieRingKeepsTheOldCodeValues) {
  const CollectiveParams& p = default_collective_params(default_catalog());
  EXPECT_EQ(p.host_pcie_bw(0), 12e9);
  EXPECT_EQ(p.host_pcie_bw(3), 12e9);
  EXPECT_EQ(p.host_pcie_bw(4), 25e9);
  EXPECT_EQ(p.host_pcie_bw(5), 50e9);
  EXPECT_EQ(p.host_pcie_bw(6), 100e9);
  EXPECT_EQ(p.host_pcie_bw(7), 100e9);
  EXPECT_EQ(p.host_pcie_hop_latency_s, 10e-6);
  EXPECT_FALSE(p.host_pcie_provenance.source.empty());
  // Optional: a file without the table parses and has no figures.
  Catalog c;
  load_catalog_text(c, kGoodParams, "good.toml", false);
  EXPECT_EQ(c.collective_params[0].host_pcie_bw(4), 0);
  const std::string bad = catalog_error(
      std::string(kGoodParams) + "[host_pcie_ring]\nfirst_generation = 3\nbw_gb_per_s = [12, -1]\nhop_us = 10\n");
  EXPECT_NE(bad.find("bw_gb_per_s"), std::string::npos) << bad;
}

// AMD nodes run RCCL: the xgmi entry carries RCCL's own base latency (tuning.cc baseLat, Ring
// and Tree {12, 12, 17} us) and the topology of an MI300X/MI325X/MI355X node uses it, while a
// DGX H100 keeps NCCL's (Ring Simple 8.4 us).
TEST(CollectiveParams, XgmiNodesPayRcclsBaseLatency) {
  const Catalog& c = default_catalog();
  const CollectiveParams& p = default_collective_params(c);
  for (const char* id : {"mi300x-8", "mi325x-8", "mi355x-8"}) {
    const CollectiveTopology t = make_collective_topology(c, c.system(id), nullptr, p);
    EXPECT_EQ(t.library, "rccl") << id;
    EXPECT_DOUBLE_EQ(t.ring_base_s[2], 17e-6) << id;
    EXPECT_DOUBLE_EQ(t.tree_base_s[0], 12e-6) << id;
  }
  const CollectiveTopology h100 = make_collective_topology(c, c.system("dgx-h100"), nullptr, p);
  EXPECT_EQ(h100.library, "nccl");
  EXPECT_DOUBLE_EQ(h100.ring_base_s[2], 8.4e-6);
  // A small AllReduce on 8 x MI300X: RCCL's 12 us LL base + 14 ring steps of 2.3 us = 44.2 us
  // of fixed cost (NCCL's base would give 6.6 + 32.2 = 38.8 us).
  CollectiveRequest r;
  r.bytes = 512;
  r.gpus_per_domain = 8;
  const CollectiveEstimate e = estimate_collective_with(r, make_collective_topology(c, c.system("mi300x-8"), nullptr, p),
                                                        CollectiveAlgorithm::ring, Protocol::ll);
  EXPECT_NEAR(e.latency_s, 44.2e-6, 1e-9);
}

TEST(CollectiveParams, LibraryBaseLatencyComesInPairs) {
  const std::string text = replaced(kGoodParams, "tree_hop_us = [0.6, 1.25, 4.0]",
                                    "tree_hop_us = [0.6, 1.25, 4.0]\nring_base_us = [12, 12, 17]");
  const std::string lone = catalog_error(text);
  EXPECT_NE(lone.find("tree_base_us"), std::string::npos) << lone;
  Catalog c;
  load_catalog_text(c, replaced(text, "ring_base_us = [12, 12, 17]", "ring_base_us = [12, 12, 17]\ntree_base_us = [12, 12, 17]\nlibrary = \"rccl\""),
                    "good.toml", false);
  ASSERT_TRUE(c.collective_params[0].links[0].ring_base_latency_s.has_value());
  EXPECT_DOUBLE_EQ((*c.collective_params[0].links[0].ring_base_latency_s)[2], 17e-6);
  EXPECT_EQ(c.collective_params[0].links[0].library, "rccl");
}

}  // namespace
}  // namespace gpuplan
