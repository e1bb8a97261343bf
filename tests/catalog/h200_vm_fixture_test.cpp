// Real outputs of a one-GPU cloud VM (one H200 SXM, 2026-11-26; ../shared/fixtures/
// h200-vm-2026-11-26, copied to tests/fixtures/topology/h200-vm-*): the imported one-GPU system
// loads back through --catalog, and a link width the dump gives as 0 is said to be unknown.
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "test_util.h"

namespace gpuplan {
namespace {

std::string h200_vm_fixture(const char* name) {
  return testing::source_dir() + "/tests/fixtures/topology/" + name;
}

TEST(H200VmFixture, OneGpuImportsLoadBackThroughCatalog) {
  const auto dir = testing::scratch_dir("h200-vm-import");
  for (const char* fixture : {"h200-vm-nccl-topo.xml", "h200-vm-nvidia-smi-topo.txt"}) {
    SCOPED_TRACE(fixture);
    const std::string out = (dir / "vm.toml").string();
    const auto w = testing::run({"import-topology", h200_vm_fixture(fixture), "--gpu", "h200-sxm", "--id", "h200-vm",
                                 "--out", out});
    ASSERT_EQ(w.code, 0) << w.out << w.err;
    const auto sys = testing::run({"--catalog", out, "system", "h200-vm"});
    ASSERT_EQ(sys.code, 0) << sys.err;
    const auto train = testing::run({"--catalog", out, "train", "--model", "llama3.1-8b", "--system", "h200-vm",
                                     "--gpus", "1", "--json"});
    EXPECT_EQ(train.code, 0) << train.out << train.err;
  }
}

TEST(H200VmFixture, ZeroLinkWidthIsSaidToBeUnknown) {
  const auto w = testing::run({"import-topology", h200_vm_fixture("h200-vm-nccl-topo.xml"), "--gpu", "h200-sxm"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.out.find("link width unknown"), std::string::npos) << w.out;
  EXPECT_EQ(w.out.find("Gen5 x16 per GPU (the dump's link_speed/link_width)"), std::string::npos) << w.out;
}

// sm=90 is H100 and H200 alike; the PCI device id tells them apart (issue 34).
TEST(H200VmFixture, ThePciDeviceIdIsCheckedAgainstTheNamedGpu) {
  const auto wrong = testing::run({"import-topology", h200_vm_fixture("h200-vm-nccl-topo.xml"), "--gpu", "h100-sxm"});
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  EXPECT_NE(wrong.err.find("--gpu 'h100-sxm' is PCI device 0x2330 but the dump's GPUs are PCI device 0x2335: give --gpu "
                           "h200-sxm"),
            std::string::npos)
      << wrong.err;
  const auto picked = testing::run({"import-topology", h200_vm_fixture("h200-vm-nccl-topo.xml")});
  ASSERT_EQ(picked.code, 0) << picked.err;
  EXPECT_NE(picked.out.find("GPU: h200-sxm from the dump's PCI device id 0x2335"), std::string::npos) << picked.out;
}

TEST(H200VmFixture, ABadPciIdInTheCatalogIsRefusedNamingIt) {
  const auto dir = testing::scratch_dir("pci-id-bad");
  std::string gpu_file;
  {
    std::ifstream in(testing::source_dir() + "/data/hardware/gpus/h200-sxm.toml");
    gpu_file.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string from = "device_ids = [\"0x2335\"]";
  ASSERT_NE(gpu_file.find(from), std::string::npos);
  gpu_file.replace(gpu_file.find(from), from.size(), "device_ids = [\"2335\"]");
  const std::string path = testing::write_file(dir / "h200-sxm.toml", gpu_file).string();
  const auto r = testing::run({"--catalog", path, "gpu", "h200-sxm"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("[pci] device_ids entry '2335': expected 0x and four hex digits"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuplan
