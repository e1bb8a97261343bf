// Links, switches, NICs, systems and fabrics: the derived bandwidth figures (hand derivations
// in the comments), golden figures from the seeds, and bad input for each parser.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_test_util.h"
#include "catalog/system_derived.h"
#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

constexpr double kG = 1e9;
constexpr double kT = 1e12;

// ---------------------------------------------------------------- derived figures, by hand

Switch make_switch(int ports, double port_gb_per_s) {
  Switch sw;
  sw.id = "sw";
  sw.ports = ports;
  sw.port_bw_uni_bytes_per_s = port_gb_per_s * kG;
  sw.capacity_uni_bytes_per_s = ports * port_gb_per_s * kG;
  return sw;
}

System switched_node(int gpus, double per_gpu_gb_per_s, int switches) {
  System s;
  s.id = "node";
  s.kind = "node";
  s.gpus = gpus;
  s.gpus_per_host = gpus;
  s.scaleup_topology = "switched";
  s.scaleup_bw_uni_bytes_per_s = per_gpu_gb_per_s * kG;
  s.nvswitch = "sw";
  s.nvswitch_count = switches;
  return s;
}

TEST(SystemDerived, SwitchCapacityIsSwitchesTimesPortsTimesRate) {
  // 8xH100: 4 NVSwitch 3 x 64 ports x 25 GB/s = 6.4 TB/s one way (seed 004).
  const Switch sw = make_switch(64, 25);
  EXPECT_DOUBLE_EQ(scaleup_switch_capacity_uni_bytes_per_s(switched_node(8, 450, 4), &sw), 6.4 * kT);
  EXPECT_DOUBLE_EQ(scaleup_switch_capacity_uni_bytes_per_s(switched_node(8, 450, 4), nullptr), 0);
}

TEST(SystemDerived, NodeTotalIsGpusTimesBandwidthCappedBySwitches) {
  // min(8 x 450 GB/s, 6.4 TB/s) = 3.6 TB/s.
  const Switch sw = make_switch(64, 25);
  EXPECT_DOUBLE_EQ(node_total_bw_uni_bytes_per_s(switched_node(8, 450, 4), &sw), 3.6 * kT);
  // One switch of the same kind carries only 1.6 TB/s: the switch is the cap.
  EXPECT_DOUBLE_EQ(node_total_bw_uni_bytes_per_s(switched_node(8, 450, 1), &sw), 1.6 * kT);
}

TEST(SystemDerived, SwitchedBisectionCountsBothDirections) {
  // 4 GPUs per half, each sends 450 GB/s across and receives as much: 8 x 450 = 3.6 TB/s.
  const Switch sw = make_switch(64, 25);
  EXPECT_DOUBLE_EQ(node_bisection_bw_bytes_per_s(switched_node(8, 450, 4), &sw), 3.6 * kT);
}

TEST(SystemDerived, MeshBisectionCountsOnlyTheLinksAcrossTheCut) {
  // 8 x MI300X: 4 x 4 = 16 peer links cross the cut, 64 GB/s each way: 2 x 16 x 64 = 2,048 GB/s.
  System s;
  s.gpus = 8;
  s.scaleup_topology = "mesh";
  s.scaleup_per_peer_bw_uni_bytes_per_s = 64 * kG;
  s.scaleup_bw_uni_bytes_per_s = 7 * 64 * kG;
  EXPECT_DOUBLE_EQ(node_bisection_bw_bytes_per_s(s, nullptr), 2048 * kG);
  EXPECT_DOUBLE_EQ(node_total_bw_uni_bytes_per_s(s, nullptr), 8 * 448 * kG);
  // Odd count: 3 GPUs split 1 | 2, two links cross.
  s.gpus = 3;
  EXPECT_DOUBLE_EQ(node_bisection_bw_bytes_per_s(s, nullptr), 2 * 1 * 2 * 64 * kG);
}

TEST(SystemDerived, PcieAndSingleGpuSystems) {
  System s;
  s.gpus = 4;
  s.scaleup_topology = "pcie";
  s.scaleup_bw_uni_bytes_per_s = 31.5 * kG;
  EXPECT_DOUBLE_EQ(node_total_bw_uni_bytes_per_s(s, nullptr), 126 * kG);
  EXPECT_DOUBLE_EQ(node_bisection_bw_bytes_per_s(s, nullptr), 126 * kG);
  s.gpus = 1;
  s.scaleup_topology = "none";
  EXPECT_DOUBLE_EQ(node_total_bw_uni_bytes_per_s(s, nullptr), 0);
  EXPECT_DOUBLE_EQ(node_bisection_bw_bytes_per_s(s, nullptr), 0);
}

