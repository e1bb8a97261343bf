#include "catalog/nccl_topo_xml.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "catalog/xml_elements.h"
#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {
namespace {

// NCCL_TOPO_XML_VERSION (src/include/graph.h): the only version NCCL reads back.
constexpr const char* kNcclTopoXmlVersion = "1";
// PCI class codes NCCL keys on (topo.cc kvDictPciClass).
constexpr std::string_view kNvSwitchClass = "0x068000";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A PCI bus id ("0000:18:00.0"; NVML writes an 8-digit domain) as numbers, so that two
// spellings of one device compare equal; the text itself (lower case) when it is no bus id.
std::string bus_key(const std::string& busid) {
  unsigned long parts[4] = {0, 0, 0, 0};
  int n = 0;
  const char* p = busid.data();
  const char* end = p + busid.size();
  while (p < end && n < 4) {
    const auto [next, ec] = std::from_chars(p, end, parts[n], 16);
    if (ec != std::errc() || next == p) return lower(busid);
    ++n;
    p = next;
    if (p < end) {
      if ((n < 3 && *p != ':') || (n == 3 && *p != '.')) return lower(busid);
      ++p;
    }
  }
  if (n != 4 || p != end) return lower(busid);
  return fmt::format("{:x}:{:x}:{:x}.{:x}", parts[0], parts[1], parts[2], parts[3]);
}

class NcclTopoReader {
 public:
  explicit NcclTopoReader(const std::string& file) { topo_.file = file; }

  NcclTopo read(const XmlElement& root) {
    if (root.name != "system") {
      fail(root, fmt::format("the root element is <{}>; an NCCL topology dump starts with <system version=\"1\">",
                             root.name));
    }
    const std::string& version = required(root, "version");
    if (version != kNcclTopoXmlVersion) {
      fail(root, fmt::format("<system version=\"{}\">: NCCL writes and reads version {} only", version,
                             kNcclTopoXmlVersion));
    }
    std::vector<std::string> hosts;
    for (const XmlElement& cpu : root.children) {
      expect_one_of(cpu, "system", {"cpu"});
      const int index = topo_.cpus++;
      const std::string* host = cpu.attribute("host_hash");
      const std::string host_id = host ? *host : "";
      if (std::find(hosts.begin(), hosts.end(), host_id) == hosts.end()) hosts.push_back(host_id);
      const std::string* numa = cpu.attribute("numaid");
      const std::string* affinity = cpu.attribute("affinity");
      Cpu c{index, host_id, numa ? *numa : "", affinity ? *affinity : ""};
      for (const XmlElement& child : cpu.children) {
        expect_one_of(child, "cpu", {"pci", "nic"});
        if (child.name == "pci") {
          pci(child, c, {});
        } else {
          nic(child, c, {}, false);
        }
      }
    }
    topo_.hosts = static_cast<int>(hosts.size());
    if (topo_.gpus.empty()) {
      fail(root, "the dump has no <gpu> element: run with NCCL_TOPO_DUMP_FILE set on a node whose GPUs NCCL uses");
    }
    return std::move(topo_);
  }

 private:
  struct Cpu {
    int index = 0;
    std::string host;
    std::string numa;
    std::string affinity;
  };

  [[noreturn]] void fail(const XmlElement& e, const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", topo_.file, e.line, what));
  }

  void expect_one_of(const XmlElement& e, const char* parent, std::initializer_list<const char*> names) const {
    for (const char* n : names) {
      if (e.name == n) return;
    }
    std::string list;
    for (const char* n : names) list += fmt::format("{}<{}>", list.empty() ? "" : " or ", n);
    fail(e, fmt::format("<{}> inside <{}>: NCCL writes only {} there", e.name, parent, list));
  }

  const std::string& required(const XmlElement& e, const char* key) const {
    const std::string* v = e.attribute(key);
    if (!v) fail(e, fmt::format("<{}> has no {}=\"...\" attribute, which NCCL always writes", e.name, key));
    return *v;
  }

