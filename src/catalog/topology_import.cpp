#include "catalog/topology_import.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalog/nccl_topo_xml.h"
#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {
namespace {

bool near_gpu(const std::string& cell) { return cell == "PIX" || cell == "PXB"; }

std::string nic_for_rate(double gbit) {
  if (gbit == 200) return "connectx6";
  if (gbit == 400) return "connectx7";
  if (gbit == 800) return "connectx8";
  return "";
}

// CUDA compute capability -> the catalog's architecture names (the start of Gpu::architecture).
// Source: NVIDIA, "CUDA GPUs - Compute Capability" (developer.nvidia.com/cuda-gpus) and the CUDA
// C++ Programming Guide's table of compute capabilities: 6.0 GP100, 6.1 GP10x, 7.0 GV100, 7.5
// Turing, 8.0 GA100, 8.6 GA10x, 8.9 Ada, 9.0 Hopper, 10.0 B200/GB200, 10.3 B300/GB300, 12.0
// RTX 50 / RTX PRO Blackwell.
struct SmArchitecture {
  int sm;
  std::string_view name;                    // for messages
  std::vector<std::string_view> prefixes;  // of Gpu::architecture
};

const std::vector<SmArchitecture>& sm_architectures() {
  static const std::vector<SmArchitecture> table = {
      {60, "Pascal GP100", {"Pascal GP100"}},
      {61, "Pascal GP10x", {"Pascal GP102", "Pascal GP104", "Pascal GP106", "Pascal GP107"}},
      {70, "Volta", {"Volta"}},
      {75, "Turing", {"Turing"}},
      {80, "Ampere GA100", {"Ampere GA100"}},
      {86, "Ampere GA10x", {"Ampere GA102", "Ampere GA103", "Ampere GA104", "Ampere GA106", "Ampere GA107"}},
      {89, "Ada", {"Ada"}},
      {90, "Hopper", {"Hopper"}},
      {100, "Blackwell GB100", {"Blackwell GB100"}},
      {103, "Blackwell Ultra", {"Blackwell Ultra"}},
      {120, "Blackwell GB20x", {"Blackwell GB20"}},
  };
  return table;
}

const SmArchitecture* sm_architecture(int sm) {
  for (const SmArchitecture& a : sm_architectures()) {
    if (a.sm == sm) return &a;
  }
  return nullptr;
}

bool has_sm(const Gpu& g, const SmArchitecture& a) {
  if (g.vendor != "NVIDIA") return false;
  return std::any_of(a.prefixes.begin(), a.prefixes.end(),
                     [&](std::string_view p) { return g.architecture.rfind(p, 0) == 0; });
}

// PCIe signalling rate (GT/s) -> generation, as NCCL's kvDictPciGen reads link_speed.
int pcie_generation(double gt_per_s) {
  static constexpr std::pair<double, int> kGens[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}, {128, 7}};
  for (const auto& [gt, gen] : kGens) {
    if (std::abs(gt_per_s - gt) < 0.01) return gen;
  }
  return 0;
}

