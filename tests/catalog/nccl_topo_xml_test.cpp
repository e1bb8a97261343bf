// NCCL topology dump import (catalog/xml_elements.h, catalog/nccl_topo_xml.h,
// catalog/topology_import.h): the XML subset reader is strict and names lines, the fixtures
// become the systems an 8-GPU NVSwitch node and an 8 x L40S PCIe server are, the GPU model is
// asked for and checked against the dump's sm, and the TOML loads back and plans.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "catalog/nccl_topo_xml.h"
#include "catalog/topology_import.h"
#include "catalog/xml_elements.h"
#include "catalog_util.h"
#include "core/error.h"
#include "report/topology_import_report.h"
#include "test_util.h"

namespace gpuplan {
namespace {

std::string topo_fixture(const char* name) { return testing::source_dir() + "/tests/fixtures/topology/" + name; }

std::string xml_error(const std::string& text) {
  try {
    parse_xml(text, "t.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string dump_error(const std::string& text) {
  try {
    parse_nccl_topo_xml(text, "d.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(XmlElements, ReadsElementsAttributesCommentsAndProlog) {
  const XmlElement root = parse_xml(
      "<?xml version=\"1.0\"?>\n<!-- a comment -->\n<a x=\"1\" y='two &amp; three'>\n  <b/>\n  <c k=\"v\">"
      "</c>\n</a>\n<!-- trailing -->\n",
      "t.xml");
  EXPECT_EQ(root.name, "a");
  EXPECT_EQ(root.line, 3);
  ASSERT_NE(root.attribute("y"), nullptr);
  EXPECT_EQ(*root.attribute("y"), "two & three");
  EXPECT_EQ(root.attribute("z"), nullptr);
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0].name, "b");
  EXPECT_EQ(root.children[0].line, 4);
  EXPECT_EQ(*root.children[1].attribute("k"), "v");
}

TEST(XmlElements, OutsideTheSubsetNamesTheLineAndWhatWasExpected) {
  EXPECT_NE(xml_error("<a>\n<b>\n</a>\n").find("t.xml:3: </a> closes <b> opened on line 2: expected </b>"),
            std::string::npos);
  EXPECT_NE(xml_error("<a>\n  hello\n</a>").find("t.xml:2: text 'h'"), std::string::npos);
  EXPECT_NE(xml_error("<a x=1/>").find("expected a quoted attribute value"), std::string::npos);
  EXPECT_NE(xml_error("<a x=\"1\" x=\"2\"/>").find("attribute 'x' appears twice"), std::string::npos);
  EXPECT_NE(xml_error("<a x=\"1\"y=\"2\"/>").find("expected a space"), std::string::npos);
  EXPECT_NE(xml_error("<a>\n<b/>\n").find("t.xml:1: <a> is never closed"), std::string::npos);
  EXPECT_NE(xml_error("<a/><b/>").find("expected the end of the file after </a>"), std::string::npos);
  EXPECT_NE(xml_error("").find("has no element"), std::string::npos);
  EXPECT_NE(xml_error("<!DOCTYPE a><a/>").find("DOCTYPE"), std::string::npos);
  EXPECT_NE(xml_error("<a x=\"&nbsp;\"/>").find("'&' that starts none of"), std::string::npos);
  EXPECT_NE(xml_error("<a>\n<!-- open\n").find("t.xml:2: a comment"), std::string::npos);
  EXPECT_NE(xml_error("<a x=\"1/>").find("never closed"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "<a>";
  EXPECT_NE(xml_error(deep).find("nest deeper than 64"), std::string::npos);
}

TEST(NcclTopoXml, ParsesTheDgxH100Dump) {
  const NcclTopo t = load_nccl_topo_xml(topo_fixture("dgx-h100-nccl-topo.xml"));
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 10u);  // 8 compute NICs + a dual-port storage adapter
  EXPECT_EQ(t.cpus, 2);
  EXPECT_EQ(t.hosts, 1);
  const NcclTopoGpu& g0 = t.gpus[0];
  EXPECT_EQ(g0.dev, 0);
  EXPECT_EQ(g0.sm, 90);
  EXPECT_EQ(g0.busid, "0000:18:00.0");
  EXPECT_EQ(g0.pci_device, "0x2330");
  EXPECT_DOUBLE_EQ(g0.link_gt_per_s, 32);
  EXPECT_EQ(g0.link_width, 16);
  EXPECT_EQ(g0.nvswitch_links, 18);  // 5 + 4 + 4 + 5
  EXPECT_EQ(g0.switches.size(), 2u);  // root port bridge, then the PCIe switch
  EXPECT_DOUBLE_EQ(t.nics[0].speed_mbit_per_s, 400000);
  EXPECT_TRUE(t.nics[0].gdr);
  // File order: CPU 0's four compute NICs, its storage ports, then CPU 1's.
  EXPECT_EQ(t.nics[4].name, "mlx5_8");
  EXPECT_EQ(t.nics[9].name, "mlx5_7");

  const TopoMatrix m = nccl_topo_matrix(t);
  EXPECT_EQ(m.gpu_gpu[0][0], "X");
  EXPECT_EQ(m.gpu_gpu[0][7], "NV18");   // both GPUs reach NVSwitches with 18 links
  EXPECT_EQ(m.gpu_nic[0][0], "PIX");    // mlx5_0 shares GPU0's PCIe switch
  EXPECT_EQ(m.gpu_nic[0][1], "NODE");   // mlx5_1: same CPU, another switch
  EXPECT_EQ(m.gpu_nic[0][4], "NODE");   // mlx5_8, the storage adapter: its own root port
  EXPECT_EQ(m.gpu_nic[0][7], "SYS");    // mlx5_5: the other CPU
  EXPECT_EQ(m.numa_affinity[4], "1");
}

TEST(NcclTopoXml, PcieServerPathsFollowThePciTree) {
  const NcclTopo t = load_nccl_topo_xml(topo_fixture("8x-l40s-pcie-nccl-topo.xml"));
  ASSERT_EQ(t.gpus.size(), 8u);
  const TopoMatrix m = nccl_topo_matrix(t);
  EXPECT_EQ(m.gpu_gpu[0][1], "PIX");   // one switch between them
  EXPECT_EQ(m.gpu_gpu[0][2], "NODE");  // same CPU, different switches
  EXPECT_EQ(m.gpu_gpu[0][4], "SYS");   // across the CPUs
  EXPECT_EQ(m.nics[0], "mlx5_4");      // file order
  EXPECT_EQ(m.gpu_nic[0][0], "NODE");
  EXPECT_EQ(m.gpu_nic[1][1], "PIX");
}

TEST(NcclTopoXml, NestedSwitchesAreOnePxbApartAndDirectNvlinksFormAMesh) {
  // Two GPUs under two leaf switches of one switch (PXB), joined by 4 direct NVLinks each way.
  const std::string text = R"(<system version="1">
  <cpu numaid="0">
    <pci busid="0000:10:00.0" class="0x060400">
      <pci busid="0000:11:00.0" class="0x060400">
        <pci busid="0000:12:00.0" class="0x030200"><gpu dev="0" sm="80"><nvlink target="00000000:22:00.0" count="4" tclass="0x030200"/></gpu></pci>
      </pci>
      <pci busid="0000:21:00.0" class="0x060400">
        <pci busid="0000:22:00.0" class="0x030200"><gpu dev="1" sm="80"><nvlink target="0000:12:00.0" count="4" tclass="0x030200"/></gpu></pci>
      </pci>
    </pci>
  </cpu>
</system>)";
  const TopoMatrix m = nccl_topo_matrix(parse_nccl_topo_xml(text, "mesh.xml"));
  EXPECT_EQ(m.gpu_gpu[0][1], "NV4");  // the 8-digit domain NVML writes matches the 4-digit one
  EXPECT_EQ(m.gpu_gpu[1][0], "NV4");
}

TEST(NcclTopoXml, BadDumpsNameTheLineAndTheFix) {
  EXPECT_NE(dump_error("<topology/>").find("starts with <system version=\"1\">"), std::string::npos);
  EXPECT_NE(dump_error("<system version=\"2\"/>").find("version 1 only"), std::string::npos);
  EXPECT_NE(dump_error("<system version=\"1\"/>").find("no <gpu> element"), std::string::npos);
  EXPECT_NE(dump_error("<system version=\"1\">\n<gpu dev=\"0\" sm=\"90\"/>\n</system>")
                .find("d.xml:2: <gpu> inside <system>: NCCL writes only <cpu> there"),
            std::string::npos);
  const std::string head = "<system version=\"1\">\n<cpu numaid=\"0\">\n<pci busid=\"0000:01:00.0\">\n";
  const std::string tail = "\n</pci>\n</cpu>\n</system>\n";
  EXPECT_NE(dump_error(head + "<gpu sm=\"90\"/>" + tail).find("d.xml:4: <gpu> has no dev=\"...\""), std::string::npos);
  EXPECT_NE(dump_error(head + "<gpu dev=\"0\" sm=\"ninety\"/>" + tail).find("<gpu sm=\"ninety\">: expected a whole number"),
            std::string::npos);
  EXPECT_NE(dump_error(head + "<gpu dev=\"0\" sm=\"90\"><nvlink target=\"x\" count=\"0\" tclass=\"0x068000\"/></gpu>" + tail)
                .find("count=\"0\">: expected a whole number >= 1"),
            std::string::npos);
  EXPECT_NE(dump_error(head + "<gpu dev=\"0\" sm=\"90\"><nvlink target=\"x\" count=\"2\"/></gpu>" + tail)
                .find("<nvlink> has no tclass"),
            std::string::npos);
  EXPECT_NE(dump_error(head + "<nic><net name=\"mlx5_0\"/></nic>" + tail).find("<net> has no speed"), std::string::npos);
  EXPECT_NE(dump_error(head + "<nic/>" + tail).find("<nic> without a <net"), std::string::npos);
  EXPECT_NE(dump_error(head + "<gpu dev=\"0\" sm=\"90\"/><gpu dev=\"1\" sm=\"90\"/>" + tail).find("a second <gpu>"),
            std::string::npos);
  EXPECT_NE(dump_error("<system version=\"1\">\n<cpu>\n<pci busid=\"0000:01:00.0\" link_speed=\"fast\">\n<gpu dev=\"0\" "
                       "sm=\"90\"/>" + tail)
                .find("d.xml:3: <pci link_speed=\"fast\">"),
            std::string::npos);
}

// Property: every truncation of a real-format dump, and the dump with any one byte replaced by a
// character that matters to the grammar, either reads or raises Error naming a line of the
// file; never another exception (the fuzz target checks the same under the sanitizers).
TEST(NcclTopoXml, EveryTruncationAndByteFlipReadsOrNamesALine) {
  std::ifstream f(topo_fixture("8x-l40s-pcie-nccl-topo.xml"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GT(text.size(), 1000u);
  const auto check = [](const std::string& t) {
    try {
      const NcclTopo topo = parse_nccl_topo_xml(t, "p.xml");
      const TopoMatrix m = nccl_topo_matrix(topo);
      ASSERT_EQ(m.gpu_gpu.size(), topo.gpus.size());
    } catch (const Error& e) {
      ASSERT_EQ(std::string(e.what()).rfind("p.xml:", 0), 0u) << e.what();
    }
  };
  for (std::size_t n = 0; n < text.size(); n += 7) check(text.substr(0, n));
  for (std::size_t i = 0; i < text.size(); i += 11) {
    for (char c : {'<', '>', '"', '/', '=', ' ', '0', 'x', '&', '\0'}) {
      std::string t = text;
      t[i] = c;
      check(t);
    }
  }
}

TopologyImportRequest xml_request(const char* fixture, const char* gpu) {
  TopologyImportRequest r;
  r.file = topo_fixture(fixture);
  r.gpu = gpu;
  return r;
}

TEST(TopologyImportXml, DgxH100DumpIsASwitchedNodeWithEight400GRails) {
  const ImportedTopology t = import_topology(testing::cat(), xml_request("dgx-h100-nccl-topo.xml", "h100-sxm"));
  const System& s = t.system;
  EXPECT_EQ(t.format, "nccl-xml");
  EXPECT_EQ(t.sm, 90);
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.scaleup_topology, "switched");
  EXPECT_EQ(s.scaleup_link, "nvlink4");
  // 18 NVLinks x 25 GB/s = 450 GB/s one way, as the catalog's dgx-h100.
  EXPECT_DOUBLE_EQ(s.scaleup_bw_uni_bytes_per_s, 450e9);
  EXPECT_EQ(s.nvswitch, "nvswitch3");
  EXPECT_EQ(s.nvswitch_count, 4);  // four distinct tclass 0x068000 targets
  EXPECT_TRUE(s.in_network_reduction);
  // The 8 compute NICs share a switch with a GPU; the storage ports do not. 400000 Mbit/s = 400 Gb/s.
  EXPECT_EQ(s.nics, 8);
  EXPECT_EQ(s.nic, "connectx7");
  EXPECT_DOUBLE_EQ(s.nic_bw_uni_bytes_per_s, 50e9);
  ASSERT_EQ(t.rails.size(), 8u);
  EXPECT_EQ(t.rails[0], "mlx5_0 -> GPU0");
  EXPECT_EQ(t.rails[7], "mlx5_7 -> GPU7");
}

TEST(TopologyImportXml, L40sDumpIsPcieGen4WithFourRails) {
  const ImportedTopology t = import_topology(testing::cat(), xml_request("8x-l40s-pcie-nccl-topo.xml", "l40s"));
  EXPECT_EQ(t.system.scaleup_topology, "pcie");
  EXPECT_EQ(t.system.scaleup_link, "pcie4");
  EXPECT_EQ(t.system.nics, 4);  // mlx5_4 is on its own root port
  EXPECT_EQ(t.system.nic, "connectx6");
  EXPECT_DOUBLE_EQ(t.system.nic_bw_uni_bytes_per_s, 25e9);  // 200 Gb/s / 8
  EXPECT_EQ(t.rails[0], "mlx5_0 -> GPU0");
  // The farthest pair is named (the GPUs span two CPUs), not the last one read.
  EXPECT_NE(t.system.notes.find("farthest pair SYS"), std::string::npos) << t.system.notes;
}

TEST(TopologyImportXml, TheSameServerFromEitherSourceIsTheSameSystem) {
  TopologyImportRequest smi;
  smi.file = topo_fixture("dgx-h100-topo-m.txt");
  smi.gpu = "h100-sxm";
  smi.nic_gbit = 400;
  const System a = import_topology(testing::cat(), smi).system;
  const System b = import_topology(testing::cat(), xml_request("dgx-h100-nccl-topo.xml", "h100-sxm")).system;
  EXPECT_EQ(a.scaleup_topology, b.scaleup_topology);
  EXPECT_DOUBLE_EQ(a.scaleup_bw_uni_bytes_per_s, b.scaleup_bw_uni_bytes_per_s);
  EXPECT_EQ(a.nvswitch, b.nvswitch);
  EXPECT_EQ(a.nics, b.nics);
  EXPECT_DOUBLE_EQ(a.nic_bw_uni_bytes_per_s, b.nic_bw_uni_bytes_per_s);
  // nvidia-smi does not count the chips: the fewest whose 64 ports carry 8 x 18 links = 3.
  EXPECT_EQ(a.nvswitch_count, 3);
}

TEST(TopologyImportXml, TheGpuIsAskedForAndCheckedAgainstTheSm) {
  // The L40S dump's PCI device id (0x26b9) is in no catalog GPU's [pci]: the GPU is asked for,
  // with the candidates of its sm.
  TopologyImportRequest r = xml_request("8x-l40s-pcie-nccl-topo.xml", "");
  try {
    import_topology(testing::cat(), r);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("give --gpu ID"), std::string::npos) << what;
    EXPECT_NE(what.find("sm=89 (Ada)"), std::string::npos) << what;
    EXPECT_NE(what.find("l40s"), std::string::npos) << what;
    EXPECT_EQ(what.find("h100-sxm"), std::string::npos) << what;
  }
  // The DGX H100 dump's 0x2330 is h100-sxm's own: picked without --gpu, and said so.
  r = xml_request("dgx-h100-nccl-topo.xml", "");
  const ImportedTopology picked = import_topology(testing::cat(), r);
  EXPECT_EQ(picked.system.gpu, "h100-sxm");
  EXPECT_NE(std::find(picked.derived.begin(), picked.derived.end(), "GPU: h100-sxm from the dump's PCI device id 0x2330"),
            picked.derived.end());
  // l40s has no [pci] ids: the id is not checked, the sm is.
  r.gpu = "l40s";
  try {
    import_topology(testing::cat(), r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu 'l40s' is Ada"), std::string::npos) << e.what();
  }
  const std::vector<std::string> ada = gpus_with_sm(testing::cat(), 89);
  EXPECT_NE(std::find(ada.begin(), ada.end(), "l40s"), ada.end());
  EXPECT_EQ(std::find(ada.begin(), ada.end(), "h100-sxm"), ada.end());
  EXPECT_TRUE(gpus_with_sm(testing::cat(), 37).empty());
}

TEST(TopologyImportXml, NicGbitOverridesTheDumpAndFormatIsChecked) {
  TopologyImportRequest r = xml_request("dgx-h100-nccl-topo.xml", "h100-sxm");
  r.nic_gbit = 200;
  EXPECT_DOUBLE_EQ(import_topology(testing::cat(), r).system.nic_bw_uni_bytes_per_s, 25e9);
  r.nic_gbit = 0;
  r.format = "nvidia-smi";  // the XML read as a matrix: no header
  EXPECT_THROW(import_topology(testing::cat(), r), Error);
  r.format = "xml";
  try {
    import_topology(testing::cat(), r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--format 'xml': expected nccl-xml"), std::string::npos) << e.what();
  }
}

TEST(TopologyImportXml, AVmThatHidesTheNvSwitchesStillReadsAsSwitched) {
  // NCCL writes one target "fffffff:ff:ff.0" with all 18 links when a VM hides the switches.
  std::string text = "<system version=\"1\">\n  <cpu numaid=\"-1\">\n";
  for (int g = 0; g < 4; ++g) {
    text += fmt::format(
        "    <pci busid=\"0000:0{}:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n"
        "      <gpu dev=\"{}\" sm=\"90\" rank=\"{}\" gdr=\"1\"><nvlink target=\"fffffff:ff:ff.0\" count=\"18\" "
        "tclass=\"0x068000\"/></gpu>\n    </pci>\n",
        g + 5, g, g);
  }
  text += "  </cpu>\n</system>\n";
  const auto dir = testing::scratch_dir("nccl-topo-vm");
  const std::string path = (dir / "vm.xml").string();
  testing::write_file(path, text);
  TopologyImportRequest r;
  r.file = path;
  r.gpu = "h200-sxm";
  const ImportedTopology t = import_topology(testing::cat(), r);
  EXPECT_EQ(t.system.scaleup_topology, "switched");
  EXPECT_EQ(t.system.nvswitch_count, 2);  // not counted: ceil(4 x 18 / 64)
  EXPECT_EQ(t.system.nics, 0);
}

// A multi-node NVLink dump (NCCL fuses the hosts of one NVLink domain): two host_hash values
// with 4 GPUs each give gpus_per_host = 4, and the TOML says so and loads back.
TEST(TopologyImportXml, TwoHostsInOneNvlinkDomainSetGpusPerHost) {
  std::string text = "<system version=\"1\">\n";
  for (int h = 0; h < 2; ++h) {
    text += fmt::format("  <cpu host_hash=\"0x{}\" numaid=\"0\">\n", h + 1);
    for (int g = 0; g < 4; ++g) {
      text += fmt::format(
          "    <pci busid=\"000{}:0{}:00.0\" class=\"0x030200\">\n      <gpu dev=\"{}\" sm=\"100\"><nvlink "
          "target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/></gpu>\n    </pci>\n",
          h, g + 1, g);
    }
    text += "  </cpu>\n";
  }
  text += "</system>\n";
  const auto dir = testing::scratch_dir("nccl-topo-mnnvl");
  const std::string path = (dir / "two-hosts.xml").string();
  testing::write_file(path, text);
  const std::string out = (dir / "two-hosts.toml").string();
  const auto w = testing::run({"import-topology", path, "--gpu", "gb200", "--id", "two-trays", "--out", out});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.out.find("hosts: 2 (host_hash) with 4 GPUs each"), std::string::npos) << w.out;
  const auto sys = testing::run({"--catalog", out, "system", "two-trays", "--json"});
  ASSERT_EQ(sys.code, 0) << sys.err;
  EXPECT_NE(sys.out.find("\"gpus_per_host\": 4"), std::string::npos) << sys.out;
}

TEST(TopologyImportXml, TheTomlLoadsBackAndCollectiveAndTrainRun) {
  const auto dir = testing::scratch_dir("nccl-topo-import");
  for (const auto& [fixture, gpu, id] : {std::tuple{"dgx-h100-nccl-topo.xml", "h100-sxm", "my-dgx"},
                                         std::tuple{"8x-l40s-pcie-nccl-topo.xml", "l40s", "my-l40s"}}) {
    const std::string out = (dir / (std::string(id) + ".toml")).string();
    const auto w = testing::run({"import-topology", topo_fixture(fixture), "--gpu", gpu, "--id", id, "--out", out});
    ASSERT_EQ(w.code, 0) << w.err;
    EXPECT_NE(w.out.find(fmt::format("wrote system '{}'", id)), std::string::npos) << w.out;
    const auto sys = testing::run({"--catalog", out, "system", id});
    ASSERT_EQ(sys.code, 0) << sys.err;
    const auto coll = testing::run({"--catalog", out, "collective", "--op", "allreduce", "--bytes", "256MiB", "--gpus",
                                    "16", "--system", id});
    ASSERT_EQ(coll.code, 0) << coll.err;
    const auto train = testing::run({"--catalog", out, "train", "--model", "llama3-8b", "--system", id, "--gpus", "16",
                                     "--tp", "2", "--global-batch", "64", "--micro-batch", "1"});
    ASSERT_EQ(train.code, 0) << train.err;
  }
  const auto json = testing::run({"import-topology", topo_fixture("dgx-h100-nccl-topo.xml"), "--gpu", "h100-sxm", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find("\"format\": \"nccl-xml\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"sm\": 90"), std::string::npos) << json.out;
  const auto bad = testing::run({"import-topology", topo_fixture("dgx-h100-nccl-topo.xml"), "--gpu", "h100-sxm",
                                 "--format", "csv"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--format 'csv'"), std::string::npos) << bad.err;
  const std::string broken = (dir / "broken.xml").string();
  testing::write_file(broken, "<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n</system>\n");
  const auto b = testing::run({"import-topology", broken, "--gpu", "h100-sxm"});
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("broken.xml:3: </pci> closes <cpu> opened on line 2"), std::string::npos) << b.err;
}

// A switched system needs its switch and chip count in the TOML; the nvidia-smi import wrote
// neither before the NCCL dump import shared its writer, so an imported DGX did not load back.
TEST(TopologyImportXml, TheNvidiaSmiDgxTomlLoadsBackToo) {
  const auto dir = testing::scratch_dir("smi-topo-import");
  const std::string out = (dir / "dgx.toml").string();
  const auto w = testing::run({"import-topology", topo_fixture("dgx-h100-topo-m.txt"), "--gpu", "h100-sxm",
                               "--nic-gbit", "400", "--id", "smi-dgx", "--out", out});
  ASSERT_EQ(w.code, 0) << w.err;
  const auto coll = testing::run({"--catalog", out, "collective", "--op", "allreduce", "--bytes", "256MiB", "--gpus",
                                  "8", "--system", "smi-dgx"});
  ASSERT_EQ(coll.code, 0) << coll.err;
}

}  // namespace
}  // namespace gpuplan
