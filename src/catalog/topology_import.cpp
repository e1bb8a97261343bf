#include "catalog/topology_import.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace gpuplan {
namespace {

bool near_gpu(const std::string& cell) { return cell == "PIX" || cell == "PXB"; }

std::string nic_for_rate(double gbit) {
  if (gbit == 200) return "connectx6";
  if (gbit == 400) return "connectx7";
  if (gbit == 800) return "connectx8";
  return "";
}

}  // namespace

ImportedTopology import_topology(const Catalog& catalog, const TopologyImportRequest& r) {
  if (r.gpu.empty()) {
    throw Error("give --gpu ID: nvidia-smi topo -m does not name the GPU model (see 'gpuplan gpus')");
  }
  const Gpu* gpu = catalog.find_gpu(r.gpu);
  if (!gpu) throw Error(fmt::format("unknown --gpu '{}'; see 'gpuplan gpus'", r.gpu));
  if (r.nic_gbit < 0) throw Error(fmt::format("--nic-gbit must be positive (Gb/s per NIC), got {}", r.nic_gbit));
  ImportedTopology out;
  out.matrix = load_nvidia_smi_topo(r.file);
  const TopoMatrix& m = out.matrix;
  const int n = static_cast<int>(m.gpus.size());
  System& s = out.system;
  s.id = r.id.empty() ? fmt::format("imported-{}-{}", gpu->id, n) : r.id;
  s.name = fmt::format("Imported: {} x {} ({})", n, gpu->name, r.file);
  s.kind = "node";
  s.vendor = "imported";
  s.gpu = gpu->id;
  s.gpus = n;

  // GPU to GPU: NVLink between every pair, or PCIe somewhere.
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
        worst_pcie = m.gpu_gpu[i][j];
      }
      nv_min = std::min(nv_min, k);
      nv_max = std::max(nv_max, k);
    }
  }
  const Link* nvlink = gpu->scaleup_link.empty() ? nullptr : catalog.find_link(gpu->scaleup_link);
  if (n > 1 && all_nvlink && nvlink && nvlink->per_link_bw_uni_bytes_per_s > 0) {
    s.scaleup_link = nvlink->id;
    const double per_link = nvlink->per_link_bw_uni_bytes_per_s;
    // NVSwitch systems report every pair as the GPU's full link count (NV18 on H100): the pairs
    // sum to more links than the GPU has. A direct mesh splits its links among its peers.
    const bool switched = nv_min == nv_max && n > 2 &&
                          (nvlink->links_per_device == 0 || nv_min * (n - 1) > nvlink->links_per_device);
    if (switched) {
      s.scaleup_topology = "switched";
      s.scaleup_bw_uni_bytes_per_s = nv_min * per_link;
      // NVLS needs NVSwitch gen 3+ (Hopper and later: NVLink 4+).
      s.in_network_reduction = nvlink->family == "nvlink" && !nvlink->generation.empty() &&
                               std::atoi(nvlink->generation.c_str()) >= 4;
      out.derived.push_back(fmt::format("scale-up: every GPU pair NV{} -> NVSwitch, {} x {:.0f} GB/s = {:.0f} GB/s per "
                                        "GPU one way ({}); NVLS {} (NVSwitch gen 3+ with NVLink 4+)",
                                        nv_min, nv_min, per_link / 1e9, s.scaleup_bw_uni_bytes_per_s / 1e9,
                                        nvlink->id, s.in_network_reduction ? "assumed" : "not assumed"));
    } else {
      s.scaleup_topology = "mesh";
      s.scaleup_per_peer_bw_uni_bytes_per_s = nv_min * per_link;
      s.scaleup_bw_uni_bytes_per_s = (n - 1) * s.scaleup_per_peer_bw_uni_bytes_per_s;
      out.derived.push_back(fmt::format("scale-up: direct NVLink mesh, the thinnest pair NV{} = {:.0f} GB/s per peer "
                                        "one way ({})",
                                        nv_min, s.scaleup_per_peer_bw_uni_bytes_per_s / 1e9, nvlink->id));
    }
  } else if (n > 1) {
    if (gpu->pcie_gen <= 0) {
      throw Error(fmt::format("GPUs talk over PCIe ({}) but the catalog has no PCIe generation for '{}'", worst_pcie,
                              gpu->id));
    }
    const Link* pcie = catalog.find_link(fmt::format("pcie{}", gpu->pcie_gen));
    if (!pcie) throw Error(fmt::format("the catalog has no link 'pcie{}'", gpu->pcie_gen));
    s.scaleup_link = pcie->id;
    s.scaleup_topology = "pcie";
    s.scaleup_bw_uni_bytes_per_s = pcie->per_link_bw_uni_bytes_per_s;
    out.derived.push_back(fmt::format(
        "scale-up: PCIe (farthest pair {}{}), one x16 {} slot = {:.1f} GB/s per GPU one way, an upper bound (switch "
        "uplinks and the CPU link are shared)",
        worst_pcie.empty() ? "-" : worst_pcie, nv_max > 0 ? fmt::format("; NVLink pairs up to NV{} ignored: a ring "
                                                                          "crosses PCIe", nv_max)
                                                          : "",
        pcie->id, s.scaleup_bw_uni_bytes_per_s / 1e9));
  }

  // NICs under the same PCIe switch as a GPU carry GPUDirect RDMA: the scale-out NICs.
  int near = 0;
  for (std::size_t k = 0; k < m.nics.size(); ++k) {
    bool any = false;
    for (int i = 0; i < n; ++i) any = any || near_gpu(m.gpu_nic[i][k]);
    if (any) ++near;
  }
  if (near > 0) {
    if (!(r.nic_gbit > 0)) {
      throw Error(fmt::format("{} NIC{} sit under a GPU's PCIe switch (PIX/PXB) but nvidia-smi does not report "
                              "their speed: give --nic-gbit N (e.g. 400 for ConnectX-7 NDR)",
                              near, near == 1 ? "" : "s"));
    }
    const std::string nic_id = r.nic.empty() ? nic_for_rate(r.nic_gbit) : r.nic;
    if (nic_id.empty()) {
      throw Error(fmt::format("--nic-gbit {}: no default adapter for that rate; name it with --nic ID", r.nic_gbit));
    }
    const Nic* nic = catalog.find_nic(nic_id);
    if (!nic) throw Error(fmt::format("unknown --nic '{}'; see data/hardware/nics/", nic_id));
    s.nic = nic->id;
    s.nics = near;
    s.nic_bw_uni_bytes_per_s = r.nic_gbit * 1e9 / 8;
    out.derived.push_back(fmt::format("scale-out: {} of {} NICs under a GPU's PCIe switch (PIX/PXB), {} at {:g} Gb/s "
                                      "(--nic-gbit; nvidia-smi does not report it)",
                                      near, m.nics.size(), nic->id, r.nic_gbit));
  } else {
    out.derived.push_back(m.nics.empty() ? "scale-out: no NIC in the matrix (one node only)"
                                         : fmt::format("scale-out: none of the {} NICs sits under a GPU's PCIe switch "
                                                       "(no GPUDirect RDMA path): one node only",
                                                       m.nics.size()));
  }
  std::vector<std::string> numa;
  for (const std::string& a : m.numa_affinity) {
    if (!a.empty() && std::find(numa.begin(), numa.end(), a) == numa.end()) numa.push_back(a);
  }
  s.notes = fmt::format("Imported by gpuplan import-topology from {} (nvidia-smi topo -m): {} GPUs{}. {}", r.file, n,
                        numa.empty() ? "" : fmt::format(" over {} NUMA node{}", numa.size(), numa.size() == 1 ? "" : "s"),
                        fmt::format("{}", fmt::join(out.derived, "; ")));
  return out;
}

}  // namespace gpuplan