TEST(SystemDerived, ScaleOutIsNicsTimesLineRate) {
  // DGX H100: 8 x 400 Gb/s = 400 GB/s per node, 50 GB/s per GPU.
  System s = switched_node(8, 450, 4);
  s.nics = 8;
  s.nic_bw_uni_bytes_per_s = 50 * kG;
  EXPECT_DOUBLE_EQ(node_scaleout_bw_uni_bytes_per_s(s), 400 * kG);
  EXPECT_DOUBLE_EQ(s.scaleout_bw_uni_bytes_per_s_per_gpu(), 50 * kG);
}

TEST(SystemDerived, LevelsStartAtTheNodeAndCountSubdomains) {
  const Switch sw = make_switch(64, 25);
  const System s = switched_node(8, 450, 4);
  Fabric f;
  FabricLevel leaf;
  leaf.name = "leaf";
  leaf.gpus = 256;
  leaf.bw_uni_bytes_per_s = 12.8 * kT;
  FabricLevel spine;
  spine.name = "spine";
  spine.gpus = 1024;
  spine.bw_uni_bytes_per_s = 25.6 * kT;  // the seed's spine figure
  f.levels = {leaf, spine};
  const auto levels = bandwidth_levels(s, &sw, &f);
  ASSERT_EQ(levels.size(), 3u);
  // Seed 004's table: subdomains 8 / 32 / 4, W 3.6 / 12.8 / 25.6 TB/s, 450 / 50 / 25 GB/s per GPU.
  EXPECT_EQ(levels[0].subdomains, 8);
  EXPECT_EQ(levels[1].subdomains, 32);
  EXPECT_EQ(levels[2].subdomains, 4);
  EXPECT_DOUBLE_EQ(levels[0].bw_per_gpu_uni_bytes_per_s, 450 * kG);
  EXPECT_DOUBLE_EQ(levels[1].bw_per_gpu_uni_bytes_per_s, 50 * kG);
  EXPECT_DOUBLE_EQ(levels[2].bw_per_gpu_uni_bytes_per_s, 25 * kG);
  EXPECT_EQ(bandwidth_levels(s, &sw, nullptr).size(), 1u);
}

// ---------------------------------------------------------------- golden, the shipped catalog

TEST(SystemGolden, DgxH100TotalAndBisectionAre3p6TBps) {
  // Seed 004, problems 1 and 2: 8 x 450 GB/s = 3.6 TB/s, and 3.6 TB/s bisection (Hot Chips 2022).
  const Catalog& c = default_catalog();
  const SystemFigures f = system_figures(c.system("dgx-h100"), c);
  EXPECT_DOUBLE_EQ(f.scaleup_bw_uni_bytes_per_s, 450 * kG);
  EXPECT_DOUBLE_EQ(f.switch_capacity_uni_bytes_per_s, 6.4 * kT);
  EXPECT_DOUBLE_EQ(f.total_node_bw_uni_bytes_per_s, 3.6 * kT);
  EXPECT_DOUBLE_EQ(f.bisection_bw_bytes_per_s, 3.6 * kT);
  EXPECT_DOUBLE_EQ(f.scaleout_bw_uni_bytes_per_s, 400 * kG);
  EXPECT_DOUBLE_EQ(f.scaleout_bw_uni_bytes_per_s_per_gpu, 50 * kG);
  EXPECT_DOUBLE_EQ(f.scaleup_to_scaleout_ratio, 9);
}