// How far apart a PCIe relation puts two devices (nvidia-smi's legend, nearest first).
int pcie_distance(const std::string& cell) {
  static constexpr std::string_view kOrder[] = {"PIX", "PXB", "PHB", "NODE", "SOC", "SYS"};
  for (std::size_t i = 0; i < std::size(kOrder); ++i) {
    if (cell == kOrder[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}

// What a source says beyond the matrix (the NCCL dump), for derive_system.
struct TopologyFacts {
  std::string source;                 // "nvidia-smi topo -m", "NCCL topology dump"
  std::optional<bool> nvswitch;       // known from the dump; nullopt = read from the link counts
  int nvswitch_chips = 0;             // distinct NVSwitch targets, 0 = unknown
  std::vector<double> nic_gbit;       // per matrix NIC, 0 = not reported
  std::vector<bool> nic_gdr;          // per matrix NIC (dump only)
  int pcie_gen = 0;                   // of the GPUs' slots, 0 = not reported
  int pcie_width = 0;                 // lanes, 0 = not reported
  int hosts = 1;
};

void derive_scaleup(const Catalog& catalog, const Gpu& gpu, const TopologyFacts& facts, ImportedTopology& out) {
  const TopoMatrix& m = out.matrix;
  System& s = out.system;
  const int n = static_cast<int>(m.gpus.size());
  int nv_min = INT_MAX;
  int nv_max = 0;
  bool all_nvlink = true;
  std::string worst_pcie;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const int k = nvlink_count(m.gpu_gpu[i][j]);
      if (k == 0) {
        all_nvlink = false;
        if (pcie_distance(m.gpu_gpu[i][j]) > pcie_distance(worst_pcie)) worst_pcie = m.gpu_gpu[i][j];
      }
      nv_min = std::min(nv_min, k);
      nv_max = std::max(nv_max, k);
    }
  }
  const Link* nvlink = gpu.scaleup_link.empty() ? nullptr : catalog.find_link(gpu.scaleup_link);
  if (n > 1 && all_nvlink && nvlink && nvlink->per_link_bw_uni_bytes_per_s > 0) {
    s.scaleup_link = nvlink->id;
    const double per_link = nvlink->per_link_bw_uni_bytes_per_s;
    // nvidia-smi: NVSwitch systems report every pair as the GPU's full link count (NV18 on
    // H100): the pairs sum to more links than the GPU has. A direct mesh splits its links among
    // its peers. The NCCL dump says it outright (tclass 0x068000).
    const bool switched = facts.nvswitch ? *facts.nvswitch
                                         : nv_min == nv_max && n > 2 &&
                                               (nvlink->links_per_device == 0 || nv_min * (n - 1) > nvlink->links_per_device);
    if (switched) {
      s.scaleup_topology = "switched";
      s.scaleup_bw_uni_bytes_per_s = nv_min * per_link;
      // The catalog's switch for this NVLink generation (nvswitch3 for nvlink4).
      const Switch* sw = nullptr;
      for (const Switch& candidate : catalog.switches) {
        if (candidate.family == "nvswitch" && candidate.link == nvlink->id) sw = &candidate;
      }
      if (!sw) throw Error(fmt::format("the catalog has no NVSwitch whose ports are '{}'", nvlink->id));
      s.nvswitch = sw->id;
      // NVLS needs NVSwitch gen 3+ (Hopper and later: NVLink 4+); the catalog's switch says so.
      s.in_network_reduction = sw->in_network_reduction;
      // The chips: counted in the dump where it names them; else the fewest whose ports carry
      // every GPU link (a lower bound that never limits: the GPUs' own links do).
      const bool counted = facts.nvswitch_chips > 1;
      s.nvswitch_count = counted ? facts.nvswitch_chips
                                 : std::max(1, sw->ports > 0 ? (n * nv_min + sw->ports - 1) / sw->ports : 1);
      out.derived.push_back(fmt::format(
          "scale-up: {} -> NVSwitch, {} x {:.0f} GB/s = {:.0f} GB/s per GPU one way ({}); {} x {} ({}); {} {}",
          facts.nvswitch ? fmt::format("every GPU's {} NVLinks reach NVSwitches (tclass 0x068000)", nv_min)
                         : fmt::format("every GPU pair NV{}", nv_min),
          nv_min, per_link / 1e9, s.scaleup_bw_uni_bytes_per_s / 1e9, nvlink->id, s.nvswitch_count, sw->id,
          counted ? "the NVSwitches the dump names"
                  : fmt::format("not reported: the fewest whose {} ports carry {} x {} links", sw->ports, n, nv_min),
          sw->reduction_name.empty() ? "NVLS" : sw->reduction_name,
          s.in_network_reduction ? "assumed (the switch has it)" : "not available on this switch"));
    } else {
      s.scaleup_topology = "mesh";
      s.scaleup_per_peer_bw_uni_bytes_per_s = nv_min * per_link;
      s.scaleup_bw_uni_bytes_per_s = (n - 1) * s.scaleup_per_peer_bw_uni_bytes_per_s;
      out.derived.push_back(fmt::format("scale-up: direct NVLink mesh, the thinnest pair NV{} = {:.0f} GB/s per peer "
                                        "one way ({})",
                                        nv_min, s.scaleup_per_peer_bw_uni_bytes_per_s / 1e9, nvlink->id));
    }
  } else if (n > 1) {
    const int gen = facts.pcie_gen > 0 ? facts.pcie_gen : gpu.pcie_gen;
    if (gen <= 0) {
      throw Error(fmt::format("GPUs talk over PCIe ({}) but the catalog has no PCIe generation for '{}'", worst_pcie,
                              gpu.id));
    }
    const Link* pcie = catalog.find_link(fmt::format("pcie{}", gen));
    if (!pcie) throw Error(fmt::format("the catalog has no link 'pcie{}'", gen));
    // NCCL takes a width it cannot read as x16 (topo.cc ncclTopoAddPci); so does this.
    const int lanes = facts.pcie_width > 0 ? std::min(facts.pcie_width, 16) : 16;
    s.scaleup_link = pcie->id;
    s.scaleup_topology = "pcie";
    s.scaleup_bw_uni_bytes_per_s = pcie->per_link_bw_uni_bytes_per_s * lanes / 16;
    out.derived.push_back(fmt::format(
        "scale-up: PCIe (farthest pair {}{}), {} x{} ({}) = {:.1f} GB/s per GPU one way, an upper bound (switch "
        "uplinks and the CPU link are shared)",
        worst_pcie.empty() ? "-" : worst_pcie,
        nv_max > 0 ? fmt::format("; NVLink pairs up to NV{} ignored: a ring crosses PCIe", nv_max) : "", pcie->id,
        lanes,
        facts.pcie_gen > 0 ? (facts.pcie_width > 0 ? "the dump's link_speed and link_width"
                                                   : "the dump's link_speed; width unknown, x16 assumed")
                           : "the GPU's PCIe generation in the catalog",
        s.scaleup_bw_uni_bytes_per_s / 1e9));
  }
}

void derive_scaleout(const Catalog& catalog, const TopologyImportRequest& r, const TopologyFacts& facts,
                     ImportedTopology& out) {
  const TopoMatrix& m = out.matrix;
  System& s = out.system;
  const int n = static_cast<int>(m.gpus.size());
  // NICs under the same PCIe switch as a GPU carry GPUDirect RDMA: the scale-out NICs. Each one's
  // rail is the GPU it shares the nearest switch with (PIX before PXB).
  std::vector<std::size_t> near;
  for (std::size_t k = 0; k < m.nics.size(); ++k) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      if (!near_gpu(m.gpu_nic[i][k])) continue;
      if (best < 0 || (m.gpu_nic[i][k] == "PIX" && m.gpu_nic[best][k] != "PIX")) best = i;
    }
    if (best < 0) continue;
    near.push_back(k);
    out.rails.push_back(fmt::format("{} -> {}", m.nic_devices[k], m.gpus[best]));
  }
  if (near.empty()) {
    out.derived.push_back(m.nics.empty() ? "scale-out: no NIC in the file (one node only)"
                                         : fmt::format("scale-out: none of the {} NICs sits under a GPU's PCIe switch "
                                                       "(no GPUDirect RDMA path): one node only",
                                                       m.nics.size()));
    return;
  }
  const int count = static_cast<int>(near.size());
  if (r.nic_gbit < 0) throw Error(fmt::format("--nic-gbit must be positive (Gb/s per NIC), got {}", r.nic_gbit));
  double gbit = r.nic_gbit;
  std::string rate_from = "--nic-gbit";
  if (!(gbit > 0)) {
    double lo = 0;
    double hi = 0;
    bool all = !facts.nic_gbit.empty();
    for (std::size_t k : near) {
      const double g = k < facts.nic_gbit.size() ? facts.nic_gbit[k] : 0;
      if (!(g > 0)) all = false;
      lo = lo == 0 ? g : std::min(lo, g);
      hi = std::max(hi, g);
    }
    if (!all) {
      throw Error(fmt::format("{} NIC{} sit under a GPU's PCIe switch (PIX/PXB) but {} does not report their speed: "
                              "give --nic-gbit N (e.g. 400 for ConnectX-7 NDR)",
                              count, count == 1 ? "" : "s", facts.source));
    }
    gbit = lo;
    rate_from = lo == hi ? "the dump's speed" : fmt::format("the slowest of the dump's speeds ({:g} to {:g})", lo, hi);
  }
  const std::string nic_id = r.nic.empty() ? nic_for_rate(gbit) : r.nic;
  if (nic_id.empty()) {
    throw Error(fmt::format("NIC rate {:g} Gb/s ({}): no default adapter for that rate; name it with --nic ID", gbit,
                            rate_from));
  }
  const Nic* nic = catalog.find_nic(nic_id);
  if (!nic) throw Error(fmt::format("unknown --nic '{}'; see data/hardware/nics/", nic_id));
  s.nic = nic->id;
  s.nics = count;
  s.nic_bw_uni_bytes_per_s = gbit * 1e9 / 8;
  std::string gdr;
  if (!facts.nic_gdr.empty()) {
    int with = 0;
    for (std::size_t k : near) with += k < facts.nic_gdr.size() && facts.nic_gdr[k] ? 1 : 0;
    gdr = with == count ? "; all GPUDirect RDMA capable (gdr=1)"
                        : fmt::format("; only {} of them GPUDirect RDMA capable (gdr=1)", with);
  }
  out.derived.push_back(fmt::format("scale-out: {} of {} NICs under a GPU's PCIe switch (PIX/PXB), {} at {:g} Gb/s "
                                    "({}){}",
                                    count, m.nics.size(), nic->id, gbit, rate_from, gdr));
  out.derived.push_back(fmt::format("rails: {}", fmt::join(out.rails, ", ")));
}

