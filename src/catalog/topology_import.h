// A catalog `system` entry built from what a machine reports, for PCIe servers and other boxes
// the catalog does not hold: `gpuplan import-topology FILE --gpu G` writes it as TOML the user
// keeps and passes back with `--catalog FILE`. Two sources, told apart by their first character
// ('<' = XML) or by --format:
//
// - `nvidia-smi topo -m` (catalog/nvidia_smi_topo.h): which GPUs talk over NVLink (NV#: # bonded
//   links) and which over PCIe (PIX/PXB/PHB/NODE/SYS), which NICs sit under the same PCIe switch
//   as a GPU (PIX/PXB: GPUDirect RDMA), and each GPU's CPU/NUMA affinity. It does not name the
//   GPU model, the NIC speed or the switch chips.
// - NCCL's topology dump, NCCL_TOPO_DUMP_FILE (catalog/nccl_topo_xml.h): the same, plus whether
//   the NVLinks reach NVSwitches (and how many), each GPU's compute capability (sm), its PCIe
//   link rate and width, and each NIC's speed. It does not name the GPU model either: the sm
//   narrows it to the catalog GPUs of that architecture, and --gpu picks (and is checked).
//
// Both become one TopoMatrix, and one function derives the system from it; the notes say which
// figure came from the file, which from the catalog and which from a flag.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/nvidia_smi_topo.h"

namespace gpuplan {

struct TopologyImportRequest {
  std::string file;     // nvidia-smi topo -m output, or an NCCL topology dump
  std::string format;   // "" = detect, "nvidia-smi" or "nccl-xml"
  std::string gpu;      // catalog GPU id or alias (required: neither source names the model)
  std::string id;       // the system id to write; "" = "imported-<gpu>-<n>"
  std::string nic;      // catalog NIC id; "" = chosen from the rate (400: connectx7, 200: connectx6, 800: connectx8)
  // One NIC's line rate, Gb/s. nvidia-smi: needed when the matrix has NICs near GPUs. NCCL XML:
  // overrides the speed the dump reports (0 = use the dump's).
  double nic_gbit = 0;
};

struct ImportedTopology {
  System system;                     // as the catalog would hold it
  std::vector<std::string> derived;  // one line per field: what it was derived from
  TopoMatrix matrix;
  std::string format;  // "nvidia-smi" | "nccl-xml"
  // NCCL XML only (0 / empty otherwise):
  int sm = 0;                               // the GPUs' compute capability x 10
  std::vector<std::string> gpu_candidates;  // catalog GPUs of that architecture
  std::vector<std::string> rails;           // "mlx5_0 -> GPU0", one per NIC near a GPU
};

ImportedTopology import_topology(const Catalog& catalog, const TopologyImportRequest& request);

// Catalog GPUs (ids) whose architecture has compute capability `sm` (x 10); empty for an sm
// this table does not know.
std::vector<std::string> gpus_with_sm(const Catalog& catalog, int sm);

}  // namespace gpuplan
