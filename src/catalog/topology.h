// Links, switches, NICs, systems (nodes and racks) and fabrics, in SI units.
// Loaded from data/hardware/{links,switches,nics,systems,fabrics}/*.toml by topology_parse.cpp.
// Bandwidths are one direction ("uni"): vendor headlines (NVLink 4 "900 GB/s") are
// bidirectional totals, and collective formulas need the one-way figure.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/provenance.h"

namespace gpuplan {

// A link technology: NVLink 4, PCIe 5.0 x16, InfiniBand NDR, 400GbE, xGMI, ICI, ...
struct Link {
  std::string id;  // "nvlink4", "pcie5", "ib-ndr"
  std::vector<std::string> aliases;
  std::string name;
  std::string family;  // nvlink | pcie | infiniband | ethernet | xgmi | ici | neuronlink | c2c
  std::string generation;
  double per_link_bw_uni_bytes_per_s = 0;  // one link (or one x16 slot, one port)
  int links_per_device = 0;                // 0 = not applicable
  double device_bw_uni_bytes_per_s = 0;    // all links of one device, one direction
  std::optional<double> latency_s;         // typical one-hop latency where published
  std::string notes;
  Provenance provenance;
};

// A switch ASIC or tray: NVSwitch generations, InfiniBand and Ethernet switches.
struct Switch {
  std::string id;  // "nvswitch3", "qm9700"
  std::vector<std::string> aliases;
  std::string name;
  std::string family;  // nvswitch | infiniband | ethernet
  std::string link;    // link id of its ports
  int ports = 0;
  double port_bw_uni_bytes_per_s = 0;
  double capacity_uni_bytes_per_s = 0;  // all ports, one direction
  bool in_network_reduction = false;    // NVLS on NVSwitch 3+, SHARP on InfiniBand
  std::string reduction_name;           // "NVLS", "SHARPv3", ...
  std::optional<double> latency_s;
  std::string notes;
  Provenance provenance;
};

// A network adapter used for scale-out.
struct Nic {
  std::string id;  // "connectx7"
  std::vector<std::string> aliases;
  std::string name;
  std::string link;  // link id ("ib-ndr")
  double bw_uni_bytes_per_s = 0;  // line rate, one direction
  int pcie_gen = 0;
  // Physical cards behind this one NET device (aws-ofi-nccl's RDMA protocol groups the EFA cards
  // nearest a GPU into one device and stripes across them); 1 = a card.
  int rails = 1;
  std::optional<double> latency_s;
  std::string notes;
  Provenance provenance;
};

// A node or rack: one scale-up domain (GPUs joined by NVLink/NVSwitch, xGMI or PCIe).
struct System {
  std::string id;  // "dgx-h100", "gb200-nvl72", "workstation-4x-rtx4090"
  std::vector<std::string> aliases;
  std::string name;
  std::string kind;  // node | rack | workstation
  std::string vendor;
  std::string gpu;   // gpu id
  int gpus = 0;      // GPUs in the scale-up domain
  int gpus_per_host = 0;  // GPUs per OS instance / compute tray (NVL72: 4; DGX: 8 = gpus)
  std::string scaleup_link;      // link id
  std::string scaleup_topology;  // switched | mesh (point-to-point, AMD) | pcie | torus | none
  double scaleup_bw_uni_bytes_per_s = 0;  // per GPU, one direction, into the domain
  double scaleup_per_peer_bw_uni_bytes_per_s = 0;  // mesh only: to one peer
  std::string nvswitch;          // switch id, empty when not switched
  int nvswitch_count = 0;        // switch chips in the domain (NVL72: 18)
  int nvswitch_trays = 0;        // trays holding them, where they come in trays (NVL72: 9); 0 = n/a
  bool in_network_reduction = false;  // NVLS (NVSwitch 3+) available inside the domain
  std::string nic;                    // nic id for scale-out
  int nics = 0;                       // per scale-up domain
  // The transport its NICs run collectives over ("infiniband", "roce", "efa", "tcpxo"; an id of
  // data/fitted/collectives [[transport]]); "" = the one listing its NIC, else its link family's.
  std::string scaleout_transport;
  double nic_bw_uni_bytes_per_s = 0;  // one NIC, one direction (line rate)
  // The CPU side of one host (OS instance, `gpus_per_host` GPUs), where the file has a [host]
  // table; 0 / empty = not in the catalog. Used by optimizer offload.
  std::string host_cpus;
  double host_memory_bytes = 0;           // DRAM of one host
  double host_memory_bw_bytes_per_s = 0;  // peak DRAM bandwidth of one host (all channels)
  std::optional<double> power_w;      // whole node/rack
  std::string notes;
  Provenance provenance;
  // Sections whose figures come from a source other than the file's ("scaleup", "scaleout").
  std::vector<std::pair<std::string, Provenance>> section_provenance;

  // Scale-out bandwidth per GPU, one direction (H100 DGX: 8 × 50 GB/s / 8 GPUs = 50 GB/s).
  double scaleout_bw_uni_bytes_per_s_per_gpu() const {
    return gpus > 0 ? nics * nic_bw_uni_bytes_per_s / gpus : 0;
  }
};

// One level of a fat tree above the node: leaf (scalable unit), spine, core.
struct FabricLevel {
  std::string name;  // "leaf", "spine", "core"
  int gpus = 0;      // GPUs under one unit of this level (SU: 256; pod: 1,024)
  std::string switch_id;
  int switches = 0;                     // switches in one unit of this level (0 = not stated)
  int down_ports_per_switch = 0;        // ports of each switch facing the level below (0 = not stated)
  double port_bw_uni_bytes_per_s = 0;   // line rate of those ports, one direction
  // Aggregate one-way bandwidth into one unit of this level, W_i: switches x down ports x port
  // rate when the ports are given (SuperPOD spine: 16 x 64 x 50 GB/s = 51.2 TB/s).
  double bw_uni_bytes_per_s = 0;
  double oversubscription = 1.0;        // downlink : uplink ratio (1 = full bisection)
  std::string notes;

  // Per-GPU share at this level: W_i / GPUs (H100 SuperPOD: leaf and spine 50 GB/s; seed 004
  // says 25 GB/s at the spine, see docs/seed-errata.md).
  double bw_per_gpu_uni_bytes_per_s() const { return gpus > 0 ? bw_uni_bytes_per_s / gpus : 0; }
};

// A scale-out fabric built from one kind of system.
struct Fabric {
  std::string id;  // "dgx-superpod-h100"
  std::vector<std::string> aliases;
  std::string name;
  std::string system;  // system id of its nodes
  bool rail_optimized = false;
  bool in_network_reduction = false;  // SHARP in the switches
  std::vector<FabricLevel> levels;    // innermost (leaf) first
  std::string notes;
  Provenance provenance;
};

}  // namespace gpuplan