  // An integer attribute; `fallback` when absent and not required.
  long long integer(const XmlElement& e, const char* key, bool needed, long long fallback, long long min) const {
    const std::string* v = e.attribute(key);
    if (!v) {
      if (needed) required(e, key);
      return fallback;
    }
    long long out = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || end != v->data() + v->size() || out < min) {
      fail(e, fmt::format("<{} {}=\"{}\">: expected a whole number >= {}", e.name, key, *v, min));
    }
    return out;
  }

  void pci(const XmlElement& e, const Cpu& cpu, std::vector<int> above) {
    const std::string& busid = required(e, "busid");
    const std::string* cls = e.attribute("class");
    const int id = next_pci_++;
    // The children of a PCI element sit below it: it is a bridge for them, except for the
    // device's own function (a <gpu> or <nic> in its GPU's or adapter's element).
    std::vector<int> below = above;
    below.push_back(id);
    for (const XmlElement& child : e.children) {
      expect_one_of(child, "pci", {"pci", "gpu", "nic", "pcilink"});
      if (child.name == "pci") {
        pci(child, cpu, below);
      } else if (child.name == "gpu") {
        gpu(child, e, busid, cpu, above);
      } else if (child.name == "nic") {
        // A bridge's class is 0x0604..; anything else is the adapter itself.
        const bool bridge = cls && cls->rfind("0x0604", 0) == 0;
        nic(child, cpu, bridge ? below : above, true);
      } else if (!child.children.empty()) {
        fail(child.children.front(), "<pcilink> holds no elements in an NCCL dump");
      }
    }
  }

  void gpu(const XmlElement& e, const XmlElement& pci, const std::string& busid, const Cpu& cpu,
           const std::vector<int>& above) {
    NcclTopoGpu g;
    g.line = e.line;
    g.dev = static_cast<int>(integer(e, "dev", true, -1, 0));
    g.sm = static_cast<int>(integer(e, "sm", true, 0, 10));
    g.rank = static_cast<int>(integer(e, "rank", false, -1, 0));
    g.busid = lower(busid);
    const std::string key = bus_key(busid);
    for (const NcclTopoGpu& other : topo_.gpus) {
      if (bus_key(other.busid) == key) fail(e, fmt::format("a second <gpu> in PCI device {} (the first is on line {})", busid, other.line));
    }
    if (const std::string* device = pci.attribute("device")) g.pci_device = lower(*device);
    if (const std::string* speed = pci.attribute("link_speed")) {
      // "32.0 GT/s PCIe" (kernels after 5.6), "32 GT/s" (before); "" or "Unknown" = not reported.
      double gt = 0;
      const auto [end, ec] = std::from_chars(speed->data(), speed->data() + speed->size(), gt);
      if (ec == std::errc() && gt > 0 && std::string_view(end, speed->data() + speed->size()).find("GT/s") != std::string_view::npos) {
        g.link_gt_per_s = gt;
      } else if (!speed->empty() && speed->find("nknown") == std::string::npos) {
        fail(pci, fmt::format("<pci link_speed=\"{}\">: expected a rate such as \"32.0 GT/s PCIe\" or \"16 GT/s\"", *speed));
      }
    }
    if (const std::string* width = pci.attribute("link_width"); width && !width->empty()) {
      g.link_width = static_cast<int>(integer(pci, "link_width", false, 0, 0));
    }
    g.cpu = cpu.index;
    g.host = cpu.host;
    g.numa = cpu.numa;
    g.switches = above;
    for (const XmlElement& child : e.children) {
      expect_one_of(child, "gpu", {"nvlink", "c2c"});
      if (!child.children.empty()) fail(child.children.front(), fmt::format("<{}> holds no elements in an NCCL dump", child.name));
      if (child.name != "nvlink") continue;
      NcclTopoNvlink link;
      link.target = lower(required(child, "target"));
      link.count = static_cast<int>(integer(child, "count", true, 0, 1));
      link.tclass = lower(required(child, "tclass"));
      if (link.tclass == kNvSwitchClass) g.nvswitch_links += link.count;
      g.nvlinks.push_back(std::move(link));
    }
    g.affinity = cpu.affinity;
    topo_.gpus.push_back(std::move(g));
  }