TEST(SystemGolden, SuperPodH100PerGpuBandwidthByLevel) {
  // Node 450 GB/s and leaf 50 GB/s as seed 004. Spine: 16 QM9700 x 64 ports x 50 GB/s = 51.2 TB/s
  // (= 1,024 leaf-spine cables x 400 Gb/s) -> 50 GB/s per GPU; seed 004's 25 GB/s credits each
  // QM9700 with the NVSwitch's 1.6 TB/s (docs/seed-errata.md; reproduced in the test above).
  const Catalog& c = default_catalog();
  const auto levels = fabric_levels(c.fabric("dgx-superpod-h100"), c);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "node");
  EXPECT_DOUBLE_EQ(levels[0].bw_uni_bytes_per_s, 3.6 * kT);
  EXPECT_DOUBLE_EQ(levels[1].bw_uni_bytes_per_s, 12.8 * kT);
  EXPECT_DOUBLE_EQ(levels[2].bw_uni_bytes_per_s, 51.2 * kT);
  EXPECT_DOUBLE_EQ(levels[0].bw_per_gpu_uni_bytes_per_s, 450 * kG);
  EXPECT_DOUBLE_EQ(levels[1].bw_per_gpu_uni_bytes_per_s, 50 * kG);
  EXPECT_DOUBLE_EQ(levels[2].bw_per_gpu_uni_bytes_per_s, 50 * kG);
  EXPECT_EQ(levels[1].gpus, 256);
  EXPECT_EQ(levels[2].gpus, 1024);
  // The seed's AllReduce bound max_i(subdomains_i / W_i) is still set by the leaf: 400 GB/s.
  double worst = 0;
  for (const auto& l : levels) worst = std::max(worst, l.subdomains / l.bw_uni_bytes_per_s);
  EXPECT_NEAR(1 / worst, 400 * kG, 1);
}

TEST(SystemGolden, Nvl72ScaleUpIsTwiceH100) {
  const Catalog& c = default_catalog();
  const System& nvl = c.system("gb200-nvl72");
  const System& h100 = c.system("dgx-h100");
  EXPECT_DOUBLE_EQ(nvl.scaleup_bw_uni_bytes_per_s, 900 * kG);
  EXPECT_DOUBLE_EQ(nvl.scaleup_bw_uni_bytes_per_s, 2 * h100.scaleup_bw_uni_bytes_per_s);
  // 18 NVLink Switch chips in 9 trays (not 18 trays); 72 x 900 GB/s = 18 x 72 x 50 GB/s = 64.8 TB/s.
  EXPECT_EQ(nvl.nvswitch_count, 18);
  EXPECT_EQ(nvl.nvswitch_trays, 9);
  const SystemFigures f = system_figures(nvl, c);
  EXPECT_DOUBLE_EQ(f.total_node_bw_uni_bytes_per_s, 64.8 * kT);
  // Seed 002: rack egress 4 x 18 x 400 Gb/s / 8 = 3.6 TB/s; still 50 GB/s per GPU.
  EXPECT_DOUBLE_EQ(f.scaleout_bw_uni_bytes_per_s, 3.6 * kT);
  EXPECT_DOUBLE_EQ(f.scaleout_bw_uni_bytes_per_s_per_gpu, 50 * kG);
  EXPECT_EQ(nvl.gpus_per_host, 4);
}

TEST(SystemGolden, OtherNodes) {
  const Catalog& c = default_catalog();
  // DGX A100: 8 x 300 GB/s = 2.4 TB/s (the seeds' "4.8 TB/s" is bidirectional); 8 x 200 Gb/s out.
  const SystemFigures a100 = system_figures(c.system("dgx-a100"), c);
  EXPECT_DOUBLE_EQ(a100.total_node_bw_uni_bytes_per_s, 2.4 * kT);
  EXPECT_DOUBLE_EQ(a100.scaleout_bw_uni_bytes_per_s_per_gpu, 25 * kG);
  // DGX B200: 2 x 72 x 50 GB/s = 7.2 TB/s of switch = 8 x 900 GB/s ("14.4 TB/s" bidirectional).
  const SystemFigures b200 = system_figures(c.system("dgx-b200"), c);
  EXPECT_DOUBLE_EQ(b200.switch_capacity_uni_bytes_per_s, 7.2 * kT);
  EXPECT_DOUBLE_EQ(b200.total_node_bw_uni_bytes_per_s, 7.2 * kT);
  // MI300X: 7 peers x 64 GB/s = 448 GB/s; mesh bisection 2 x 16 x 64 GB/s.
  const SystemFigures mi = system_figures(c.system("mi300x-8"), c);
  EXPECT_DOUBLE_EQ(mi.scaleup_bw_uni_bytes_per_s, 448 * kG);
  EXPECT_DOUBLE_EQ(mi.bisection_bw_bytes_per_s, 2048 * kG);
  // p4d: 4 x 100 Gb/s EFA, an eighth of DGX A100 per GPU.
  EXPECT_DOUBLE_EQ(c.system("p4d.24xlarge").scaleout_bw_uni_bytes_per_s_per_gpu(), 6.25 * kG);
  const System& ws = c.system("workstation-4x-rtx4090");
  EXPECT_EQ(ws.scaleup_topology, "pcie");
  EXPECT_EQ(ws.nics, 0);
}