void derive_system(const Catalog& catalog, const TopologyImportRequest& r, const Gpu& gpu, const TopologyFacts& facts,
                   ImportedTopology& out) {
  const TopoMatrix& m = out.matrix;
  const int n = static_cast<int>(m.gpus.size());
  System& s = out.system;
  s.id = r.id.empty() ? fmt::format("imported-{}-{}", gpu.id, n) : r.id;
  s.name = fmt::format("Imported: {} x {} ({})", n, gpu.name, r.file);
  s.kind = "node";
  s.vendor = "imported";
  s.gpu = gpu.id;
  s.gpus = n;
  s.gpus_per_host = n;
  if (facts.hosts > 1 && n % facts.hosts == 0) {
    s.gpus_per_host = n / facts.hosts;
    out.derived.push_back(fmt::format("hosts: {} (host_hash) with {} GPUs each, one NVLink domain", facts.hosts,
                                      s.gpus_per_host));
  }
  derive_scaleup(catalog, gpu, facts, out);
  derive_scaleout(catalog, r, facts, out);
  std::vector<std::string> numa;
  for (const std::string& a : m.numa_affinity) {
    if (!a.empty() && std::find(numa.begin(), numa.end(), a) == numa.end()) numa.push_back(a);
  }
  s.notes = fmt::format("Imported by gpuplan import-topology from {} ({}): {} GPUs{}. {}", r.file, facts.source, n,
                        numa.empty() ? "" : fmt::format(" over {} NUMA node{}", numa.size(), numa.size() == 1 ? "" : "s"),
                        fmt::format("{}", fmt::join(out.derived, "; ")));
}