  void nic(const XmlElement& e, const Cpu& cpu, const std::vector<int>& above, bool on_pci) {
    if (e.children.empty()) fail(e, "<nic> without a <net name=\"...\" speed=\"...\"/> inside");
    for (const XmlElement& net : e.children) {
      expect_one_of(net, "nic", {"net"});
      if (!net.children.empty()) fail(net.children.front(), "<net> holds no elements in an NCCL dump");
      NcclTopoNic n;
      n.line = net.line;
      n.name = required(net, "name");
      n.dev = static_cast<int>(integer(net, "dev", false, -1, 0));
      n.speed_mbit_per_s = static_cast<double>(integer(net, "speed", true, 0, 0));
      n.gdr = integer(net, "gdr", false, 0, 0) > 0;
      n.cpu = cpu.index;
      n.switches = above;
      n.on_pci = on_pci;
      topo_.nics.push_back(std::move(n));
    }
  }

  NcclTopo topo_;
  int next_pci_ = 0;
};

// Two devices' PCIe relation in nvidia-smi's words (see nccl_topo_matrix).
std::string pcie_relation(int cpu_a, const std::vector<int>& a, int cpu_b, const std::vector<int>& b) {
  if (cpu_a != cpu_b) return "SYS";
  std::size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  if (common == 0) return "NODE";
  const std::size_t bridges = (a.size() - common) + (b.size() - common) + 1;
  return bridges == 1 ? "PIX" : "PXB";
}

// GPU i to GPU j: "X", "NV<links>" or the PCIe relation (see nccl_topo_matrix).
std::string gpu_pair_cell(const NcclTopo& topo, std::size_t i, std::size_t j) {
  if (i == j) return std::string("X");
  const NcclTopoGpu& a = topo.gpus[i];
  const NcclTopoGpu& b = topo.gpus[j];
  int links = 0;
  const std::string b_key = bus_key(b.busid);
  for (const NcclTopoNvlink& l : a.nvlinks) {
    if (l.tclass.rfind("0x03", 0) == 0 && bus_key(l.target) == b_key) links += l.count;
  }
  if (a.nvswitch_links > 0 && b.nvswitch_links > 0) links += std::min(a.nvswitch_links, b.nvswitch_links);
  return links > 0 ? fmt::format("NV{}", links) : pcie_relation(a.cpu, a.switches, b.cpu, b.switches);
}

}  // namespace

NcclTopo parse_nccl_topo_xml(std::string_view text, const std::string& file) {
  const XmlElement root = parse_xml(text, file);
  NcclTopoReader reader(file);
  return reader.read(root);
}

NcclTopo load_nccl_topo_xml(const std::string& path) {
  return parse_nccl_topo_xml(read_input_file(path, "NCCL topology dump"), path);
}

TopoMatrix nccl_topo_matrix(const NcclTopo& topo) {
  TopoMatrix m;
  m.file = topo.file;
  const std::size_t n = topo.gpus.size();
  for (std::size_t i = 0; i < n; ++i) {
    m.gpus.push_back(fmt::format("GPU{}", i));
    m.numa_affinity.push_back(topo.gpus[i].numa == "-1" ? "" : topo.gpus[i].numa);
    m.cpu_affinity.push_back(topo.gpus[i].affinity);
  }
  for (const NcclTopoNic& nic : topo.nics) {
    m.nics.push_back(nic.name);
    m.nic_devices.push_back(nic.name);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // Rows built by construction, not by assigning into pre-sized strings (GCC 12 reports a
    // false -Wrestrict overlap on the latter).
    std::vector<std::string> gpu_row;
    for (std::size_t j = 0; j < n; ++j) gpu_row.push_back(gpu_pair_cell(topo, i, j));
    m.gpu_gpu.push_back(std::move(gpu_row));
    const NcclTopoGpu& a = topo.gpus[i];
    std::vector<std::string> nic_row;
    for (const NcclTopoNic& nic : topo.nics) {
      // A virtual NIC (no PCI device) is never near a GPU: no bridge in common.
      nic_row.push_back(pcie_relation(a.cpu, a.switches, nic.cpu, nic.on_pci ? nic.switches : std::vector<int>{}));
    }
    m.gpu_nic.push_back(std::move(nic_row));
  }
  return m;
}

}  // namespace gpuplan