TEST(SystemGolden, NamesUsersTypeResolve) {
  // The `system` values of shared/data/collectives.csv, plus the HGX names and dgx-h200.
  const Catalog& c = default_catalog();
  for (const char* name : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72", "hgx-h100", "HGX H100",
                           "DGX-B300", "gb300-nvl72", "mi300x-8", "workstation-4x-rtx4090", "p5.48xlarge"}) {
    EXPECT_NE(c.find_system(name), nullptr) << name;
  }
  for (const char* name :
       {"nvlink1",     "nvlink2",       "nvlink3",     "nvlink4",     "nvlink5",     "nvlink-c2c",
        "pcie3",       "pcie4",         "pcie5",       "pcie6",       "pcie7",       "ib-edr",
        "ib-hdr",      "ib-ndr",        "ib-xdr",      "eth-100g",    "eth-200g",    "eth-400g",
        "eth-800g",    "xgmi-mi250x",   "xgmi-mi300x", "xgmi-mi325x", "xgmi-mi355x", "gaudi2-roce",
        "gaudi3-roce", "neuronlink-v3", "ici-tpu-v4",  "ici-tpu-v5e", "ici-tpu-v5p", "ici-tpu-v6e"}) {
    EXPECT_NE(c.find_link(name), nullptr) << name;
  }
  EXPECT_EQ(c.switch_("nvswitch4").ports, 72);
  EXPECT_DOUBLE_EQ(c.switch_("nvswitch4").capacity_uni_bytes_per_s, 3.6 * kT);  // 7.2 TB/s bidirectional
  EXPECT_DOUBLE_EQ(c.switch_("qm9700").capacity_uni_bytes_per_s, 3.2 * kT);     // 25.6 Tb/s one way
  EXPECT_TRUE(c.switch_("nvswitch3").in_network_reduction);
  EXPECT_FALSE(c.switch_("nvswitch2").in_network_reduction);
  EXPECT_DOUBLE_EQ(c.nic("cx7").bw_uni_bytes_per_s, 50 * kG);
  EXPECT_DOUBLE_EQ(c.link("pcie5").device_bw_uni_bytes_per_s, 63 * kG);
}

TEST(SystemGolden, LinkFiguresAreOneWay) {
  // NVLink 4: 18 links x 25 GB/s = 450 GB/s per GPU one way ("900 GB/s" is bidirectional);
  // NVLink 5: 18 x 50 = 900. DGX H100 uses the third NVSwitch generation.
  const Catalog& c = default_catalog();
  EXPECT_DOUBLE_EQ(c.link("nvlink4").per_link_bw_uni_bytes_per_s, 25 * kG);
  EXPECT_DOUBLE_EQ(c.link("nvlink4").device_bw_uni_bytes_per_s, 450 * kG);
  EXPECT_DOUBLE_EQ(c.link("nvlink5").per_link_bw_uni_bytes_per_s, 50 * kG);
  EXPECT_DOUBLE_EQ(c.link("nvlink5").device_bw_uni_bytes_per_s, 900 * kG);
  EXPECT_EQ(c.system("dgx-h100").nvswitch, "nvswitch3");
  EXPECT_EQ(c.switch_("nvswitch3").ports, 64);
}

// ---------------------------------------------------------------- bad input

using testing::catalog_error;

const char* kSystem = R"(kind = "system"
id = "n"
name = "N"
system_kind = "node"
vendor = "V"
gpu = "g"
gpus = 8
source = "test"
retrieved = "2026-11-22"
[scaleup]
link = "l"
topology = "switched"
bw_uni_gb_per_s = 450
switch = "s"
switches = 4
[scaleout]
nic = "x"
nics = 8
nic_gbit_per_s = 400
)";

using testing::replaced;

TEST(TopologyBadInput, MinimalSystemParses) {
  Catalog c;
  load_catalog_text(c, kSystem, "t.toml", false);
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_DOUBLE_EQ(c.systems[0].nic_bw_uni_bytes_per_s, 50 * kG);
  EXPECT_EQ(c.systems[0].gpus_per_host, 8);
}

