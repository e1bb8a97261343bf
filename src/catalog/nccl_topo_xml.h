// NCCL's topology dump (NCCL_TOPO_DUMP_FILE=FILE; the same format NCCL_TOPO_FILE reads back),
// as NCCL writes it (src/graph/xml.cc ncclTopoDumpXmlRec, src/graph/topo.cc):
//
//   <system version="1">
//     <cpu numaid="0" affinity=".." arch="x86_64" vendor="GenuineIntel" host_hash="0x..">
//       <pci busid="0000:16:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">  a PCIe switch
//         <pci busid="0000:18:00.0" class="0x030200" device="0x2335" link_speed=".." link_width="16">
//           <gpu dev="0" sm="90" rank="0" gdr="1">
//             <nvlink target="0000:07:00.0" count="5" tclass="0x068000"/>   5 links to an NVSwitch
//           </gpu>
//         </pci>
//         <pci busid="0000:19:00.0" class="0x020000" ..>
//           <nic><net name="mlx5_0" dev="0" speed="400000" port="1" gdr="1" .../></nic>  speed in Mbit/s
//         </pci>
//       </pci>
//     </cpu>
//   </system>
//
// PCI switches nest; an nvlink's tclass is the PCI class of what it reaches: 0x068000 an NVSwitch
// (NCCL also writes it for a switch a VM hides, target "fffffff:ff:ff.0"), 0x03.... a GPU
// (direct mesh), 0x068001 a CPU (POWER9). `c2c` (Grace) and `pcilink` elements are read and
// not used. A <nic> may sit in a NIC's <pci> element or, for a virtual NIC, straight under <cpu>.
//
// Strict: an element NCCL does not write where it stands, a missing or malformed attribute that
// the import needs (gpu dev/sm, nvlink target/count/tclass, net name/speed) or a second GPU with
// the same bus id throws Error("FILE:LINE: ...") naming what was expected.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/nvidia_smi_topo.h"

namespace gpuplan {

struct NcclTopoNvlink {
  std::string target;  // PCI bus id, lower case
  int count = 0;       // links to that target
  std::string tclass;  // "0x068000" (NVSwitch), "0x030200" (GPU), ...
};

struct NcclTopoGpu {
  int dev = -1;
  int rank = -1;     // -1 when absent
  int sm = 0;        // compute capability x 10 (90 = Hopper)
  std::string busid;  // of its <pci> element, lower case
  std::string pci_device;  // PCI device id ("0x2330"), "" when absent
  double link_gt_per_s = 0;  // PCIe signalling rate of its slot (32 = Gen5), 0 when absent
  int link_width = 0;        // lanes, 0 when absent (NCCL then assumes 16)
  int cpu = 0;               // index of its <cpu> element
  std::string host;          // the <cpu>'s host_hash ("" when absent)
  std::string numa;          // the <cpu>'s numaid
  std::string affinity;      // the <cpu>'s CPU mask ("" when absent)
  std::vector<int> switches;  // ids of the PCI bridges above it, the CPU's side first
  std::vector<NcclTopoNvlink> nvlinks;
  int nvswitch_links = 0;  // sum of counts with tclass 0x068000
  int line = 0;
};

struct NcclTopoNic {
  std::string name;  // "mlx5_0"
  int dev = -1;
  double speed_mbit_per_s = 0;  // as NCCL writes it (400000 = 400 Gb/s); 0 = not reported
  bool gdr = false;             // GPUDirect RDMA capable (gdr="1")
  int cpu = 0;
  std::vector<int> switches;  // PCI bridges above the adapter
  bool on_pci = false;        // false: a virtual NIC straight under <cpu>
  int line = 0;
};

struct NcclTopo {
  std::string file;
  std::vector<NcclTopoGpu> gpus;  // in file order
  std::vector<NcclTopoNic> nics;  // one per <net> (a dual-port adapter gives two)
  int cpus = 0;
  int hosts = 0;  // distinct host_hash values (1 when none is written)
};

NcclTopo parse_nccl_topo_xml(std::string_view text, const std::string& file);
NcclTopo load_nccl_topo_xml(const std::string& path);

// The dump as the `nvidia-smi topo -m` matrix names it, so both imports derive a system in one
// place: GPU pairs joined by NVLink are "NV<links>" (direct links, plus the smaller of the two
// GPUs' NVSwitch link counts when both reach NVSwitches); other pairs and every GPU-NIC pair are
// PIX (one PCIe switch between them), PXB (several), NODE (the same CPU, no common switch) or
// SYS (another CPU). NICs are named by their <net name>; affinities are the <cpu>'s.
TopoMatrix nccl_topo_matrix(const NcclTopo& topo);

}  // namespace gpuplan
