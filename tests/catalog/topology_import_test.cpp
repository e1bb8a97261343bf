// `nvidia-smi topo -m` import (catalog/nvidia_smi_topo.h, catalog/topology_import.h): the
// fixtures parse, become the system a DGX H100 and an 8 x L40S PCIe server are, the TOML loads
// back into a catalog and plans, and bad matrices name the line.
#include "catalog/topology_import.h"

#include <gtest/gtest.h>

#include "catalog_util.h"
#include "core/error.h"
#include "report/topology_import_report.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::string fixture(const char* name) { return testing::source_dir() + "/tests/fixtures/topology/" + name; }

TEST(NvidiaSmiTopo, ParsesTheDgxH100Matrix) {
  const TopoMatrix m = load_nvidia_smi_topo(fixture("dgx-h100-topo-m.txt"));
  ASSERT_EQ(m.gpus.size(), 8u);
  ASSERT_EQ(m.nics.size(), 10u);
  EXPECT_EQ(m.gpu_gpu[0][0], "X");
  EXPECT_EQ(m.gpu_gpu[0][7], "NV18");
  EXPECT_EQ(nvlink_count(m.gpu_gpu[3][4]), 18);
  EXPECT_EQ(m.gpu_nic[2][2], "PIX");
  EXPECT_EQ(m.nic_devices[9], "mlx5_9");
  EXPECT_EQ(m.numa_affinity[5], "1");
  EXPECT_EQ(m.cpu_affinity[0], "0-55,112-167");
}

TEST(NvidiaSmiTopo, SpacesInsteadOfTabsAndAnsiCodesReadTheSame) {
  const std::string text =
      "\x1b[4m\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\x1b[0m\n"
      "GPU0     X      NV4     0-15    0\n"
      "GPU1    NV4      X      0-15    0\n";
  const TopoMatrix m = parse_nvidia_smi_topo(text, "t.txt");
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpu_gpu[1][0], "NV4");
  EXPECT_EQ(m.cpu_affinity[1], "0-15");
}

TEST(NvidiaSmiTopo, BadMatricesNameTheLine) {
  const auto error = [](const std::string& text) {
    try {
      parse_nvidia_smi_topo(text, "bad.txt");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "\tGPU0\tGPU1\tCPU Affinity\n";
  EXPECT_NE(error(head + "GPU0\tX\tNV99X\t0-7\nGPU1\tNV4\tX\t0-7\n").find("bad.txt:2"), std::string::npos);
  EXPECT_NE(error(head + "GPU0\tX\tFAST\t0-7\nGPU1\tNV4\tX\t0-7\n").find("'FAST' is no connection kind"),
            std::string::npos);
  EXPECT_NE(error(head + "GPU0\tX\tNV4\t0-7\n").find("GPU1 but it has no row"), std::string::npos);
  EXPECT_NE(error(head + "GPU0\tX\tNV4\t0-7\nGPU9\tNV4\tX\t0-7\n").find("bad.txt:3"), std::string::npos);
  EXPECT_NE(error(head + "GPU0\tNV4\tX\t0-7\nGPU1\tNV4\tX\t0-7\n").find("'X' marks"), std::string::npos);
  EXPECT_NE(error(head + "GPU0\tX\n").find("1 connection cells"), std::string::npos);
  EXPECT_NE(error("just some text\n").find("no 'GPU0 GPU1 ...' header"), std::string::npos);
  EXPECT_NE(error("").find("no 'GPU0 GPU1 ...' header"), std::string::npos);
}

TEST(TopologyImport, DgxH100IsAnNvSwitchNodeWithEightNics) {
  TopologyImportRequest r;
  r.file = fixture("dgx-h100-topo-m.txt");
  r.gpu = "h100-sxm";
  r.nic_gbit = 400;
  const ImportedTopology t = import_topology(testing::cat(), r);
  const System& s = t.system;
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.scaleup_topology, "switched");
  EXPECT_EQ(s.scaleup_link, "nvlink4");
  // NV18 on every pair: 18 links x 25 GB/s = 450 GB/s one way, as the catalog's dgx-h100.
  EXPECT_DOUBLE_EQ(s.scaleup_bw_uni_bytes_per_s, 450e9);
  EXPECT_TRUE(s.in_network_reduction);
  // 8 of 10 NICs are PIX to a GPU (the 2 storage NICs are NODE/SYS only).
  EXPECT_EQ(s.nics, 8);
  EXPECT_EQ(s.nic, "connectx7");
  EXPECT_DOUBLE_EQ(s.nic_bw_uni_bytes_per_s, 50e9);
}

TEST(TopologyImport, EightL40sArePcieWithFourEastWestNics) {
  TopologyImportRequest r;
  r.file = fixture("8x-l40s-pcie-topo-m.txt");
  r.gpu = "l40s";
  r.nic_gbit = 200;
  const ImportedTopology t = import_topology(testing::cat(), r);
  EXPECT_EQ(t.system.scaleup_topology, "pcie");
  EXPECT_EQ(t.system.scaleup_link, "pcie4");
  EXPECT_EQ(t.system.nics, 4);  // NIC4 (north-south) is NODE/SYS only
  EXPECT_EQ(t.system.nic, "connectx6");
}

TEST(TopologyImport, NicSpeedIsAskedForNotGuessed) {
  TopologyImportRequest r;
  r.file = fixture("dgx-h100-topo-m.txt");
  r.gpu = "h100-sxm";
  EXPECT_THROW(import_topology(testing::cat(), r), Error);
  r.nic_gbit = 123;
  EXPECT_THROW(import_topology(testing::cat(), r), Error);
  r.gpu = "no-such-gpu";
  EXPECT_THROW(import_topology(testing::cat(), r), Error);
}

TEST(TopologyImport, TheTomlLoadsBackAndPlans) {
  const auto dir = testing::scratch_dir("topology-import");
  const std::string out = (dir / "l40s.toml").string();
  const auto w = testing::run({"import-topology", fixture("8x-l40s-pcie-topo-m.txt"), "--gpu", "l40s", "--nic-gbit",
                               "200", "--id", "my-l40s", "--out", out});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.out.find("wrote system 'my-l40s'"), std::string::npos) << w.out;
  const auto sys = testing::run({"--catalog", out, "system", "my-l40s"});
  ASSERT_EQ(sys.code, 0) << sys.err;
  const auto coll = testing::run({"--catalog", out, "collective", "--op", "allreduce", "--bytes", "64MiB", "--gpus",
                                  "8", "--system", "my-l40s"});
  ASSERT_EQ(coll.code, 0) << coll.err;
  const auto bad = testing::run({"import-topology", fixture("8x-l40s-pcie-topo-m.txt"), "--gpu", "l40s"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--nic-gbit"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace gpuplan