TEST(TopologyBadInput, SystemErrors) {
  EXPECT_NE(catalog_error(replaced(kSystem, "gpus = 8\n", "gpus = 8\ngpu_count = 8\n")).find("unknown key"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "gpu = \"g\"\n", "")).find("'gpu'"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "gpus = 8", "gpus = 0")).find("at least 1"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "system_kind = \"node\"", "system_kind = \"pod\"")).find("not one of"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "switch = \"s\"\n", "")).find("switch"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "gpus = 8\n", "gpus = 8\ngpus_per_host = 3\n")).find("must divide"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kSystem, "nic_gbit_per_s = 400\n", "")).find("nic_gbit_per_s"), std::string::npos);
  // A mesh needs its per-peer rate, and the total must match per-peer x (GPUs - 1).
  const std::string mesh = replaced(replaced(kSystem, "topology = \"switched\"", "topology = \"mesh\""),
                                    "switch = \"s\"\nswitches = 4\n", "");
  EXPECT_NE(catalog_error(mesh).find("per_peer_bw_uni_gb_per_s"), std::string::npos);
  EXPECT_NE(
      catalog_error(replaced(mesh, "bw_uni_gb_per_s = 450", "bw_uni_gb_per_s = 500\nper_peer_bw_uni_gb_per_s = 64"))
          .find("disagrees"),
      std::string::npos);
  EXPECT_EQ(
      catalog_error(replaced(mesh, "bw_uni_gb_per_s = 450", "bw_uni_gb_per_s = 448\nper_peer_bw_uni_gb_per_s = 64")),
      "");
}

TEST(TopologyBadInput, HostTableIsOptionalAndStrict) {
  // [host]: the CPU side for optimizer offload; GiB of DRAM and GB/s of peak bandwidth.
  Catalog c;
  load_catalog_text(c,
                    kSystem + std::string("[host]\ncpus = \"2 x C\"\nmemory_gib = 2048\nmemory_bw_gb_per_s = 563.2\n"),
                    "t.toml", false);
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_DOUBLE_EQ(c.systems[0].host_memory_bytes, 2048 * kGiB);
  EXPECT_DOUBLE_EQ(c.systems[0].host_memory_bw_bytes_per_s, 563.2 * kG);
  EXPECT_EQ(c.systems[0].host_cpus, "2 x C");
  EXPECT_NE(catalog_error(kSystem + std::string("[host]\ncpus = \"2 x C\"\n")).find("memory_gib"), std::string::npos);
  EXPECT_NE(catalog_error(kSystem + std::string("[host]\nmemory_gib = 2048\nram_gb = 2\n")).find("unknown key"),
            std::string::npos);
  EXPECT_NE(catalog_error(kSystem + std::string("[host]\nmemory_gib = -1\n")).find("memory_gib"), std::string::npos);
  // The shipped DGX H100 carries one (NVIDIA: dual Xeon 8480C, 2 TB DDR5).
  const System& dgx = default_catalog().system("dgx-h100");
  EXPECT_DOUBLE_EQ(dgx.host_memory_bytes, 2048 * kGiB);
  EXPECT_DOUBLE_EQ(dgx.host_memory_bw_bytes_per_s, 563.2e9);
}

TEST(TopologyBadInput, LinkSwitchNicErrors) {
  const std::string link = R"(kind = "link"
id = "l"
name = "L"
family = "nvlink"
per_link_bw_uni_gb_per_s = 25
links_per_device = 18
device_bw_uni_gb_per_s = 450
source = "t"
retrieved = "2026-11-22"
)";
  EXPECT_EQ(catalog_error(link), "");
  EXPECT_NE(catalog_error(replaced(link, "\"nvlink\"", "\"nvlnk\"")).find("not one of"), std::string::npos);
  // The bidirectional headline typed as one-way is caught.
  EXPECT_NE(catalog_error(replaced(link, "= 450", "= 900")).find("bidirectional"), std::string::npos);
  const std::string sw = R"(kind = "switch"
id = "s"
name = "S"
family = "nvswitch"
link = "l"
ports = 64
port_bw_uni_gb_per_s = 25
in_network_reduction = true
reduction_name = "NVLS"
source = "t"
retrieved = "2026-11-22"
)";
  EXPECT_EQ(catalog_error(sw), "");
  EXPECT_NE(catalog_error(replaced(sw, "ports = 64\n", "")).find("'ports'"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(sw, "reduction_name = \"NVLS\"\n", "")).find("reduction_name"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(sw, "ports = 64", "port = 64")).find("misspelled"), std::string::npos);
  const std::string nic = R"(kind = "nic"