// "nccl-xml" when the first character that is not white space is '<'.
std::string detect_format(const std::string& path) {
  const std::string text = read_input_file(path, "topology file");
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c == '<' ? "nccl-xml" : "nvidia-smi";
  }
  return "nvidia-smi";  // an empty file: its reader says what is missing
}

const Gpu& require_gpu(const Catalog& catalog, const TopologyImportRequest& r, const char* why) {
  if (r.gpu.empty()) throw Error(fmt::format("give --gpu ID: {} (see 'gpuplan gpus')", why));
  const Gpu* gpu = catalog.find_gpu(r.gpu);
  if (!gpu) throw Error(fmt::format("unknown --gpu '{}'; see 'gpuplan gpus'", r.gpu));
  return *gpu;
}

ImportedTopology import_nvidia_smi(const Catalog& catalog, const TopologyImportRequest& r) {
  const Gpu& gpu = require_gpu(catalog, r, "nvidia-smi topo -m does not name the GPU model");
  ImportedTopology out;
  out.format = "nvidia-smi";
  out.matrix = load_nvidia_smi_topo(r.file);
  TopologyFacts facts;
  facts.source = "nvidia-smi topo -m";
  derive_system(catalog, r, gpu, facts, out);
  return out;
}

ImportedTopology import_nccl_xml(const Catalog& catalog, const TopologyImportRequest& r) {
  const NcclTopo topo = load_nccl_topo_xml(r.file);
  ImportedTopology out;
  out.format = "nccl-xml";
  const int sm = topo.gpus.front().sm;
  for (const NcclTopoGpu& g : topo.gpus) {
    if (g.pci_device != topo.gpus.front().pci_device) {
      throw Error(fmt::format("{}:{}: GPU dev {} is PCI device {} but GPU dev {} is {}: a system holds one GPU model",
                              r.file, g.line, g.dev, g.pci_device.empty() ? "(none)" : g.pci_device,
                              topo.gpus.front().dev,
                              topo.gpus.front().pci_device.empty() ? "(none)" : topo.gpus.front().pci_device));
    }
    if (g.sm != sm) {
      throw Error(fmt::format("{}:{}: GPU dev {} reports sm={} but GPU dev {} sm={}: a system holds one GPU model",
                              r.file, g.line, g.dev, g.sm, topo.gpus.front().dev, sm));
    }
  }
  out.sm = sm;
  out.gpu_candidates = gpus_with_sm(catalog, sm);
  const SmArchitecture* arch = sm_architecture(sm);
  const std::string sm_text = arch ? fmt::format("sm={} ({})", sm, arch->name) : fmt::format("sm={}", sm);
  const std::string candidates =
      out.gpu_candidates.empty() ? "" : fmt::format("; the catalog has {}", fmt::join(out.gpu_candidates, ", "));
  // The PCI device id names the part where sm= names only the architecture (H100 and H200 are
  // both sm=90): the catalog GPUs whose [pci] lists the dump's id.
  const std::string pci = topo.gpus.front().pci_device;
  std::vector<std::string> by_pci;
  if (!pci.empty()) {
    for (const Gpu& g : catalog.gpus) {
      if (std::find(g.pci_device_ids.begin(), g.pci_device_ids.end(), pci) != g.pci_device_ids.end()) by_pci.push_back(g.id);
    }
  }
  TopologyImportRequest named = r;
  if (named.gpu.empty() && by_pci.size() == 1) {
    named.gpu = by_pci.front();
    out.derived.push_back(fmt::format("GPU: {} from the dump's PCI device id {}", named.gpu, pci));
  }
  const Gpu& gpu = require_gpu(
      catalog, named, fmt::format("the dump names the compute capability, {}, not the model{}", sm_text, candidates).c_str());
  if (!pci.empty() && !gpu.pci_device_ids.empty() &&
      std::find(gpu.pci_device_ids.begin(), gpu.pci_device_ids.end(), pci) == gpu.pci_device_ids.end()) {
    throw Error(fmt::format("--gpu '{}' is PCI device {} but the dump's GPUs are PCI device {}{}", r.gpu,
                            fmt::join(gpu.pci_device_ids, " or "), pci,
                            by_pci.empty() ? std::string(": no catalog GPU lists that id; give the GPU you ran on")
                                           : fmt::format(": give --gpu {}", fmt::join(by_pci, " or "))));
  }
  if (!pci.empty() && gpu.pci_device_ids.empty()) {
    out.derived.push_back(fmt::format("PCI device id {} not checked: the catalog has no [pci] ids for {}", pci, gpu.id));
  }
  if (arch && !has_sm(gpu, *arch)) {
    throw Error(fmt::format("--gpu '{}' is {} ({}) but the dump's GPUs report {}: give one of {}", r.gpu, gpu.architecture,
                            gpu.vendor, sm_text,
                            out.gpu_candidates.empty() ? std::string("(none in the catalog)")
                                                       : fmt::format("{}", fmt::join(out.gpu_candidates, ", "))));
  }
  out.matrix = nccl_topo_matrix(topo);
  TopologyFacts facts;
  facts.source = "the NCCL topology dump";
  facts.hosts = topo.hosts;
  bool all_switch = topo.gpus.size() > 1;
  bool any_direct = false;
  std::vector<std::string> chips;
  for (const NcclTopoGpu& g : topo.gpus) {
    all_switch = all_switch && g.nvswitch_links > 0;
    for (const NcclTopoNvlink& l : g.nvlinks) {
      if (l.tclass.rfind("0x03", 0) == 0) any_direct = true;
      if (l.tclass == "0x068000" && std::find(chips.begin(), chips.end(), l.target) == chips.end()) chips.push_back(l.target);
    }
  }
  facts.nvswitch = all_switch && !any_direct;
  facts.nvswitch_chips = static_cast<int>(chips.size());
  for (const NcclTopoNic& nic : topo.nics) {
    facts.nic_gbit.push_back(nic.speed_mbit_per_s / 1000);  // NCCL writes Mbit/s
    facts.nic_gdr.push_back(nic.gdr);
  }
  // The slowest slot: NCCL writes the lower of the GPU's and its upstream port's rate and width.
  for (const NcclTopoGpu& g : topo.gpus) {
    const int gen = pcie_generation(g.link_gt_per_s);
    if (gen > 0) facts.pcie_gen = facts.pcie_gen == 0 ? gen : std::min(facts.pcie_gen, gen);
    if (g.link_width > 0) facts.pcie_width = facts.pcie_width == 0 ? g.link_width : std::min(facts.pcie_width, g.link_width);
  }
  out.derived.push_back(fmt::format("GPUs: {} with {} (NCCL dump), --gpu {}", topo.gpus.size(), sm_text, gpu.id));
  if (facts.pcie_gen > 0 && facts.pcie_width > 0) {
    out.derived.push_back(fmt::format("PCIe: Gen{} x{} per GPU (the dump's link_speed/link_width)", facts.pcie_gen,
                                      facts.pcie_width));
  } else if (facts.pcie_gen > 0) {
    // A VM's dump may say link_width="0": the width is unknown, not 16 (NCCL assumes 16).
    out.derived.push_back(fmt::format("PCIe: Gen{} per GPU (the dump's link_speed); link width unknown (the dump "
                                      "gives none or 0), x16 assumed as NCCL does",
                                      facts.pcie_gen));
  }
  derive_system(catalog, named, gpu, facts, out);
  return out;
}

}  // namespace

std::vector<std::string> gpus_with_sm(const Catalog& catalog, int sm) {
  std::vector<std::string> ids;
  const SmArchitecture* arch = sm_architecture(sm);
  if (!arch) return ids;
  for (const Gpu& g : catalog.gpus) {
    if (has_sm(g, *arch)) ids.push_back(g.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

ImportedTopology import_topology(const Catalog& catalog, const TopologyImportRequest& r) {
  std::string format = r.format;
  if (format.empty()) {
    format = detect_format(r.file);
  } else if (format != "nccl-xml" && format != "nvidia-smi") {
    throw Error(fmt::format("--format '{}': expected nccl-xml (NCCL_TOPO_DUMP_FILE) or nvidia-smi (nvidia-smi topo -m)",
                            format));
  }
  if (r.nic_gbit < 0) throw Error(fmt::format("--nic-gbit must be positive (Gb/s per NIC), got {}", r.nic_gbit));
  return format == "nccl-xml" ? import_nccl_xml(catalog, r) : import_nvidia_smi(catalog, r);
}

}  // namespace gpuplan
