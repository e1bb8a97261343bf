// A catalog `system` entry built from what a machine reports (`nvidia-smi topo -m`), for PCIe
// servers and other boxes the catalog does not hold: `gpuplan import-topology FILE --gpu G`
// writes it as TOML the user keeps and passes back with `--catalog FILE`.
//
// What the matrix says and what it cannot: which GPUs talk over NVLink (NV#: # bonded links)
// and which over PCIe (PIX/PXB/PHB/NODE/SYS), which NICs sit under the same PCIe switch as a
// GPU (PIX/PXB: GPUDirect RDMA), and each GPU's CPU/NUMA affinity. It does not name the GPU
// model, the NIC speed or the switch chips: those come from --gpu, --nic/--nic-gbit and the
// catalog (the GPU's NVLink generation and PCIe generation), and the notes say which is which.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/nvidia_smi_topo.h"

namespace gpuplan {

struct TopologyImportRequest {
  std::string file;     // nvidia-smi topo -m output
  std::string gpu;      // catalog GPU id or alias (required: the matrix does not name it)
  std::string id;       // the system id to write; "" = "imported-<gpu>-<n>"
  std::string nic;      // catalog NIC id; "" = chosen from nic_gbit (400: connectx7, 200: connectx6, 800: connectx8)
  double nic_gbit = 0;  // one NIC's line rate, Gb/s; needed when the matrix has NICs near GPUs
};

struct ImportedTopology {
  System system;                    // as the catalog would hold it
  std::vector<std::string> derived;  // one line per field: what it was derived from
  TopoMatrix matrix;
};

ImportedTopology import_topology(const Catalog& catalog, const TopologyImportRequest& request);

}  // namespace gpuplan