id = "x"
name = "X"
link = "l"
bw_gbit_per_s = 400
source = "t"
retrieved = "2026-11-22"
)";
  EXPECT_EQ(catalog_error(nic), "");
  EXPECT_NE(catalog_error(replaced(nic, "bw_gbit_per_s = 400", "bw_gbit_per_s = -4")).find("positive"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(nic, "bw_gbit_per_s", "bw_gb_per_s")).find("bw_gbit_per_s"), std::string::npos);
  // rails: the cards behind one NET device (aws-ofi-nccl's grouping), a whole number >= 1.
  EXPECT_EQ(catalog_error(replaced(nic, "bw_gbit_per_s = 400\n", "bw_gbit_per_s = 400\nrails = 4\n")), "");
  EXPECT_NE(catalog_error(replaced(nic, "bw_gbit_per_s = 400\n", "bw_gbit_per_s = 400\nrails = 0\n")).find("'rails'"),
            std::string::npos);
}

const char* kFabric = R"(kind = "fabric"
id = "f"
name = "F"
system = "n"
source = "t"
retrieved = "2026-11-22"
[[levels]]
name = "leaf"
gpus = 256
switch = "s"
switches = 8
down_ports_per_switch = 32
port_gbit_per_s = 400
[[levels]]
name = "spine"
gpus = 1024
bw_uni_tb_per_s = 51.2
)";

TEST(TopologyBadInput, FabricErrors) {
  Catalog c;
  load_catalog_text(c, kFabric, "t.toml", false);
  ASSERT_EQ(c.fabrics.size(), 1u);
  EXPECT_DOUBLE_EQ(c.fabrics[0].levels[0].bw_uni_bytes_per_s, 12.8 * kT);  // 8 x 32 x 50 GB/s
  // Levels must grow outwards, each a multiple of the one inside it.
  EXPECT_NE(catalog_error(replaced(kFabric, "gpus = 1024", "gpus = 128")).find("innermost first"), std::string::npos);
  EXPECT_NE(catalog_error(replaced(kFabric, "gpus = 1024", "gpus = 1000")).find("multiple"), std::string::npos);
  // W stated and from ports must agree; one of them is required.
  EXPECT_NE(catalog_error(replaced(kFabric, "port_gbit_per_s = 400", "port_gbit_per_s = 400\nbw_uni_tb_per_s = 25.6"))
                .find("disagrees"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kFabric, "bw_uni_tb_per_s = 51.2\n", "")).find("bw_uni_tb_per_s"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kFabric, "down_ports_per_switch = 32\n", "")).find("go together"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kFabric, "[[levels]]\nname = \"leaf\"", "[[levels]]\nname = \"leaf\"\nbogus = 1"))
                .find("unknown key"),
            std::string::npos);
  EXPECT_NE(catalog_error(replaced(kFabric, "port_gbit_per_s = 400", "port_gbit_per_s = 400\noversubscription = 0.5"))
                .find(">= 1"),
            std::string::npos);
}

TEST(TopologyBadInput, CrossReferencesAreChecked) {
  // A fabric naming an unknown system, and a system faster than its NIC, fail validation.
  Catalog c;
  load_catalog_text(c, kFabric, "f.toml", false);
  EXPECT_THROW(validate_catalog(c), Error);

  const Catalog& base = default_catalog();
  Catalog copy = base;
  System fast = copy.system("dgx-h100");
  fast.id = "fast";
  fast.aliases.clear();
  fast.nic_bw_uni_bytes_per_s = 100 * kG;  // 800 Gb/s on a 400 Gb/s ConnectX-7
  copy.systems.push_back(fast);
  try {
    validate_catalog(copy);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("faster than NIC"), std::string::npos) << e.what();
  }
  Catalog copy2 = base;
  Fabric odd = copy2.fabric("dgx-superpod-h100");
  odd.id = "odd";
  odd.aliases.clear();
  odd.levels.front().gpus = 4;  // fewer GPUs than one node
  odd.levels.back().gpus = 1024;
  copy2.fabrics.push_back(odd);
  EXPECT_THROW(validate_catalog(copy2), Error);
}

}  // namespace
}  // namespace gpuplan
